package secrets

// The walker lib/secrets had before it walked JSON with lib/jsonscan,
// kept as the oracle of FuzzJSONOracle: on every line encoding/json
// accepts, the jsonscan walk must give the same bytes and findings.

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/ccpipe/ccpipe/lib/bytescan"
)

func (s *Set) oldRedactJSON(dst, line []byte, found *[]JSONMatch, write bool) ([]byte, error) {
	s = s.ready()
	w := oldWalkers.Get().(*oldWalker)
	defer w.release()
	if !s.oldRawHits(line, w) && len(s.unkeyed) == 0 && !write {
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
		return dst, fmt.Errorf("%w: %v", ErrNotJSON, err)
	}
	return w.dst, nil
}

// rawHits notes in w where keywords occur in a raw line, and whether a
// string may hide one behind an escape (\u or \/; then every string
// holding one of those is checked too). It reports whether there is
// anything to check.
func (s *Set) oldRawHits(line []byte, w *oldWalker) bool {
	s = s.ready()
	s.eachHit(line, func(pos, kw int) bool {
		if !inKey(line, pos+len(s.keywords[kw].lit)) {
			w.hits = append(w.hits, hit{pos, kw})
		}
		return true
	})
	w.all = bytescan.IndexPair(line, 1, '\\', 'u', 0, 0) >= 0 || bytescan.IndexPair(line, 1, '\\', '/', 0, 0) >= 0
	return len(w.hits) > 0 || w.all
}

var oldWalkers = sync.Pool{New: func() any { return new(oldWalker) }}

func (w *oldWalker) release() {
	if cap(w.buf) > 1<<20 {
		w.buf = nil
	}
	*w = oldWalker{hits: w.hits[:0], path: w.path[:0], buf: w.buf[:0]}
	oldWalkers.Put(w)
}

// oldWalker walks one JSON value, keeping the path to the current value,
// and checks the strings that hold a keyword hit.
type oldWalker struct {
	set   *Set
	line  []byte
	hits  []hit
	all   bool // some string may hide a keyword behind an escape
	next  int  // index of the first hit not yet passed
	i     int
	path  []pathElem
	found *[]JSONMatch
	write bool
	dst   []byte
	last  int // line bytes before this are in dst
	buf   []byte
}

const oldMaxDepth = 10000

func (w *oldWalker) run() error {
	w.ws()
	if err := w.value(0); err != nil {
		return err
	}
	w.ws()
	if w.i != len(w.line) {
		return w.errorf("data after the value")
	}
	if w.write {
		w.dst = append(w.dst, w.line[w.last:]...)
	}
	return nil
}

func (w *oldWalker) errorf(format string, a ...any) error {
	return fmt.Errorf("offset %d: %s", w.i, fmt.Sprintf(format, a...))
}

func (w *oldWalker) ws() {
	for w.i < len(w.line) {
		switch w.line[w.i] {
		case ' ', '\t', '\n', '\r':
			w.i++
		default:
			return
		}
	}
}

func (w *oldWalker) value(depth int) error {
	if depth > oldMaxDepth {
		return w.errorf("nested more than %d deep", oldMaxDepth)
	}
	if w.i >= len(w.line) {
		return w.errorf("unexpected end")
	}
	switch c := w.line[w.i]; {
	case c == '{':
		return w.object(depth)
	case c == '[':
		return w.array(depth)
	case c == '"':
		start := w.i
		end, err := w.str()
		if err != nil {
			return err
		}
		return w.checkString(start, end)
	case c == 't':
		return w.literal("true")
	case c == 'f':
		return w.literal("false")
	case c == 'n':
		return w.literal("null")
	case c == '-' || '0' <= c && c <= '9':
		return w.number()
	default:
		return w.errorf("unexpected %q", c)
	}
}

func (w *oldWalker) object(depth int) error {
	w.i++
	w.path = append(w.path, pathElem{})
	top := len(w.path) - 1
	w.ws()
	if w.i < len(w.line) && w.line[w.i] == '}' {
		w.i++
		w.path = w.path[:top]
		return nil
	}
	for {
		w.ws()
		if w.i >= len(w.line) || w.line[w.i] != '"' {
			return w.errorf("want a key")
		}
		start := w.i
		end, err := w.str()
		if err != nil {
			return err
		}
		w.path[top].key = w.line[start+1 : end-1]
		w.skipHits(end)
		w.ws()
		if w.i >= len(w.line) || w.line[w.i] != ':' {
			return w.errorf("want ':'")
		}
		w.i++
		w.ws()
		if err := w.value(depth + 1); err != nil {
			return err
		}
		w.ws()
		if w.i >= len(w.line) {
			return w.errorf("unexpected end in an object")
		}
		switch w.line[w.i] {
		case ',':
			w.i++
		case '}':
			w.i++
			w.path = w.path[:top]
			return nil
		default:
			return w.errorf("want ',' or '}'")
		}
	}
}

func (w *oldWalker) array(depth int) error {
	w.i++
	w.path = append(w.path, pathElem{index: 0})
	top := len(w.path) - 1
	w.ws()
	if w.i < len(w.line) && w.line[w.i] == ']' {
		w.i++
		w.path = w.path[:top]
		return nil
	}
	for {
		w.ws()
		if err := w.value(depth + 1); err != nil {
			return err
		}
		w.ws()
		if w.i >= len(w.line) {
			return w.errorf("unexpected end in an array")
		}
		switch w.line[w.i] {
		case ',':
			w.i++
			w.path[top].index++
		case ']':
			w.i++
			w.path = w.path[:top]
			return nil
		default:
			return w.errorf("want ',' or ']'")
		}
	}
}

func (w *oldWalker) literal(lit string) error {
	if !bytes.HasPrefix(w.line[w.i:], []byte(lit)) {
		return w.errorf("bad literal")
	}
	w.i += len(lit)
	return nil
}

func (w *oldWalker) number() error {
	start := w.i
	for w.i < len(w.line) {
		c := w.line[w.i]
		if c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' || '0' <= c && c <= '9' {
			w.i++
			continue
		}
		break
	}
	if _, err := strconv.ParseFloat(string(w.line[start:w.i]), 64); err != nil && !errors.Is(err, strconv.ErrRange) {
		return w.errorf("bad number")
	}
	return nil
}

// str moves past the string starting at w.i and returns its end (past the
// closing quote).
func (w *oldWalker) str() (int, error) {
	j := w.i + 1
	for {
		k := bytes.IndexByte(w.line[j:], '"')
		if k < 0 {
			return 0, w.errorf("unterminated string")
		}
		q := j + k
		n := 0
		for q-1-n > w.i && w.line[q-1-n] == '\\' {
			n++
		}
		if n%2 == 0 {
			w.i = q + 1
			return q + 1, nil
		}
		j = q + 1
	}
}

// skipHits passes the hits before end (they were in a key).
func (w *oldWalker) skipHits(end int) {
	for w.next < len(w.hits) && w.hits[w.next].pos < end {
		w.next++
	}
}

// checkString scans the string value at line[start:end] (quotes included)
// when a keyword hit lies in it, an escape may hide one, or the set has
// rules without keywords.
func (w *oldWalker) checkString(start, end int) error {
	first := w.next
	w.skipHits(end)
	hits := w.hits[first:w.next]
	raw := w.line[start+1 : end-1]
	if len(hits) == 0 && !w.all {
		return nil
	}
	esc := bytes.IndexByte(raw, '\\') >= 0
	hidden := len(w.set.unkeyed) > 0 ||
		esc && w.all && (bytescan.IndexPair(raw, 1, '\\', 'u', 0, 0) >= 0 || bytescan.IndexPair(raw, 1, '\\', '/', 0, 0) >= 0)
	if !hidden && (len(hits) == 0 || esc && !w.maybe(raw, start+1, hits)) {
		return nil
	}
	text := raw
	if esc {
		var err error
		if w.buf, err = unquote(w.buf[:0], raw, -1); err != nil {
			w.i = start
			return w.errorf("%v", err)
		}
		text = w.buf
	}
	ms := w.set.Find(text)
	if len(ms) == 0 {
		return nil
	}
	path := w.pathString()
	for _, m := range ms {
		*w.found = append(*w.found, JSONMatch{Path: path, Match: m})
	}
	if w.write {
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
func (w *oldWalker) maybe(raw []byte, base int, hits []hit) bool {
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
		text, err := unquote(w.buf[:0], raw[p:], s.keywords[h.kw].span)
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
func (w *oldWalker) pathString() string {
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
			if k, err := unquote(nil, key, -1); err == nil {
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
