package extract

import (
	"bytes"
	"slices"
	"unicode/utf8"

	"github.com/ccpipe/ccpipe/lib/bytescan"
	"github.com/ccpipe/ccpipe/lib/jsonscan"
	"github.com/ccpipe/ccpipe/lib/transcript"
)

// lineFilter is a handler that can tell from a line's bytes, before the
// line is checked or decoded, that it has no use for it: the reader skips
// such a line unscanned (counted as prefiltered). wants sees the handler's
// state as of the line before, so it must be asked by the handler instance
// that will receive the line, in file order. It must be exact the safe
// way: it may want a line it turns out not to need, never refuse one it
// needs.
//
// What the needles can miss, and how each filter stays exact:
//   - A name, id or value written with \u escapes (encoding/json reads
//     "\u0042ash" as Bash): a line holding an escape of a printable ASCII
//     byte (\u0020-\u007f) is always wanted. Claude Code never writes one
//     (JSON.stringify escapes only control characters).
//   - A key written in another case, which encoding/json matches: key
//     needles are searched ignoring ASCII case, and a line with the
//     non-ASCII letters encoding/json folds onto ASCII ones (U+017F ſ,
//     U+212A K, raw or escaped) is always wanted.
//   - `"type": "x"` with blanks: needles are the quoted value alone.
//
// The pending-id needles rest on what a transcript file guarantees: a
// tool_result is written after its tool_use, and tool_use ids are unique.
// A result written before its call in the same file (possible only in a
// hand-made file) is skipped, and the call reads as having no result.
type lineFilter interface {
	// wants may update the handler's state for a line it refuses, as
	// reading the line would (failures takes answered calls out of its
	// pending names).
	wants(line []byte) bool
}

// filter returns the reader's per-line test for handler h: the kind's
// static needles, then h's own filter; nil when there is neither.
func (x *Extractor) filter(h handler) func(line []byte) bool {
	lf, _ := h.(lineFilter)
	if x.noPrefilter {
		lf = nil
	}
	if x.needles == nil && lf == nil {
		return nil
	}
	return func(line []byte) bool {
		if x.needles != nil && !containsAnyFast(line, x.needles) {
			return false
		}
		return lf == nil || lf.wants(line)
	}
}

func containsAnyFast(b []byte, needles [][]byte) bool {
	for _, n := range needles {
		if transcript.Contains(b, n) {
			return true
		}
	}
	return false
}

// asciiEscape reports whether b holds `\u00XX` with XX in 20..7f: an
// escape of a printable ASCII byte, the one way a name, key or id of
// printable ASCII can be written without its plain bytes. (The short
// escapes \" \\ \/ stand for bytes no needle holds.)
func asciiEscape(b []byte) bool {
	ascii, _ := escapes(b)
	return ascii
}

// escapes looks at each \u escape of b once: ascii is asciiEscape's
// answer, fold whether one escapes a letter encoding/json folds onto an
// ASCII one (\u017f ſ, \u212a K).
func escapes(b []byte) (ascii, fold bool) {
	for {
		i := bytescan.IndexPair(b, 1, '\\', 'u', 0, 0)
		if i < 0 || i+5 >= len(b) {
			return ascii, fold
		}
		h := b[i+2 : i+6]
		switch {
		case h[0] == '0' && h[1] == '0' && '2' <= h[2] && h[2] <= '7':
			return true, fold
		case h[0] == '0' && h[1] == '1' && h[2] == '7' && h[3]|0x20 == 'f',
			h[0] == '2' && h[1] == '1' && h[2] == '1' && h[3]|0x20 == 'a':
			fold = true
		}
		b = b[i+2:]
	}
}

// foldRisk reports whether b holds a character encoding/json folds onto
// an ASCII letter of a key (ſ onto s, the Kelvin sign onto k), raw or
// escaped, or an escape of an ASCII byte: a key needle searched ignoring
// ASCII case can miss such a key.
func foldRisk(b []byte) bool {
	if ascii, fold := escapes(b); ascii || fold {
		return true
	}
	return foldLetter(b)
}

// foldLetter is foldRisk without the escapes: a raw ſ or Kelvin sign.
func foldLetter(b []byte) bool {
	return bytescan.IndexPair(b, 1, 0xc5, 0xbf, 0, 0) >= 0 || transcript.Contains(b, []byte("\u212a"))
}

// containsFold reports whether b holds key (lowercase ASCII) in any ASCII
// case.
func containsFold(b []byte, key string) bool { return indexFold(b, key) >= 0 }

// indexFold is the first place b holds key (lowercase ASCII, at least 2
// bytes) in any ASCII case, or -1. It is found by the pair of key's bytes
// least common in a transcript (rarePair), a block of positions at a
// time, not by its first two (a key starting "is" or "to" would stop the
// scan at every English word that does).
func indexFold(b []byte, key string) int {
	var p, q int
	if pq, ok := foldPairs[key]; ok {
		p, q = int(pq[0]), int(pq[1])
	} else {
		p, q = rarePair(key)
	}
	for off := 0; len(b)-off >= len(key); {
		// The pair at i, i+q-p is the key's at a start st = i-p; st runs
		// from off to len(b)-len(key).
		hay := b[off+p : len(b)-len(key)+q+1]
		i := bytescan.IndexPair(hay, q-p, key[p], key[q], bytescan.CaseMask(key[p]), bytescan.CaseMask(key[q]))
		if i < 0 {
			return -1
		}
		st := off + i
		if foldEqual(b[st:st+len(key)], key) {
			return st
		}
		off = st + 1
	}
	return -1
}

// foldPairs holds rarePair of the keys the filters search, worked out
// once (read only after init: the filters run in parallel).
var foldPairs = map[string][2]uint8{}

func init() {
	for _, k := range []string{"tooldenialkind", "permissiondecision", `decision"`, "is_error", "interrupted",
		"agentid", "isapierrormessage", "decision"} {
		p, q := rarePair(k)
		foldPairs[k] = [2]uint8{uint8(p), uint8(q)}
	}
}

// rarePair picks the two positions p < q (at most 8 apart) of key whose
// bytes are least common together in a transcript's text, by a rough
// table of English letter frequencies (a quote is common in JSON).
func rarePair(key string) (p, q int) {
	best := -1
	for i := range len(key) {
		for j := i + 1; j < len(key) && j <= i+8; j++ {
			if f := byteFreq(key[i]) * byteFreq(key[j]); best < 0 || f < best {
				best, p, q = f, i, j
			}
		}
	}
	return p, q
}

// byteFreq is a rough frequency of c (lowercase) in a transcript, in
// tenths of a percent.
func byteFreq(c byte) int {
	switch {
	case 'a' <= c && c <= 'z':
		return letterFreq[c-'a']
	case c == '"':
		return 50
	case c == '_':
		return 3
	}
	return 10
}

var letterFreq = [26]int{
	80, 15, 28, 42, 120, 22, 20, 60, 70, 2, 8, 40, 24, // a-m
	67, 75, 19, 1, 60, 63, 90, 28, 10, 24, 2, 20, 1, // n-z
}

func foldEqual(b []byte, lower string) bool {
	for i := range len(lower) {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

var (
	toolUseNeedle    = []byte(`"tool_use"`)
	toolResultNeedle = []byte(`"tool_result"`)
)

// quoted makes the needles `"name"` of names.
func quoted(names ...string) [][]byte {
	out := make([][]byte, len(names))
	for i, n := range names {
		out[i] = []byte(`"` + n + `"`)
	}
	return out
}

// maxSeen bounds the call ids a joiner notes per file; past it, a result
// whose call is not pending is read (as if its call were still to come).
const maxSeen = 100000

// joinWants is the filter of a kind built on a joiner: it wants a line
// with a tool_use block the kind reports (by the names' needles; every
// one when names is nil), and a line with a result whose call is pending
// or has not been seen (a result written before its call is held for
// it). The ids of the calls in a line it skips are noted as seen, so
// that their results are skipped too.
func joinWants(line []byte, j *joiner, names [][]byte) bool {
	if asciiEscape(line) {
		return true
	}
	if transcript.Contains(line, toolUseNeedle) {
		if names == nil || containsAnyFast(line, names) || !j.noteIDs(line) {
			return true
		}
	}
	return transcript.Contains(line, toolResultNeedle) && j.wantsResults(line)
}

// noteIDs adds the ids of line's tool_use blocks to j.seen, and reports
// false when it cannot be sure to have found them all. They are found by
// their bytes when every `"tool_use"` in line opens
// `"type":"tool_use","id":"<id>"`, as Claude Code writes a block, else by
// a walk of the line's message content (blockIDs).
func (j *joiner) noteIDs(line []byte) bool {
	ids, ok := plainBlockIDs(line)
	if !ok {
		if ids, ok = blockIDs(line); !ok {
			return false
		}
	}
	if len(j.seen)+len(ids) > maxSeen {
		return false
	}
	for _, id := range ids {
		j.noteSeen(string(id))
	}
	return true
}

// plainBlockIDs is noteIDs' byte search: the ids of the tool_use blocks
// when every `"tool_use"` in line opens `"type":"tool_use","id":"<id>"`.
func plainBlockIDs(line []byte) (ids [][]byte, ok bool) {
	const pre, post = `"type":`, `,"id":"`
	for s, off := line, 0; ; {
		i := indexNeedle(s, toolUseNeedle)
		if i < 0 {
			return ids, true
		}
		at := off + i
		end := at + len(toolUseNeedle)
		k := at - len(pre)
		if k < 0 || string(line[k:at]) != pre || (k > 0 && line[k-1] == '\\') || !bytes.HasPrefix(line[end:], []byte(post)) {
			return nil, false
		}
		id, ok := plainString(line[end+len(post):])
		if !ok {
			return nil, false
		}
		ids = append(ids, id)
		s, off = s[i+1:], at+1
	}
}

// blockIDs is noteIDs' walk, for blocks whose members come in another
// order (`{"id":…,"input":…,"name":…,"type":"tool_use"}`): the ids of
// the tool_use blocks of an assistant record's message.content, as the
// decoder reads them (none for another record), by walkRecord.
func blockIDs(line []byte) (ids [][]byte, ok bool) {
	w, ok := walkRecord(line)
	if !ok {
		return nil, false
	}
	if string(w.typ) != "assistant" {
		return nil, true // the joiner reads the calls of assistant records only
	}
	for _, b := range w.blocks {
		if string(b.typ) == "tool_use" {
			if b.id == nil {
				return nil, false
			}
			ids = append(ids, b.id)
		}
	}
	return ids, true
}

// walked is what walkRecord read of a record.
type walked struct {
	typ       []byte
	sessionID []byte // nil when the record has none
	// requestSession: the record has a requestSessionId member (a fork's
	// copy may be another session's: see copiedFrom).
	requestSession bool
	message        bool // message is an object
	blocks         []walkedBlock
}

// walkedBlock is a block of message.content: its type, id, name and
// tool_use_id (nil when absent).
type walkedBlock struct {
	typ, id, name, useID []byte
}

// walkRecord reads a record's type, sessionId and the type, id, name and
// tool_use_id of each block of its message.content, as the decoder reads
// them, without decoding anything else (the prefilters' walk: a line it
// reads needs no decode when these say the kind has no use for it). It
// gives up (false) on anything the decoder might read otherwise: a key
// written with an escape, in another case or twice, a message or block
// that is not an object, one of those values that is not a plain string
// (no escape, valid UTF-8), or a line that is not one valid object. A
// content that is a string has no blocks.
func walkRecord(line []byte) (w walked, ok bool) { return walkRecordInto(line, nil) }

// walkRecordInto is walkRecord appending the blocks to blocks.
func walkRecordInto(line []byte, blocks []walkedBlock) (w walked, ok bool) {
	w.blocks = blocks
	c := jsonscan.New(line)
	if c.Peek() != '{' || c.Enter() != nil {
		return w, false
	}
	ok = members(&c, []string{"message", "type", "sessionId", "requestSessionId"}, func(i int) bool {
		switch i {
		case 1, 2:
			v, ok := plainValue(&c)
			if i == 1 {
				w.typ = v
			} else {
				w.sessionID = v
			}
			return ok
		case 3:
			w.requestSession = true
			return c.Skip() == nil
		}
		if c.Peek() != '{' || c.Enter() != nil {
			return false
		}
		w.message = true
		return members(&c, []string{"content"}, func(int) bool {
			switch c.Peek() {
			case '"':
				return c.Skip() == nil // a string: no blocks
			case '[':
			default:
				return false
			}
			if c.EnterArray() != nil {
				return false
			}
			for {
				more, err := c.Elem()
				if err != nil {
					return false
				}
				if !more {
					return true
				}
				if c.Peek() != '{' || c.Enter() != nil {
					return false
				}
				var b walkedBlock
				if !members(&c, []string{"type", "id", "name", "tool_use_id"}, func(i int) bool {
					v, ok := plainValue(&c)
					switch i {
					case 0:
						b.typ = v
					case 1:
						b.id = v
					case 2:
						b.name = v
					case 3:
						b.useID = v
					}
					return ok
				}) {
					return false
				}
				w.blocks = append(w.blocks, b)
			}
		})
	})
	if !ok || c.End() != nil {
		return walked{blocks: w.blocks}, false
	}
	return w, true
}

// plainValue reads a string without escapes, of valid UTF-8: it reads
// the same decoded.
func plainValue(c *jsonscan.Cursor) ([]byte, bool) {
	v, esc, err := c.RawString()
	if err != nil || esc || !utf8.Valid(v) {
		return nil, false
	}
	return v, true
}

// members reads the members of the object just entered: read reads the
// value of names[i] (and reports false to give up), the others are
// skipped. It gives up on a key written with an escape or in another
// case than one of names, or on one of names written twice.
func members(c *jsonscan.Cursor, names []string, read func(i int) bool) bool {
	var seen uint64
	for {
		k, esc, more, err := c.Member()
		if err != nil || esc {
			return false
		}
		if !more {
			return true
		}
		i := slices.Index(names, string(k))
		if i < 0 {
			if jsonscan.Folds(k, names...) || c.Skip() != nil {
				return false
			}
			continue
		}
		if seen&(1<<i) != 0 || !read(i) {
			return false
		}
		seen |= 1 << i
	}
}

// plainString returns the body of the string b starts in, up to its
// closing quote, when it holds no escape.
func plainString(b []byte) ([]byte, bool) {
	i := bytes.IndexByte(b, '"')
	if i < 0 || bytes.IndexByte(b[:i], '\\') >= 0 {
		return nil, false
	}
	return b[:i], true
}

// wantsResults reports whether j needs a line holding tool_result
// blocks: one of its tool_use_ids is pending or was never seen, or they
// cannot all be found.
func (j *joiner) wantsResults(line []byte) bool {
	return j.wantsResultsN(line, countNeedle(line, toolResultNeedle))
}

// wantsResultsN is wantsResults for a line holding n "tool_result"
// strings.
func (j *joiner) wantsResultsN(line []byte, n int) bool {
	ok := eachResultIDN(line, n, func(id []byte) bool {
		_, pending := j.byID[string(id)]
		_, seen := j.seen[string(id)]
		return pending || !seen
	})
	return !ok
}

// eachResultIDN calls fn with the tool_use_id of each tool_result block
// of line, which holds results "tool_result" strings (countNeedle's
// count), until fn returns true, and reports false when fn did, or when
// the ids cannot all be found by their bytes: every tool_use_id key, in
// any case, must be the plain member `"tool_use_id":"<id>"` (no blank, no
// escape, its quote not escaped: a member, not text), and there must be
// exactly as many as "tool_result" strings (one per block, none
// elsewhere). The caller has ruled out escapes of ASCII and folded
// letters.
func eachResultIDN(line []byte, results int, fn func(id []byte) bool) bool {
	const key = "tool_use_id"
	n := 0
	// Found by its two underscores, which no case changes: a rarer pair
	// than any two adjacent letters.
	for s, off := line, 0; ; {
		i := bytescan.IndexPair(s, 4, '_', '_', 0, 0)
		if i < 0 {
			break
		}
		at := off + i - 4
		s, off = s[i+1:], off+i+1
		if at < 0 || at+len(key) > len(line) || !foldEqual(line[at:at+len(key)], key) {
			continue
		}
		if at == 0 || line[at-1] != '"' || (at > 1 && line[at-2] == '\\') || !bytes.HasPrefix(line[at:], []byte(key+`":"`)) {
			return false
		}
		id, ok := plainString(line[at+len(key)+3:])
		if !ok || fn(id) {
			return false
		}
		n++
	}
	return n == results
}

// toolNeedles is, in one scan for `"tool_` (both begin so), whether line
// holds toolUseNeedle (transcript.Contains) and how many toolResultNeedle
// it holds (countNeedle, which counts them without overlap).
func toolNeedles(line []byte) (uses bool, results int) {
	next := 0 // where the next result counted may begin
	for off := 0; ; {
		i := bytescan.IndexPair(line[off:], 5, '"', '_', 0, 0)
		if i < 0 {
			return uses, results
		}
		at := off + i
		off = at + 1
		switch rest := line[at:]; {
		case bytes.HasPrefix(rest, toolUseNeedle):
			uses = true
		case at >= next && bytes.HasPrefix(rest, toolResultNeedle):
			results++
			next = at + len(toolResultNeedle)
		}
	}
}

// wants: a tools, shell or files call is read from its tool_use line (by
// the names of the tools the kind reports) and its result's line.
//
// It is joinWants and answer with the scans they share done once: the
// escapes, and whether the line holds a call or a result.
func (h *toolsKind) wants(line []byte) bool {
	ascii, fold := escapes(line)
	if ascii {
		return true
	}
	uses, results := toolNeedles(line)
	if uses && (h.names == nil || containsAnyFast(line, h.names) || !h.j.noteIDs(line)) {
		return true
	}
	if results == 0 || !h.j.wantsResultsN(line, results) {
		return false
	}
	return !h.inPlace || uses || fold || !h.answer(line)
}

// answersInPlace reports whether the kind's facts read of a result that
// cannot fail (mayFail) no more than that: files (but for Write, whose
// result tells create from write), and shell and tools with --errors
// (such a call is no error). Such a result is answered in place.
func answersInPlace(o Options) bool {
	return o.Kind == "files" || (o.Errors && (o.Kind == "shell" || o.Kind == "tools"))
}

// answer takes a user record whose tool results cannot fail into the
// joiner without a decode, as joiner.entry would take it: each result's
// call gets a result that is no error (the kind reads nothing else of
// it), a result of an ignored call is dropped. It reports false, having
// changed nothing, when it cannot: the line may hide a key (foldRisk) or
// hold a call, walkRecord gives up on it, a result is not of a pending
// or ignored call (one to come is held as early), a call is a Write
// (files reads create from its result), an id comes twice; and, when a
// cache keeps checkpoints, when the line answers the last call waited
// for (it is handed on, so that a checkpoint can follow it: kindtail.go).
//
// wants asks it only of a line that holds a result, no call, and no
// escape foldRisk looks for: the rest of foldRisk is asked here.
func (h *toolsKind) answer(line []byte) bool {
	j := h.j
	if foldLetter(line) || mayFail(line) {
		return false
	}
	w, ok := h.walker.walk(line)
	if !ok || string(w.typ) != "user" || !w.message {
		return false
	}
	pending, ignored := 0, 0
	for i, b := range w.blocks {
		if string(b.typ) != "tool_result" {
			continue
		}
		for _, o := range w.blocks[:i] {
			if string(o.typ) == "tool_result" && string(o.useID) == string(b.useID) {
				return false
			}
		}
		if _, ok := j.ignored[string(b.useID)]; ok {
			ignored++
			continue
		}
		c, ok := j.byID[string(b.useID)]
		if !ok || (h.x.opts.Kind == "files" && c.name == "Write") {
			return false
		}
		pending++
	}
	if h.x.mark != nil && len(j.byID) == pending && len(j.ignored) == ignored && len(j.early) == 0 {
		return false
	}
	for _, b := range w.blocks {
		if string(b.typ) != "tool_result" {
			continue
		}
		if _, ok := j.ignored[string(b.useID)]; ok {
			delete(j.ignored, string(b.useID))
			continue
		}
		j.byID[string(b.useID)].res = &result{}
		delete(j.byID, string(b.useID))
	}
	return true
}

// mayFail reports whether a result line can hold an error, a refusal or
// an interruption: an is_error or interrupted key (any case) that is not
// plainly false, a toolDenialKind or permissionDecision, or the interrupt
// marker. The caller rules out escapes and folded letters (foldRisk).
func mayFail(line []byte) bool {
	// The interrupt marker holds "interrupted" after a blank, which
	// onlyFalse refuses: the marker needs no scan of its own.
	return containsFold(line, "tooldenialkind") || !acceptedOnly(line) ||
		!onlyFalse(line, "is_error") || !onlyFalse(line, "interrupted")
}

// acceptedOnly reports whether every permissionDecision key of line, in
// any case, is the member `"permissionDecision":{"decision":"<d>"` with a
// plain d other than reject, and no other string of line ends in
// `decision` (in any case): each decision reads d however the line
// decodes, so none is a refusal (Claude Code writes an accepted call's
// result with one). The caller rules out escapes and folded letters.
//
// Both are found by one scan for "decision" (any case): a key is the one
// "permission" comes before.
func acceptedOnly(line []byte) bool {
	const pre = `"permissionDecision":{"decision":"`
	n, quoted := 0, 0
	for off := 0; ; {
		i := indexFold(line[off:], "decision")
		if i < 0 {
			break
		}
		d := off + i
		off = d + 1
		if d+len("decision") < len(line) && line[d+len("decision")] == '"' {
			quoted++
		}
		at := d - len("permission")
		if at < 0 || !foldEqual(line[at:d], "permission") {
			continue
		}
		if at == 0 || (at > 1 && line[at-2] == '\\') || !bytes.HasPrefix(line[at-1:], []byte(pre)) {
			return false
		}
		v, ok := plainString(line[at-1+len(pre):])
		if !ok || string(v) == "reject" {
			return false
		}
		n++
	}
	// Each accepted decision holds two: its key and the member inside.
	return quoted == 2*n
}

// acceptedOnlySlow is acceptedOnly by a scan for each key (its twin,
// TestAcceptedOnly).
func acceptedOnlySlow(line []byte) bool {
	const key, pre = "permissiondecision", `"permissionDecision":{"decision":"`
	n := 0
	for off := 0; ; {
		i := indexFold(line[off:], key)
		if i < 0 {
			break
		}
		at := off + i
		if at == 0 || (at > 1 && line[at-2] == '\\') || !bytes.HasPrefix(line[at-1:], []byte(pre)) {
			return false
		}
		d, ok := plainString(line[at-1+len(pre):])
		if !ok || string(d) == "reject" {
			return false
		}
		n++
		off = at + 1
	}
	return countFold(line, `decision"`) == 2*n
}

// countFold counts the places line holds s (lowercase ASCII, at least 2
// bytes) in any ASCII case.
func countFold(line []byte, s string) int {
	n := 0
	for {
		i := indexFold(line, s)
		if i < 0 {
			return n
		}
		n++
		line = line[i+1:]
	}
}

// wants: a subagent run is an Agent (formerly Task) call, its result and
// the task-notification prompt of a background run.
func (h *subagents) wants(line []byte) bool {
	return joinWants(line, h.j, agentNames) || transcript.Contains(line, taskNotification)
}

var (
	agentNames       = quoted("Agent", "Task")
	taskNotification = []byte("task-notification")
	// assistantType is the quoted type alone, so that a record re-encoded
	// with a space after the colon is still read.
	assistantType = []byte(`"assistant"`)
)

// wants: a prompt is a user record or a queued_command attachment; an
// assistant record is read until the file's first own one, which ends a
// fork's copied prefix (forkPrefix).
func (h *prompts) wants(line []byte) bool {
	if !containsAnyFast(line, promptNeedles) && !asciiEscape(line) && (h.pre.own || !transcript.Contains(line, assistantType)) {
		return false
	}
	return !answersOnly(line, &h.pre, &h.walker, false)
}

// answersOnly reports whether line is a user record that answers a call
// (a tool_result block: promptOf turns it down, whatever else it holds)
// of the session the handler read last (forkPrefix.see does nothing with
// it), read by walkRecord; with agents, one that also holds no agentId
// key in any case (no subagent's report: conversation). A line that may
// hide a key (foldRisk) is not.
func answersOnly(line []byte, pre *forkPrefix, k *walker, agents bool) bool {
	return answersOnlyN(line, transcript.Contains(line, toolResultNeedle), pre, k, agents)
}

// answersOnlyN is answersOnly for a line that holds toolResultNeedle when
// results.
func answersOnlyN(line []byte, results bool, pre *forkPrefix, k *walker, agents bool) bool {
	if !results || pre.sid == "" || foldRisk(line) || (agents && containsFold(line, "agentid")) {
		return false
	}
	w, ok := k.walk(line)
	if !ok || string(w.typ) != "user" || !w.message || string(w.sessionID) != pre.sid {
		return false
	}
	for _, b := range w.blocks {
		if string(b.typ) == "tool_result" {
			return true
		}
	}
	return false
}

var promptNeedles = quoted("user", "queued_command")

// wants: a text is a text block (or thinking block) of an assistant
// record.
func (h *texts) wants(line []byte) bool {
	if transcript.Contains(line, textNeedle) || asciiEscape(line) {
		return true
	}
	return h.x.opts.Thinking && transcript.Contains(line, thinkingNeedle)
}

var textNeedle, thinkingNeedle = []byte(`"text"`), []byte(`"thinking"`)

// failureNeedles are the values of the records a failure is read from,
// whatever the tool calls: system api_error, a UserPromptSubmit hook's
// blocked_by_hook ending, stop_hook_summary, and the "Stop hook feedback"
// meta prompt; the hook_* attachments are hookNeedle's.
var (
	failureNeedles = append(quoted("api_error", "blocked_by_hook", "stop_hook_summary"), []byte("Stop hook feedback:"))
	hookNeedle     = []byte(`"hook_`)
	// apiErrorNeedle is the one of failureNeedles without "hook"; hookNeedles
	// are the others, each with where "hook" sits in it.
	apiErrorNeedle = failureNeedles[0]
	hookNeedles    = []struct {
		b  []byte
		at int
	}{{failureNeedles[1], 12}, {failureNeedles[2], 6}, {failureNeedles[3], 5}}
	hookTypes = []string{"blocking_error\"", "stopped_continuation\"", "non_blocking_error\"", "error_during_execution\""}
)

// special reports whether line may hold a failure that is not read from a
// tool call: failureNeedles, a hook_* attachment, isApiErrorMessage, or
// an escape that could hide one.
func special(line []byte) bool {
	return foldRisk(line) || transcript.Contains(line, apiErrorNeedle) || hookLine(line) ||
		containsFold(line, "isapierrormessage")
}

// hookLine reports whether line holds one of hookNeedles or the type of a
// hook_* attachment failures reads (hookAttachmentLine): each holds
// "hook", and one scan for it finds them all.
func hookLine(line []byte) bool {
	for off := 0; ; {
		i := bytescan.IndexPair(line[off:], 3, 'h', 'k', 0, 0)
		if i < 0 {
			return false
		}
		at := off + i
		off = at + 1
		if at+4 > len(line) || string(line[at:at+4]) != "hook" {
			continue
		}
		for _, n := range hookNeedles {
			if k := at - n.at; k >= 0 && bytes.HasPrefix(line[k:], n.b) {
				return true
			}
		}
		if at > 0 && line[at-1] == '"' && bytes.HasPrefix(line[at+4:], []byte("_")) {
			for _, t := range hookTypes {
				if bytes.HasPrefix(line[at+5:], []byte(t)) {
					return true
				}
			}
		}
	}
}

// hookAttachmentLine reports whether line holds the type of a hook_*
// attachment failures reads (hookLine's slow twin, with
// failureNeedles).
func hookAttachmentLine(line []byte) bool {
	for {
		i := indexNeedle(line, hookNeedle)
		if i < 0 {
			return false
		}
		line = line[i+len(hookNeedle):]
		for _, t := range hookTypes {
			if bytes.HasPrefix(line, []byte(t)) {
				return true
			}
		}
	}
}

// wants: failures come from the records special finds, and from tool
// results that are errors, refusals or interruptions. The other lines
// with calls or results are answered here when walkRecord can read them,
// as the handler would take them, without a decode: an assistant
// record's calls are noted with their names (assistant), a user record's
// results that cannot fail (mayFail) take their calls out of the pending
// names (user). A line walkRecord gives up on, and a copy a fork may
// have made (requestSessionId), is read.
func (h *failures) wants(line []byte) bool {
	sp := special(line)
	// toolsOnly asks next about the same line: the answer is kept for it.
	h.lastLine, h.lastLen, h.lastSpecial = first(line), len(line), sp
	if sp {
		return true
	}
	uses, results := toolNeedles(line)
	if !uses && results == 0 {
		return false
	}
	if results > 0 && mayFail(line) {
		return true
	}
	if !uses {
		// A result of no pending call that cannot fail changes nothing.
		if eachResultIDN(line, results, func(id []byte) bool {
			_, pending := h.names[string(id)]
			_, copied := h.copied[string(id)]
			return pending || copied
		}) {
			return false
		}
	}
	w, ok := h.walker.walk(line)
	if !ok || w.requestSession || !w.message {
		return true
	}
	switch string(w.typ) {
	case "assistant":
		for _, b := range w.blocks {
			if string(b.typ) == "tool_use" && len(h.names) < maxPendingNames {
				h.names[string(b.id)] = string(b.name)
			}
		}
	case "user":
		// mayFail said no result here is an error, a refusal or an
		// interruption.
		for _, b := range w.blocks {
			if string(b.typ) == "tool_result" {
				delete(h.copied, string(b.useID))
				delete(h.names, string(b.useID))
			}
		}
		// A cache keeps a checkpoint at a line handed on after which the
		// handler is quiet (kindtail.go): the line that answers the last
		// pending call is handed on for it.
		return h.x.mark != nil && h.quiet()
	}
	return false
}

// walker runs walkRecord for a handler's line filter, its block list
// kept from line to line, and remembers the last line it read whole: a
// line walkRecord read is one valid JSON object (it checked every byte as
// jsonscan.Valid does), which a reader of entries on stdin need not check
// again (Extractor.WantsChecked).
type walker struct {
	blocks []walkedBlock
	line   *byte
	n      int
}

func (k *walker) walk(line []byte) (walked, bool) {
	w, ok := walkRecordInto(line, k.blocks[:0])
	k.blocks = w.blocks
	if ok {
		k.line, k.n = first(line), len(line)
	}
	return w, ok
}

// read reports whether line is the last one walk read whole.
func (k *walker) read(line []byte) bool {
	return k.line != nil && k.line == first(line) && k.n == len(line)
}

// walkers are the handlers whose line filter walks records.
type walkers interface{ lineWalker() *walker }

func (h *failures) lineWalker() *walker     { return &h.walker }
func (h *prompts) lineWalker() *walker      { return &h.walker }
func (h *conversation) lineWalker() *walker { return &h.walker }
func (h *toolsKind) lineWalker() *walker    { return &h.walker }

// WantsChecked is Wants that also reports whether the line filter read
// the whole line as valid JSON (a record it walked): such a line, not
// wanted, need not be checked again (jsonscan.Valid) to tell it from a
// malformed one.
func (x *Extractor) WantsChecked(line []byte) (want, valid bool) {
	k, _ := x.h.(walkers)
	if k != nil {
		k.lineWalker().line = nil
	}
	want = x.Wants(line)
	return want, k != nil && !x.noPrefilter && k.lineWalker().read(line)
}

// onlyFalse reports whether every occurrence of key (lowercase ASCII) in
// line, in any case, is the member `"<key>":false`: the field reads false
// however the line decodes.
func onlyFalse(line []byte, key string) bool {
	for off := 0; ; {
		i := indexFold(line[off:], key)
		if i < 0 {
			return true
		}
		at := off + i
		if at == 0 || line[at-1] != '"' || string(line[at:at+len(key)]) != key ||
			!bytes.HasPrefix(line[at+len(key):], []byte(`":false`)) {
			return false
		}
		off = at + 1
	}
}

// toolsReader is a handler that needs no more of some lines than
// transcript.DecodeTools reads (the join of tool calls).
type toolsReader interface {
	toolsOnly(line []byte) bool
}

// lazyChecker is a toolsReader that can tell only from the entry read
// whether that was enough (else the line is decoded in full).
type lazyChecker interface {
	lazyEnough(e *transcript.Entry) bool
}

func (x *Extractor) lazyEnough(e *transcript.Entry) bool {
	lc, ok := x.h.(lazyChecker)
	return !ok || x.noPrefilter || lc.lazyEnough(e)
}

// toolsOnly: a line holding a tool_result may be a user record answering
// a call: no prompt, and for conversation a subagent's report at most,
// which DecodeTools reads (toolUseResult, the block's tool_use_id).
func (h *prompts) toolsOnly(line []byte) bool { return transcript.Contains(line, toolResultNeedle) }

// wants: a user record that only answers calls, with no subagent's
// report, gives no turn.
func (h *conversation) wants(line []byte) bool {
	uses, results := toolNeedles(line) // one scan for both needles
	return !answersOnlyN(line, results > 0, &h.pre, &h.walker, true) && !callsOnlyN(line, uses, &h.pre, &h.walker)
}

// callsOnlyN reports whether line, which holds toolUseNeedle when uses,
// is an assistant record whose blocks are
// all calls (no text, no thinking: no turn), read by walkRecord, of the
// session read last, not a fork's copy (no requestSessionId), once the
// file's own assistant records have begun (forkPrefix.assistant then
// changes nothing). A line that may hide a key (foldRisk) is not.
func callsOnlyN(line []byte, uses bool, pre *forkPrefix, k *walker) bool {
	if !pre.own || pre.sid == "" || !uses || foldRisk(line) {
		return false
	}
	w, ok := k.walk(line)
	if !ok || string(w.typ) != "assistant" || !w.message || w.requestSession || string(w.sessionID) != pre.sid || len(w.blocks) == 0 {
		return false
	}
	for _, b := range w.blocks {
		if string(b.typ) != "tool_use" {
			return false
		}
	}
	return true
}

func (h *conversation) toolsOnly(line []byte) bool {
	return transcript.Contains(line, toolResultNeedle)
}

// lazyEnough: only a user record with a tool_result block, which promptOf
// turns down whatever else the record holds.
func (h *prompts) lazyEnough(e *transcript.Entry) bool      { return answersCall(e) }
func (h *conversation) lazyEnough(e *transcript.Entry) bool { return answersCall(e) }

// lazyEnough: a record other than a user's or an assistant's (on stdin,
// unfiltered) is decoded in full.
func (h *failures) lazyEnough(e *transcript.Entry) bool {
	return e.Type == "user" || e.Type == "assistant"
}
func (h *subagents) lazyEnough(e *transcript.Entry) bool {
	return e.Type == "user" || e.Type == "assistant"
}

func answersCall(e *transcript.Entry) bool {
	if e.Type != "user" || e.Message == nil || e.User == nil {
		return false
	}
	for _, b := range e.Message.Content {
		if b.Type == transcript.BlockToolResult {
			return true
		}
	}
	return false
}

// lazy returns the test of the lines the kind reads with DecodeTools;
// nil when none.
func (x *Extractor) lazy() func(line []byte) bool {
	if x.lazyTools {
		return func([]byte) bool { return true }
	}
	if tr, ok := x.h.(toolsReader); ok && !x.noPrefilter {
		return tr.toolsOnly
	}
	return nil
}

// toolsOnly: a failure read from anything but a tool call's join comes
// from a line failureNeedles or isApiErrorMessage find (an escape may hide
// them).
func (h *failures) toolsOnly(line []byte) bool {
	sp := h.lastSpecial
	if first(line) != h.lastLine || len(line) != h.lastLen {
		sp = special(line) // not asked by wants first (entries on stdin)
	}
	h.lastLine = nil
	return !sp
}

// toolsOnly: a subagent run is read from a tool call's join but for the
// task-notification prompts.
func (h *subagents) toolsOnly(line []byte) bool {
	return !asciiEscape(line) && !transcript.Contains(line, taskNotification)
}

// first is the address of line's first byte (nil when empty): with the
// length, it tells whether two slices are one line.
func first(line []byte) *byte {
	if len(line) == 0 {
		return nil
	}
	return &line[0]
}

// indexNeedle is bytes.Index for a needle of at least 2 bytes, found by
// its first two bytes a block of positions at a time (a quote and a
// letter are rare together where a quote alone is not; see
// transcript.Contains).
func indexNeedle(s, n []byte) int {
	for off := 0; len(s) >= len(n); {
		i := bytescan.IndexPair(s[:len(s)-len(n)+2], 1, n[0], n[1], 0, 0)
		if i < 0 {
			return -1
		}
		if bytes.Equal(s[i:i+len(n)], n) {
			return off + i
		}
		s, off = s[i+1:], off+i+1
	}
	return -1
}

// countNeedle is bytes.Count by indexNeedle.
func countNeedle(s, n []byte) int {
	c := 0
	for {
		i := indexNeedle(s, n)
		if i < 0 {
			return c
		}
		c++
		s = s[i+len(n):]
	}
}
