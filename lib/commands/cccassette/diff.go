package cccassette

import (
	"github.com/ccpipe/ccpipe/lib/cassette"
	"github.com/ccpipe/ccpipe/lib/cli"
)

const diffHelp = `usage: cc-cassette diff [flags] PARENT CHILD

Compares two cassettes as Blackbox's diff does. Both must load and pass
the hash-chain check. Steps are compared from 0: by stored hash (the
default; because hashes chain, a fork diverges exactly at its first
changed step, and two separate recordings at step 0, their timestamps
differing), or with --semantic by step type and canonical payload only
(timestamps, ids and hashes ignored), for two separate recordings of the
same task. The outcome comparison is computed either way.

Output: one record: same (no divergence), semantic, parent_id, child_id,
parent_steps, child_steps, shared_prefix_length, first_divergence (null
when same) {index, path (first differing field inside the step, such as
"payload.result.available" or "timestamp"; absent when a side has no
step), summary ("tool_result differs at index 3", "parent ended before
child at index 5", ...), parent and child {type, hash, summary} (null
when that side has no step), changed_field (result, toolInput, calls or
text, when both payloads have it)}, parent_is_strict_prefix,
child_is_strict_prefix, outcome {parent_status, child_status,
status_changed, final_answer_changed, tool_sequence_changed,
parent_tools, child_tools, behaviorally_equivalent, verdict}.

One of PARENT and CHILD may be "-" (stdin).

Differences from Blackbox: exit 1 when the cassettes differ, like
diff(1) (Blackbox's diff exits 0 either way); the output is a record, not
text.

Examples:
  $ cc-cassette diff parent.json child.json --jq .first_divergence.index
  $ cc-cassette diff --semantic monday.ndjson tuesday.ndjson --jq .outcome.verdict -r

Both cassettes are read a step at a time, in lockstep: memory holds one
step of each, whatever their length.

Exit status: 0 same, 1 different or a cassette could not be read or
failed the chain check, 2 usage error.`

func diffCommand() *cli.Command {
	var semantic bool
	return &cli.Command{
		Name:     "diff",
		Short:    "first divergence of two cassettes, and how the outcome changed",
		Synopsis: "cc-cassette diff [--semantic] PARENT CHILD",
		Help:     diffHelp,
		SetFlags: func(f *cli.Flags) {
			f.BoolVar(&semantic, "semantic", false, "compare step type and payload only (for two separate recordings)")
		},
		Run: func(env *cli.Env, args []string) error {
			if len(args) != 2 {
				return cli.Usagef("diff takes two cassettes, PARENT and CHILD")
			}
			if args[0] == "-" && args[1] == "-" {
				return cli.Usagef("only one of PARENT and CHILD can be stdin")
			}
			// Both read a step at a time, in lockstep: memory holds a step
			// of each, whatever their length.
			var in [2]*oneStream
			for i, name := range args {
				o, err := openOne(env, name)
				if err != nil {
					return err
				}
				defer o.r.Close()
				in[i] = o
			}
			d := cassette.NewDiffer(in[0].header, in[1].header, semantic)
			for {
				a, err := in[0].next()
				if err != nil {
					return err
				}
				b, err := in[1].next()
				if err != nil {
					return err
				}
				if a == nil && b == nil {
					break
				}
				d.Steps(a, b)
			}
			res := d.Result()
			if err := env.Out.Write(res); err != nil {
				return err
			}
			if !res.Same {
				return exitFail()
			}
			return nil
		},
	}
}
