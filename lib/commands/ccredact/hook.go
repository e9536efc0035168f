package ccredact

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/hooks"
	"github.com/ccpipe/ccpipe/lib/secrets"
)

// maxHookPayload bounds what --hook reads. A tool's whole output is in
// the payload (a Bash call's stdout of any size), so the bound is far
// above cc-hook's; over it the output passes unchecked, with a note.
const maxHookPayload = 1 << 30

// hook answers one hook payload on stdin (--hook). It never fails the
// tool call: whatever goes wrong is one stderr line and exit 0, and only
// a masked output (or a warning) prints a reply. Exit 2 would feed stderr
// to the model as an error; exit 1 shows an error to the user on every
// call; neither helps when the payload is not what Claude Code sends.
func (r *runner) hook() error {
	env := r.env
	note := func(format string, a ...any) error {
		env.Warnf("--hook: "+format+" (the output passes unchanged)", a...)
		return nil
	}
	if !env.HasInput() {
		return note("no payload on stdin")
	}
	payload, err := readPayload(env.Stdin, maxHookPayload)
	if err != nil {
		return note("%v", err)
	}
	// From here the heap needs the payload and one decoded copy of the
	// string being masked (lib/secrets searches it in place). The pieces
	// it was read in go back first, and a soft limit makes the collector
	// give back each walk's copy before the next: a 200 MB payload peaks
	// at 3x its size while it is read and joined, then stays under that
	// (it took 7x with the default collector, 19x before streaming).
	if len(payload) > 64<<20 {
		debug.FreeOSMemory()
	}
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(int64(len(payload))*5/2 + 64<<20))
	ev, err := hooks.ParseOwned(payload)
	if err != nil {
		return note("%v", err)
	}
	var reply *hooks.Reply
	switch ev := ev.(type) {
	case *hooks.PostToolUseEvent:
		reply, err = r.maskOutput(ev)
	case *hooks.PostToolUseFailureEvent:
		reply, err = r.warnFailure(ev)
	default:
		return note("a %s payload: --hook answers PostToolUse (and warns on PostToolUseFailure)", ev.EventName())
	}
	if err != nil {
		return note("%v", err)
	}
	if reply == nil {
		return nil
	}
	if _, err := reply.Write(env.Stdout, env.Stderr); err != nil {
		return note("writing the reply: %v", err)
	}
	return nil
}

// readPayload reads all of r, up to limit bytes, into one slice of its
// exact size: read in pieces and joined once, so that a large payload
// costs twice its size while it is read, never the 2x-and-more of a
// doubling buffer, and once after.
func readPayload(r io.Reader, limit int) ([]byte, error) {
	var pieces [][]byte
	total := 0
	for {
		b := make([]byte, min(4<<20, max(64<<10, total)))
		n, err := io.ReadFull(r, b)
		total += n
		if total > limit {
			return nil, fmt.Errorf("payload over %d MiB: not read", limit>>20)
		}
		pieces = append(pieces, b[:n])
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading the payload: %v", err)
		}
	}
	if len(pieces) == 1 {
		return pieces[0], nil
	}
	out := make([]byte, 0, total)
	for i, b := range pieces {
		out = append(out, b...)
		pieces[i] = nil
	}
	return out, nil
}

// maskOutput is the PostToolUse answer: the tool's output with its
// secrets masked, as updatedToolOutput (the whole response, so that it
// keeps the tool's output shape), or nil when it holds none. Claude Code
// runs a tool's hooks in parallel on the original output and the last
// rewrite wins, so a clean output gets no reply at all.
func (r *runner) maskOutput(ev *hooks.PostToolUseEvent) (*hooks.Reply, error) {
	if len(ev.ToolResponse) == 0 {
		return nil, nil
	}
	found, err := r.set.ScanJSON(ev.ToolResponse)
	if err != nil {
		return nil, fmt.Errorf("tool_response: %v", err)
	}
	if len(found) == 0 {
		return nil, nil
	}
	if len(ev.ToolResponse) > 64<<20 {
		// The scan's decoded copy goes back before the write makes its
		// own (else the two meet: 3x a 200 MB payload).
		runtime.GC()
	}
	// The masked copy is written as the reply is printed, not built: a
	// tool output of hundreds of MB is held once (the payload), with one
	// copy of the string being masked. ScanJSON has parsed it, so the
	// second walk cannot fail halfway.
	masked := hooks.Streamed(func(w io.Writer) error {
		_, err := r.set.RedactJSONTo(w, ev.ToolResponse)
		return err
	})
	msg := fmt.Sprintf("cc-redact masked %s in the output of %s before Claude saw it", kindList(found), ev.ToolName)
	if path := persistedPath(ev.ToolResponse); path != "" {
		msg += fmt.Sprintf("; Claude Code had already saved the whole output, unmasked, to %s", path)
	}
	reply := hooks.PostToolUseReply{Common: hooks.Common{SystemMessage: msg}, UpdatedToolOutput: masked}
	if strings.HasPrefix(ev.ToolName, "mcp__") {
		// 2.1.328 reads updatedToolOutput for every tool; releases
		// before it read MCP rewrites only from this field.
		reply.UpdatedMCPToolOutput = masked
	}
	return reply.Build()
}

// warnFailure is the PostToolUseFailure answer: its reply cannot replace
// the error text the model gets, so a secret in it is only reported to
// the user, who may want to rotate it.
func (r *runner) warnFailure(ev *hooks.PostToolUseFailureEvent) (*hooks.Reply, error) {
	ms := r.set.FindString(ev.Error)
	if len(ms) == 0 {
		return nil, nil
	}
	found := make([]secrets.JSONMatch, len(ms))
	for i, m := range ms {
		found[i] = secrets.JSONMatch{Match: m}
	}
	return hooks.SystemMessage(fmt.Sprintf("cc-redact: the output of a failed %s call held %s; Claude Code passes a failed call's output "+
		"to the model as it is (a PostToolUseFailure hook cannot replace it): the model and the transcript have it", ev.ToolName, kindList(found)))
}

// kindList names the kinds found: "an anthropic-api-key", "2 secrets
// (aws-access-key-id, github-token)".
func kindList(found []secrets.JSONMatch) string {
	seen := map[string]bool{}
	var kinds []string
	for _, f := range found {
		if !seen[f.Kind] {
			seen[f.Kind] = true
			kinds = append(kinds, f.Kind)
		}
	}
	sort.Strings(kinds)
	if len(found) == 1 {
		return "a secret (" + kinds[0] + ")"
	}
	return fmt.Sprintf("%d secrets (%s)", len(found), strings.Join(kinds, ", "))
}

// persistedPath is the file a large output was saved to before the hooks
// ran (Bash's persistedOutputPath), which the rewrite does not reach.
func persistedPath(resp json.RawMessage) string {
	var r struct {
		Path string `json:"persistedOutputPath"`
	}
	if json.Unmarshal(resp, &r) != nil {
		return ""
	}
	return r.Path
}

// hookExit turns a usage error's exit 2 into 1 when args ask for --hook:
// Claude Code reads a hook's exit 2 as an error for the model.
func hookExit(args []string, code int) int {
	if code != cli.ExitUsage {
		return code
	}
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "--hook" || a == "-hook" || strings.HasPrefix(a, "--hook=") || strings.HasPrefix(a, "-hook=") {
			return cli.ExitFail
		}
	}
	return code
}

// printSettings prints the settings.json object that runs --hook (with
// the same --rules) after every tool call, and warns on failed ones.
func (o *options) printSettings(env *cli.Env) error {
	args := []string{"--hook"}
	for _, f := range o.rules {
		abs, err := filepath.Abs(f)
		if err != nil {
			return fmt.Errorf("resolving %s: %w", f, err)
		}
		args = append(args, "--rules", abs)
	}
	cmd, err := o.sys.SelfCommand(args...)
	if err != nil {
		return err
	}
	type handler struct {
		Type    string `json:"type"`
		Command string `json:"command"`
	}
	entry := []any{map[string]any{"hooks": []handler{{"command", cmd}}}}
	return cli.PrintSettings(env, o.sys, map[string]any{"hooks": map[string]any{
		hooks.PostToolUse:        entry,
		hooks.PostToolUseFailure: entry,
	}})
}
