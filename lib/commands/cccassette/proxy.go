package cccassette

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ccpipe/ccpipe/lib/cassette"
	"github.com/ccpipe/ccpipe/lib/cassette/proxy"
	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/jq"
)

// The proxy subcommands (record, replay, fork) run a command after `--`
// with ANTHROPIC_BASE_URL and OPENAI_BASE_URL pointing at a loopback
// proxy. The child keeps cc-cassette's own stdin, stdout and stderr (an
// interactive Claude Code needs the terminal).

const proxyHelpCommon = `
How it works: cc-cassette listens on 127.0.0.1 at a free port, starts the
command with ANTHROPIC_BASE_URL=http://127.0.0.1:PORT and
OPENAI_BASE_URL=http://127.0.0.1:PORT/v1, and stops listening when it
ends. Upstream is the parent's ANTHROPIC_BASE_URL, else
https://api.anthropic.com. Request headers (the API key included) are
passed upstream and never written anywhere; a cassette that would hold a
key the client sent, or $ANTHROPIC_API_KEY / $OPENAI_API_KEY, is not
written.

What is recorded: each POST /v1/messages of the main loop (streamed or
not) becomes a model_input step (the request, normalized as Blackbox
does: provider ids become call-N, thinking dropped) and a model_output
step; the tool results the next request carries become tool_call and
tool_result steps (Claude Code runs its tools itself). Side calls are
kept as metadata steps {"event":"side_call","api","key","input",
"output"} (count_tokens: {"event":"side_call","api":"count_tokens",
"key","inputTokens"}) so that replay can answer them. A request is a
side call when it offers no tools (titles, summaries, classifiers) or
when its first message is not the main loop's (subagents); the main loop
is the conversation of the first request that offers tools. Other paths
are passed through and not recorded (record, fork --live) or answered
404 (replay). A non-2xx answer is passed to the client and not recorded
(the client's retry is). An upstream that fails otherwise is passed on
as it failed: a connection reset mid-stream reaches the client as a cut
(never a clean 200), an error event inside a 200 stream (overloaded
mid-stream) as that event, an unreachable upstream as a 502; each is
recorded as a metadata step {"event":"upstream_error","api","call":
"main"|"side","error","status"?} (replay skips it: the client's retry
is the next model call). A run that ends on such a failure of the main
loop (no model call succeeded after it) gets the terminal step
{"event":"run_failed","reason":"upstream_error"}.

Replay answers each main-loop request with the recorded model_output,
re-streamed as SSE when the request streams, with the recorded call-N
ids as tool_use ids, after comparing the request with the recorded
model_input (--match strict). Before comparing, both sides go through
the volatile-text rules (one list, in lib/cassette/proxy/volatile.go):
"Today's date is <date>", the working directory, "Is a git repository",
"OS Version", the # gitStatus block, the memory dir path and the
x-anthropic-billing-header line of Claude Code's system prompt and
reminders, and the agent id, output file, duration and token count in
Agent tool results and task notifications; --ignore removes more.
Provider tool ids quoted in text (a task notification's <tool-use-id>)
are rewritten to their call-N like the ids themselves. Side calls are answered from the
recorded side_call with the same key, else the next unused one of the
same api, else with empty text (counted on stderr).

A divergence answers the client with HTTP 400 and x-should-retry: false
({"type":"error","error":{"type":"invalid_request_error","message":
"[cc-cassette] replay diverged at step N, PATH"}}), which Claude Code
2.1.328 does not retry (it tries a few variants of the request within
about 2 s and exits 1; a 5xx it retries for minutes, even with
x-should-retry: false). Every later model request gets the same 400.
stderr gets the step, the path and both values (masked, cut to 200
characters), and cc-cassette exits 1.

Limits: one main loop per run: after /clear or a compaction the
conversation starts with another first message, and its requests are
kept as side calls. Thinking blocks are not stored (as in Blackbox), so
a replayed or forked history carries none; a live upstream that demands
them (extended thinking) may refuse a fork --live. Images and documents
in requests are refused (the cassette is not written).

Bounds: answers reach the client as they arrive; the proxy keeps at
most 64 MiB of a request or answer and 16 MiB of a stream event. One
over a bound is passed on whole, not recorded: the recording stops there
("...: not recorded, passed on whole; the recording stops there" on
stderr), the cassette ends with run_failed/not_recorded, record exits 1.
SIGINT is not passed on (the terminal sends it to the whole process group); SIGTERM
is.

Exit status: the command's exit code (128+N when signal N ended it),
or 1 when cc-cassette failed (a divergence, a request or response the
cassette format cannot hold, a cassette that would not verify) or, for
record, when the command exited 0 but the run ended on an upstream
failure it did not recover from, stopped recording at a bound, or
recorded no model call (the cassette is written and stderr says why), 2 on a usage error.`

// proxyShort is the one-line summary of each proxy subcommand.
var proxyShort = map[proxy.Mode]string{
	proxy.Record: "run a command through a loopback proxy, record its model calls",
	proxy.Replay: "run a command against a cassette, offline; exit 1 on divergence",
	proxy.Fork:   "replay to a tool result, change it, go on live or scripted",
}

type proxyFlags struct {
	out, id, match, set, script string
	at                          int
	live                        bool
	ignore                      []string
}

func (p *proxyFlags) ignoreFlag(f *cli.Flags) {
	f.StringsVar(&p.ignore, "ignore", "JQPATH: delete this path from both model inputs before comparing, e.g. .params.maxTokens (repeatable)")
	f.Enum(&p.match, "match", "strict", "strict: each model request must equal the recorded one; sequence: only the order of calls counts", []string{"strict", "sequence"})
}

// proxyCommand builds record, replay or fork around the command after --.
func proxyCommand(mode proxy.Mode, sys cli.System, stdin io.Reader, stdout, stderr io.Writer) *cli.Command {
	p := &proxyFlags{at: -1, match: "strict"}
	sub := &cli.Command{Name: string(mode), Short: proxyShort[mode]}
	switch mode {
	case proxy.Record:
		sub.Synopsis = "cc-cassette record --out FILE [--id ID] -- COMMAND [ARG...]"
		sub.Help = "usage: " + sub.Synopsis + `

Runs COMMAND (Claude Code, or any client of the Anthropic Messages API)
through a loopback proxy and records its model calls into a cassette
(NDJSON form), written to FILE when the command ends. The last step is
{"event":"run_completed","status":"success","result":TEXT} when the last
model answer was a final answer and the command exited 0, or
{"event":"run_failed","status":"error","reason":"process_exit",
"exitCode":N} when it exited N ≠ 0.
` + proxyHelpCommon + `

Examples:
  $ cc-cassette record --out run.ndjson -- claude -p "fix the failing test" --allowedTools Bash,Edit
  $ cc-cassette verify run.ndjson`
		sub.SetFlags = func(f *cli.Flags) {
			f.StringVar(&p.out, "out", "", "the cassette to write (required)")
			f.StringVar(&p.id, "id", "", "cassette id (default: the --out file name without .ndjson/.json)")
		}
	case proxy.Replay:
		sub.Synopsis = "cc-cassette replay CASSETTE [--match strict|sequence] [--ignore JQPATH]... -- COMMAND [ARG...]"
		sub.Help = `usage: cc-cassette replay CASSETTE [--match strict|sequence] [--ignore JQPATH]...
         -- COMMAND [ARG...]

Runs COMMAND against the cassette instead of the model: nothing leaves
the machine (the child gets a placeholder API key if it has none). Tools
still run for real in the client. At the end, every recorded model call
must have been made, else it is a divergence at "end of run".
` + proxyHelpCommon + `

Examples:
  $ cc-cassette replay run.ndjson -- claude -p "fix the failing test" --allowedTools Bash,Edit
  $ cc-cassette replay run.ndjson --ignore '.params.maxTokens' -- claude -p "fix the failing test"`
		sub.SetFlags = p.ignoreFlag
	case proxy.Fork:
		sub.Synopsis = "cc-cassette fork CASSETTE --at N --set JSON|@FILE --out FILE (--live | --script FILE) [--id ID] [--match M] [--ignore JQPATH]... -- COMMAND [ARG...]"
		sub.Help = `usage: cc-cassette fork CASSETTE --at N --set JSON|@FILE --out FILE (--live | --script FILE)
         [--id ID] [--match M] [--ignore JQPATH]... -- COMMAND [ARG...]

Replays CASSETTE up to tool_result step N, gives the client the --set
value as that tool's result instead (in every later request: a string as
is, any other JSON value as its compact text), then goes on live
(--live: the upstream API) or from --script FILE, a JSON array of model
outputs served in order (Blackbox's replies format):
  [{"type":"tool_calls","calls":[{"toolName":"Bash","toolInput":{"command":"ls"}}],"text":"…"},
   {"type":"final_answer","text":"…"}]
Scripted calls get fresh call-N ids. Running out of replies is an error.
The new cassette holds the parent's steps 0…N-1 unchanged (same hashes),
step N {"toolCallId","toolName","result":<--set value>}, then what the
run did next, with "parentId" (the parent's id) and "forkedFromStepId"
(the parent's step N id) in its header: 'cc-cassette diff CASSETTE OUT'
diverges exactly at N.
` + proxyHelpCommon + `

Examples:
  $ cc-cassette fork run.ndjson --at 7 --set '"tests pass"' --out what-if.ndjson \
      --script replies.json -- claude -p "fix the failing test"
  $ cc-cassette fork run.ndjson --at 7 --set @result.json --out what-if.ndjson \
      --live -- claude -p "fix the failing test"`
		sub.SetFlags = func(f *cli.Flags) {
			f.IntVar(&p.at, "at", -1, "N: the tool_result step to fork at (required)")
			f.StringVar(&p.set, "set", "", "JSON or @FILE: the new result of step N (required)")
			f.StringVar(&p.out, "out", "", "the cassette to write (required)")
			f.BoolVar(&p.live, "live", false, "after the fork, send model calls upstream")
			f.StringVar(&p.script, "script", "", "FILE: after the fork, answer model calls from this JSON array of replies")
			f.StringVar(&p.id, "id", "", "cassette id (default: the --out file name without .ndjson/.json)")
			p.ignoreFlag(f)
		}
	}
	sub.Run = func(env *cli.Env, pos []string) error {
		// The command is what follows "--"; the positionals come before.
		child, _ := env.Flags.AfterDash()
		pos = pos[:len(pos)-len(child)]
		r := &proxy.Run{Mode: mode, Command: child, Out: p.out, ID: p.id, Match: p.match, Ignore: p.ignore,
			Env: sys.Environment(), Stdin: stdin, Stdout: stdout, Stderr: stderr}
		if err := p.check(mode, pos, child, r); err != nil {
			return err
		}
		code, err := r.Exec()
		switch {
		case proxy.IsQuiet(err):
			return &cli.ExitError{Code: cli.ExitFail}
		case err != nil:
			return err
		}
		return &cli.ExitError{Code: code}
	}
	return sub
}

// check validates the flags and loads the cassette and files they name.
func (p *proxyFlags) check(mode proxy.Mode, pos, child []string, r *proxy.Run) error {
	if len(child) == 0 {
		return cli.Usagef("no command: put it after --, e.g. cc-cassette %s ... -- claude -p \"hi\"", mode)
	}
	for _, path := range p.ignore {
		if _, err := jq.Compile("del("+path+")", nil); err != nil {
			return cli.Usagef("--ignore %s: not a jq path: %v", path, err)
		}
	}
	if mode == proxy.Record {
		if len(pos) > 0 {
			return cli.Usagef("unexpected argument %q (the command goes after --)", pos[0])
		}
		if p.out == "" {
			return cli.Usagef("--out FILE is required")
		}
		return nil
	}
	if len(pos) != 1 {
		return cli.Usagef("name one cassette (the command goes after --)")
	}
	c, err := loadPath(pos[0])
	if err != nil {
		return err
	}
	r.Parent = &c
	if mode == proxy.Replay {
		return nil
	}
	switch {
	case p.out == "":
		return cli.Usagef("--out FILE is required")
	case p.at < 0:
		return cli.Usagef("--at N is required (a tool_result step)")
	case p.set == "":
		return cli.Usagef("--set JSON|@FILE is required")
	case p.live == (p.script != ""):
		return cli.Usagef("give exactly one of --live and --script FILE")
	}
	isResult := func(i int) bool {
		typ, _ := c.Steps[i].GetString("type")
		return typ == cassette.ToolResult
	}
	var results []string
	for i := range c.Steps {
		if isResult(i) {
			results = append(results, strconv.Itoa(i))
		}
	}
	if p.at >= len(c.Steps) || !isResult(p.at) {
		if len(results) == 0 {
			return cli.Usagef("--at %d: the cassette has no tool_result step to fork at", p.at)
		}
		return cli.Usagef("--at %d is not a tool_result step (tool_result steps: %s)", p.at, strings.Join(results, ", "))
	}
	setText, setFile := p.set, ""
	if name, ok := strings.CutPrefix(p.set, "@"); ok {
		setFile = name
		b, err := os.ReadFile(name)
		if err != nil {
			return cli.Usagef("--set: %v", err)
		}
		setText = string(b)
	}
	for _, other := range []string{pos[0], p.script, setFile} {
		if other != "" && sameFile(p.out, other) {
			return cli.Usagef("--out %s would overwrite an input", p.out)
		}
	}
	v, err := cassette.Parse([]byte(strings.TrimSpace(setText)))
	if err != nil {
		return cli.Usagef("--set is not JSON: %v", err)
	}
	r.ForkAt, r.ForkSet = p.at, cassette.ToAny(v)
	if p.script != "" {
		b, err := os.ReadFile(p.script)
		if err != nil {
			return cli.Usagef("--script: %v", err)
		}
		sv, err := cassette.Parse(b)
		if err != nil {
			return cli.Usagef("--script %s is not JSON: %v", p.script, err)
		}
		if r.Script, err = proxy.ParseScript(cassette.ToAny(sv)); err != nil {
			return cli.Usagef("--script %s: %v", p.script, err)
		}
	}
	return nil
}

func loadPath(name string) (cassette.Cassette, error) {
	f, err := os.Open(name)
	if err != nil {
		return cassette.Cassette{}, err
	}
	defer f.Close()
	cs, err := cassette.ReadAll(f)
	if err != nil {
		return cassette.Cassette{}, err
	}
	if len(cs) != 1 {
		return cassette.Cassette{}, cli.Usagef("%s holds %d cassettes; name one", name, len(cs))
	}
	return cs[0], nil
}

// sameFile reports whether a and b name one file (by path, symlink or
// hard link); a missing file is compared by its cleaned absolute path.
func sameFile(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(fa, fb)
	}
	pa, _ := filepath.Abs(a)
	pb, _ := filepath.Abs(b)
	return pa == pb
}
