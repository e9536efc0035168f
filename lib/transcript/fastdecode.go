package transcript

import (
	"encoding/json"
	"slices"

	"github.com/ccpipe/ccpipe/lib/jsonscan"
)

// rawKeys are the top-level fields wire keeps as json.RawMessage:
// decodeFast copies their bytes itself (an attachment or a tool's result
// can be most of a line), so encoding/json never scans them.
var rawKeys = []string{"toolUseResult", "attachment", "origin", "permissionDecision", "compactMetadata", "content", "error"}

func (w *wire) rawField(key string) *json.RawMessage {
	switch key {
	case "toolUseResult":
		return &w.User.ToolUseResult
	case "attachment":
		return &w.Attachment
	case "origin":
		return &w.User.Origin
	case "permissionDecision":
		return &w.User.PermissionDecision
	case "compactMetadata":
		return &w.System.CompactMetadata
	case "content":
		return &w.Content
	case "error":
		return &w.Error
	}
	return nil
}

// decodeFast decodes a record as decodeSlow does, in one pass over the
// line: the message's content blocks (texts, tool inputs, tool results)
// are read with the scanner, the fields wire keeps raw are copied, and
// only the rest (a few hundred bytes) goes through encoding/json. It
// gives up (ok false) on anything it would not read exactly as decodeSlow:
// a field of an unexpected type (decodeSlow names it), a key it reads
// itself written twice or in another case, an element that is not an
// object, invalid JSON.
func decodeFast(line []byte, alias bool) (*Entry, bool) {
	small := make([]byte, 0, 1024)
	small = append(small, '{')
	var pre preContent
	d := decoder{alias: alias}
	var raws [8]json.RawMessage
	var seen uint32
	c := jsonscan.New(line)
	if c.Enter() != nil {
		return nil, false
	}
	for {
		k, esc, more, err := c.Member()
		if err != nil {
			return nil, false
		}
		if !more {
			break
		}
		if esc || jsonscan.Folds(k, "message") || jsonscan.Folds(k, rawKeys...) {
			return nil, false
		}
		if string(k) == "message" {
			if seen&(1<<7) != 0 {
				return nil, false
			}
			seen |= 1 << 7
			small = appendKey(small, k)
			if c.Peek() == '{' {
				var ok bool
				if small, ok = fastMessage(&c, small, &pre, &d); !ok {
					return nil, false
				}
				continue
			}
			v, err := c.Raw()
			if err != nil {
				return nil, false
			}
			small = append(small, v...)
			continue
		}
		if i := slices.Index(rawKeys, string(k)); i >= 0 {
			if seen&(1<<i) != 0 {
				return nil, false
			}
			seen |= 1 << i
			v, err := c.Raw()
			if err != nil {
				return nil, false
			}
			raws[i] = d.raw(v)
			continue
		}
		if !wireName(k) {
			if c.Skip() != nil {
				return nil, false
			}
			continue
		}
		v, err := c.Raw()
		if err != nil {
			return nil, false
		}
		small = appendKey(small, k)
		small = append(small, v...)
	}
	if c.End() != nil {
		return nil, false
	}
	small = append(small, '}')
	var w wire
	if json.Unmarshal(small, &w) != nil {
		return nil, false
	}
	for i, k := range rawKeys {
		if seen&(1<<i) != 0 {
			*w.rawField(k) = raws[i]
		}
	}
	if w.Type != "user" && w.Type != "assistant" {
		// decodeSlow reads no message content of other records.
		d.unknown = 0
	}
	d.pre = &pre
	return build(line, &w, d), true
}

// appendKey appends a member's key (its body, without escapes) and the
// colon to the object being built.
func appendKey(obj, key []byte) []byte {
	if len(obj) > 1 && obj[len(obj)-1] != '{' {
		obj = append(obj, ',')
	}
	obj = append(obj, '"')
	obj = append(obj, key...)
	return append(obj, '"', ':')
}

// fastMessage reads the message object at c: its content into pre, the
// other members onto out (as an object without content).
func fastMessage(c *jsonscan.Cursor, out []byte, pre *preContent, d *decoder) ([]byte, bool) {
	if c.Enter() != nil {
		return nil, false
	}
	out = append(out, '{')
	seen := false
	for {
		k, esc, more, err := c.Member()
		if err != nil {
			return nil, false
		}
		if !more {
			return append(out, '}'), true
		}
		if esc || jsonscan.Folds(k, "content") {
			return nil, false
		}
		if string(k) == "content" {
			if seen {
				return nil, false
			}
			seen = true
			blocks, isString, ok := fastContent(c, d, 0)
			if !ok {
				return nil, false
			}
			pre.blocks, pre.isString = blocks, isString
			continue
		}
		v, err := c.Raw()
		if err != nil {
			return nil, false
		}
		out = appendKey(out, k)
		out = append(out, v...)
	}
}

var blockKeys = []string{"type", "text", "thinking", "signature", "data", "id", "name", "input",
	"tool_use_id", "content", "is_error", "source", "tool_name"}

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
			b.Raw = append(json.RawMessage(nil), c.Since(start)...)
		}
		blocks = append(blocks, b)
	}
}

// fastBlock reads one block object as decoder.content builds it.
func fastBlock(c *jsonscan.Cursor, d *decoder, depth int) (Block, bool) {
	var wb wireBlock
	var seen uint32
	if c.Enter() != nil {
		return Block{}, false
	}
	for {
		k, esc, more, err := c.Member()
		if err != nil {
			return Block{}, false
		}
		if !more {
			break
		}
		if esc || jsonscan.Folds(k, blockKeys...) {
			return Block{}, false
		}
		bit := uint32(0)
		for i, n := range blockKeys {
			if string(k) == n {
				bit = 1 << i
			}
		}
		if bit == 0 {
			if c.Skip() != nil {
				return Block{}, false
			}
			continue
		}
		if seen&bit != 0 {
			return Block{}, false
		}
		seen |= bit
		ok := true
		switch string(k) {
		case "type":
			ok = fastStr(c, &wb.Type)
		case "text":
			ok = fastStr(c, &wb.Text)
		case "thinking":
			ok = fastStr(c, &wb.Thinking)
		case "signature":
			ok = fastStr(c, &wb.Signature)
		case "data":
			ok = fastStr(c, &wb.Data)
		case "id":
			ok = fastStr(c, &wb.ID)
		case "name":
			ok = fastStr(c, &wb.Name)
		case "tool_use_id":
			ok = fastStr(c, &wb.ToolUseID)
		case "tool_name":
			ok = fastStr(c, &wb.ToolName)
		case "input":
			ok = d.fastRaw(c, &wb.Input)
		case "source":
			ok = d.fastRaw(c, &wb.Source)
		case "is_error":
			switch c.Peek() {
			case 'n':
				_, err := c.Null()
				ok = err == nil
			case 't', 'f':
				v, err := c.Bool()
				wb.IsError, ok = v, err == nil
			default:
				ok = false
			}
		case "content":
			// Read below, and only where decoder.content reads it: a
			// tool_result's content (the type may come after it).
			ok = d.fastRaw(c, &wb.Content)
		}
		if !ok {
			return Block{}, false
		}
	}
	b := wb.block()
	switch wb.Type {
	case BlockText, BlockThinking, BlockRedactedThinking, BlockToolUse, BlockToolReference:
	case BlockToolResult:
		if wb.Content != nil {
			sub := jsonscan.New(wb.Content)
			var ok bool
			if b.Content, b.ContentIsString, ok = fastContent(&sub, d, depth+1); !ok {
				return Block{}, false // decodeSlow names the content as mismatched
			}
		}
	case BlockImage:
		n := len(d.mism)
		b.MediaType = d.kind(wb.Source, "source", "media_type")
		if len(d.mism) != n {
			return Block{}, false
		}
	default:
		d.unknown++
		b.Raw = json.RawMessage{} // set by the caller to the element's bytes
	}
	return b, true
}

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

func (d *decoder) fastRaw(c *jsonscan.Cursor, dst *json.RawMessage) bool {
	v, err := c.Raw()
	*dst = d.raw(v)
	return err == nil
}

// raw is v as a field of the entry: v itself when the line is the
// entry's to keep (alias), else a copy.
func (d *decoder) raw(v []byte) json.RawMessage {
	if d.alias {
		return v
	}
	return append(json.RawMessage(nil), v...)
}
