package cassette

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"strconv"
	"unicode/utf8"

	"github.com/ccpipe/ccpipe/lib/jsonscan"
	"github.com/ccpipe/ccpipe/lib/secrets"
)

// RawStep is a step line lexed but not parsed into a Value: verify hashes
// and scans it straight from the bytes, which is most of its speed. The
// lexer accepts only what Parse accepts, in its common form (valid UTF-8,
// keys without escapes, depth up to rawMaxDepth); a line it declines is
// parsed as before. A RawStep is valid until the Reader's next Next.
type RawStep struct {
	line []byte
	toks []rawTok
}

// rawTok is one token of a line: containers span their subtree, next is
// the index of the token after it.
type rawTok struct {
	kind       byte // '{' '[' '"' (string) 'k' (key) '0' (number) 'l' (true/false/null)
	esc        bool // string: holds a backslash
	start, end int  // string, key: the literal's body (no quotes); others: the text
	next       int
}

const rawMaxDepth = 1000

// lex tokenizes line into r; false means "parse it instead".
func (r *RawStep) lex(line []byte) bool {
	r.line, r.toks = line, r.toks[:0]
	if !utf8.Valid(line) {
		return false
	}
	l := rawLexer{d: line, r: r}
	l.space()
	if !l.value(0) {
		return false
	}
	l.space()
	return l.pos == len(line) && r.toks[0].kind == '{'
}

// member returns the token index of an object member's value, -1 when
// absent, -2 when repeated (JSON.parse keeps the last: left to Parse).
// The key is compared raw (keys hold no escapes).
func (r *RawStep) member(obj int, key string) int {
	at := -1
	for t := obj + 1; t < r.toks[obj].next; t = r.toks[t+1].next {
		k := r.toks[t]
		if string(r.line[k.start:k.end]) == key {
			if at >= 0 {
				return -2
			}
			at = t + 1
		}
	}
	return at
}

// plainString returns a string token's text when it holds no escape.
func (r *RawStep) plainString(t int) (string, bool) {
	if t < 0 || r.toks[t].kind != '"' || r.toks[t].esc {
		return "", false
	}
	return string(r.line[r.toks[t].start:r.toks[t].end]), true
}

type rawLexer struct {
	d   []byte
	pos int
	r   *RawStep
}

func (l *rawLexer) space() { l.pos = skipSpace(l.d, l.pos) }

func (l *rawLexer) value(depth int) bool {
	if l.pos >= len(l.d) || depth > rawMaxDepth {
		return false
	}
	switch c := l.d[l.pos]; {
	case c == '{' || c == '[':
		t := len(l.r.toks)
		l.r.toks = append(l.r.toks, rawTok{kind: c, start: l.pos})
		l.pos++
		l.space()
		closer := byte('}')
		if c == '[' {
			closer = ']'
		}
		if l.pos < len(l.d) && l.d[l.pos] == closer {
			l.pos++
		} else {
			for {
				if c == '{' {
					if l.pos >= len(l.d) || l.d[l.pos] != '"' || !l.str('k') {
						return false
					}
					l.space()
					if l.pos >= len(l.d) || l.d[l.pos] != ':' {
						return false
					}
					l.pos++
					l.space()
				}
				if !l.value(depth + 1) {
					return false
				}
				l.space()
				if l.pos >= len(l.d) {
					return false
				}
				if l.d[l.pos] == ',' {
					l.pos++
					l.space()
					continue
				}
				if l.d[l.pos] != closer {
					return false
				}
				l.pos++
				break
			}
		}
		l.r.toks[t].end = l.pos
		l.r.toks[t].next = len(l.r.toks)
		return true
	case c == '"':
		return l.str('"')
	case c == '-' || (c >= '0' && c <= '9'):
		return l.number()
	default:
		for _, lit := range [...]string{"true", "false", "null"} {
			if len(l.d)-l.pos >= len(lit) && string(l.d[l.pos:l.pos+len(lit)]) == lit {
				l.r.toks = append(l.r.toks, rawTok{kind: 'l', start: l.pos, end: l.pos + len(lit), next: len(l.r.toks) + 1})
				l.pos += len(lit)
				return true
			}
		}
		return false
	}
}

// str lexes a string literal. Escapes other than the ones JSON.stringify
// writes (a non-canonical literal) are declined: rare, and Parse re-escapes
// them.
func (l *rawLexer) str(kind byte) bool {
	d := l.d
	start := l.pos + 1
	i := start
	esc := false
	for {
		for i < len(d) && plainByte[d[i]] {
			i++
		}
		if i >= len(d) {
			return false
		}
		switch c := d[i]; {
		case c == '"':
			if kind == 'k' && esc {
				return false
			}
			l.r.toks = append(l.r.toks, rawTok{kind: kind, esc: esc, start: start, end: i, next: len(l.r.toks) + 1})
			l.pos = i + 1
			return true
		case c == '\\':
			if i+1 >= len(d) {
				return false
			}
			esc = true
			switch d[i+1] {
			case '"', '\\', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				// Canonical: \u00xx, lowercase, for a control without a
				// short form.
				if i+6 > len(d) || d[i+2] != '0' || d[i+3] != '0' || (d[i+4] != '0' && d[i+4] != '1') {
					return false
				}
				u, ok := hex4(d, i+2)
				if !ok || !isLowerHex(d[i+2:i+6]) || u == '\b' || u == '\f' || u == '\n' || u == '\r' || u == '\t' {
					return false
				}
				i += 6
			default:
				return false
			}
		default: // a control or 0xED (a surrogate cannot be in valid UTF-8, but stay with Parse)
			return false
		}
	}
}

// number lexes a JSON number.
func (l *rawLexer) number() bool {
	d, i := l.d, l.pos
	start := i
	if d[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(d) && d[i] == '0' {
		i++
	} else if digits() == 0 {
		return false
	}
	if i < len(d) && d[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	l.r.toks = append(l.r.toks, rawTok{kind: '0', start: start, end: i, next: len(l.r.toks) + 1})
	l.pos = i
	return true
}

// rawHasher writes the canonical text of lexed values into a hash.
type rawHasher struct {
	r     *RawStep
	h     hash.Hash
	buf   []byte
	order []int
	ok    bool
}

func (e *rawHasher) flush() {
	if len(e.buf) >= flushAt {
		e.h.Write(e.buf)
		e.buf = e.buf[:0]
	}
}

// canonical writes token t's value; false when it cannot be written
// here (a repeated key, a non-finite number): the caller parses instead.
func (e *rawHasher) canonical(t int) bool {
	tok := e.r.toks[t]
	d := e.r.line
	switch tok.kind {
	case 'l':
		e.buf = append(e.buf, d[tok.start:tok.end]...)
	case '0':
		return e.number(d[tok.start:tok.end])
	case '"':
		// The lexer let through only canonical escapes: the literal is
		// the canonical text.
		body := d[tok.start:tok.end]
		if len(body) > flushAt {
			e.h.Write(append(e.buf, '"'))
			e.h.Write(body)
			e.buf = append(e.buf[:0], '"')
			return true
		}
		e.buf = append(e.buf, '"')
		e.buf = append(e.buf, body...)
		e.buf = append(e.buf, '"')
	case '[':
		e.buf = append(e.buf, '[')
		for c := t + 1; c < tok.next; c = e.r.toks[c].next {
			if c > t+1 {
				e.buf = append(e.buf, ',')
			}
			if !e.canonical(c) {
				return false
			}
			e.flush()
		}
		e.buf = append(e.buf, ']')
	case '{':
		base := len(e.order)
		for k := t + 1; k < tok.next; k = e.r.toks[k+1].next {
			e.order = append(e.order, k)
		}
		order := e.order[base:]
		key := func(k int) string {
			return unsafeString(d[e.r.toks[k].start:e.r.toks[k].end])
		}
		for i := 1; i < len(order); i++ {
			for j := i; j > 0 && keyLess(key(order[j]), key(order[j-1])); j-- {
				order[j], order[j-1] = order[j-1], order[j]
			}
		}
		e.buf = append(e.buf, '{')
		ok := true
		for i, k := range order {
			if i > 0 {
				if key(k) == key(order[i-1]) {
					ok = false // a repeated key: JSON.parse keeps the last
					break
				}
				e.buf = append(e.buf, ',')
			}
			e.buf = append(e.buf, '"')
			e.buf = append(e.buf, key(k)...)
			e.buf = append(e.buf, '"', ':')
			if !e.canonical(k + 1) {
				ok = false
				break
			}
			e.flush()
		}
		e.order = e.order[:base]
		if !ok {
			return false
		}
		e.buf = append(e.buf, '}')
	}
	return true
}

// number writes a number as JavaScript does; a plain integer of up to
// 15 digits is already so.
func (e *rawHasher) number(n []byte) bool {
	digits := n
	if digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) <= 15 && (digits[0] != '0' || len(n) == 1) {
		plain := true
		for _, c := range digits {
			if c < '0' || c > '9' {
				plain = false
				break
			}
		}
		if plain {
			e.buf = append(e.buf, n...)
			return true
		}
	}
	f, err := strconv.ParseFloat(unsafeString(n), 64)
	if err != nil && f == 0 {
		return false
	}
	b, err := AppendNumber(e.buf, f)
	if err != nil {
		return false
	}
	e.buf = b
	return true
}

// scanClean reports that no string or key of the subtree at t holds a
// marker or secret (the neutrality walk of scan, without locating: a
// step with a finding is walked again from its Value).
func (v *Verifier) scanClean(r *RawStep, t int, user bool) bool {
	tok := r.toks[t]
	switch tok.kind {
	case '"':
		body := r.line[tok.start:tok.end]
		if tok.esc {
			// Only escapes without surrogates get here: decoded
			// as JSON.parse does.
			v.scratch, _ = jsonscan.AppendUnescaped(v.scratch[:0], body)
			body = v.scratch
		}
		return v.stringClean(body, user)
	case '[':
		for c := t + 1; c < tok.next; c = r.toks[c].next {
			if !v.scanClean(r, c, user) {
				return false
			}
		}
	case '{':
		for k := t + 1; k < tok.next; k = r.toks[k+1].next {
			key := unsafeString(r.line[r.toks[k].start:r.toks[k].end])
			if !user && keyMarkers[key] {
				return false
			}
			if !v.stringClean(unsafeBytes(key), user) || !v.scanClean(r, k+1, user || userDataKeys[key]) {
				return false
			}
		}
	}
	return true
}

// stringClean is scanString's test without recording.
func (v *Verifier) stringClean(b []byte, user bool) bool {
	set := secrets.Blackbox.Markers
	if user {
		set = secrets.Blackbox.UserData
	}
	if len(b) >= 2 && set.MayMatch(b) && len(set.Kinds(b)) > 0 {
		return false
	}
	for _, k := range v.Keys {
		if len(k) >= 4 && bytes.Contains(b, unsafeBytes(k)) {
			return false
		}
	}
	return true
}

// rawStep is Step's fast path: it returns false, having changed nothing,
// when the step needs the full walk (a finding, a chain failure, a null
// payload, anything unusual), and the caller parses the line.
func (v *Verifier) rawStep(r *RawStep) bool {
	i := v.n
	if v.chain != nil || !v.scanClean(r, 0, false) {
		return false
	}
	idx, typ, ts, payload, prev, hashAt := r.member(0, "index"), r.member(0, "type"), r.member(0, "timestamp"), r.member(0, "payload"), r.member(0, "prevHash"), r.member(0, "hash")
	if idx < 0 || ts < 0 || payload < 0 || prev < 0 || r.toks[idx].kind != '0' || string(r.line[r.toks[idx].start:r.toks[idx].end]) != strconv.Itoa(i) {
		return false
	}
	t, ok := r.plainString(typ)
	if !ok || !KnownType(t) || (r.toks[payload].kind == 'l' && r.line[r.toks[payload].start] == 'n') {
		return false
	}
	if i == 0 {
		if r.toks[prev].kind != 'l' || r.line[r.toks[prev].start] != 'n' {
			return false
		}
	} else if p, ok := r.plainString(prev); !ok || p != v.prev {
		return false
	}
	stored, ok := r.plainString(hashAt)
	if !ok {
		return false
	}
	if v.raw == nil {
		v.raw = &rawHasher{h: sha256.New()}
	}
	e := v.raw
	e.r, e.ok = r, true
	e.h.Reset()
	e.buf = append(e.buf[:0], `{"index":`...)
	fields := [5]int{idx, payload, prev, ts, typ}
	for n, name := range hashedFields {
		if n > 0 {
			e.buf = append(e.buf, `,"`...)
			e.buf = append(e.buf, name...)
			e.buf = append(e.buf, `":`...)
		}
		if !e.canonical(fields[n]) {
			return false
		}
	}
	e.buf = append(e.buf, '}')
	e.h.Write(e.buf)
	if cap(e.buf) > 4<<20 {
		e.buf = nil
	}
	var sum [sha256.Size]byte
	if hex.EncodeToString(e.h.Sum(sum[:0])) != stored {
		return false
	}
	// OutcomeOf's reading, for when this step is the last.
	status := StatusIncomplete
	if t == Metadata && r.toks[payload].kind == '{' {
		ev, _ := r.plainString(r.member(payload, "event"))
		st, _ := r.plainString(r.member(payload, "status"))
		switch {
		case ev == "run_completed" && st == "success":
			status = StatusSuccess
		case ev == "run_failed":
			status = StatusError
		}
	}
	// Committed: the same effects as Step.
	v.n++
	v.prev = stored
	v.claims = v.claims || status == StatusSuccess
	v.lastStatus = status
	return true
}

// StepRaw takes the next step as lexed by a Reader with Lazy set.
func (v *Verifier) StepRaw(r *RawStep) {
	if v.rawStep(r) {
		return
	}
	s, err := Parse(r.line)
	if err != nil {
		// The lexer is stricter than Parse; this cannot happen.
		s = Value{}
	}
	v.Step(s)
}
