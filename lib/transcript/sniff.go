package transcript

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// ErrNotTranscript is what Sniff says of a file that is not a transcript.
var ErrNotTranscript = errors.New("not a transcript")

// sniffSize is how much of a file's head Sniff reads.
const sniffSize = 64 << 10

// Sniff says whether the file at path can be a transcript, from its first
// 64 KiB (decompressed), before a command writes anything for it: a file
// none of whose lines there is an entry (a JSON object with a "type") is
// not one, and is named a binary file if it holds a NUL byte (a crash can
// leave NULs in a transcript: with an entry beside them, it is one). An empty file is an
// empty transcript; a first line longer than the window is judged by its
// start. The error names the file and wraps ErrNotTranscript, or is the
// open error (which names it too). The one rule for "not a transcript"
// before reading; what a read then finds (malformed lines) is the
// reader's to count.
func Sniff(path string) error { return SniffAs(path, path) }

// SniffAs is Sniff with the file called name in its error: a temporary
// copy (cc-render's spool of stdin entries) is named where its lines came
// from.
func SniffAs(path, name string) error {
	f, err := Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, sniffSize)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("reading %s: %w", name, err)
	}
	return sniff(name, head[:n], n == sniffSize)
}

func sniff(path string, head []byte, more bool) error {
	var h Header
	objects, lines := 0, 0
	for rest := head; len(rest) > 0; {
		line, after, whole := bytes.Cut(rest, []byte("\n"))
		rest = after
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if !whole && more {
			// Cut by the window: a long line is judged by its start, if
			// no line before it was judged.
			if lines == 0 && bytes.HasPrefix(line, []byte(`{"`)) {
				return nil
			}
			break
		}
		lines++
		if Scan(line, &h) == nil {
			objects++
			if len(h.Type) > 0 {
				return nil
			}
		}
	}
	switch {
	case lines == 0:
		return nil // empty
	case bytes.IndexByte(head, 0) >= 0:
		return fmt.Errorf("%s: %w: a binary file", path, ErrNotTranscript)
	case objects > 0:
		return fmt.Errorf("%s: %w: %d records without a \"type\" (cc-extract output, or another tool's NDJSON?)", path, ErrNotTranscript, objects)
	}
	return fmt.Errorf("%s: %w: no JSON record in its first %d lines", path, ErrNotTranscript, lines)
}
