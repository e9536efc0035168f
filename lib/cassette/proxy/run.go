package proxy

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ccpipe/ccpipe/lib/atomicfile"
	"github.com/ccpipe/ccpipe/lib/cassette"
	"github.com/ccpipe/ccpipe/lib/syncwriter"
)

// Run is one record, replay or fork of a command.
type Run struct {
	Mode    Mode
	Command []string // the child: argv after --
	Dir     string   // the child's working dir ("" = ours)
	Out     string   // record, fork: the cassette to write
	ID      string   // record, fork: cassette id (default: Out's base name without extension)
	Parent  *cassette.Cassette
	Match   string
	Ignore  []string
	ForkAt  int
	ForkSet any
	Script  []any // fork --script; nil with --live
	Env     []string
	Stdin   io.Reader
	Stdout  io.Writer
	Stderr  io.Writer // the child's stderr and cc-cassette's messages
}

// Exec runs the child through the proxy and returns the exit code
// cc-cassette should end with: the child's, or 1 when the session failed
// (divergence, unsupported request, cassette not written). A returned
// error is a failure before the child ran.
func (r *Run) Exec() (int, error) {
	if _, ok := r.Stderr.(*os.File); !ok && r.Stderr != nil {
		// The child's stderr is copied by a goroutine of os/exec while the
		// proxy writes its messages: one lock for both, and no ReadFrom
		// (bytes.Buffer's would drop the other writer's bytes).
		r.Stderr = syncwriter.New(r.Stderr)
	}
	if r.Mode != Replay && r.Out != "" {
		// The recording is the child's whole run: a dir that cannot take
		// the cassette fails now, not after the work is done.
		if err := atomicfile.CheckDir(r.Out); err != nil {
			return 1, err
		}
	}
	opt := Options{Mode: r.Mode, Match: r.Match, Ignore: r.Ignore, ForkAt: r.ForkAt, ForkSet: r.ForkSet, Script: r.Script, Stderr: r.Stderr}
	if r.Parent != nil {
		steps, err := Load(*r.Parent)
		if err != nil {
			return 1, err
		}
		opt.Parent = steps
	}
	live := r.Mode == Record || (r.Mode == Fork && r.Script == nil)
	if live {
		u, err := url.Parse(Upstream(r.Env, "ANTHROPIC_BASE_URL", PublicAPI))
		if err != nil || u.Scheme == "" || u.Host == "" {
			return 1, fmt.Errorf("ANTHROPIC_BASE_URL is not a URL")
		}
		opt.Upstream = u
		if opt.OpenAI, err = url.Parse(Upstream(r.Env, "OPENAI_BASE_URL", PublicOpenAI)); err != nil {
			return 1, fmt.Errorf("OPENAI_BASE_URL is not a URL")
		}
	}
	s, err := NewSession(opt)
	if err != nil {
		return 1, err
	}
	srv, err := Listen(s)
	if err != nil {
		return 1, err
	}
	created := time.Now().UnixMilli()
	code, err := RunChild(r.Command, r.Dir, ChildEnv(r.Env, srv.URL(), !live), r.Stdin, r.Stdout, r.Stderr)
	_ = srv.Close()
	if err != nil {
		return 1, err
	}
	res, serr := s.Finish(code)
	if serr != nil {
		return 1, errQuiet // already printed by the session
	}
	if res.Passed > 0 {
		fmt.Fprintf(r.Stderr, "cc-cassette: %d request(s) to other paths were not recorded (passed upstream live, answered 404 offline)\n", res.Passed)
	}
	if res.Unserved > 0 {
		fmt.Fprintf(r.Stderr, "cc-cassette: %d side call(s) had no recording and got an empty answer\n", res.Unserved)
	}
	if r.Mode == Replay {
		fmt.Fprintf(r.Stderr, "cc-cassette: replayed %d steps with no model call sent upstream\n", res.Replayed)
		return code, nil
	}
	h := cassette.Header{Version: cassette.Version, ID: r.id(), CreatedAt: created}
	prefix := 0
	if r.Mode == Fork {
		h.ParentID = r.Parent.ID()
		h.CreatedAt, _ = headerInt(r.Parent.Header, "createdAt")
		ps, _ := cassette.DecodeStep(r.Parent.Steps[r.ForkAt])
		h.ForkedFromStepID = ps.ID
		prefix = r.ForkAt
	}
	c, err := Build(h, res.Steps, r.Parent, prefix)
	if err != nil {
		return 1, fmt.Errorf("refusing to write the cassette: %w", err)
	}
	b, err := Encode(c, append(s.Keys(), envKeys(r.Env)...))
	if err != nil {
		return 1, err
	}
	if err := atomicfile.WriteFile(r.Out, b, 0o600); err != nil {
		return 1, err
	}
	verb := "recorded"
	if r.Mode == Fork {
		verb = fmt.Sprintf("forked at step %d:", r.ForkAt)
	}
	fmt.Fprintf(r.Stderr, "cc-cassette: %s %s (%d steps)\n", verb, r.Out, len(c.Steps))
	switch {
	case res.Stopped != "":
		fmt.Fprintf(r.Stderr, "cc-cassette: the recording is incomplete: it stops at %s (%d later model request(s) passed on unrecorded)\n", res.Stopped, res.AfterStop)
	case res.Unrecovered != "":
		fmt.Fprintf(r.Stderr, "cc-cassette: the run ended on an upstream failure it did not recover from: %s\n", res.Unrecovered)
	case res.ModelCalls == 0 && r.Mode == Record:
		why := "the command made no model call through the proxy"
		if res.UpstreamErrors > 0 {
			why = fmt.Sprintf("%d model call(s) failed upstream", res.UpstreamErrors)
		}
		fmt.Fprintf(r.Stderr, "cc-cassette: recorded no model call: %s\n", why)
	default:
		return code, nil
	}
	if code == 0 {
		code = 1
	}
	return code, nil
}

// errQuiet is a failure already reported on stderr.
var errQuiet = errors.New("cc-cassette: the session failed (reported on stderr)")

// IsQuiet reports an error that needs no more printing.
func IsQuiet(err error) bool { return errors.Is(err, errQuiet) }

func (r *Run) id() string {
	if r.ID != "" {
		return r.ID
	}
	base := filepath.Base(r.Out)
	for _, ext := range []string{".ndjson", ".jsonl", ".json"} {
		base = strings.TrimSuffix(base, ext)
	}
	if base == "" || base == "." {
		return "run"
	}
	return base
}

func headerInt(h cassette.Value, key string) (int64, bool) {
	v, ok := h.Get(key)
	if !ok {
		return 0, false
	}
	return v.Int()
}

func envKeys(env []string) []string {
	var out []string
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if (k == "ANTHROPIC_API_KEY" || k == "OPENAI_API_KEY" || k == "ANTHROPIC_AUTH_TOKEN") && strings.TrimSpace(v) != "" {
			out = append(out, v)
		}
	}
	return out
}
