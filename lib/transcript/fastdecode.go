package transcript

import (
	"encoding/json"
	"reflect"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/ccpipe/ccpipe/lib/jsonscan"
)

// decodeFast decodes a record as decodeSlow does, in one pass over the
// line with the scanner: every modelled field is read where it stands
// (strings, booleans and numbers as encoding/json converts them, the
// fields wire keeps raw sliced or copied, the message's content blocks
// built), the rest is checked and skipped. It gives up (ok false) on
// anything it would not read exactly as decodeSlow: a field of an
// unexpected type (decodeSlow names it), a modelled key written in
// another case or with escapes, a raw field, the message or its usage
// written twice, an element that is not an object, invalid JSON.
func decodeFast(line []byte, alias bool) (*Entry, bool) {
	var w wire
	var pre preContent
	d := decoder{alias: alias}
	var seen uint32
	var keyBuf [48][]byte
	keys := keyBuf[:0]
	c := jsonscan.New(line)
	if !members(&c, func(k []byte) bool {
		keys = append(keys, k)
		return topMemberOrMismatch(&c, k, &w, &d, &pre, &seen)
	}) || c.End() != nil {
		return nil, false
	}
	if len(d.mism) > 0 && repeated(keys) {
		// decodeSlow then decodes field by field from a map, where the
		// last of a repeated key wins whatever its type.
		return nil, false
	}
	if w.Type != "user" && w.Type != "assistant" {
		// decodeSlow reads no message content of other records.
		d.unknown = 0
	}
	d.pre = &pre
	return build(line, &w, d), true
}

// Bits of decodeFast's seen: the members it does not read twice.
const (
	seenMessage = 1 << iota
	seenToolUseResult
	seenAttachment
	seenOrigin
	seenPermissionDecision
	seenCompactMetadata
	seenContent
	seenError
)

// topMember reads the value of the top-level member k into w.
func topMember(c *jsonscan.Cursor, k []byte, w *wire, d *decoder, pre *preContent, seen *uint32) bool {
	switch string(k) {
	case "type":
		return fastName(c, &w.Type)
	case "uuid":
		return fastStr(c, &w.UUID)
	case "parentUuid":
		return fastStr(c, &w.ParentUUID)
	case "logicalParentUuid":
		return fastStr(c, &w.LogicalParentUUID)
	case "sessionId":
		return fastName(c, &w.SessionID)
	case "agentId":
		return fastName(c, &w.AgentID)
	case "isSidechain":
		return fastBool(c, &w.IsSidechain)
	case "isMeta":
		return fastBool(c, &w.IsMeta)
	case "timestamp":
		return fastStr(c, &w.Timestamp)
	case "cwd":
		return fastName(c, &w.Cwd)
	case "version":
		return fastName(c, &w.Version)
	case "gitBranch":
		return fastName(c, &w.GitBranch)
	case "entrypoint":
		return fastName(c, &w.Entrypoint)
	case "promptId":
		return fastStr(c, &w.PromptID)
	case "slug":
		return fastName(c, &w.Slug)
	case "promptSource":
		return fastName(c, &w.PromptSource)
	case "turnOrigin":
		return fastName(c, &w.TurnOrigin)
	case "permissionMode":
		return fastName(c, &w.PermissionMode)
	case "sourceToolAssistantUUID":
		return fastStr(c, &w.SourceToolAssistantUUID)
	case "toolDenialKind":
		return fastName(c, &w.ToolDenialKind)
	case "isCompactSummary":
		return fastBool(c, &w.IsCompactSummary)
	case "isVisibleInTranscriptOnly":
		return fastBool(c, &w.IsVisibleInTranscriptOnly)
	case "requestId":
		return fastStr(c, &w.RequestID)
	case "requestRef":
		return fastStr(c, &w.RequestRef)
	case "requestSessionId":
		return fastStr(c, &w.RequestSessionID)
	case "apiBlockIndex":
		return fastInt(c, &w.APIBlockIndex)
	case "isApiErrorMessage":
		return fastBool(c, &w.IsAPIErrorMessage)
	case "subtype":
		return fastName(c, &w.Subtype)
	case "level":
		return fastName(c, &w.Level)
	case "retryInMs":
		return fastFloat(c, &w.RetryInMs)
	case "retryAttempt":
		return fastInt(c, &w.RetryAttempt)
	case "maxRetries":
		return fastInt(c, &w.MaxRetries)
	case "durationMs":
		return fastFloat(c, &w.DurationMs)
	case "message":
		if !once(seen, seenMessage) {
			return false
		}
		switch c.Peek() {
		case 'n':
			_, err := c.Null()
			return err == nil
		case '{':
			w.Message = new(wireMessage)
			return fastMessage(c, w.Message, pre, d)
		}
		return false // decodeSlow names the mismatch
	case "toolUseResult":
		return once(seen, seenToolUseResult) && d.fastRaw(c, &w.ToolUseResult)
	case "permissionDecision":
		return once(seen, seenPermissionDecision) && d.fastRaw(c, &w.PermissionDecision)
	case "compactMetadata":
		return once(seen, seenCompactMetadata) && d.fastRaw(c, &w.CompactMetadata)
	case "content":
		return once(seen, seenContent) && d.fastRawStr(c, &w.Content, &d.contentStr)
	case "error":
		return once(seen, seenError) && d.fastRawStr(c, &w.Error, &d.errorStr)
	case "origin":
		return once(seen, seenOrigin) && d.fastKind(c, &w.Origin, &d.origin, "kind")
	case "attachment":
		return once(seen, seenAttachment) && d.fastKind(c, &w.Attachment, &d.attachment, "type")
	}
	if wireName(k) {
		return false // a modelled name in another case, or not ASCII
	}
	return c.Skip() == nil
}

// topMemberOrMismatch is topMember, except that a top-level field of the
// wrong type (a string where a number is, an array for the message) is
// named as decodeSlow names it and reads as empty.
func topMemberOrMismatch(c *jsonscan.Cursor, k []byte, w *wire, d *decoder, pre *preContent, seen *uint32) bool {
	save := *c
	if topMember(c, k, w, d, pre, seen) {
		return true
	}
	*c = save
	idx, ok := typedFields()[string(k)]
	if !ok {
		return false
	}
	if p := c.Peek(); string(k) == "message" && (p == '{' || p == 'n') {
		return false // read as a message, and still not right
	}
	if c.Skip() != nil {
		return false
	}
	reflect.ValueOf(w).Elem().FieldByIndex(idx).SetZero()
	d.mism = append(d.mism, string(k))
	return true
}

// typedFields are wire's fields that can hold a value of the wrong type
// (all but the raw ones), by JSON name.
var typedFields = sync.OnceValue(func() map[string][]int {
	m := map[string][]int{}
	for name, idx := range fieldsOf(reflect.TypeOf(wire{})) {
		if reflect.TypeOf(wire{}).FieldByIndex(idx).Type != reflect.TypeOf(json.RawMessage{}) {
			m[name] = idx
		}
	}
	return m
})

// repeated reports whether a modelled key occurs twice in keys.
func repeated(keys [][]byte) bool {
	for i, k := range keys {
		if !wireName(k) {
			continue
		}
		for _, k2 := range keys[:i] {
			if string(k) == string(k2) {
				return true
			}
		}
	}
	return false
}

// once sets bit in seen and reports whether it was clear.
func once(seen *uint32, bit uint32) bool {
	if *seen&bit != 0 {
		return false
	}
	*seen |= bit
	return true
}

// messageNames and usageNames are the keys fastMessage and fastUsage
// read, lower-cased: a key that folds to one of them is read by
// encoding/json, not by them. Built at the first key they do not read,
// not at start (reflection every command would pay).
var (
	messageNames   = sync.OnceValue(func() map[string]bool { return lowerNames(wireMessage{}) })
	usageNames     = sync.OnceValue(func() map[string]bool { return lowerNames(Usage{}) })
	wireBlockNames = sync.OnceValue(func() map[string]bool { return lowerNames(wireBlock{}) })
)

// fastMessage reads the message object at c into m, its content into
// pre.
func fastMessage(c *jsonscan.Cursor, m *wireMessage, pre *preContent, d *decoder) bool {
	var seenContent, seenUsage bool
	return members(c, func(k []byte) bool {
		switch string(k) {
		case "id":
			return fastStr(c, &m.ID)
		case "type":
			return fastName(c, &m.Type)
		case "role":
			return fastName(c, &m.Role)
		case "model":
			return fastName(c, &m.Model)
		case "stop_reason":
			return fastName(c, &m.StopReason)
		case "stop_sequence":
			return fastStr(c, &m.StopSequence)
		case "usage":
			if seenUsage {
				return false // encoding/json merges a second object into the first
			}
			seenUsage = true
			return fastUsage(c, &m.Usage)
		case "content":
			if seenContent {
				return false
			}
			seenContent = true
			var ok bool
			pre.blocks, pre.isString, ok = fastContent(c, d, 0)
			return ok
		}
		return !foldsTo(k, messageNames()) && c.Skip() == nil
	})
}

// members walks the object at c, calling read for each member's key with
// the cursor at its value; a key with escapes, or read's false, stops
// the walk (false).
func members(c *jsonscan.Cursor, read func(k []byte) bool) bool {
	if c.Enter() != nil {
		return false
	}
	for {
		k, esc, more, err := c.Member()
		if err != nil || esc {
			return false
		}
		if !more {
			return true
		}
		if !read(k) {
			return false
		}
	}
}

// fastUsage reads a usage value (an object or null) into *u.
func fastUsage(c *jsonscan.Cursor, u **Usage) bool {
	switch c.Peek() {
	case 'n':
		_, err := c.Null()
		return err == nil
	case '{':
	default:
		return false
	}
	v := new(Usage)
	*u = v
	return members(c, func(k []byte) bool {
		switch string(k) {
		case "input_tokens":
			return fastInt64(c, &v.InputTokens)
		case "output_tokens":
			return fastInt64(c, &v.OutputTokens)
		case "cache_creation_input_tokens":
			return fastInt64(c, &v.CacheCreationInputTokens)
		case "cache_read_input_tokens":
			return fastInt64(c, &v.CacheReadInputTokens)
		case "service_tier":
			return fastName(c, &v.ServiceTier)
		}
		return !foldsTo(k, usageNames()) && c.Skip() == nil
	})
}

// fastContent reads a content value as decoder.content does.
func fastContent(c *jsonscan.Cursor, d *decoder, depth int) (blocks []Block, isString, ok bool) {
	switch c.Peek() {
	case 'n':
		_, err := c.Null()
		return nil, false, err == nil
	case '"':
		v, err := c.String()
		return []Block{{Type: BlockText, Text: string(v)}}, true, err == nil
	case '[':
	default:
		return nil, false, false
	}
	if c.EnterArray() != nil {
		return nil, false, false
	}
	blocks = make([]Block, 0, 2)
	for {
		more, err := c.Elem()
		if err != nil {
			return nil, false, false
		}
		if !more {
			return blocks, false, true
		}
		if c.Peek() != '{' {
			return nil, false, false
		}
		start := c.Pos()
		b, ok := fastBlock(c, d, depth)
		if !ok {
			return nil, false, false
		}
		if b.Raw != nil {
			b.Raw = d.raw(c.Since(start))
		}
		blocks = append(blocks, b)
	}
}

// Bits of fastBlock's seen.
const (
	seenType = 1 << iota
	seenText
	seenThinking
	seenSignature
	seenData
	seenID
	seenName
	seenInput
	seenToolUseID
	seenBlockContent
	seenIsError
	seenSource
	seenToolName
)

// fastBlock reads one block object as decoder.content builds it.
func fastBlock(c *jsonscan.Cursor, d *decoder, depth int) (Block, bool) {
	var wb wireBlock
	var seen uint32
	var source kindAt
	// content is read where it stands when the block is known to be a
	// tool_result by then (Claude Code writes the type first), else kept
	// to be read once the type is known.
	var content []Block
	var contentIsString, contentRead bool
	ok := members(c, func(k []byte) bool {
		switch string(k) {
		case "type":
			return once(&seen, seenType) && fastName(c, &wb.Type)
		case "text":
			return once(&seen, seenText) && fastStr(c, &wb.Text)
		case "thinking":
			return once(&seen, seenThinking) && fastStr(c, &wb.Thinking)
		case "signature":
			return once(&seen, seenSignature) && fastStr(c, &wb.Signature)
		case "data":
			return once(&seen, seenData) && fastStr(c, &wb.Data)
		case "id":
			return once(&seen, seenID) && fastStr(c, &wb.ID)
		case "name":
			return once(&seen, seenName) && fastName(c, &wb.Name)
		case "tool_use_id":
			return once(&seen, seenToolUseID) && fastStr(c, &wb.ToolUseID)
		case "tool_name":
			return once(&seen, seenToolName) && fastStr(c, &wb.ToolName)
		case "input":
			return once(&seen, seenInput) && d.fastRaw(c, &wb.Input)
		case "source":
			return once(&seen, seenSource) && d.fastKind(c, &wb.Source, &source, "media_type")
		case "is_error":
			return once(&seen, seenIsError) && fastBool(c, &wb.IsError)
		case "content":
			if !once(&seen, seenBlockContent) {
				return false
			}
			if wb.Type == BlockToolResult {
				var ok bool
				content, contentIsString, ok = fastContent(c, d, depth+1)
				contentRead = true
				return ok
			}
			// Only a slice of the line for now: no block keeps it.
			v, err := c.Raw()
			wb.Content = v
			return err == nil
		}
		return !foldsTo(k, wireBlockNames()) && c.Skip() == nil
	})
	if !ok {
		return Block{}, false
	}
	b := wb.block()
	switch wb.Type {
	case BlockText, BlockThinking, BlockRedactedThinking, BlockToolUse, BlockToolReference:
	case BlockToolResult:
		if contentRead {
			b.Content, b.ContentIsString = content, contentIsString
		} else if wb.Content != nil {
			sub := jsonscan.New(wb.Content)
			var ok bool
			if b.Content, b.ContentIsString, ok = fastContent(&sub, d, depth+1); !ok {
				return Block{}, false // decodeSlow names the content as mismatched
			}
		}
	case BlockImage:
		n := len(d.mism)
		b.MediaType = d.kind(wb.Source, &source, "source", "media_type")
		if len(d.mism) != n {
			return Block{}, false
		}
	default:
		d.unknown++
		b.Raw = json.RawMessage{} // set by the caller to the element's bytes
	}
	return b, true
}

// fastStr reads a string or null into *dst as encoding/json does (null
// leaves it as it is).
func fastStr(c *jsonscan.Cursor, dst *string) bool {
	switch c.Peek() {
	case 'n':
		_, err := c.Null()
		return err == nil
	case '"':
		v, err := c.String()
		*dst = string(v)
		return err == nil
	}
	return false
}

func fastBool(c *jsonscan.Cursor, dst *bool) bool {
	switch c.Peek() {
	case 'n':
		_, err := c.Null()
		return err == nil
	case 't', 'f':
		v, err := c.Bool()
		*dst = v
		return err == nil
	}
	return false
}

// number reads a number or null: v is the number's literal, nil for
// null.
func number(c *jsonscan.Cursor) (v []byte, ok bool) {
	if c.Peek() == 'n' {
		_, err := c.Null()
		return nil, err == nil
	}
	v, err := c.Number()
	return v, err == nil
}

// fastInt64 reads a number into an int64 as encoding/json does: a
// fraction, an exponent or an overflow is a mismatch (ok false).
func fastInt64(c *jsonscan.Cursor, dst *int64) bool {
	v, ok := number(c)
	if !ok || v == nil {
		return ok
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	*dst = n
	return err == nil
}

func fastInt(c *jsonscan.Cursor, dst *int) bool {
	n := int64(*dst)
	if !fastInt64(c, &n) || int64(int(n)) != n {
		return false
	}
	*dst = int(n)
	return true
}

func fastFloat(c *jsonscan.Cursor, dst *float64) bool {
	v, ok := number(c)
	if !ok || v == nil {
		return ok
	}
	f, err := strconv.ParseFloat(string(v), 64)
	*dst = f
	return err == nil
}

func (d *decoder) fastRaw(c *jsonscan.Cursor, dst *json.RawMessage) bool {
	v, err := c.Raw()
	*dst = d.raw(v)
	return err == nil
}

// fastRawStr reads a raw field as fastRaw does and, when it is a
// string, keeps its value for decoder.strAt.
func (d *decoder) fastRawStr(c *jsonscan.Cursor, dst *json.RawMessage, at *strAt) bool {
	if c.Peek() != '"' {
		return d.fastRaw(c, dst)
	}
	q := c.Pos()
	v, err := c.String()
	if err != nil {
		return false
	}
	at.set, at.val = true, v
	*dst = d.raw(c.Since(q))
	return true
}

// fastKind reads a raw field as fastRaw does and, when it is an object,
// notes the value of its member key on the way, for decoder.kind.
func (d *decoder) fastKind(c *jsonscan.Cursor, dst *json.RawMessage, at *kindAt, key string) bool {
	if c.Peek() != '{' {
		return d.fastRaw(c, dst)
	}
	start := c.Pos()
	if c.Enter() != nil {
		return false
	}
	for {
		k, esc, more, err := c.Member()
		if err != nil {
			return false
		}
		if !more {
			break
		}
		if string(k) != key && (!esc || jsonscan.Key(k, esc) != key) {
			if c.Skip() != nil {
				return false
			}
			continue
		}
		// The last of duplicate keys wins, as it does for encoding/json.
		if at.val, err = c.Raw(); err != nil {
			return false
		}
	}
	at.set = true
	*dst = d.raw(c.Since(start))
	return true
}

// raw is v as a field of the entry: v itself when the line is the
// entry's to keep (alias), else a copy.
func (d *decoder) raw(v []byte) json.RawMessage {
	if d.alias {
		return v
	}
	return clone(v)
}

// clone copies b (make and copy: the new slice is not zeroed first, as
// it is when appended to nil).
func clone(b []byte) []byte {
	c := make([]byte, len(b))
	copy(c, b)
	return c
}

// internSlots holds recent values of the fields that repeat on every line
// of a session (type, sessionId, cwd, version, a model, a tool's name):
// fastName hands out the held string instead of allocating one per line.
// A slot is overwritten by any other value hashing to it; strings are
// immutable, so sharing one is safe from any goroutine.
var internSlots [1024]atomic.Pointer[string]

// fastName is fastStr for a field whose values repeat.
func fastName(c *jsonscan.Cursor, dst *string) bool {
	if c.Peek() != '"' {
		return fastStr(c, dst)
	}
	q := c.Pos()
	body, esc, err := c.RawString()
	if err != nil {
		return false
	}
	if esc || len(body) > 64 {
		*dst = string(jsonscan.Unquote(c.Since(q), body, esc))
		return true
	}
	h := uint32(2166136261)
	for _, b := range body {
		h = (h ^ uint32(b)) * 16777619
	}
	slot := &internSlots[h%uint32(len(internSlots))]
	if s := slot.Load(); s != nil && *s == string(body) {
		*dst = *s
		return true
	}
	s := string(jsonscan.Unquote(c.Since(q), body, false))
	slot.Store(&s)
	*dst = s
	return true
}
