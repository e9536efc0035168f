package hooks

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Handler answers one event: a reply, or nil for no opinion (the next
// handler is asked; when none answers, the hook prints nothing).
type Handler func(ctx context.Context, ev Event) (*Reply, error)

// Policy says what a hook does when it fails: the payload cannot be read,
// a handler returns an error or panics, or a reply is for another event.
type Policy string

// Failure policies.
const (
	// PolicyPass prints nothing on stdout and one line on stderr, and exits 1:
	// Claude Code shows a hook error notice and goes ahead. The default.
	PolicyPass Policy = "pass"
	// PolicyBlock prints the event's blocking reply (a deny, a block, exit 2 for
	// TaskCompleted...) with the failure as the reason; events that cannot
	// be blocked fall back to Pass.
	PolicyBlock Policy = "block"
	// PolicyAsk sends PreToolUse calls to the permission prompt; other
	// events fall back to Pass.
	PolicyAsk Policy = "ask"
)

// Policies are the failure policies, as flags and rule files spell them.
var Policies = []string{string(PolicyPass), string(PolicyBlock), string(PolicyAsk)}

// ParsePolicy reads "pass", "block" or "ask".
func ParsePolicy(s string) (Policy, error) {
	if slices.Contains(Policies, s) {
		return Policy(s), nil
	}
	return "", fmt.Errorf("unknown failure policy %q (want pass, block or ask)", s)
}

// Runner runs handlers for one payload. A hook that must fail closed sets
// OnError to PolicyBlock and also "onFailure": "block" on its hook entry in
// settings.json: a crash before Run (a missing binary, a kill) is out of
// the runner's reach, and onFailure turns it into a block too.
type Runner struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	OnError        Policy // "" means PolicyPass
	Name           string // prefix of the stderr line; "hook" when empty
	// Mask, when set, rewrites a failure message before it goes to stderr
	// or into a reply's reason (cli.Mask in cc-hook): a jq error quotes
	// the payload value it failed on, which can hold a key or token.
	Mask func(string) string
}

// Run reads the payload from Stdin, asks the handlers in order until one
// replies, writes the reply and returns the exit code to end with. It never
// returns 2 except for an exit-2 reply (a deliberate block).
func (r Runner) Run(ctx context.Context, handlers ...Handler) int {
	data, err := ReadPayload(r.Stdin)
	if err != nil {
		return r.fail("", err)
	}
	if len(strings.TrimSpace(string(data))) == 0 {
		return r.fail("", ErrNoPayload)
	}
	ev, err := Parse(data)
	if err != nil {
		return r.fail("", fmt.Errorf("reading the payload: %w", err))
	}
	return r.RunEvent(ctx, ev, handlers...)
}

// RunEvent is Run for a payload already parsed.
func (r Runner) RunEvent(ctx context.Context, ev Event, handlers ...Handler) int {
	for i, h := range handlers {
		reply, err := call(ctx, h, ev)
		if err != nil {
			return r.fail(ev.EventName(), fmt.Errorf("handler %d: %w", i+1, err))
		}
		if reply == nil {
			continue
		}
		if e := reply.Event(); e != "" && e != ev.EventName() {
			return r.fail(ev.EventName(), fmt.Errorf("handler %d replied for %s to a %s payload", i+1, e, ev.EventName()))
		}
		code, err := reply.Write(r.Stdout, r.Stderr)
		if err != nil {
			return r.fail("", fmt.Errorf("writing the reply: %w", err))
		}
		return code
	}
	return 0
}

// call runs one handler, turning a panic into an error.
func call(ctx context.Context, h Handler, ev Event) (reply *Reply, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return h(ctx, ev)
}

// Fail applies the runner's failure policy to err for a payload of event
// ("" when unknown) and returns the exit code: 1 for Pass, or the policy's
// reply's code.
func (r Runner) Fail(event string, err error) int { return r.fail(event, err) }

func (r Runner) fail(event string, err error) int {
	name := r.Name
	if name == "" {
		name = "hook"
	}
	msg := strings.ReplaceAll(err.Error(), "\n", " ")
	if r.Mask != nil {
		msg = r.Mask(msg)
	}
	var reply *Reply
	switch r.OnError {
	case PolicyBlock:
		reply = BlockingReply(event, fmt.Sprintf("%s failed, blocking (on-error block): %s", name, msg))
	case PolicyAsk:
		reply = AskReply(event, fmt.Sprintf("%s failed, asking (on-error ask): %s", name, msg))
	}
	if reply != nil && reply.ExitCode() == 0 {
		fmt.Fprintf(r.Stderr, "%s: %s\n", name, msg)
		if _, werr := reply.Write(r.Stdout, r.Stderr); werr == nil {
			return 0
		}
	} else if reply != nil {
		// An exit-2 reply: its stderr line is the reason itself.
		if code, werr := reply.Write(r.Stdout, r.Stderr); werr == nil {
			return code
		}
	}
	fmt.Fprintf(r.Stderr, "%s: %s\n", name, msg)
	return 1
}

// ErrNoPayload is returned for an empty stdin.
var ErrNoPayload = errors.New("no payload on stdin")

// MaxPayload bounds a hook payload. Claude Code's are small (a tool call
// and its result; a Write of a large file is the big case); a larger one
// is refused, not read until memory runs out.
const MaxPayload = 32 << 20

// ReadPayload reads a payload of at most MaxPayload bytes from r.
func ReadPayload(r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxPayload+1))
	if err != nil {
		return nil, fmt.Errorf("reading the payload: %w", err)
	}
	if len(data) > MaxPayload {
		return nil, fmt.Errorf("payload over %d MiB: refused", MaxPayload>>20)
	}
	return data, nil
}
