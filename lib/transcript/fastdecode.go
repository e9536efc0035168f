package transcript

import (
	"encoding/json"
	"errors"

	"github.com/ccpipe/ccpipe/lib/jsonscan"
)

// errUnsure stops decodeFast: the line is left to decodeSlow.
var errUnsure = errors.New("unsure")

// decodeFast decodes a record as decodeSlow does, but reads the two parts
// that hold most of a record's bytes with the scanner instead of
// encoding/json: the message's content blocks (texts, tool inputs, tool
// results) and a user record's toolUseResult. The rest, a few hundred
// bytes, still goes through encoding/json. It gives up (ok false) on
// anything it would not read exactly as decodeSlow: a field of an
// unexpected type (decodeSlow names it), a key it reads written twice or
// in another case, an element that is not an object.
func decodeFast(line, data []byte) (*Entry, bool) {
	small := make([]byte, 0, 1024)
	small = append(small, '{')
	var pre preContent
	var d decoder
	var tur json.RawMessage
	var seenMsg, seenTUR bool
	err := jsonscan.Members(data, func(m *jsonscan.Member) error {
		if m.Esc || jsonscan.Folds(m.Key, "message", "toolUseResult") {
			return errUnsure
		}
		switch string(m.Key) {
		case "toolUseResult":
			if seenTUR {
				return errUnsure
			}
			seenTUR = true
			tur = append(json.RawMessage(nil), m.Value...)
			return nil
		case "message":
			if seenMsg {
				return errUnsure
			}
			seenMsg = true
			if len(m.Value) > 0 && m.Value[0] == '{' {
				msg, ok := fastMessage(m.Value, &pre, &d)
				if !ok {
					return errUnsure
				}
				small = appendMember(small, m.RawKey(), msg)
				return nil
			}
		}
		small = appendMember(small, m.RawKey(), m.Value)
		return nil
	})
	if err != nil {
		return nil, false
	}
	small = append(small, '}')
	var w wire
	if json.Unmarshal(small, &w) != nil {
		return nil, false
	}
	if seenTUR {
		w.User.ToolUseResult = tur
	}
	if w.Type != "user" && w.Type != "assistant" {
		// decodeSlow reads no message content of other records.
		d.unknown = 0
	}
	d.pre = &pre
	e := build(line, &w, d)
	return e, true
}

func appendMember(obj, key, val []byte) []byte {
	if len(obj) > 1 {
		obj = append(obj, ',')
	}
	obj = append(obj, key...)
	obj = append(obj, ':')
	return append(obj, val...)
}

// fastMessage returns the message object without its content, which it
// reads into pre.
func fastMessage(msg []byte, pre *preContent, d *decoder) ([]byte, bool) {
	out := make([]byte, 0, 512)
	out = append(out, '{')
	seen := false
	err := jsonscan.Members(msg, func(m *jsonscan.Member) error {
		if m.Esc || jsonscan.Folds(m.Key, "content") {
			return errUnsure
		}
		if string(m.Key) != "content" {
			out = appendMember(out, m.RawKey(), m.Value)
			return nil
		}
		if seen {
			return errUnsure
		}
		seen = true
		c := jsonscan.New(m.Value)
		blocks, isString, ok := fastContent(&c, d, 0)
		if !ok {
			return errUnsure
		}
		pre.blocks, pre.isString = blocks, isString
		return nil
	})
	return append(out, '}'), err == nil
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
			ok = fastRaw(c, &wb.Input)
		case "source":
			ok = fastRaw(c, &wb.Source)
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
			ok = fastRaw(c, &wb.Content)
		}
		if !ok {
			return Block{}, false
		}
	}
	b := Block{Type: wb.Type}
	switch wb.Type {
	case BlockText:
		b.Text = wb.Text
	case BlockThinking:
		b.Thinking, b.Signature = wb.Thinking, wb.Signature
	case BlockRedactedThinking:
		b.Data = wb.Data
	case BlockToolUse:
		b.ID, b.Name, b.Input = wb.ID, wb.Name, wb.Input
	case BlockToolResult:
		b.ToolUseID, b.IsError = wb.ToolUseID, wb.IsError
		if wb.Content != nil {
			sub := jsonscan.New(wb.Content)
			var ok bool
			if b.Content, b.ContentIsString, ok = fastContent(&sub, d, depth+1); !ok {
				return Block{}, false // decodeSlow names the content as mismatched
			}
		}
	case BlockImage:
		b.Source = wb.Source
		n := len(d.mism)
		b.MediaType = d.kind(wb.Source, "source", "media_type")
		if len(d.mism) != n {
			return Block{}, false
		}
	case BlockToolReference:
		b.ToolName = wb.ToolName
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

func fastRaw(c *jsonscan.Cursor, dst *json.RawMessage) bool {
	v, err := c.Raw()
	*dst = append(json.RawMessage(nil), v...)
	return err == nil
}
