package transcript

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/ccpipe/ccpipe/lib/jsonscan"
)

// ResultInfo holds the fields of a toolUseResult that tool facts read,
// across tools (lib/extract's shell, tools and files).
type ResultInfo struct {
	// stdoutJSON is stdout's JSON string as written (nil: absent or
	// null), decoded only by who asks (Stdout); stdout is the slow twin's.
	stdoutJSON []byte
	stdout     *string
	Stderr     string
	// Interrupted: the user interrupted the call.
	Interrupted         bool
	PersistedOutputPath string
	BackgroundTaskID    string
	Type                string // Write: create | update
}

// Stdout is the result's stdout; nil when it has none.
func (r *ResultInfo) Stdout() *string {
	if r.stdoutJSON != nil {
		s := jsonscan.StringOf(r.stdoutJSON)
		return &s
	}
	return r.stdout
}

// Own copies what r holds of a line it borrowed (Options.Borrow).
func (r *ResultInfo) Own() { r.stdoutJSON = bytes.Clone(r.stdoutJSON) }

// resultInfoJSON is ResultInfo as encoding/json decodes it: what
// ReadResultInfo's walk must read.
type resultInfoJSON struct {
	Stdout              *string `json:"stdout"`
	Stderr              string  `json:"stderr"`
	Interrupted         bool    `json:"interrupted"`
	PersistedOutputPath string  `json:"persistedOutputPath"`
	BackgroundTaskID    string  `json:"backgroundTaskId"`
	Type                string  `json:"type"`
}

var resultInfoNames = []string{"stdout", "stderr", "interrupted", "persistedOutputPath", "backgroundTaskId", "type"}

// ReadResultInfo reads raw, a toolUseResult, as encoding/json decodes it
// into ResultInfo's fields: a field of another type reads as empty, and a
// value that is not an object as no field at all.
func ReadResultInfo(raw []byte) ResultInfo {
	var r ResultInfo
	c := jsonscan.New(raw)
	if c.Peek() == '{' {
		if sure, out, err := readResultInfo(&c, &r); err == nil && sure && c.End() == nil {
			if out[1] > 0 {
				r.stdoutJSON = raw[out[0]:out[1]]
			}
			return r
		}
	}
	return slowResultInfo(raw)
}

// slowResultInfo is ReadResultInfo by encoding/json (its slow twin).
func slowResultInfo(raw []byte) ResultInfo {
	var v resultInfoJSON
	c := jsonscan.New(raw)
	if c.Peek() == '{' {
		_ = json.Unmarshal(raw, &v) // a type mismatch still decodes the other fields
	}
	return ResultInfo{stdout: v.Stdout, Stderr: v.Stderr, Interrupted: v.Interrupted,
		PersistedOutputPath: v.PersistedOutputPath, BackgroundTaskID: v.BackgroundTaskID, Type: v.Type}
}

// readResultInfo walks the object at c into r. sure is false when the
// walk cannot read it as encoding/json would (a field of another type,
// written twice or in another case): the object is still walked to its
// end. stdout is where stdout's string is in c's text (Pos offsets; 0, 0
// when there is none): the caller slices it from the bytes it keeps.
func readResultInfo(c *jsonscan.Cursor, r *ResultInfo) (sure bool, stdout [2]int, err error) {
	if err := c.Enter(); err != nil {
		return false, stdout, err
	}
	sure = true
	var seen uint8
	for {
		k, esc, more, err := c.Member()
		if err != nil {
			return false, stdout, err
		}
		if !more {
			return sure, stdout, nil
		}
		if esc {
			k = []byte(jsonscan.Key(k, esc))
		}
		i := slices.Index(resultInfoNames, string(k))
		if i < 0 || !sure || seen&(1<<i) != 0 {
			if i >= 0 || jsonscan.Folds(k, resultInfoNames...) {
				sure = false
			}
			if err := c.Skip(); err != nil {
				return false, stdout, err
			}
			continue
		}
		seen |= 1 << i
		switch p := c.Peek(); {
		case p == 'n':
			if _, err := c.Null(); err != nil {
				return false, stdout, err
			}
		case p == '"' && i == 0:
			s := c.Pos()
			if _, _, err := c.RawString(); err != nil {
				return false, stdout, err
			}
			stdout = [2]int{s, c.Pos()}
		case p == '"' && i != 2:
			v, err := c.String()
			if err != nil {
				return false, stdout, err
			}
			switch i {
			case 1:
				r.Stderr = string(v)
			case 3:
				r.PersistedOutputPath = string(v)
			case 4:
				r.BackgroundTaskID = string(v)
			default:
				r.Type = string(v)
			}
		case (p == 't' || p == 'f') && i == 2:
			v, err := c.Bool()
			if err != nil {
				return false, stdout, err
			}
			r.Interrupted = v
		default:
			sure = false
			if err := c.Skip(); err != nil {
				return false, stdout, err
			}
		}
	}
}
