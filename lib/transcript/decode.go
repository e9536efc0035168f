package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ccpipe/ccpipe/lib/jsonscan"
)

// ErrNotObject is returned by Decode for a line that is valid JSON but not
// an object, or not JSON at all.
var ErrNotObject = errors.New("not a JSON object")

// wireEnvelope is the part every record shares.
type wireEnvelope struct {
	Type              string `json:"type"`
	UUID              string `json:"uuid"`
	ParentUUID        string `json:"parentUuid"`
	LogicalParentUUID string `json:"logicalParentUuid"`
	SessionID         string `json:"sessionId"`
	AgentID           string `json:"agentId"`
	IsSidechain       bool   `json:"isSidechain"`
	IsMeta            bool   `json:"isMeta"`
	Timestamp         string `json:"timestamp"`
	Cwd               string `json:"cwd"`
	Version           string `json:"version"`
	GitBranch         string `json:"gitBranch"`
	Entrypoint        string `json:"entrypoint"`
	PromptID          string `json:"promptId"`
	Slug              string `json:"slug"`
}

// wire is every field of the four modelled record types, flat, so a line
// is decoded in one pass. Fields whose type differs between record types
// (content, error) stay raw here and are read per type afterwards.
type wire struct {
	wireEnvelope
	User
	Assistant
	System
	Message    *wireMessage    `json:"message"`
	Content    json.RawMessage `json:"content"`
	Error      json.RawMessage `json:"error"`
	Attachment json.RawMessage `json:"attachment"`
}

type wireMessage struct {
	ID           string          `json:"id"`
	Type         string          `json:"type"`
	Role         string          `json:"role"`
	Model        string          `json:"model"`
	Content      json.RawMessage `json:"content"`
	StopReason   string          `json:"stop_reason"`
	StopSequence string          `json:"stop_sequence"`
	Usage        *Usage          `json:"usage"`
}

type wireBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	Data      string          `json:"data"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
	Source    json.RawMessage `json:"source"`
	ToolName  string          `json:"tool_name"`
}

// Decode decodes one transcript line. It fails only when the line is not
// a JSON object; a field of the wrong type is named in TypeMismatches and
// reads as empty. Raw is a copy of line.
func Decode(line []byte) (*Entry, error) { return decodeLine(line, false) }

// DecodeOwned is Decode of a line that nothing else will write to or
// reuse (Line.Owned): the entry's Raw and raw fields are slices of line
// instead of copies, so a huge line is held once, not three times.
func DecodeOwned(line []byte) (*Entry, error) { return decodeLine(line, true) }

func decodeLine(line []byte, alias bool) (*Entry, error) {
	trimmed := bytes.TrimLeft(line, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, ErrNotObject
	}
	// The entry keeps the line (Raw): copy it once, and let the raw
	// fields be slices of that copy rather than copies of their own.
	own := line
	if !alias {
		own = clone(line)
	}
	if e, ok := decodeFast(own, true); ok {
		return e, nil
	}
	bp := memberBufs.Get().(*[]byte)
	defer memberBufs.Put(bp)
	data, err := modelled(line, (*bp)[:0])
	*bp = data[:0]
	if err != nil {
		return nil, err
	}
	return decode(line, data)
}

// decode decodes data, line or what modelled kept of it, into an entry
// whose Raw is line.
func decode(line, data []byte) (*Entry, error) {
	return decodeSlow(line, data)
}

// decodeSlow is decode with encoding/json alone: the reference decodeFast
// is tested against, and its fallback.
func decodeSlow(line, data []byte) (*Entry, error) {
	var w wire
	var mism []string
	if err := tolerant(data, &w, "", &mism); err != nil {
		return nil, err
	}
	return build(line, &w, decoder{mism: mism}), nil
}

// build makes the entry of a decoded wire record; d holds the mismatches
// found so far (and, from decodeFast, the message's content).
func build(line []byte, w *wire, d decoder) *Entry {
	e := &Entry{
		Type:              w.Type,
		UUID:              w.UUID,
		ParentUUID:        w.ParentUUID,
		LogicalParentUUID: w.LogicalParentUUID,
		SessionID:         w.SessionID,
		AgentID:           w.AgentID,
		IsSidechain:       w.IsSidechain,
		IsMeta:            w.IsMeta,
		TimestampRaw:      w.Timestamp,
		Cwd:               w.Cwd,
		Version:           w.Version,
		GitBranch:         w.GitBranch,
		Entrypoint:        w.Entrypoint,
		PromptID:          w.PromptID,
		Slug:              w.Slug,
		Raw:               d.raw(line),
	}
	if w.Timestamp != "" {
		if t, err := time.Parse(time.RFC3339Nano, w.Timestamp); err == nil {
			e.Timestamp = t
		}
	}
	switch w.Type {
	case "user", "assistant":
		if w.Message != nil {
			e.Message = d.message(w.Message)
		}
		if w.Type == "user" {
			u := w.User
			u.OriginKind = d.kind(u.Origin, &d.origin, "origin", "kind")
			e.User = &u
		} else {
			a := w.Assistant
			a.Error = d.strAt(w.Error, &d.errorStr, "error")
			e.Assistant = &a
		}
	case "system":
		s := w.System
		s.Content = d.strAt(w.Content, &d.contentStr, "content")
		if !isNull(w.Error) {
			s.Error = w.Error
		}
		e.System = &s
	case "attachment":
		e.Attachment = &Attachment{Type: d.kind(w.Attachment, &d.attachment, "attachment", "type"), Raw: w.Attachment}
	default:
		// Fields of the other types are not modelled: only a mismatch in
		// the envelope counts.
		d.mism = envelopeOnly(d.mism)
	}
	if len(d.mism) > 0 {
		sort.Strings(d.mism)
		e.TypeMismatches = d.mism
	}
	e.UnknownBlocks = d.unknown
	return e
}

// decoder collects mismatches and unknown blocks while the typed parts
// are built.
type decoder struct {
	mism    []string
	unknown int
	// alias: the line is the entry's to keep (DecodeOwned), so its raw
	// fields and Raw are slices of it, not copies.
	alias bool
	// pre is the message content decodeFast read already; origin and
	// attachment what it found of their kind field.
	pre                *preContent
	origin, attachment kindAt
	// content and error: their value when decodeFast read a string.
	contentStr, errorStr strAt
}

// strAt is a string field's value as decodeFast read it (escapes
// resolved), when set.
type strAt struct {
	set bool
	val []byte
}

// strAt is str of a field decodeFast may have read already.
func (d *decoder) strAt(raw json.RawMessage, at *strAt, path string) string {
	if at.set {
		return string(at.val)
	}
	return d.str(raw, path)
}

// kindAt is what decodeFast found of the kind field of an object field
// while it read it: val is the field's value (nil when absent). Unset,
// decoder.kind looks for it.
type kindAt struct {
	set bool
	val []byte
}

type preContent struct {
	blocks   []Block
	isString bool
}

func (d *decoder) message(w *wireMessage) *Message {
	m := &Message{ID: w.ID, Type: w.Type, Role: w.Role, Model: w.Model,
		StopReason: w.StopReason, StopSequence: w.StopSequence, Usage: w.Usage}
	if d.pre != nil {
		m.Content, m.ContentIsString = d.pre.blocks, d.pre.isString
	} else {
		m.Content, m.ContentIsString = d.content(w.Content, "message.content")
	}
	return m
}

// content reads a content field: a string (one text block) or an array of
// blocks.
func (d *decoder) content(raw json.RawMessage, path string) ([]Block, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || isNull(raw) {
		return nil, false
	}
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			d.mism = append(d.mism, path)
			return nil, false
		}
		return []Block{{Type: BlockText, Text: s}}, true
	case '[':
	default:
		d.mism = append(d.mism, path)
		return nil, false
	}
	var wbs []wireBlock
	if err := json.Unmarshal(raw, &wbs); err != nil {
		wbs = d.blocksOneByOne(raw, path)
	}
	blocks := make([]Block, len(wbs))
	var raws []json.RawMessage
	for i := range wbs {
		wb := &wbs[i]
		b := wb.block()
		p := path + "[" + strconv.Itoa(i) + "]"
		switch wb.Type {
		case BlockText, BlockThinking, BlockRedactedThinking, BlockToolUse, BlockToolReference:
		case BlockToolResult:
			b.Content, b.ContentIsString = d.content(wb.Content, p+".content")
		case BlockImage:
			b.MediaType = d.kind(wb.Source, nil, p+".source", "media_type")
		default:
			d.unknown++
			if raws == nil {
				raws = splitArray(raw)
			}
			if i < len(raws) {
				b.Raw = raws[i]
			}
		}
		blocks[i] = b
	}
	return blocks, false
}

// block builds the Block of wb's plain fields; the caller completes a
// tool_result's content, an image's media type and an unknown block's Raw.
func (wb *wireBlock) block() Block {
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
	case BlockImage:
		b.Source = wb.Source
	case BlockToolReference:
		b.ToolName = wb.ToolName
	}
	return b
}

// blocksOneByOne is the slow path for a block array holding a field of the
// wrong type: each element is decoded alone so the mismatch gets its path.
func (d *decoder) blocksOneByOne(raw json.RawMessage, path string) []wireBlock {
	elems := splitArray(raw)
	wbs := make([]wireBlock, len(elems))
	for i, el := range elems {
		p := path + "[" + strconv.Itoa(i) + "]"
		if err := tolerant(el, &wbs[i], p, &d.mism); err != nil {
			d.mism = append(d.mism, p)
		}
	}
	return wbs
}

// str reads a field expected to hold a string.
func (d *decoder) str(raw json.RawMessage, path string) string {
	s, ok := strValue(raw)
	if !ok {
		d.mism = append(d.mism, path)
	}
	return s
}

// strValue decodes raw, valid JSON, into a string as encoding/json does:
// ok is false when raw holds another type. Absent or null reads as "".
func strValue(raw []byte) (s string, ok bool) {
	c := jsonscan.New(raw)
	switch c.Peek() {
	case 0:
		if c.Pos() == len(raw) {
			return "", true
		}
	case 'n':
		if isNull(raw) {
			return "", true
		}
	case '"':
		if v, err := c.String(); err == nil && c.End() == nil {
			return string(v), true
		}
	}
	return "", json.Unmarshal(raw, &s) == nil
}

// kind reads the string field key of an object field (origin.kind,
// attachment.type); at, when set, is where decodeFast found it.
func (d *decoder) kind(raw json.RawMessage, at *kindAt, path, key string) string {
	if len(raw) == 0 || isNull(raw) {
		return ""
	}
	var val []byte
	if at != nil && at.set {
		val = at.val
	} else {
		// The field holds valid JSON (it was decoded from the line): only
		// its shape is in question. The last of duplicate keys wins, as it
		// does for encoding/json.
		trimmed := bytes.TrimLeft(raw, " \t\r\n")
		if len(trimmed) == 0 || trimmed[0] != '{' {
			d.mism = append(d.mism, path)
			return ""
		}
		err := eachMember(trimmed, func(k []byte, esc bool, member []byte) {
			if string(k) == key || esc && jsonscan.Key(k, esc) == key {
				val = memberValue(member, len(k))
			}
		})
		if err != nil {
			d.mism = append(d.mism, path)
			return ""
		}
	}
	s, ok := strValue(val)
	if !ok {
		d.mism = append(d.mism, path+"."+key)
	}
	return s
}

// memberValue is the value of a member "key":value whose key body is n
// bytes long.
func memberValue(member []byte, n int) []byte {
	v := member[n+2:] // past the key's quotes
	v = bytes.TrimLeft(v, " \t\r\n")
	return bytes.TrimLeft(v[1:], " \t\r\n") // past the ':'
}

// memberBufs recycles the buffers modelled builds: encoding/json copies
// what it keeps, so a buffer is free once the line is decoded.
var memberBufs = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// wireNames are the lower-cased JSON names of wire's fields (made on
// first use: reflection at start-up cost every command).
var wireNames = sync.OnceValue(func() map[string]bool { return lowerNames(wire{}) })

// lowerNames are the lower-cased JSON names of the fields of the struct v.
func lowerNames(v any) map[string]bool {
	m := map[string]bool{}
	for name := range fieldsOf(reflect.TypeOf(v)) {
		if len(name) > 64 {
			panic("foldsTo's buffer is shorter than field " + name)
		}
		m[strings.ToLower(name)] = true
	}
	return m
}

// modelled checks that line is one JSON object and returns it (appended
// to buf) without the top-level members Decode does not model. They are
// half of a transcript's bytes (toolUseResult, rendered tool output), and
// encoding/json would check them and skip them byte by byte; the
// hand-written scanner passes over them several times faster. A member is
// kept whenever encoding/json could match its key to a field: keys are
// matched without case, and a key with escapes or non-ASCII bytes is kept
// as it is.
func modelled(line, buf []byte) ([]byte, error) {
	buf = append(buf, '{')
	err := eachMember(line, func(key []byte, esc bool, member []byte) {
		if !esc && !wireName(key) {
			return
		}
		if len(buf) > 1 {
			buf = append(buf, ',')
		}
		buf = append(buf, member...)
	})
	return append(buf, '}'), err
}

func wireName(key []byte) bool { return foldsTo(key, wireNames()) }

// foldsTo reports whether encoding/json could match key to one of names
// (lower-cased): it matches keys without case, and a key with non-ASCII
// bytes is taken to match.
func foldsTo(key []byte, names map[string]bool) bool {
	var low [64]byte
	if len(key) > len(low) {
		for _, c := range key {
			if c >= 0x80 {
				return true
			}
		}
		return false // no field name is that long
	}
	for i, c := range key {
		switch {
		case c >= 0x80:
			return true // may fold to ASCII (U+017F to s, U+212A to k)
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		low[i] = c
	}
	return names[string(low[:len(key)])]
}

func isNull(raw []byte) bool { return string(bytes.TrimSpace(raw)) == "null" }

func splitArray(raw []byte) []json.RawMessage {
	var elems []json.RawMessage
	if json.Unmarshal(raw, &elems) != nil {
		return nil
	}
	return elems
}

// tolerant decodes data into v (a pointer to a struct). A syntax error is
// returned; a field of the wrong type is zeroed and its path appended to
// mism, and the rest of the object is still decoded.
func tolerant(data []byte, v any, path string, mism *[]string) error {
	err := json.Unmarshal(data, v)
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return err
	}
	// encoding/json reports only the first mismatch: start again field by
	// field to name them all.
	rv := reflect.ValueOf(v).Elem()
	rv.SetZero()
	if !fieldwise(data, rv, path, mism) {
		*mism = append(*mism, path)
	}
	return nil
}

// fieldwise decodes the object data into the struct rv one field at a
// time. It reports false when data is not an object.
func fieldwise(data []byte, rv reflect.Value, path string, mism *[]string) bool {
	var obj map[string]json.RawMessage
	if json.Unmarshal(data, &obj) != nil || obj == nil {
		return false
	}
	fields := fieldsOf(rv.Type())
	for k, raw := range obj {
		idx, ok := fields[k]
		if !ok {
			continue
		}
		f := rv.FieldByIndex(idx)
		err := json.Unmarshal(raw, f.Addr().Interface())
		if err == nil {
			continue
		}
		f.SetZero()
		p := k
		if path != "" {
			p = path + "." + k
		}
		switch {
		case f.Kind() == reflect.Struct:
			if !fieldwise(raw, f, p, mism) {
				*mism = append(*mism, p)
			}
		case f.Kind() == reflect.Pointer && f.Type().Elem().Kind() == reflect.Struct:
			nv := reflect.New(f.Type().Elem())
			if fieldwise(raw, nv.Elem(), p, mism) {
				f.Set(nv)
			} else {
				*mism = append(*mism, p)
			}
		default:
			*mism = append(*mism, p)
		}
	}
	return true
}

var fieldCache sync.Map // reflect.Type -> map[string][]int

// fieldsOf maps the JSON names of a struct's fields (embedded structs
// flattened, shallower fields first, as encoding/json does) to their index.
func fieldsOf(t reflect.Type) map[string][]int {
	if m, ok := fieldCache.Load(t); ok {
		return m.(map[string][]int)
	}
	m := map[string][]int{}
	depths := map[string]int{}
	for _, sf := range reflect.VisibleFields(t) {
		if sf.Anonymous && sf.Type.Kind() == reflect.Struct {
			continue // its fields follow, promoted
		}
		if !sf.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		if d, ok := depths[name]; ok && d <= len(sf.Index) {
			continue
		}
		depths[name] = len(sf.Index)
		m[name] = sf.Index
	}
	fieldCache.Store(t, m)
	return m
}

var envelopeNames = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for name := range fieldsOf(reflect.TypeOf(wireEnvelope{})) {
		m[name] = true
	}
	return m
})

// envelopeOnly keeps the mismatches of envelope fields.
func envelopeOnly(mism []string) []string {
	out := mism[:0]
	for _, p := range mism {
		head, _, _ := strings.Cut(p, ".")
		if envelopeNames()[head] {
			out = append(out, p)
		}
	}
	return out
}
