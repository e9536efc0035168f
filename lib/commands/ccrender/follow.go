package ccrender

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/records"
	"github.com/ccpipe/ccpipe/lib/registry"
	"github.com/ccpipe/ccpipe/lib/render"
	"github.com/ccpipe/ccpipe/lib/sessions"
	"github.com/ccpipe/ccpipe/lib/transcript"
)

// runFollow renders one session again each time its transcript (or a
// subagent's) changes, replacing the output file by a rename each time,
// until the session ends or a signal comes.
func (o *options) runFollow(env *cli.Env, args []string, ropts render.Options) error {
	path, id := "", ""
	switch {
	case len(args) == 1:
		path = args[0]
	case len(args) > 1:
		return cli.Usagef("--follow follows one session (%d named)", len(args))
	case env.HasInput():
		_, err := env.EachInput(func(line []byte, n int) error {
			r, err := records.Classify(line)
			if err != nil || r.SessionPath() == "" {
				return cli.Usagef("--follow needs a transcript or a session record, not entries (<stdin>:%d)", n)
			}
			if path != "" {
				return cli.Usagef("--follow follows one session (<stdin> has more)")
			}
			path, id = r.SessionPath(), r.SessionID
			return nil
		})
		if err != nil {
			return err
		}
	}
	if path == "" {
		return cli.Usagef("--follow needs one transcript or session record")
	}
	if transcript.CompressionOf(path) != transcript.Plain {
		return fmt.Errorf("%s: a compressed transcript cannot be followed", path)
	}
	s := o.sessionOf(path, id)
	out := o.out
	switch {
	case o.outDir != "":
		out = filepath.Join(o.outDir, safeName(s.ID)+"."+o.format)
	case out == "":
		out = stdoutFile(env)
		if out == "" {
			return cli.Usagef("--follow rewrites a file: give --out FILE or --out-dir DIR, or redirect stdout to a file")
		}
	}
	ended := registry.SessionEnded(s.ID, path)
	var last string
	for {
		done := ended != nil && ended() // decided before the look, so the last change is rendered
		sig, err := o.signature(path)
		if err != nil {
			return err
		}
		if sig != last {
			last = sig
			if o.subagents {
				s.Agents, _ = render.AgentsOf(path)
			}
			if t, err := sessions.Title(path); err == nil {
				s.Title = t // a title set since the last render
			}
			if err := renderFile(env.Ctx, out, s, ropts); err != nil {
				if env.Ctx.Err() != nil {
					return nil
				}
				return err
			}
		}
		if done {
			return nil
		}
		select {
		case <-env.Ctx.Done():
			return nil
		case <-time.After(o.poll):
		}
	}
}

// signature changes whenever the transcript or a subagent's grows or is
// rewritten.
func (o *options) signature(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	sig := fmt.Sprint(st.Size(), st.ModTime().UnixNano())
	if o.subagents {
		subs, _ := transcript.Subagents(path)
		for _, sa := range subs {
			if st, err := os.Stat(sa.Path); err == nil {
				sig += fmt.Sprint(";", sa.AgentID, st.Size(), st.ModTime().UnixNano())
			}
		}
	}
	return sig, nil
}

// stdoutFile is the path of the file stdout is redirected to (Linux:
// /proc/self/fd/1), "" when stdout is not a regular file.
func stdoutFile(env *cli.Env) string {
	f, ok := env.Stdout.(*os.File)
	if !ok {
		return ""
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return ""
	}
	p, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", f.Fd()))
	if err != nil || !filepath.IsAbs(p) {
		return ""
	}
	if _, err := os.Stat(p); errors.Is(err, os.ErrNotExist) {
		return ""
	}
	return p
}
