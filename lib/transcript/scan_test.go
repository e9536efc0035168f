package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/jsonscan"
)

func TestScanAgreesWithEncodingJSON(t *testing.T) {
	tests := []string{
		`{}`, ` { } `, `{"a":1}`, `{"a":-0.5e+10,"b":[true,false,null,{"c":"d"}]}`,
		`{"type":"user","uuid":"x","parentUuid":null}`,
		`{"s":"esc \" \\ \/ \b \f \n \r \t \u00e9 \uD83D\uDE00"}`,
		`{"s":"12345678\"12345678\\12345678"}`, // escapes at 8-byte boundaries
		`{"a":01}`, `{"a":1.}`, `{"a":.5}`, `{"a":-}`, `{"a":1e}`, `{"a":+1}`,
		`{"a":tru}`, `{"a":nul}`, `{"a":"x\q"}`, `{"a":"\u12G4"}`, `{"a":"` + "\x01" + `"}`,
		`{"a":1,}`, `{,"a":1}`, `{"a" 1}`, `{"a":1 "b":2}`, `{"a":[1,]}`, `{"a":[1 2]}`,
		`{"a":1}}`, `{"a":1} x`, `{"a":"unterminated}`, `{"a":[`, `{"a":{"b":}`,
		`{1:2}`, `{"a":1`, "{\"a\":\"\xff\xfe\"}", `{"a":"` + strings.Repeat("x", 1000) + `"}`,
		`{"type":"a\u0073sistant"}`,
	}
	for _, in := range tests {
		var h Header
		err := Scan([]byte(in), &h)
		if valid := json.Valid([]byte(in)); (err == nil) != valid {
			t.Errorf("Scan(%q) = %v, json.Valid = %v", in, err, valid)
		}
	}
}

func TestScanHeader(t *testing.T) {
	line := `{"parentUuid":"p","nested":{"type":"inner","uuid":"no"},"type":"assistant","uuid":"u",` +
		`"timestamp":"2026-05-01T10:00:00.000Z","sessionId":"s","agentId":"a","logicalParentUuid":"l","x":[{"type":"no"}]}`
	var h Header
	if err := Scan([]byte(line), &h); err != nil {
		t.Fatal(err)
	}
	got := []string{string(h.Type), string(h.UUID), string(h.ParentUUID), string(h.Timestamp),
		string(h.SessionID), string(h.AgentID), string(h.LogicalParentUUID)}
	want := []string{"assistant", "u", "p", "2026-05-01T10:00:00.000Z", "s", "a", "l"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("field %d = %q, want %q", i, got[i], want[i])
		}
	}
	// An escaped value is unescaped; a non-string value reads as empty.
	if err := Scan([]byte(`{"type":"a\u0073sistant","uuid":5}`), &h); err != nil {
		t.Fatal(err)
	}
	if string(h.Type) != "assistant" || h.UUID != nil {
		t.Errorf("type %q uuid %q", h.Type, h.UUID)
	}
}

func TestScanErrors(t *testing.T) {
	var h Header
	if err := Scan([]byte(`[1]`), &h); !errors.Is(err, ErrNotObject) {
		t.Errorf("array: %v", err)
	}
	if err := Scan([]byte(`   `), &h); !errors.Is(err, ErrSyntax) {
		t.Errorf("blank: %v", err)
	}
	deep := []byte(`{"a":` + strings.Repeat("[", jsonscan.MaxDepth+1) + strings.Repeat("]", jsonscan.MaxDepth+1) + `}`)
	if err := Scan(deep, &h); err == nil || !strings.Contains(err.Error(), "nesting") {
		t.Errorf("deep nesting: %v", err)
	}
}

// FuzzScan checks the hand-written scanner against encoding/json on any
// input: same verdict, never a panic, and Decode succeeds where Scan does.
func FuzzScan(f *testing.F) {
	for _, s := range []string{`{}`, `{"type":"user","message":{"content":"hi"}}`, `{"a":[1,-2.5e3,"\u00e9\n"]}`,
		`{"a":"12345678\"1234567\\"}`, `not json`, "{\"a\":\"\x00\"}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var h Header
		err := Scan(b, &h)
		trimmed := bytes.TrimLeft(b, " \t\r\n")
		isObj := len(trimmed) > 0 && trimmed[0] == '{'
		if valid := json.Valid(b) && isObj; (err == nil) != valid {
			t.Fatalf("Scan(%q) = %v, json.Valid && object = %v", b, err, valid)
		}
		if err == nil {
			if _, derr := Decode(b); derr != nil {
				t.Fatalf("Scan accepted %q but Decode failed: %v", b, derr)
			}
		}
	})
}
