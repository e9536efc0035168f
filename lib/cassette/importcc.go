package cassette

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ImportOptions tune the importers.
type ImportOptions struct {
	// ID is the cassette id (default "imported").
	ID string
	// KeepThinking keeps an assistant turn's thinking text in its
	// model_output payload as "thinking" (Blackbox drops it).
	KeepThinking bool
	// WithUsage appends after each model_output a metadata step
	// {event:"model_usage", model, input_tokens, output_tokens,
	// cache_creation_input_tokens, cache_read_input_tokens} (Blackbox
	// drops usage). Its keys are not provider markers, so neutrality
	// holds, and model payloads are unchanged.
	WithUsage bool
}

// ClaudeCodeImporter turns one Claude Code transcript into a cassette
// following Blackbox's importer (spec 10.1). Feed it every line in file
// order with Add, then call Finish. It keeps the user and assistant
// records (parsed) until Finish: the conversation, not the file.
type ClaudeCodeImporter struct {
	opts    ImportOptions
	records []ccRecord
	lines   int
}

type ccRecord struct {
	v         Value
	line      int
	sidechain bool
}

// NewClaudeCodeImporter returns an importer.
func NewClaudeCodeImporter(opts ImportOptions) *ClaudeCodeImporter {
	return &ClaudeCodeImporter{opts: opts}
}

// Add takes one transcript line (lineno is its 1-based line number, used
// in errors). Blank lines are skipped; a line that is not a JSON object
// is an error, as in Blackbox.
func (im *ClaudeCodeImporter) Add(line []byte, lineno int) error {
	if len(strings.TrimSpace(string(line))) == 0 {
		im.lines++
		return nil
	}
	v, err := Parse(line)
	if err != nil {
		return fmt.Errorf("transcript line %d is not valid JSON", lineno)
	}
	return im.AddValue(v, lineno)
}

// AddValue is Add for a line already parsed.
func (im *ClaudeCodeImporter) AddValue(v Value, lineno int) error {
	im.lines++
	if v.kind != Object {
		return fmt.Errorf("transcript line %d is not a JSON object", lineno)
	}
	t, _ := v.GetString("type")
	if t != "user" && t != "assistant" {
		return nil
	}
	sc, _ := v.Get("isSidechain")
	im.records = append(im.records, ccRecord{v: v, line: lineno, sidechain: sc.kind == Bool && sc.b})
	return nil
}

type ccTurn struct {
	human  bool
	text   string
	ts     int64 // model turns: the first record's time (a human turn's is never read)
	line   int
	blocks []Value // model turns: content blocks in order
	usage  Value   // model turns: the last record's message.usage
	model  string
}

type ccResult struct {
	block Value
	ts    int64
	line  int
}

// isHumanBlock says a user message's block is part of its human text:
// every block but a tool result.
func isHumanBlock(b Value) bool {
	t, _ := b.GetString("type")
	return t != "tool_result"
}

// recordTime reads a record's ISO timestamp as JavaScript's Date.parse would for
// the forms Claude Code writes.
func recordTime(rec Value, line int) (int64, error) {
	s, ok := rec.GetString("timestamp")
	if ok {
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02"} {
			if t, err := time.Parse(layout, s); err == nil {
				return t.UnixMilli(), nil
			}
		}
	}
	return 0, fmt.Errorf("transcript line %d: timestamp is missing or not an ISO date", line)
}

// blockText renders one content block of a human message or of a tool
// result as Blackbox does: a text block's text, else "[<type> omitted]"
// with the type as JavaScript's String() writes it ("content" when the
// block has none; a text block whose text is not a string is "[text
// omitted]").
func blockText(b Value) string {
	t, ok := b.Get("type")
	if s, _ := t.Str(); s == "text" {
		if text, ok := b.GetString("text"); ok {
			return text
		}
	}
	name := "content"
	if ok && t.kind != Null {
		name = jsString(t)
	}
	return "[" + name + " omitted]"
}

// blocksText joins the blocks of a content array as Blackbox does: each
// by blockText, joined by "\n"; entries that are not objects are dropped;
// keep says which blocks take part.
func blocksText(arr []Value, keep func(Value) bool) string {
	var b strings.Builder
	n := 0
	for _, v := range arr {
		if v.kind != Object || !keep(v) {
			continue
		}
		if n > 0 {
			b.WriteByte('\n')
		}
		n++
		b.WriteString(blockText(v))
	}
	return b.String()
}

// jsString is JavaScript's String(v) for a JSON value: an array joins its
// items by "," (null as ""), an object is "[object Object]".
func jsString(v Value) string {
	switch v.kind {
	case String:
		return v.str
	case Bool:
		return strconv.FormatBool(v.b)
	case Number:
		switch {
		case math.IsInf(v.num, 1):
			return "Infinity" // a number too large for a float64 parses so, as in JavaScript
		case math.IsInf(v.num, -1):
			return "-Infinity"
		}
		b, _ := AppendNumber(nil, v.num)
		return string(b)
	case Array:
		parts := make([]string, len(v.arr))
		for i, it := range v.arr {
			if it.kind != Null {
				parts[i] = jsString(it)
			}
		}
		return strings.Join(parts, ",")
	case Object:
		return "[object Object]"
	}
	return "null"
}

// Finish builds the cassette.
func (im *ClaudeCodeImporter) Finish() (Cassette, error) {
	id := im.opts.ID
	if id == "" {
		id = "imported"
	}
	if im.lines == 0 {
		return Cassette{}, errors.New("the transcript is empty")
	}
	// A file of sidechain records only is a subagent transcript.
	allSide := true
	for _, r := range im.records {
		allSide = allSide && r.sidechain
	}
	var kept []ccRecord
	for _, r := range im.records {
		if allSide || !r.sidechain {
			kept = append(kept, r)
		}
	}
	if len(kept) == 0 {
		return Cassette{}, errors.New("the transcript has no user or assistant messages")
	}
	createdAt, err := recordTime(kept[0].v, kept[0].line)
	if err != nil {
		return Cassette{}, err
	}

	// Pass 1: turns and results.
	turns, results, err := ccTurns(kept)
	if err != nil {
		return Cassette{}, err
	}
	if !slices.ContainsFunc(turns, func(t *ccTurn) bool { return !t.human }) {
		// Blackbox refuses it too: there is no run to replay.
		return Cassette{}, errors.New("the transcript has no assistant messages")
	}

	// The tool list: every tool_use name in first-use order.
	toolsV, lastModel := ccTools(turns)

	// Pass 2: steps.
	w := &ccBuild{im: im, rec: NewRecorder(id), tools: toolsV}
	// The run ends with the last answer (Blackbox's rule): a user record
	// after it (a prompt, a meta reminder such as "The user named this
	// session ...", a prompt answered only by thinking or empty text) only
	// extends the history, which no later step shows; it opens no step and
	// leaves the run completed. Only a tool call clears the answer.
	var lastAnswer *ccTurn
	var lastAnswerText string
	build := func() Cassette {
		h := Header{Version: Version, ID: id, CreatedAt: createdAt}
		return Cassette{Header: h.Value(), Steps: w.steps}
	}
	for i, t := range turns {
		if t.human {
			w.history = append(w.history, ObjectValue(Member{"role", StringValue("user")}, Member{"content", StringValue(t.text)}))
			continue
		}
		end, text, err := w.modelTurn(t, i == lastModel, results)
		if err != nil {
			return Cassette{}, err
		}
		switch end {
		case ccAnswered:
			lastAnswer, lastAnswerText = t, text
		case ccCalled:
			lastAnswer = nil
		case ccCutOff:
			return build(), nil
		}
	}
	if lastAnswer != nil {
		if err := w.add(Metadata, lastAnswer.ts, ObjectValue(Member{"event", StringValue("run_completed")},
			Member{"status", StringValue("success")}, Member{"result", StringValue(lastAnswerText)})); err != nil {
			return Cassette{}, err
		}
	}
	return build(), nil
}

// ccTurns is the importer's first pass: the kept records as turns (a
// human prompt, or one assistant message's blocks gathered by message id)
// and every tool result by its tool_use id, each checked before any step
// is written.
func ccTurns(kept []ccRecord) ([]*ccTurn, map[string]ccResult, error) {
	var turns []*ccTurn
	byID := map[string]*ccTurn{}
	results := map[string]ccResult{}
	useIDs := map[string]bool{}
	for _, r := range kept {
		msg, ok := r.v.Get("message")
		if !ok || msg.kind != Object {
			return nil, nil, fmt.Errorf("transcript line %d has no message object", r.line)
		}
		role, _ := msg.GetString("role")
		content, _ := msg.Get("content")
		switch role {
		case "assistant":
			if content.kind != Array {
				return nil, nil, fmt.Errorf("transcript line %d: assistant content is not an array", r.line)
			}
			mid, hasID := msg.GetString("id")
			t := byID[mid]
			if !hasID || t == nil {
				ts, err := recordTime(r.v, r.line)
				if err != nil {
					return nil, nil, err
				}
				t = &ccTurn{ts: ts, line: r.line}
				turns = append(turns, t)
				if hasID {
					byID[mid] = t
				}
			}
			for _, b := range content.arr {
				if b.kind != Object {
					continue // Blackbox reads only a content array's objects
				}
				t.blocks = append(t.blocks, b)
				if bt, _ := b.GetString("type"); bt == "tool_use" {
					uid, _ := b.GetString("id")
					name, _ := b.GetString("name")
					if uid == "" || name == "" || !b.Has("input") {
						return nil, nil, fmt.Errorf("transcript line %d: a tool_use block lacks an id, a name or an input", r.line)
					}
					if useIDs[uid] {
						return nil, nil, fmt.Errorf("transcript line %d: a tool_use id is used twice", r.line)
					}
					useIDs[uid] = true
				}
			}
			if u, ok := msg.Get("usage"); ok {
				t.usage = u
			}
			t.model, _ = msg.GetString("model")
		case "user":
			// Blackbox reads only an array's object entries; content
			// that is neither a string nor an array holds no results
			// and no text.
			text, _ := content.Str()
			if content.kind == Array {
				for _, b := range content.arr {
					if bt, _ := b.GetString("type"); b.kind != Object || bt != "tool_result" {
						continue
					}
					uid, _ := b.GetString("tool_use_id")
					if uid == "" {
						return nil, nil, fmt.Errorf("transcript line %d: a tool_result has no tool_use_id", r.line)
					}
					if _, dup := results[uid]; dup {
						return nil, nil, fmt.Errorf("transcript line %d: a second result for one tool_use", r.line)
					}
					ts, err := recordTime(r.v, r.line)
					if err != nil {
						return nil, nil, err
					}
					results[uid] = ccResult{block: b, ts: ts, line: r.line}
				}
				text = blocksText(content.arr, isHumanBlock)
			}
			// A human turn is its text; an empty one is dropped, and
			// its own timestamp is never read (Blackbox's rules).
			if text != "" {
				turns = append(turns, &ccTurn{human: true, text: text, line: r.line})
			}
		default:
			return nil, nil, fmt.Errorf("transcript line %d: message role is neither user nor assistant", r.line)
		}
	}
	for uid := range results {
		if !useIDs[uid] {
			return nil, nil, errors.New("a tool_result answers no tool_use in the transcript")
		}
	}
	return turns, results, nil
}

// ccTools is the tool list every model_input carries (the transcript has
// no definitions): each tool_use name in first-use order. lastModel is the
// index of the last model turn, the only one whose calls may lack results.
func ccTools(turns []*ccTurn) (toolsV Value, lastModel int) {
	var tools []Value
	seenTool := map[string]bool{}
	lastModel = -1
	for i, t := range turns {
		if t.human {
			continue
		}
		lastModel = i
		for _, b := range t.blocks {
			if bt, _ := b.GetString("type"); bt == "tool_use" {
				name, _ := b.GetString("name")
				if !seenTool[name] {
					seenTool[name] = true
					tools = append(tools, ObjectValue(Member{"name", StringValue(name)},
						Member{"description", StringValue("Observed in Claude Code transcript; original definition unavailable.")}))
				}
			}
		}
	}
	return ArrayValue(tools...), lastModel
}

// ccBuild is the importer's second pass: the cassette's steps, written
// turn by turn, and the conversation so far that each model_input
// snapshots.
type ccBuild struct {
	im      *ClaudeCodeImporter
	rec     *Recorder
	steps   []Value
	history []Value
	tools   Value
	callN   int
}

// ccCall is one tool call of a model turn, with its result when the
// transcript has one.
type ccCall struct {
	id, name string
	input    Value
	res      *ccResult
}

// ccEnd says what a model turn did to the run, which Finish needs for the
// run-end rule.
type ccEnd int

const (
	ccSkipped  ccEnd = iota // thinking or empty text only: no step
	ccAnswered              // a final answer: the run's result unless a tool call follows
	ccCalled                // tool calls, each with its result: the run goes on
	ccCutOff                // a tool call without a result: the run ends with this turn, incomplete
)

func (w *ccBuild) add(typ string, ts int64, p Value) error {
	s, err := w.rec.Append(typ, ts, p)
	if err != nil {
		return err
	}
	w.steps = append(w.steps, s.Value())
	return nil
}

// snapshot is a model_input's payload. Each model_input holds the
// conversation so far (Blackbox's format): the snapshots share history's
// backing array, capped at their length so that later appends never write
// into them, instead of a copy each (memory was quadratic in the turns).
func (w *ccBuild) snapshot() Value {
	return ObjectValue(Member{"messages", ArrayValue(w.history[:len(w.history):len(w.history)]...)}, Member{"tools", w.tools})
}

// output writes a model turn's model_output step (out, with its
// thinking under KeepThinking) and its usage step.
func (w *ccBuild) output(t *ccTurn, out []Member, thinking []string) error {
	if w.im.opts.KeepThinking && len(thinking) > 0 {
		out = append(out, Member{"thinking", StringValue(strings.Join(thinking, "\n\n"))})
	}
	if err := w.add(ModelOutput, t.ts, ObjectValue(out...)); err != nil {
		return err
	}
	return w.im.usageStep(w.add, t, w.rec.Len()-1)
}

// modelTurn writes the steps of one model turn: its model_input and
// model_output (and usage), then each tool call and result, and extends
// the history. text is the turn's text (the run's result for ccAnswered).
// last says the turn is the transcript's last model turn, where a call
// may lack its result.
func (w *ccBuild) modelTurn(t *ccTurn, last bool, results map[string]ccResult) (end ccEnd, text string, err error) {
	var texts, thinking []string
	var uses []Value
	for _, b := range t.blocks {
		switch bt, _ := b.GetString("type"); bt {
		case "text":
			if s, _ := b.GetString("text"); s != "" {
				texts = append(texts, s)
			}
		case "thinking":
			if s, _ := b.GetString("thinking"); s != "" {
				thinking = append(thinking, s)
			}
		case "tool_use":
			uses = append(uses, b)
		}
	}
	text = strings.Join(texts, "\n\n")
	if len(uses) == 0 && text == "" {
		return ccSkipped, "", nil // thinking or empty text only: nothing a step can hold
	}
	if err := w.add(ModelInput, t.ts, w.snapshot()); err != nil {
		return 0, "", err
	}
	if len(uses) == 0 {
		if err := w.output(t, []Member{{"type", StringValue("final_answer")}, {"text", StringValue(text)}}, thinking); err != nil {
			return 0, "", err
		}
		w.history = append(w.history, ObjectValue(Member{"role", StringValue("assistant")}, Member{"content", StringValue(text)}))
		return ccAnswered, text, nil
	}
	calls := make([]ccCall, len(uses))
	callsV := make([]Value, len(uses))
	for k, b := range uses {
		uid, _ := b.GetString("id")
		name, _ := b.GetString("name")
		input, _ := b.Get("input")
		c := ccCall{id: fmt.Sprintf("call-%d", w.callN), name: name, input: input}
		w.callN++
		if r, ok := results[uid]; ok {
			c.res = &r
		} else if !last {
			return 0, "", fmt.Errorf("transcript line %d: a tool_use has no result and is not in the last model turn", t.line)
		}
		calls[k] = c
		callsV[k] = ObjectValue(Member{"toolCallId", StringValue(c.id)}, Member{"toolName", StringValue(name)}, Member{"toolInput", input})
	}
	out := []Member{{"type", StringValue("tool_calls")}, {"calls", ArrayValue(callsV...)}}
	if text != "" {
		out = append(out, Member{"text", StringValue(text)})
	}
	if err := w.output(t, out, thinking); err != nil {
		return 0, "", err
	}
	var resultParts []Value
	cut := false
	for _, c := range calls {
		head := []Member{{"toolCallId", StringValue(c.id)}, {"toolName", StringValue(c.name)}}
		if c.res == nil {
			// The session was cut off while this call ran (only the
			// last model turn may lack results): its tool_call only, at
			// the turn's time; the calls after it keep theirs and their
			// results, and the run ends with this turn, incomplete, as
			// Blackbox ends it.
			if err := w.add(ToolCall, t.ts, ObjectValue(append(head, Member{"toolInput", c.input})...)); err != nil {
				return 0, "", err
			}
			cut = true
			continue
		}
		field, err := resultField(c.res.block)
		if err != nil {
			return 0, "", fmt.Errorf("transcript line %d: %w", c.res.line, err)
		}
		ts := max(c.res.ts, t.ts)
		if err := w.add(ToolCall, ts, ObjectValue(append(head, Member{"toolInput", c.input})...)); err != nil {
			return 0, "", err
		}
		if err := w.add(ToolResult, ts, ObjectValue(append(head, field)...)); err != nil {
			return 0, "", err
		}
		resultParts = append(resultParts, ObjectValue(append([]Member{{"type", StringValue("tool_result")}}, append(head, field)...)...))
	}
	if cut {
		return ccCutOff, text, nil
	}
	var parts []Value
	if text != "" {
		parts = append(parts, ObjectValue(Member{"type", StringValue("text")}, Member{"text", StringValue(text)}))
	}
	for _, c := range calls {
		parts = append(parts, ObjectValue(Member{"type", StringValue("tool_use")}, Member{"toolCallId", StringValue(c.id)},
			Member{"toolName", StringValue(c.name)}, Member{"toolInput", c.input}))
	}
	w.history = append(w.history, ObjectValue(Member{"role", StringValue("assistant")}, Member{"content", ArrayValue(parts...)}))
	if len(resultParts) > 0 {
		w.history = append(w.history, ObjectValue(Member{"role", StringValue("user")}, Member{"content", ArrayValue(resultParts...)}))
	}
	return ccCalled, text, nil
}

// usageStep writes the --with-usage metadata step of a model turn.
func (im *ClaudeCodeImporter) usageStep(add func(string, int64, Value) error, t *ccTurn, outputStep int) error {
	if !im.opts.WithUsage || t.usage.kind != Object {
		return nil
	}
	m := []Member{{"event", StringValue("model_usage")}, {"model_output_step", IntValue(int64(outputStep))}}
	if t.model != "" {
		m = append(m, Member{"model", StringValue(t.model)})
	}
	for _, k := range []string{"input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"} {
		if n, ok := t.usage.Get(k); ok && n.kind == Number {
			m = append(m, Member{k, n})
		}
	}
	return add(Metadata, t.ts, ObjectValue(m...))
}

// resultField converts a transcript tool_result block to the cassette's
// result (or error) member. Content that is neither a string, an array
// of blocks nor absent (an object, a number) is an error, as in Blackbox.
func resultField(b Value) (Member, error) {
	content, ok := b.Get("content")
	var val Value
	switch {
	case !ok || content.kind == Null:
		val = StringValue("")
	case content.kind == String:
		if parsed, err := Parse([]byte(content.str)); err == nil {
			val = parsed
		} else {
			val = content
		}
	case content.kind == Array:
		val = StringValue(blocksText(content.arr, func(Value) bool { return true }))
	default:
		return Member{}, fmt.Errorf("a tool_result's content must be a string or an array of blocks, not %s", content.kind.Article())
	}
	if e, _ := b.Get("is_error"); e.kind == Bool && e.b {
		return Member{"error", StringValue(jsText(val))}, nil
	}
	return Member{"result", val}, nil
}
