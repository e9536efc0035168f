package ccredact

import (
	"bytes"
	"errors"
	"io"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/ndjson"
	"github.com/ccpipe/ccpipe/lib/transcript"
)

// redact writes the records of the inputs with their secrets replaced.
func (r *runner) redact(args []string) error {
	if len(args) == 0 {
		if !r.env.HasInput() {
			return cli.Usagef(`no input: pipe records, give transcript paths ("-" for stdin), or use --scan`)
		}
		return r.redactStream(r.env.Stdin, "<stdin>", true)
	}
	for _, a := range args {
		var err error
		if a == "-" {
			err = r.redactStream(r.env.Stdin, "<stdin>", false)
		} else {
			err = r.redactFile(a)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// redactFile writes the redacted records of one transcript file (plain,
// .gz or .zst). A file that cannot be read, or is not a transcript (a
// binary, text), is reported once and skipped: nothing of it is written.
func (r *runner) redactFile(path string) error {
	if err := transcript.Sniff(path); err != nil {
		r.fail("%v", err)
		return nil
	}
	f, err := transcript.Open(path)
	if err != nil {
		r.fail("%v", err)
		return nil
	}
	defer f.Close()
	return r.redactStream(f, path, false)
}

// redactStream redacts the records of one stream. With sessions, session
// records stand for their transcripts' records.
func (r *runner) redactStream(in io.Reader, name string, sessions bool) error {
	w := &warner{r: r, name: name}
	defer w.done()
	var buf []byte
	err := eachLine(r.env.Ctx, in, w.warn, func(line []byte, n int, last bool) error {
		if sessions {
			if ref, ok := asSession(line); ok {
				if r.seen[ref.path] {
					return nil
				}
				r.seen[ref.path] = true
				if err := r.redactFile(ref.path); err != nil {
					return ndjson.Stop(err)
				}
				return nil
			}
		}
		out, _, err := r.set.RedactJSON(buf[:0], line)
		buf = out
		if err == nil && !isObject(line) {
			err = errors.New("a JSON value that is not an object")
		}
		if err != nil {
			if last {
				w.warn(n, "incomplete last line (file still being written?), left out")
			} else {
				w.warn(n, "not a JSON record, left out: "+cli.Mask(err.Error()))
			}
			return nil
		}
		if err := r.env.Out.WriteJSON(out); err != nil {
			return ndjson.Stop(err)
		}
		return nil
	})
	if cause, ok := ndjson.Stopped(err); ok {
		return cause
	}
	if err != nil {
		r.fail("%s: %v", name, err)
	}
	return nil
}

// isObject says whether a JSON line is an object: a record; a number or a
// string alone on a line (what a binary's digits look like) is not.
func isObject(line []byte) bool {
	line = bytes.TrimLeft(line, " \t\r\n")
	return len(line) > 0 && line[0] == '{'
}
