// Package cccassette is the cc-cassette command: Blackbox's cassettes
// (hash-chained recordings of an agent run) as ccpipe filters. Each
// subcommand is its own cli.Command; lib/cli dispatches on the first word.
package cccassette

import (
	"fmt"
	"io"
	"os"

	"github.com/ccpipe/ccpipe/lib/cassette"
	"github.com/ccpipe/ccpipe/lib/cassette/proxy"
	"github.com/ccpipe/ccpipe/lib/cli"
)

// mainHelp is cc-cassette's help; %s is the list of subcommands.
const mainHelp = `usage: cc-cassette COMMAND [flags] [args]

Blackbox's cassettes as ccpipe filters. A cassette is a run of an agent
as a hash-chained list of steps (model_input, model_output, tool_call,
tool_result, metadata); each step's hash is SHA-256 of its canonical JSON
(Blackbox 0.2.x, schema version 2), so a cassette moves between Blackbox
and ccpipe and verifies in both.

Commands:
%s

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

// Run runs cc-cassette with the process environment.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return RunWith(cli.OS(), args, stdin, stdout, stderr)
}

// RunWith runs cc-cassette in the given System (import reads
// ANTHROPIC_API_KEY and OPENAI_API_KEY from it to refuse a transcript
// holding one; record, replay and fork pass its environment to the
// command they run).
func RunWith(sys cli.System, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return command(sys, stdin, stdout, stderr).Main(args, stdin, stdout, stderr)
}

// command is cc-cassette: one cli.Command per subcommand, in the order
// of the help. The proxy subcommands hand the raw streams to the command
// they run.
func command(sys cli.System, stdin io.Reader, stdout, stderr io.Writer) *cli.Command {
	subs := []*cli.Command{
		importCommand(sys.Env), verifyCommand(), diffCommand(), assertCommand(), showCommand(), convertCommand(),
		proxyCommand(proxy.Record, sys, stdin, stdout, stderr),
		proxyCommand(proxy.Replay, sys, stdin, stdout, stderr),
		proxyCommand(proxy.Fork, sys, stdin, stdout, stderr),
	}
	for _, sub := range subs {
		sub.Sys = &sys // a table's terminal and width, show's terminal view
	}
	return &cli.Command{
		Sys:  &sys,
		Name: "cc-cassette", Short: "Blackbox's cassettes (hash-chained recordings of an agent run) as ccpipe filters",
		Synopsis: "cc-cassette COMMAND [flags] [args]", Help: fmt.Sprintf(mainHelp, cli.SubcommandList(subs)),
		Subcommands: subs,
	}
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
	if inv := cassette.BrokenChain(c); inv != nil {
		return fmt.Errorf("%s: %s failed%s: %s", displayName(name), inv.Name, inv.Where(), inv.Detail)
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
