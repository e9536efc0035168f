package cassette

import (
	"fmt"
	"strconv"
	"strings"
	"unsafe"

	"github.com/ccpipe/ccpipe/lib/quote"
	"github.com/ccpipe/ccpipe/lib/secrets"
)

// The four invariants of verify, in the order they are checked.
const (
	CheckSchema     = "schema_version"
	CheckChain      = "hash_chain"
	CheckNeutrality = "provider_neutrality"
	CheckReplay     = "replayability"
)

// Invariant statuses.
const (
	Pass = "pass"
	Fail = "fail"
	Skip = "skip"
)

// Invariant is one check's result. StepIndex is set when the check
// failed at a step.
type Invariant struct {
	Name      string `json:"name"`
	Status    string `json:"status"`
	Detail    string `json:"detail"`
	StepIndex *int   `json:"step_index,omitempty"`
}

// Finding locates one forbidden marker or secret: its Blackbox label,
// the step (nil for the header) and the JSON path inside it. The matched
// text is never kept.
type Finding struct {
	Label string `json:"label"`
	Step  *int   `json:"step,omitempty"`
	Path  string `json:"path"`
}

// Report is verify's result (Blackbox's report, spec 3.4, with ccpipe's
// additions: id, steps, status and the findings' locations).
type Report struct {
	Pass         bool        `json:"pass"`
	Path         string      `json:"path,omitempty"`
	ID           string      `json:"id"`
	Steps        int         `json:"steps"`
	Status       string      `json:"status"`
	Invariants   []Invariant `json:"invariants"`
	FirstFailure *Invariant  `json:"first_failure,omitempty"`
	Findings     []Finding   `json:"findings,omitempty"`
}

// Verifier checks one cassette as it streams by: Header, then Step for
// each step in order, then Report. Memory is bounded by one step.
type Verifier struct {
	// Keys are literal secrets (an API key) to look for; a key of 4
	// bytes or more found anywhere is reported as <api-key-value> and
	// masked out of every detail.
	Keys []string
	// Built says the steps were just made by a Recorder in this process
	// (an import): their hashes are taken as stored, since recomputing
	// them is the same function over the same values, and a long string
	// shared by many steps (a conversation history repeated in every
	// model_input) is scanned once. The links and everything else are
	// checked as usual.
	Built bool
	clean map[scanKey]bool // Built: long strings already scanned clean

	header  Value
	n       int
	prev    string // the previous step's stored hash
	chain   *Invariant
	replay  *Invariant
	claims  bool  // a metadata step says run_completed/success
	last    Value // the last step
	labels  []string
	finds   []Finding
	scratch []byte
	path    []pathElem // where the walk is, turned into text only for a finding

	raw        *rawHasher // StepRaw's encoder, made on first use
	lastStatus string     // the last step's status when StepRaw took it without a Value ("" otherwise)
}

// pathElem is one step of a JSON path: an object key or an array index.
type pathElem struct {
	key string
	idx int // -1 for a key
}

// Verify checks a whole cassette in memory.
func Verify(c Cassette, keys ...string) Report {
	v := &Verifier{Keys: keys}
	v.Header(c.Header)
	for _, s := range c.Steps {
		v.Step(s)
	}
	return v.Report()
}

// Header takes the cassette's top-level fields (without steps).
func (v *Verifier) Header(h Value) {
	v.header = h
	// Scan the header in Blackbox's file order: version, id, createdAt,
	// then (after the steps there) the rest. The rest is scanned now.
	v.scan(h, nil)
}

// Step takes the next step.
func (v *Verifier) Step(s Value) {
	i := v.n
	v.n++
	v.last = s
	v.lastStatus = ""
	v.scan(s, &i)
	if v.chain == nil {
		v.checkChain(i, s)
	}
	if s.kind == Object {
		typ, _ := s.GetString("type")
		p, hasPayload := s.Get("payload")
		if KnownType(typ) && hasPayload && p.kind == Null && v.replay == nil {
			v.replay = &Invariant{Name: CheckReplay, Status: Fail,
				Detail: fmt.Sprintf("replay threw: step %d of type %s has a null payload", i, typ), StepIndex: intp(i)}
		}
		if typ == Metadata {
			ev, _ := p.GetString("event")
			st, _ := p.GetString("status")
			if ev == "run_completed" && st == "success" {
				v.claims = true
			}
		}
	}
}

func intp(i int) *int { return &i }

// BrokenChain runs verify's first two checks (schema_version and
// hash_chain) over a whole cassette and returns the first that failed,
// or nil: the load-time check of every command that serves or shows a
// cassette, where a tampered chain must stop the work.
func BrokenChain(c Cassette) *Invariant {
	for _, inv := range Verify(c).Invariants[:2] {
		if inv.Status == Fail {
			return &inv
		}
	}
	return nil
}

// Where is " at step N" for a check that failed at a step, else "".
func (inv Invariant) Where() string {
	if inv.StepIndex == nil {
		return ""
	}
	return " at step " + strconv.Itoa(*inv.StepIndex)
}

func (v *Verifier) failChain(i int, format string, a ...any) {
	v.chain = &Invariant{Name: CheckChain, Status: Fail, Detail: fmt.Sprintf(format, a...), StepIndex: intp(i)}
}

func (v *Verifier) checkChain(i int, s Value) {
	if s.kind != Object {
		v.failChain(i, "step at position %d is %s, not an object", i, s.kind)
		return
	}
	idx, _ := s.Get("index")
	if n, ok := idx.Number(); !ok || n != float64(i) {
		x := "a non-integer value"
		if k, ok := idx.Int(); ok {
			x = strconv.FormatInt(k, 10)
		}
		v.failChain(i, "step at position %d has index %s; expected %d", i, x, i)
		return
	}
	prev, hasPrev := s.Get("prevHash")
	if i == 0 && (!hasPrev || prev.kind != Null) {
		v.failChain(0, "first step must have prevHash null")
		return
	}
	if i > 0 {
		if p, ok := prev.Str(); !ok || p != v.prev {
			v.failChain(i, "step %d prevHash does not match the previous step's hash %q", i, v.prev)
			return
		}
	}
	var h string
	var err error
	if stored, _ := s.GetString("hash"); v.Built {
		h = stored
	} else {
		h, err = HashStep(s, &v.scratch)
	}
	if cap(v.scratch) > 4<<20 {
		v.scratch = nil
	}
	if err != nil {
		v.failChain(i, "step %d cannot be hashed: %v", i, err)
		return
	}
	stored, _ := s.Get("hash")
	if st, ok := stored.Str(); !ok || st != h {
		v.failChain(i, "step %d hash mismatch — the stored hash is not the hash of the step's content (recomputed %q)", i, h)
		return
	}
	if typ, _ := s.GetString("type"); !KnownType(typ) {
		// Blackbox 0.2.2 fails such a step without naming its type.
		v.failChain(i, "step %d has an unknown type", i)
		return
	}
	v.prev = h
}

// Report returns the result after the last step.
func (v *Verifier) Report() Report {
	r := Report{Steps: v.n, Findings: v.finds}
	r.ID, _ = v.header.GetString("id")
	var last *Value
	if v.n > 0 {
		last = &v.last
	}
	r.Status = OutcomeOf(last).Status
	if v.lastStatus != "" {
		r.Status = v.lastStatus
	}

	schema := Invariant{Name: CheckSchema, Status: Pass, Detail: "version 2"}
	switch ver, ok := v.header.Get("version"); {
	case !ok || ver.kind == Null:
		schema = Invariant{Name: CheckSchema, Status: Fail, Detail: "version field is missing"}
	case ver.kind != Number:
		// Blackbox calls a version that is not a number missing; one that
		// is there (a string "2") is named as it is, unsupported.
		shown, _ := AppendCanonical(nil, ver)
		schema = Invariant{Name: CheckSchema, Status: Fail, Detail: fmt.Sprintf("unsupported version %s (expected the number %d)", quote.Cut(string(shown)), Version)}
	case ver.num != Version:
		num, _ := AppendNumber(nil, ver.num)
		if num == nil {
			num = []byte("Infinity")
		}
		schema = Invariant{Name: CheckSchema, Status: Fail, Detail: fmt.Sprintf("version %s is not supported (expected %d)", num, Version)}
	}
	chain := Invariant{Name: CheckChain, Status: Pass, Detail: fmt.Sprintf("%d step(s), chain intact", v.n)}
	if v.chain != nil {
		chain = *v.chain
	}
	neutral := Invariant{Name: CheckNeutrality, Status: Pass, Detail: "no forbidden markers"}
	if len(v.labels) > 0 {
		neutral = Invariant{Name: CheckNeutrality, Status: Fail, Detail: "markers: " + strings.Join(v.labels, ", ")}
	}
	replay := Invariant{Name: CheckReplay, Status: Pass, Detail: "status=" + r.Status}
	if v.replay != nil {
		replay = *v.replay
	} else if v.claims && r.Status != StatusSuccess {
		replay = Invariant{Name: CheckReplay, Status: Fail,
			Detail: fmt.Sprintf("trace claims run_completed/success but replay status is %q", r.Status), StepIndex: intp(v.n - 1)}
	}
	r.Pass = true
	for _, inv := range []Invariant{schema, chain, neutral, replay} {
		if !r.Pass {
			inv = Invariant{Name: inv.Name, Status: Skip, Detail: "skipped (" + r.FirstFailure.Name + " failed)"}
		} else if inv.Status == Fail {
			r.Pass = false
			inv.Detail = v.mask(inv.Detail)
			f := inv
			r.FirstFailure = &f
		}
		r.Invariants = append(r.Invariants, inv)
	}
	return r
}

func (v *Verifier) mask(s string) string {
	for _, k := range v.Keys {
		if len(k) >= 4 {
			s = strings.ReplaceAll(s, k, "[redacted]")
		}
	}
	return s
}

// userDataKeys hold user data at any depth: inside them only real
// credential shapes count, not provider ids.
var userDataKeys = map[string]bool{"toolInput": true, "result": true, "error": true, "inputSchema": true, "text": true, "content": true, "systemPrompt": true}

// keyMarkers are provider fields that must not appear as keys outside
// user data.
var keyMarkers = map[string]bool{"usage": true, "stop_reason": true, "stop_sequence": true, "finish_reason": true, "system_fingerprint": true, "ANTHROPIC_API_KEY": true, "OPENAI_API_KEY": true}

// scan is the provider-neutrality walk of spec 3.3 over one value.
func (v *Verifier) scan(val Value, step *int) {
	v.path = v.path[:0]
	v.walk(val, false, step)
}

func (v *Verifier) found(label string, step *int) {
	for _, l := range v.labels {
		if l == label {
			goto located
		}
	}
	v.labels = append(v.labels, label)
located:
	if len(v.finds) < 100 {
		v.finds = append(v.finds, Finding{Label: label, Step: step, Path: pathString(v.path)})
	}
}

func pathString(p []pathElem) string {
	var b strings.Builder
	for i, e := range p {
		switch {
		case e.idx >= 0:
			b.WriteString("[" + strconv.Itoa(e.idx) + "]")
		case i > 0:
			b.WriteString("." + e.key)
		default:
			b.WriteString(e.key)
		}
	}
	if b.Len() == 0 {
		return "(root)"
	}
	return b.String()
}

func (v *Verifier) walk(val Value, user bool, step *int) {
	switch val.kind {
	case String:
		v.scanString(val.str, user, step)
	case Array:
		for i := range val.arr {
			v.path = append(v.path, pathElem{idx: i})
			v.walk(val.arr[i], user, step)
			v.path = v.path[:len(v.path)-1]
		}
	case Object:
		for i := range val.obj {
			m := &val.obj[i]
			v.path = append(v.path, pathElem{key: m.Key, idx: -1})
			if !user && keyMarkers[m.Key] {
				v.found(m.Key, step)
			}
			v.scanString(m.Key, user, step)
			v.walk(m.Value, user || userDataKeys[m.Key], step)
			v.path = v.path[:len(v.path)-1]
		}
	}
}

// scanKey names one string's bytes (Built values are alive and never
// change, so the same bytes are the same text).
type scanKey struct {
	p    *byte
	n    int
	user bool
}

func (v *Verifier) scanString(s string, user bool, step *int) {
	if v.Built && len(s) >= 256 {
		k := scanKey{unsafe.StringData(s), len(s), user}
		if v.clean[k] {
			return
		}
		n := len(v.finds) + len(v.labels)
		v.scanText(s, user, step)
		if len(v.finds)+len(v.labels) == n && len(v.finds) < 100 {
			if v.clean == nil {
				v.clean = map[scanKey]bool{}
			}
			v.clean[k] = true
		}
		return
	}
	v.scanText(s, user, step)
}

func (v *Verifier) scanText(s string, user bool, step *int) {
	set := secrets.Blackbox.Markers
	if user {
		set = secrets.Blackbox.UserData
	}
	if len(s) >= 2 {
		b := unsafeBytes(s)
		if set.MayMatch(b) {
			for _, k := range set.Kinds(b) {
				v.found(k, step)
			}
		}
	}
	for _, k := range v.Keys {
		if len(k) >= 4 && strings.Contains(s, k) {
			v.found("<api-key-value>", step)
		}
	}
}

// LoadFailure is the report for a cassette that could not be read: a
// schema_version failure carrying the error, the other checks skipped.
func LoadFailure(path string, err error) Report {
	detail, _, _ := strings.Cut(err.Error(), "\n")
	f := Invariant{Name: CheckSchema, Status: Fail, Detail: detail}
	r := Report{Path: path, Status: StatusIncomplete, FirstFailure: &f, Invariants: []Invariant{f}}
	for _, name := range []string{CheckChain, CheckNeutrality, CheckReplay} {
		r.Invariants = append(r.Invariants, Invariant{Name: name, Status: Skip, Detail: "skipped (load failed)"})
	}
	return r
}
