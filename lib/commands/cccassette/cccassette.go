// Package cccassette is the cc-cassette command: Blackbox's cassettes
// (hash-chained recordings of an agent run) as ccpipe filters. Each
// subcommand is its own cli.Command; Run dispatches on the first word.
package cccassette

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/ccpipe/ccpipe/lib/cassette"
	"github.com/ccpipe/ccpipe/lib/cassette/proxy"
	"github.com/ccpipe/ccpipe/lib/cli"
)

const mainHelp = `usage: cc-cassette COMMAND [flags] [args]

Blackbox's cassettes as ccpipe filters. A cassette is a run of an agent
as a hash-chained list of steps (model_input, model_output, tool_call,
tool_result, metadata); each step's hash is SHA-256 of its canonical JSON
(Blackbox 0.2.x, schema version 2), so a cassette moves between Blackbox
and ccpipe and verifies in both.

Commands:
  import   a Claude Code session (or a chat JSON transcript) as a cassette
  verify   chain, schema, provider neutrality, secrets; exit 1 on failure
  diff     first divergence of two cassettes, and how the outcome changed
  assert   verify plus expectations on the outcome, for CI
  show     one line per step, or one step whole
  convert  between the NDJSON form and Blackbox's single JSON file
  record   run a command through a loopback proxy, record its model calls
  replay   run a command against a cassette, offline; exit 1 on divergence
  fork     replay to a tool result, change it, go on live or scripted

Forms: every command reads both, from paths or stdin, told apart by
content. NDJSON (ccpipe's): line 1 is the header {"version":2,"id",
"createdAt"[,"parentId","forkedFromStepId"]}, then one step per line
{"id","index","type","timestamp","payload","prevHash","hash"}; several
cassettes may follow each other in one stream. JSON (Blackbox's): one
object with the header fields and "steps", as JSON.stringify(trace, null,
2) writes it.

Run 'cc-cassette COMMAND -h' for a command's flags, output and exit status.

Examples:
  $ cc-sessions --limit 1 | cc-cassette import > run.ndjson
  $ cc-cassette verify run.ndjson
  $ cc-cassette assert run.ndjson --expect-status success --expect-tools Bash,Edit
  $ cc-cassette diff before.ndjson after.ndjson --semantic
  $ cc-cassette convert --to json run.ndjson > run.json

Exit status: 0 ok, 1 failure (verify or assert failed, diff found a
difference, bad input), 2 usage error.`

type subcommand struct {
	name, synopsis, help string
	flags                func(*cli.Flags)
	run                  func(*cli.Env, []string) error
}

// Run runs cc-cassette with the process environment.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return RunWith(cli.OS(), args, stdin, stdout, stderr)
}

// subcommandNames are the subcommands, in the order of the help.
var subcommandNames = []string{"import", "verify", "diff", "assert", "show", "convert", "record", "replay", "fork"}

// subcommandOf builds the named subcommand.
func subcommandOf(name string, getenv func(string) string) (subcommand, bool) {
	switch name {
	case "record", "replay", "fork":
		// For docs and completion only: a run builds these around its
		// own arguments (proxyCommand splits off the child command).
		sub, _ := proxyCommand(proxy.Mode(name), nil, nil, nil, nil)
		return sub, true
	case "import":
		return importCommand(getenv), true
	case "verify":
		return verifyCommand(), true
	case "diff":
		return diffCommand(), true
	case "assert":
		return assertCommand(), true
	case "show":
		return showCommand(), true
	case "convert":
		return convertCommand(), true
	}
	return subcommand{}, false
}

func (sub subcommand) command() *cli.Command {
	return &cli.Command{Name: "cc-cassette", Synopsis: sub.synopsis, Help: sub.help, SetFlags: sub.flags, Run: sub.run}
}

// top is cc-cassette as a whole, for its documentation and completion.
func top() *cli.Command {
	return &cli.Command{
		Name: "cc-cassette", Synopsis: "cc-cassette COMMAND [flags] [args]", Help: mainHelp,
		Run: func(*cli.Env, []string) error { return cli.Usagef("a command is needed") },
		Complete: func(_ context.Context, flag string, args []string) []string {
			if flag == "" && len(args) == 0 {
				return subcommandNames
			}
			return nil
		},
	}
}

// RunWith runs cc-cassette in the given System (import reads
// ANTHROPIC_API_KEY and OPENAI_API_KEY from it to refuse a transcript
// holding one).
func RunWith(sys cli.System, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	getenv := sys.Env
	if cli.IsDocArg(args) {
		d := top().Doc()
		for _, name := range subcommandNames {
			sub, _ := subcommandOf(name, getenv)
			sd := sub.command().Doc()
			sd.Name = "cc-cassette " + name
			d.Subcommands = append(d.Subcommands, sd)
		}
		cli.PrintDoc(stdout, d)
		return cli.ExitOK
	}
	if len(args) > 0 && args[0] == "__complete" {
		// A subcommand completes its own flags and arguments.
		if len(args) > 2 {
			if sub, ok := subcommandOf(args[1], getenv); ok {
				return sub.command().Main(append([]string{"__complete"}, args[2:]...), stdin, stdout, stderr)
			}
		}
		return top().Main(args, stdin, stdout, stderr)
	}
	if len(args) > 0 && args[0] == "--completion" {
		return top().Main(args, stdin, stdout, stderr)
	}
	if len(args) == 0 {
		fmt.Fprintf(stderr, "cc-cassette: a command is needed (import, verify, diff, assert, show, convert, record, replay, fork)\nRun 'cc-cassette -h' for help.\n")
		return cli.ExitUsage
	}
	switch args[0] {
	case "-h", "--help", "-help", "help":
		if len(args) > 1 && args[0] == "help" {
			return RunWith(sys, []string{args[1], "-h"}, stdin, stdout, stderr)
		}
		fmt.Fprintln(stdout, mainHelp)
		return cli.ExitOK
	case "--version", "-version":
		c := &cli.Command{Name: "cc-cassette", Run: func(*cli.Env, []string) error { return nil }}
		return c.Main([]string{"--version"}, stdin, stdout, stderr)
	}
	if m := args[0]; m == "record" || m == "replay" || m == "fork" {
		sub, rest := proxyCommand(proxy.Mode(m), args[1:], stdin, stdout, stderr)
		return sub.command().Main(rest, stdin, stdout, stderr)
	}
	sub, ok := subcommandOf(args[0], getenv)
	if !ok {
		fmt.Fprintf(stderr, "cc-cassette: unknown command %q (import, verify, diff, assert, show, convert, record, replay, fork)\nRun 'cc-cassette -h' for help.\n", args[0])
		return cli.ExitUsage
	}
	return sub.command().Main(args[1:], stdin, stdout, stderr)
}

// inputs opens the paths, or stdin when there are none (and stdin is a
// pipe or a file).
// what names what is expected: "cassette", or "transcript" for import.
func inputs(env *cli.Env, args []string, what string) ([]string, error) {
	if len(args) > 0 {
		return args, nil
	}
	if !env.HasInput() {
		return nil, cli.Usagef("no %s given: name a file or pipe one in", what)
	}
	return []string{"-"}, nil
}

func open(env *cli.Env, name string) (io.ReadCloser, error) {
	if name == "-" {
		return io.NopCloser(env.Stdin), nil
	}
	return os.Open(name)
}

// displayName is how a source is called in records and messages.
func displayName(name string) string {
	if name == "-" {
		return "<stdin>"
	}
	return name
}

// loadOne reads exactly one cassette from name.
func loadOne(env *cli.Env, name string) (cassette.Cassette, error) {
	r, err := open(env, name)
	if err != nil {
		return cassette.Cassette{}, err
	}
	defer r.Close()
	cs, err := cassette.ReadAll(r)
	if err != nil {
		return cassette.Cassette{}, fmt.Errorf("%s: %v", displayName(name), err)
	}
	if len(cs) != 1 {
		return cassette.Cassette{}, fmt.Errorf("%s: holds %d cassettes; this command takes one", displayName(name), len(cs))
	}
	return cs[0], nil
}

// checkChain is the load-time check of diff and show: the chain must
// hold (Blackbox treats a broken chain there as fatal).
func checkChain(name string, c cassette.Cassette) error {
	v := &cassette.Verifier{}
	v.Header(c.Header)
	for _, s := range c.Steps {
		v.Step(s)
	}
	for _, inv := range v.Report().Invariants[:2] {
		if inv.Status == cassette.Fail {
			at := ""
			if inv.StepIndex != nil {
				at = fmt.Sprintf(" at step %d", *inv.StepIndex)
			}
			return fmt.Errorf("%s: %s failed%s: %s", displayName(name), inv.Name, at, inv.Detail)
		}
	}
	return nil
}

// writeValue emits a cassette value (a header, a step, a document) as
// one output record, written as JSON.stringify writes it.
func writeValue(env *cli.Env, v cassette.Value) error {
	b, err := cassette.AppendJS(nil, v)
	if err != nil {
		return err
	}
	return env.Out.WriteJSON(b)
}

func exitFail() error { return &cli.ExitError{Code: cli.ExitFail} }

func plural(n int, one string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %ss", n, one)
}
