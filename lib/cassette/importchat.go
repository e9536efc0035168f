package cassette

import (
	"errors"
	"fmt"
)

// ImportChatJSON converts a chat-completions style transcript
// {tools?, messages:[...]} into a cassette, following Blackbox's
// chat-json importer (spec 10.2): one call per assistant turn, each
// followed by its tool message, and a final assistant answer. Errors name
// messages and keys by position, never by content.
func ImportChatJSON(doc Value, opts ImportOptions) (Cassette, error) {
	id := opts.ID
	if id == "" {
		id = "imported"
	}
	if doc.kind != Object {
		return Cassette{}, errors.New("chat JSON: the document is not an object")
	}
	msgs, _ := doc.Get("messages")
	if msgs.kind != Array || len(msgs.arr) == 0 {
		return Cassette{}, errors.New("chat JSON: messages is not a non-empty array")
	}
	var tools []Value
	if tv, ok := doc.Get("tools"); ok && tv.kind != Null {
		if tv.kind != Array {
			return Cassette{}, errors.New("chat JSON: tools is not an array")
		}
		for i, t := range tv.arr {
			fn, _ := t.Get("function")
			name, _ := fn.GetString("name")
			if name == "" {
				return Cassette{}, fmt.Errorf("chat JSON: tool %d has no function.name", i)
			}
			desc, _ := fn.GetString("description")
			m := []Member{{"name", StringValue(name)}, {"description", StringValue(desc)}}
			if p, ok := fn.Get("parameters"); ok && p.kind == Object {
				m = append(m, Member{"inputSchema", p})
			}
			tools = append(tools, ObjectValue(m...))
		}
	}
	toolsV := ArrayValue(tools...)
	var prevTS int64 = -1
	ts := make([]int64, len(msgs.arr))
	for i, m := range msgs.arr {
		if m.kind != Object {
			return Cassette{}, fmt.Errorf("chat JSON: message %d is not an object", i)
		}
		role, _ := m.GetString("role")
		if role != "user" && role != "assistant" && role != "tool" {
			return Cassette{}, fmt.Errorf("chat JSON: message %d has a role other than user, assistant or tool", i)
		}
		t, _ := m.Get("timestamp")
		n, ok := t.Int()
		if !ok || n < 0 || n < prevTS {
			return Cassette{}, fmt.Errorf("chat JSON: message %d needs a timestamp (integer ms, not decreasing)", i)
		}
		ts[i], prevTS = n, n
	}
	first := msgs.arr[0]
	if r, _ := first.GetString("role"); r != "user" {
		return Cassette{}, errors.New("chat JSON: message 0 is not a user message")
	}
	prompt, ok := first.GetString("content")
	if !ok || prompt == "" {
		return Cassette{}, errors.New("chat JSON: message 0 has no text content")
	}
	rec := NewRecorder(id)
	var steps []Value
	add := func(typ string, t int64, p Value) error {
		s, err := rec.Append(typ, t, p)
		if err != nil {
			return err
		}
		steps = append(steps, s.Value())
		return nil
	}
	history := []Value{ObjectValue(Member{"role", StringValue("user")}, Member{"content", StringValue(prompt)})}
	snapshot := func() Value {
		return ObjectValue(Member{"messages", ArrayValue(append([]Value(nil), history...)...)}, Member{"tools", toolsV})
	}
	seen := map[string]bool{}
	callN := 0
	for i := 1; i < len(msgs.arr); i++ {
		m := msgs.arr[i]
		role, _ := m.GetString("role")
		if role != "assistant" {
			return Cassette{}, fmt.Errorf("chat JSON: message %d should be an assistant message", i)
		}
		calls, _ := m.Get("tool_calls")
		text, _ := m.GetString("content")
		if calls.kind != Array || len(calls.arr) == 0 {
			if i != len(msgs.arr)-1 {
				return Cassette{}, fmt.Errorf("chat JSON: message %d answers without a call but is not the last message", i)
			}
			if text == "" {
				return Cassette{}, fmt.Errorf("chat JSON: the final message %d has no text", i)
			}
			if err := add(ModelInput, ts[i], snapshot()); err != nil {
				return Cassette{}, err
			}
			if err := add(ModelOutput, ts[i], ObjectValue(Member{"type", StringValue("final_answer")}, Member{"text", StringValue(text)})); err != nil {
				return Cassette{}, err
			}
			if err := add(Metadata, ts[i], ObjectValue(Member{"event", StringValue("run_completed")}, Member{"status", StringValue("success")}, Member{"result", StringValue(text)})); err != nil {
				return Cassette{}, err
			}
			h := Header{Version: Version, ID: id, CreatedAt: ts[0]}
			return Cassette{Header: h.Value(), Steps: steps}, nil
		}
		if text != "" {
			return Cassette{}, fmt.Errorf("chat JSON: message %d has text and a call together", i)
		}
		if len(calls.arr) != 1 {
			return Cassette{}, fmt.Errorf("chat JSON: message %d has more than one call", i)
		}
		call := calls.arr[0]
		pid, _ := call.GetString("id")
		fn, _ := call.Get("function")
		name, _ := fn.GetString("name")
		args, isStr := fn.GetString("arguments")
		if pid == "" || seen[pid] || name == "" || !isStr {
			return Cassette{}, fmt.Errorf("chat JSON: message %d: the call needs a unique id, a function.name and string function.arguments", i)
		}
		seen[pid] = true
		input, err := Parse([]byte(args))
		if err != nil {
			return Cassette{}, fmt.Errorf("chat JSON: message %d: function.arguments is not JSON", i)
		}
		if i+1 >= len(msgs.arr) {
			return Cassette{}, fmt.Errorf("chat JSON: message %d: the call has no tool message after it", i)
		}
		tm := msgs.arr[i+1]
		trole, _ := tm.GetString("role")
		tid, _ := tm.GetString("tool_call_id")
		content, isText := tm.GetString("content")
		if trole != "tool" || tid != pid || !isText {
			return Cassette{}, fmt.Errorf("chat JSON: message %d should be the tool message answering message %d, with string content", i+1, i)
		}
		result := StringValue(content)
		if p, err := Parse([]byte(content)); err == nil {
			result = p
		}
		cid := fmt.Sprintf("call-%d", callN)
		callN++
		head := []Member{{"toolCallId", StringValue(cid)}, {"toolName", StringValue(name)}}
		if err := add(ModelInput, ts[i], snapshot()); err != nil {
			return Cassette{}, err
		}
		if err := add(ModelOutput, ts[i], ObjectValue(append([]Member{{"type", StringValue("tool_call")}}, append(head, Member{"toolInput", input})...)...)); err != nil {
			return Cassette{}, err
		}
		if err := add(ToolCall, ts[i], ObjectValue(append(head, Member{"toolInput", input})...)); err != nil {
			return Cassette{}, err
		}
		if err := add(ToolResult, ts[i+1], ObjectValue(append(head, Member{"result", result})...)); err != nil {
			return Cassette{}, err
		}
		history = append(history,
			ObjectValue(Member{"role", StringValue("assistant")}, Member{"content", ArrayValue(ObjectValue(append([]Member{{"type", StringValue("tool_use")}}, append(head, Member{"toolInput", input})...)...))}),
			ObjectValue(Member{"role", StringValue("user")}, Member{"content", ArrayValue(ObjectValue(append([]Member{{"type", StringValue("tool_result")}}, append(head, Member{"result", result})...)...))}))
		i++
	}
	return Cassette{}, errors.New("chat JSON: the last message is not a final assistant answer")
}
