package transcript

import (
	"bytes"
	"encoding/json"

	"github.com/ccpipe/ccpipe/lib/jsonscan"
)

// DecodeTools reads only what a tool-call join needs from a line: the
// envelope's type, uuid, timestamp, sessionId, agentId and cwd, the message's
// tool_use blocks (id, name, input) and tool_result blocks (tool_use_id,
// is_error, the text of their content: a string content is left as
// written, Block.TextJSON), and a user record's toolUseResult,
// toolDenialKind and permissionDecision. Those fields read as Decode reads
// them; the others stay empty (Raw too), and so does a message content
// written as a string (a prompt, which holds no tool blocks). Every other
// byte is only checked and skipped, several times faster than a decode.
//
// ok is false when the line is not one it can read the way Decode would:
// invalid JSON, a field it reads with an unexpected type (Decode names
// those), a key it reads written twice or in another case. The caller
// then decodes the line.
func DecodeTools(line []byte) (e *Entry, ok bool) {
	var h Header
	return decodeTools(line, false, &h)
}

// DecodeTools is the package's DecodeTools of the line, without copies
// when it is Owned.
func (l *Line) DecodeTools() (*Entry, bool) {
	var h Header
	return decodeTools(l.Bytes, l.Owned, &h)
}

// decodeTools is DecodeTools, which also fills h as Scan would: a line it
// reads is one Scan accepts (every byte it does not read is skipped by
// jsonscan, which checks what it skips), so a reader need not scan the
// line first. Where Scan and the walk could see a field differently (a
// key written twice or in another case, a value of another type) the walk
// gives up.
func decodeTools(line []byte, alias bool, h *Header) (e *Entry, ok bool) {
	*h = Header{}
	l := lazy{c: jsonscan.New(line), alias: alias, h: h}
	e = &Entry{}
	if l.c.Peek() != '{' || !l.object(func(k []byte) bool { return l.top(e, k) }) || l.c.End() != nil {
		*h = Header{}
		return nil, false
	}
	switch e.Type {
	case "user":
		e.User = &l.u
	case "assistant":
		e.Assistant = &Assistant{RequestSessionID: l.rsid}
	default:
		e.Message = nil
	}
	return e, true
}

// lazy is DecodeTools' walk: every method reports false when the line
// must be decoded instead.
type lazy struct {
	c   jsonscan.Cursor
	u   User
	set uint32 // the top-level keys read so far
	// alias: the line is the entry's to keep, raw values are slices of it.
	alias bool
	// h receives the top-level fields Scan reads.
	h *Header
	// rsid is requestSessionId: a fork's copy of another session's call
	// (lib/pricing's ownership rule; extract leaves such calls to it).
	rsid string
}

// object walks an object, calling field for each key (escapes resolved).
// A key that differs only in case from a name in names is not read the
// way encoding/json reads it: the walk gives up.
func (l *lazy) object(field func(k []byte) bool) bool {
	if l.c.Enter() != nil {
		return false
	}
	for {
		k, esc, more, err := l.c.Member()
		if err != nil {
			return false
		}
		if !more {
			return true
		}
		if esc {
			k = []byte(jsonscan.Key(k, esc))
		}
		if !field(k) {
			return false
		}
	}
}

// seen marks bit in *set and reports false when it was marked already: a
// key written twice.
func seen(set *uint32, bit uint32) bool {
	if *set&bit != 0 {
		return false
	}
	*set |= bit
	return true
}

func (l *lazy) str(dst *string) bool { return l.strH(dst, nil) }

// strH is str that also keeps the string's bytes in *h, as Scan does for
// a Header field (nil for a null).
func (l *lazy) strH(dst *string, h *[]byte) bool {
	switch l.c.Peek() {
	case 'n':
		_, err := l.c.Null()
		return err == nil
	case '"':
		v, err := l.c.String()
		*dst = string(v)
		if h != nil {
			*h = v
		}
		return err == nil
	}
	return false
}

// header reads a Header field the entry does not keep, exactly as Scan
// does: a string is kept (the last one, if the key is written twice),
// anything else is skipped.
func (l *lazy) header(h *[]byte) bool {
	if l.c.Peek() != '"' {
		return l.c.Skip() == nil
	}
	v, err := l.c.String()
	*h = v
	return err == nil
}

func (l *lazy) boolean(dst *bool) bool {
	switch l.c.Peek() {
	case 'n':
		_, err := l.c.Null()
		return err == nil
	case 't', 'f':
		v, err := l.c.Bool()
		*dst = v
		return err == nil
	}
	return false
}

// raw keeps a value as Decode's json.RawMessage fields keep it.
func (l *lazy) raw(dst *json.RawMessage) bool {
	v, err := l.c.Raw()
	if err != nil {
		return false
	}
	*dst = v
	if !l.alias {
		*dst = append(json.RawMessage(nil), v...)
	}
	return true
}

// toolUseResult keeps the value as raw does and, when it is an object,
// reads the fields tool facts use (User.Info) in the same walk.
func (l *lazy) toolUseResult(u *User) bool {
	if l.c.Peek() != '{' {
		return l.raw(&u.ToolUseResult)
	}
	q := l.c.Pos()
	var r ResultInfo
	sure, out, err := readResultInfo(&l.c, &r)
	if err != nil {
		return false
	}
	v := l.c.Since(q)
	if !l.alias {
		v = append(json.RawMessage(nil), v...)
	}
	u.ToolUseResult = v
	if sure {
		if out[1] > 0 {
			r.stdoutJSON = v[out[0]-q : out[1]-q]
		}
		u.Info, u.InfoRead = r, true
	}
	return true
}

var topNames = []string{"type", "uuid", "timestamp", "sessionId", "agentId", "message",
	"toolUseResult", "toolDenialKind", "permissionDecision", "cwd", "requestSessionId"}

func (l *lazy) top(e *Entry, k []byte) bool {
	u := &l.u
	switch string(k) {
	case "type":
		return seen(&l.set, 1) && l.strH(&e.Type, &l.h.Type)
	case "uuid":
		return seen(&l.set, 2) && l.strH(&e.UUID, &l.h.UUID)
	case "timestamp":
		return seen(&l.set, 4) && l.strH(&e.TimestampRaw, &l.h.Timestamp)
	case "sessionId":
		return seen(&l.set, 8) && l.strH(&e.SessionID, &l.h.SessionID)
	case "agentId":
		return seen(&l.set, 16) && l.strH(&e.AgentID, &l.h.AgentID)
	case "cwd":
		// cc-hook backtest rebuilds a tool call's hook payload, which has it.
		return seen(&l.set, 512) && l.str(&e.Cwd)
	case "requestSessionId":
		return seen(&l.set, 1024) && l.str(&l.rsid)
	case "parentUuid":
		return l.header(&l.h.ParentUUID)
	case "logicalParentUuid":
		return l.header(&l.h.LogicalParentUUID)
	case "toolUseResult":
		return seen(&l.set, 32) && l.toolUseResult(u)
	case "toolDenialKind":
		return seen(&l.set, 64) && l.str(&u.ToolDenialKind)
	case "permissionDecision":
		return seen(&l.set, 128) && l.raw(&u.PermissionDecision)
	case "message":
		if !seen(&l.set, 256) {
			return false
		}
		switch l.c.Peek() {
		case 'n':
			_, err := l.c.Null()
			return err == nil
		case '{':
		default:
			return false
		}
		e.Message = &Message{}
		var set uint32
		return l.object(func(k []byte) bool { return l.message(e.Message, k, &set) })
	}
	if jsonscan.Folds(k, topNames...) {
		return false
	}
	return l.c.Skip() == nil
}

func (l *lazy) message(m *Message, k []byte, set *uint32) bool {
	if string(k) == "content" {
		if !seen(set, 1) {
			return false
		}
		blocks, ok := l.content(0)
		m.Content = blocks
		return ok
	}
	if jsonscan.Folds(k, "content") {
		return false
	}
	return l.c.Skip() == nil
}

// content reads a content field: only blocks a join uses are kept in
// full; the others keep their type (and text), as Text needs them.
func (l *lazy) content(depth int) ([]Block, bool) {
	switch l.c.Peek() {
	case 'n':
		_, err := l.c.Null()
		return nil, err == nil
	case '"':
		if depth == 0 {
			// A prompt's text: no tool blocks. Decode gives one text block.
			return nil, l.c.Skip() == nil
		}
		// Left as written (TextJSON): a fact may copy it out as it is.
		q := l.c.Pos()
		if l.c.Skip() != nil {
			return nil, false
		}
		v := l.c.Since(q)
		if !l.alias {
			v = bytes.Clone(v)
		}
		return []Block{{Type: BlockText, TextJSON: v}}, true
	case '[':
	default:
		return nil, false
	}
	if l.c.EnterArray() != nil {
		return nil, false
	}
	var blocks []Block
	for {
		more, err := l.c.Elem()
		if err != nil {
			return nil, false
		}
		if !more {
			return blocks, true
		}
		if l.c.Peek() != '{' {
			return nil, false // Decode names the element as mismatched
		}
		var b Block
		var set uint32
		if !l.object(func(k []byte) bool { return l.block(&b, k, &set, depth) }) {
			return nil, false
		}
		switch b.Type {
		case BlockText:
		case BlockToolUse:
			b.Text = ""
		case BlockToolResult:
			b.Text = ""
		default:
			b = Block{Type: b.Type}
		}
		if b.Type != BlockToolUse {
			b.ID, b.Name, b.Input = "", "", nil
		}
		if b.Type != BlockToolResult {
			b.ToolUseID, b.IsError, b.Content = "", false, nil
		}
		blocks = append(blocks, b)
	}
}

var blockNames = []string{"type", "text", "id", "name", "input", "tool_use_id", "is_error", "content"}

func (l *lazy) block(b *Block, k []byte, set *uint32, depth int) bool {
	switch string(k) {
	case "type":
		return seen(set, 1) && l.str(&b.Type)
	case "text":
		return seen(set, 2) && l.str(&b.Text)
	case "id":
		return seen(set, 4) && l.str(&b.ID)
	case "name":
		return seen(set, 8) && l.str(&b.Name)
	case "input":
		return seen(set, 16) && l.raw(&b.Input)
	case "tool_use_id":
		return seen(set, 32) && l.str(&b.ToolUseID)
	case "is_error":
		return seen(set, 64) && l.boolean(&b.IsError)
	case "content":
		if !seen(set, 128) || depth > 0 {
			// Nested tool results are not read by a join.
			return depth > 0 && l.c.Skip() == nil
		}
		blocks, ok := l.content(depth + 1)
		b.Content = blocks
		return ok
	}
	if jsonscan.Folds(k, blockNames...) {
		return false
	}
	return l.c.Skip() == nil
}
