package extract

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/ccpipe/ccpipe/lib/layout"
	"github.com/ccpipe/ccpipe/lib/transcript"
)

// call is a tool_use block and, once it arrived, its result.
type call struct {
	base   Base
	origin Origin
	id     string
	name   string
	input  json.RawMessage
	res    *result
}

// result is a tool_result block with what its record says about it.
type result struct {
	base Base
	path string // the transcript it was read from ("" on stdin without cc_source)
	// text is the result's text (read it by txt); while textJSON is set,
	// the text is that JSON string as the line wrote it, not yet decoded
	// (transcript.Block.TextJSON): the tools kind copies it out as it is.
	text       string
	textJSON   []byte
	isError    bool
	tur        json.RawMessage // the record's toolUseResult
	denialKind string
	decision   json.RawMessage
	// borrowed: textJSON, tur and decision are slices of the line being
	// taken (joiner.borrowed), copied (own) if the result outlives it.
	borrowed bool
	handed   bool // its call was handed on (joiner.drain)
	// infoVal is tur read once (infoRead), or by DecodeTools' walk.
	infoVal  transcript.ResultInfo
	infoRead bool
}

// setText takes the text of a tool result's content: left as written
// when DecodeTools left it so.
func (r *result) setText(content []transcript.Block) {
	if len(content) == 1 && content[0].Type == transcript.BlockText && content[0].TextJSON != nil {
		r.textJSON = content[0].TextJSON
		return
	}
	r.text = transcript.Text(content)
}

// txt is the result's text, decoded once.
func (r *result) txt() string {
	if r.textJSON != nil {
		r.text, r.textJSON = transcript.Text([]transcript.Block{{Type: transcript.BlockText, TextJSON: r.textJSON}}), nil
	}
	return r.text
}

// hasPrefix reports whether the text starts with p (plain ASCII: no quote,
// backslash or control byte), from the JSON string when the text is not
// decoded: its bytes before the first escape are the text's (a byte that
// is not ASCII differs from p however it decodes), so only a string that
// matches p up to an escape is decoded. trim skips the spaces and
// newlines the text starts with first.
func (r *result) hasPrefix(p string, trim bool) bool {
	if r.textJSON != nil {
		body := r.textJSON[1 : len(r.textJSON)-1]
		for trim && len(body) > 0 {
			if body[0] == ' ' {
				body = body[1:]
			} else if len(body) > 1 && body[0] == '\\' && body[1] == 'n' {
				body = body[2:]
			} else {
				break
			}
		}
		head := body[:min(len(body), len(p))]
		k := bytes.IndexByte(head, '\\')
		if k < 0 {
			return bytes.HasPrefix(body, []byte(p))
		}
		if !strings.HasPrefix(p, string(head[:k])) {
			return false // the bytes before the escape differ
		}
		r.txt() // an escape in the way
	}
	t := r.text
	if trim {
		t = strings.TrimLeft(t, " \n")
	}
	return strings.HasPrefix(t, p)
}

// info is the toolUseResult fields facts use, read once.
func (r *result) info() *transcript.ResultInfo {
	if r == nil {
		return &transcript.ResultInfo{}
	}
	if !r.infoRead {
		r.infoVal, r.infoRead = transcript.ReadResultInfo(r.tur), true
	}
	return &r.infoVal
}

// Denial says who refused a tool call, and why.
type Denial struct {
	// By is hook, user, rule (a permission rule) or mode (the permission
	// mode); another source passes through.
	By string `json:"by"`
	// Kind is the record's toolDenialKind (permission-rule, user-rejected,
	// automode-unavailable), null when absent.
	Kind   *string `json:"kind"`
	Reason string  `json:"reason"`
}

// denial reads a refused call's result; nil when the call was not refused.
func (r *result) denial() *Denial {
	if r == nil {
		return nil
	}
	var d struct {
		Decision string `json:"decision"`
		Source   string `json:"source"`
	}
	if !readObject(r.decision, []objField{{name: "decision", str: &d.Decision}, {name: "source", str: &d.Source}}) {
		d.Decision, d.Source = "", ""
		decodeObject(r.decision, &d)
	}
	if r.denialKind == "" && d.Decision != "reject" {
		return nil
	}
	by := d.Source
	switch {
	case d.Source == "hook":
	case r.denialKind == "user-rejected" || strings.HasPrefix(d.Source, "user"):
		by = "user"
	case r.denialKind == "permission-rule" || d.Source == "config":
		by = "rule"
	case r.denialKind == "automode-unavailable":
		by = "mode"
	case by == "":
		by = r.denialKind
	}
	reason := r.txt()
	if by == "hook" {
		reason = hookReason(reason)
	}
	return &Denial{By: by, Kind: str(r.denialKind), Reason: reason}
}

func (r *result) interrupted() bool {
	return r != nil && (r.info().Interrupted || r.hasPrefix(interruptPrefix, false))
}

func (r *result) persistedPath() *string {
	if r == nil {
		return nil
	}
	if p := r.info().PersistedOutputPath; p != "" {
		return &p
	}
	if !r.hasPrefix(persistedTag, true) {
		return nil
	}
	if p, ok := PersistedOutputPath(r.txt()); ok {
		return &p
	}
	return nil
}

// maxEarly bounds the results kept while waiting for a call that has not
// been seen (a result written before its call, or entries filtered out).
const maxEarly = 10000

// joiner pairs tool_use blocks with their tool_result blocks by id,
// wherever the result sits, and hands each call on in the file order of
// the calls: a call waits for its result and for every call before it.
type joiner struct {
	queue   []*call
	byID    map[string]*call
	early   map[string]*result
	done    func(*call) error
	orphans int
	// want tells the calls the kind reports (nil: all). Another call is
	// not queued: it would only delay the ones after it; its id is kept in
	// ignored so that its result is dropped, not held as early.
	want    func(name string) bool
	ignored map[string]struct{}
	// seen holds the ids of the file's calls (up to maxSeen), for the
	// kind's line filter: a result of a call not seen may come before it.
	seen map[string]struct{}
	// copies counts the calls a fork copied, left to the session that
	// made them (copied.go): not queued, their ids ignored.
	copies *copies
	// seenLog holds seen's ids in the order they came, when logSeen (the
	// cache keeps them: kindtail.go).
	logSeen bool
	seenLog []string
	// borrowed: the entry being taken holds slices of the reader's line
	// (Extractor.borrowed): what outlives it is copied; fresh are its
	// results, owned once the calls it answered were handed on.
	borrowed bool
	fresh    []*result
}

func newJoiner(c *copies, done func(*call) error, want func(string) bool) *joiner {
	return &joiner{byID: map[string]*call{}, early: map[string]*result{}, done: done, want: want, ignored: map[string]struct{}{}, seen: map[string]struct{}{}, copies: c}
}

func (j *joiner) entry(o *Origin, e *transcript.Entry) error {
	if e.Message == nil {
		return nil
	}
	switch e.Type {
	case "assistant":
		owner, copied := copiedFrom(o, e)
		for _, b := range e.Message.Content {
			if b.Type != transcript.BlockToolUse {
				continue
			}
			j.noteSeen(b.ID)
			if copied || (j.want != nil && !j.want(b.Name)) {
				if copied && (j.want == nil || j.want(b.Name)) {
					j.copies.leave(owner)
				}
				if _, ok := j.early[b.ID]; ok {
					delete(j.early, b.ID)
				} else {
					j.ignored[b.ID] = struct{}{}
				}
				continue
			}
			input := b.Input
			if j.borrowed {
				input = bytes.Clone(input)
			}
			c := &call{base: base(o, e), origin: *o, id: b.ID, name: b.Name, input: input}
			if r, ok := j.early[b.ID]; ok {
				c.res = r
				delete(j.early, b.ID)
			} else {
				j.byID[b.ID] = c
			}
			j.queue = append(j.queue, c)
		}
	case "user":
		for _, b := range e.Message.Content {
			if b.Type != transcript.BlockToolResult {
				continue
			}
			if _, ok := j.ignored[b.ToolUseID]; ok {
				delete(j.ignored, b.ToolUseID)
				continue
			}
			r := &result{base: base(o, e), path: o.Path, isError: b.IsError, borrowed: j.borrowed}
			r.setText(b.Content)
			if e.User != nil {
				r.tur, r.denialKind, r.decision = e.User.ToolUseResult, e.User.ToolDenialKind, e.User.PermissionDecision
				r.infoVal, r.infoRead = e.User.Info, e.User.InfoRead
			}
			if r.borrowed {
				j.fresh = append(j.fresh, r)
			}
			if c, ok := j.byID[b.ToolUseID]; ok {
				c.res = r
				delete(j.byID, b.ToolUseID)
			} else if len(j.early) < maxEarly {
				j.early[b.ToolUseID] = r
			} else {
				j.orphans++
			}
		}
	}
	err := j.drain(false)
	for i, r := range j.fresh {
		if !r.handed {
			r.own()
		}
		j.fresh[i] = nil
	}
	j.fresh = j.fresh[:0]
	return err
}

// own copies what the result borrowed from the line it came from.
func (r *result) own() {
	if !r.borrowed {
		return
	}
	r.textJSON, r.tur, r.decision = bytes.Clone(r.textJSON), bytes.Clone(r.tur), bytes.Clone(r.decision)
	r.infoVal.Own()
	r.borrowed = false
}

// drain hands on the calls at the head of the queue that have their
// result; with all, every call (the rest with a null result).
func (j *joiner) drain(all bool) error {
	n := 0
	for n < len(j.queue) && (all || j.queue[n].res != nil) {
		if err := j.done(j.queue[n]); err != nil {
			return err
		}
		if r := j.queue[n].res; r != nil {
			r.handed = true
		}
		j.queue[n] = nil
		n++
	}
	j.queue = j.queue[n:]
	if len(j.queue) == 0 {
		j.queue = j.queue[:0:0] // let a long run's backing array go
	}
	return nil
}

// flush hands on every waiting call and forgets the file's results.
func (j *joiner) flush() error {
	err := j.drain(true)
	j.orphans += len(j.early)
	clear(j.byID)
	clear(j.early)
	clear(j.ignored)
	clear(j.seen)
	return err
}

// localPersistedPath is persistedPath found beside the transcript that was
// read: the recorded path names the config dir of the machine and moment it
// was written, which a moved config dir or an archive no longer matches.
// It is the session dir's tool-results/<name> (or <name>.zst, as
// cc-entries --archive stores it), or nil when no such file exists.
func (r *result) localPersistedPath() *string { return localPersisted(r.path, r.persistedPath()) }

// localPersisted is the file beside the transcript at path that the
// recorded path rec names, or nil (the cache asks it again of a cached
// fact: kindcache.go).
func localPersisted(path string, rec *string) *string {
	if rec == nil || path == "" {
		return nil
	}
	dir := layout.OwnerDir(path) // a subagent's results are its session's
	local := filepath.Join(dir, "tool-results", filepath.Base(*rec))
	for _, p := range []string{local, local + ".zst"} {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return &p
		}
	}
	return nil
}
