package cccassette

import (
	"errors"
	"io"

	"github.com/ccpipe/ccpipe/lib/cassette"
	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/records"
)

const verifyHelp = `usage: cc-cassette verify [flags] [CASSETTE... | -]

Checks each cassette (every one in each file or in stdin) as Blackbox's
verify does, streaming: memory is bounded by the largest step. The four
checks run in order and the first failure turns every later one into
"skip":
  schema_version       the header's version is the number 2
  hash_chain           each step's index is its position, prevHash links to
                       the previous hash (null for step 0), and the stored
                       hash is SHA-256 of the canonical {index, type,
                       timestamp, payload, prevHash}; a step of an unknown
                       type fails here (its type is not printed)
  provider_neutrality  no provider ids or credentials: outside user data
                       toolu_/msg_/call_/chatcmpl-/resp_ ids, sk-ant, sk-proj,
                       sk-, Bearer tokens, the env-var names and the keys
                       usage, stop_reason, stop_sequence, finish_reason,
                       system_fingerprint; inside user data (toolInput,
                       result, error, inputSchema, text, content,
                       systemPrompt) only real key shapes
  replayability        a run_completed/success claim must be the terminal
                       status; a known step with a null payload fails
A found secret is named by its label and location, never printed.

Output: one record per cassette (on a terminal a table: pass, path, id,
steps, status and the first failure; --format picks another): pass,
path, id, steps, status (success |
error | incomplete), invariants [{name, status (pass | fail | skip),
detail, step_index?}] in the order above, first_failure (the failing
invariant, when any), findings [{label, step?, path}] (where each marker
or secret was found; step absent for the header; at most 100). A cassette
that cannot be read gives a schema_version failure whose detail is the
error (the line and what is wrong, never the content).

Differences from Blackbox: field names are snake_case; the record adds id,
steps, status and findings; a step that cannot be hashed (missing field,
non-finite number) names its index.

Examples:
  $ cc-cassette verify run.ndjson
  $ cc-cassette verify traces/*.json --jq 'select(.pass|not) | .path' -r

Exit status: 0 every cassette passed, 1 one failed or could not be read,
2 usage error.`

func verifyCommand() *cli.Command {
	return &cli.Command{
		Name:     "verify",
		Short:    "chain, schema, provider neutrality, secrets; exit 1 on failure",
		Synopsis: "cc-cassette verify [CASSETTE... | -]",
		Help:     verifyHelp,
		SetFlags: func(f *cli.Flags) { f.RecordFormats(records.IDField) },
		Run: func(env *cli.Env, args []string) error {
			env.Out.SetLayout(verifyLayout)
			names, err := inputs(env, args, "cassette")
			if err != nil {
				return err
			}
			ok := true
			for _, name := range names {
				pass, err := verifyInput(env, name)
				if err != nil {
					return err
				}
				ok = ok && pass
			}
			if !ok {
				return exitFail()
			}
			return nil
		},
	}
}

// verifyLayout is verify's record as a table row (a terminal's default
// view): the cassette, whether it passed and, when not, the first failed
// invariant.
var verifyLayout = cli.Layout{Columns: []cli.Column{
	{Head: "Pass", Keys: []string{"pass"}},
	{Head: "Path", Keys: []string{"path"}, Kind: cli.Path},
	{Head: "Status", Keys: []string{"status"}},
	{Head: "Steps", Keys: []string{"steps"}, Kind: cli.Count},
	{Head: "Failed", Keys: []string{"first_failure.name"}, Keep: true},
	{Head: "Detail", Keys: []string{"first_failure.detail"}, Keep: true},
	{Head: "ID", Keys: []string{"id"}},
}}

// verifyInput verifies every cassette of one input and writes a report
// for each. It returns false when one failed.
func verifyInput(env *cli.Env, name string) (bool, error) {
	path := displayName(name)
	r, err := open(env, name)
	if err != nil {
		return false, env.Out.Write(cassette.LoadFailure(path, err))
	}
	defer r.Close()
	rd := cassette.NewReader(r)
	rd.Lazy = true
	var v *cassette.Verifier
	ok := true
	finish := func() error {
		if v == nil {
			return nil
		}
		rep := v.Report()
		rep.Path = path
		ok = ok && rep.Pass
		v = nil
		return env.Out.Write(rep)
	}
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			return ok, finish()
		}
		if errors.Is(err, cassette.ErrEmpty) && name == "-" {
			return true, nil // an empty pipe is no input
		}
		if err != nil {
			rep := cassette.LoadFailure(path, err)
			if v != nil {
				rep.ID = v.Report().ID
			}
			return false, env.Out.Write(rep)
		}
		if rec.Header {
			if err := finish(); err != nil {
				return false, err
			}
			v = &cassette.Verifier{}
			v.Header(rec.Value)
			continue
		}
		if rec.Raw != nil {
			v.StepRaw(rec.Raw)
		} else {
			v.Step(rec.Value)
		}
	}
}
