package secrets

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/ccpipe/ccpipe/lib/bytescan"
	"github.com/ccpipe/ccpipe/lib/jsonscan"
)

// A JSONMatch is a secret in a string value of a JSON record: the jq path
// of the string (.message.content[0].input.command) and the match, whose
// offsets count bytes of the decoded string.
type JSONMatch struct {
	Path string
	Match
}

// ScanJSON returns the secrets in the string values of one JSON value
// (object keys are names, not scanned). Only a line holding a keyword is
// parsed: one that does not parse is an error, and its secrets are still
// returned as found in the raw bytes, with the path "".
func (s *Set) ScanJSON(line []byte) ([]JSONMatch, error) {
	s = s.ready()
	var found []JSONMatch
	_, err := s.redactJSON(nil, line, &found, false)
	return found, err
}

// RedactJSON appends line to dst with each secret in its string values
// replaced by [REDACTED:<kind>], and returns the secrets found. Only the
// strings that hold a secret are re-encoded; every other byte is kept, so
// a line without a secret comes back byte for byte. Every line is parsed:
// one that does not parse gets its raw bytes replaced (see Replace) and an
// error.
func (s *Set) RedactJSON(dst, line []byte) ([]byte, []JSONMatch, error) {
	s = s.ready()
	var found []JSONMatch
	out, err := s.redactJSON(dst, line, &found, true)
	return out, found, err
}

// RedactJSONTo is RedactJSON writing to out as it goes instead of
// building the result: it holds no copy of line, only of the string it is
// masking (a tool output of 200 MB costs the line and one string, not the
// line four times). A line that does not parse is an error, and out may
// then hold part of it: a caller that cannot take that checks the line
// first with ScanJSON, which fails on the same lines.
func (s *Set) RedactJSONTo(out io.Writer, line []byte) ([]JSONMatch, error) {
	s = s.ready()
	var found []JSONMatch
	w := walkers.Get().(*jsonWalker)
	defer w.release()
	s.rawHits(line, w)
	w.set, w.line, w.found, w.write, w.out = s, line, &found, true, out
	w.all = w.all || len(s.unkeyed) > 0
	if err := w.run(); err != nil {
		return found, fmt.Errorf("%w: %s", ErrNotJSON, strings.TrimPrefix(err.Error(), jsonscan.ErrSyntax.Error()+": "))
	}
	return found, w.werr
}

// ErrNotJSON wraps the parse errors of ScanJSON and RedactJSON (those of
// lib/jsonscan, as "not valid JSON: expected a key at byte 5").
var ErrNotJSON = errors.New("not valid JSON")

func (s *Set) redactJSON(dst, line []byte, found *[]JSONMatch, write bool) ([]byte, error) {
	w := walkers.Get().(*jsonWalker)
	defer w.release()
	if !s.rawHits(line, w) && len(s.unkeyed) == 0 && !write {
		// No keyword anywhere, none hidden behind an escape: nothing to
		// find. (RedactJSON still walks the line, to report bad JSON.)
		return dst, nil
	}
	w.set, w.line, w.found, w.write, w.dst = s, line, found, write, dst
	w.all = w.all || len(s.unkeyed) > 0
	err := w.run()
	if err != nil {
		// Unparsable: the raw text is scanned as it is, so that no secret
		// passes because its record is broken.
		*found = (*found)[:0]
		out, ms := s.Replace(line)
		for _, m := range ms {
			*found = append(*found, JSONMatch{Match: m})
		}
		if write {
			dst = append(dst, out...)
		}
		// jsonscan's own "invalid JSON: " would repeat ErrNotJSON.
		return dst, fmt.Errorf("%w: %s", ErrNotJSON, strings.TrimPrefix(err.Error(), jsonscan.ErrSyntax.Error()+": "))
	}
	return w.dst, nil
}

// rawHits notes in w where keywords occur in a raw line, and whether a
// string may hide one behind an escape (\u or \/; then every string
// holding one of those is checked too). It reports whether there is
// anything to check.
func (s *Set) rawHits(line []byte, w *jsonWalker) bool {
	s.eachHit(line, func(pos, kw int) bool {
		if !inKey(line, pos+len(s.keywords[kw].lit)) {
			w.hits = append(w.hits, hit{pos, kw})
		}
		return true
	})
	w.all = bytescan.IndexPair(line, 1, '\\', 'u', 0, 0) >= 0 || bytescan.IndexPair(line, 1, '\\', '/', 0, 0) >= 0 ||
		invisibleAt(line) >= 0
	return len(w.hits) > 0 || w.all
}

type hit struct{ pos, kw int }

// inKey reports whether a keyword ending at i is in an object key, such
// as "input_tokens": word bytes, a quote, white space and a colon follow.
// The quote closes the string holding the keyword (a word byte precedes
// it, so it is not escaped), and a string followed by a colon is a key.
// Keys are not scanned, so their hits need no parse.
func inKey(line []byte, i int) bool {
	for i < len(line) && isWord(line[i]) {
		i++
	}
	if i == len(line) || line[i] != '"' {
		return false
	}
	for i++; i < len(line) && (line[i] == ' ' || line[i] == '\t' || line[i] == '\n' || line[i] == '\r'); i++ {
	}
	return i < len(line) && line[i] == ':'
}

var walkers = sync.Pool{New: func() any { return new(jsonWalker) }}

func (w *jsonWalker) release() {
	if cap(w.buf) > 1<<20 {
		w.buf = nil
	}
	*w = jsonWalker{hits: w.hits[:0], path: w.path[:0], buf: w.buf[:0]}
	walkers.Put(w)
}

// jsonWalker walks one JSON value with a jsonscan cursor, keeping the
// path to the current value, and checks the strings that hold a keyword
// hit.
type jsonWalker struct {
	set   *Set
	line  []byte
	c     jsonscan.Cursor
	hits  []hit
	all   bool // some string may hide a keyword behind an escape
	next  int  // index of the first hit not yet passed
	path  []pathElem
	found *[]JSONMatch
	write bool
	dst   []byte
	out   io.Writer // RedactJSONTo's: dst is then a small buffer, flushed to out
	werr  error     // the first error writing to out
	last  int       // line bytes before this are in dst
	buf   []byte
}

type pathElem struct {
	key   []byte // raw key bytes (between the quotes), nil in an array
	index int
}

func (w *jsonWalker) run() error {
	w.c = jsonscan.New(w.line)
	if err := w.value(); err != nil {
		return err
	}
	if err := w.c.End(); err != nil {
		return err
	}
	switch {
	case w.out != nil:
		w.flush(w.line[w.last:])
	case w.write:
		w.dst = append(w.dst, w.line[w.last:]...)
	}
	return nil
}

// flush writes b to out (RedactJSONTo), keeping the first error.
func (w *jsonWalker) flush(b []byte) {
	if w.werr == nil && len(b) > 0 {
		_, w.werr = w.out.Write(b)
	}
}

// writeQuoted is appendQuoted for RedactJSONTo: text as a JSON string
// with the matches replaced, escaped and written in pieces of at most
// flushAt bytes.
func (w *jsonWalker) writeQuoted(text []byte, ms []Match) {
	w.dst = append(w.dst[:0], '"')
	plain := func(b []byte) {
		for len(b) > 0 {
			n := min(len(b), flushAt)
			w.dst = jsonscan.AppendEscaped(w.dst, b[:n])
			b = b[n:]
			if len(w.dst) >= flushAt {
				w.flush(w.dst)
				w.dst = w.dst[:0]
			}
		}
	}
	last := 0
	for _, m := range ms {
		plain(text[last:m.Start])
		w.dst = append(w.dst, "[REDACTED:"...)
		w.dst = jsonscan.AppendEscaped(w.dst, []byte(m.Kind))
		w.dst = append(w.dst, ']')
		last = m.End
	}
	plain(text[last:])
	w.dst = append(w.dst, '"')
	w.flush(w.dst)
	w.dst = w.dst[:0]
}

const flushAt = 64 << 10

// value walks one value: objects and arrays member by member, strings
// checked, the rest skipped (the cursor checks the grammar and bounds
// the nesting).
func (w *jsonWalker) value() error {
	switch w.c.Peek() {
	case '{':
		return w.object()
	case '[':
		return w.array()
	case '"':
		start := w.c.Pos()
		body, esc, err := w.c.RawString()
		if err != nil {
			return err
		}
		return w.checkString(start, w.c.Pos(), body, esc)
	}
	return w.c.Skip()
}

func (w *jsonWalker) object() error {
	if err := w.c.Enter(); err != nil {
		return err
	}
	w.path = append(w.path, pathElem{})
	top := len(w.path) - 1
	for {
		key, _, ok, err := w.c.Member()
		if err != nil {
			return err
		}
		if !ok {
			w.path = w.path[:top]
			return nil
		}
		w.path[top].key = key
		w.skipHits(w.c.Pos())
		if err := w.value(); err != nil {
			return err
		}
	}
}

func (w *jsonWalker) array() error {
	if err := w.c.EnterArray(); err != nil {
		return err
	}
	w.path = append(w.path, pathElem{index: -1})
	top := len(w.path) - 1
	for {
		ok, err := w.c.Elem()
		if err != nil {
			return err
		}
		if !ok {
			w.path = w.path[:top]
			return nil
		}
		w.path[top].index++
		if err := w.value(); err != nil {
			return err
		}
	}
}

// skipHits passes the hits before end (they were in a key).
func (w *jsonWalker) skipHits(end int) {
	for w.next < len(w.hits) && w.hits[w.next].pos < end {
		w.next++
	}
}

// checkString scans the string value at line[start:end] (quotes included,
// raw its body, esc whether it holds escapes) when a keyword hit lies in
// it, an escape may hide one, or the set has rules without keywords.
func (w *jsonWalker) checkString(start, end int, raw []byte, esc bool) error {
	first := w.next
	w.skipHits(end)
	hits := w.hits[first:w.next]
	if len(hits) == 0 && !w.all {
		return nil
	}
	hidden := len(w.set.unkeyed) > 0 ||
		esc && w.all && (bytescan.IndexPair(raw, 1, '\\', 'u', 0, 0) >= 0 || bytescan.IndexPair(raw, 1, '\\', '/', 0, 0) >= 0) ||
		w.all && invisibleAt(raw) >= 0
	if !hidden && (len(hits) == 0 || esc && !w.maybe(raw, start+1, hits)) {
		return nil
	}
	text := raw
	if esc {
		if cap(w.buf) < len(raw) {
			// Decoding never lengthens: one allocation, not a growing
			// buffer's garbage (for a string of 200 MB, 250 MB more).
			w.buf = make([]byte, 0, len(raw))
		}
		// The cursor has checked the escapes: decoding cannot fail.
		w.buf, _ = jsonscan.AppendUnescaped(w.buf[:0], raw)
		text = w.buf
	}
	var ms []Match
	if esc && (w.out != nil || !w.write) {
		// text is ours (w.buf): searched in place, and decoded again
		// below if it is written.
		ms = w.set.findOwned(text)
		if len(ms) > 0 && w.out != nil {
			w.buf, _ = jsonscan.AppendUnescaped(w.buf[:0], raw)
			text = w.buf
		}
	} else {
		ms = w.set.Find(text)
	}
	if len(ms) == 0 {
		return nil
	}
	path := w.pathString()
	for _, m := range ms {
		*w.found = append(*w.found, JSONMatch{Path: path, Match: m})
	}
	switch {
	case w.out != nil:
		w.flush(w.line[w.last:start])
		w.writeQuoted(text, ms)
		w.last = end
	case w.write:
		w.dst = append(w.dst, w.line[w.last:start]...)
		w.dst = appendQuoted(w.dst, text, ms)
		w.last = end
	}
	return nil
}

// maybe reports whether a rule could match at one of the hits of an
// escaped string (raw starts at line offset base), decoding only a
// window at each hit: as much as the rule reads there. Where it cannot
// tell, it says yes; the whole string is then decoded and searched.
func (w *jsonWalker) maybe(raw []byte, base int, hits []hit) bool {
	s := w.set
	for _, h := range hits {
		p := h.pos - base
		if p < 0 {
			continue
		}
		n := 0
		for p-1-n >= 0 && raw[p-1-n] == '\\' {
			n++
		}
		if n%2 == 1 {
			return true // the hit is inside an escape such as \n
		}
		text, err := jsonscan.AppendUnescapedPrefix(w.buf[:0], raw[p:], s.keywords[h.kw].span)
		w.buf = text
		if err != nil {
			return true
		}
		for _, ri := range s.keywords[h.kw].rules {
			r := s.rules[ri]
			if r.guard != nil && !r.guard(text) {
				continue
			}
			t := text[:min(len(text), r.span())]
			loc := s.anchored[ri].FindSubmatchIndex(t)
			if loc == nil {
				continue
			}
			if loc[1] == len(t) || s.check(ri, s.anchored[ri].secret, t, loc, 0, func(candidate) {}) {
				return true
			}
		}
	}
	return false
}

// pathString renders the current path as jq does: .a.b[0]["odd key"].
func (w *jsonWalker) pathString() string {
	if len(w.path) == 0 {
		return "."
	}
	var b []byte
	for i, e := range w.path {
		if e.key == nil {
			if i == 0 {
				b = append(b, '.')
			}
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(e.index), 10)
			b = append(b, ']')
			continue
		}
		key := e.key
		if bytes.IndexByte(key, '\\') >= 0 {
			if k, err := jsonscan.AppendUnescaped(nil, key); err == nil {
				key = k
			}
		}
		switch {
		case isIdent(key):
			b = append(b, '.')
			b = append(b, key...)
		default:
			if i == 0 {
				b = append(b, '.')
			}
			b = append(b, '[')
			b = appendQuoted(b, key, nil)
			b = append(b, ']')
		}
	}
	return string(b)
}

func isIdent(k []byte) bool {
	if len(k) == 0 {
		return false
	}
	for i, c := range k {
		if !(c == '_' || 'a' <= fold[c] && fold[c] <= 'z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// appendQuoted appends text as a JSON string, with the matches replaced
// by [REDACTED:<kind>]. Only what JSON requires is escaped (quote,
// backslash, control characters), as JSON.stringify does; other bytes are
// kept as they are.
func appendQuoted(dst, text []byte, ms []Match) []byte {
	dst = append(dst, '"')
	last := 0
	for _, m := range ms {
		dst = jsonscan.AppendEscaped(dst, text[last:m.Start])
		dst = append(dst, "[REDACTED:"...)
		dst = jsonscan.AppendEscaped(dst, []byte(m.Kind))
		dst = append(dst, ']')
		last = m.End
	}
	dst = jsonscan.AppendEscaped(dst, text[last:])
	return append(dst, '"')
}
