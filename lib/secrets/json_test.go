package secrets

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/jsonscan"
)

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestRedactJSON(t *testing.T) {
	gh := "ghp_" + fake(11, alnum, 36)
	ant := "sk-ant-api03-" + fake(1, urlb64, 60)
	pem := "-----BEGIN PRIVATE KEY-----\n" + fake(20, b64, 64) + "\n-----END PRIVATE KEY-----\n"
	for _, c := range []struct {
		name, in, want string
		paths          []string
	}{
		{
			name:  "nested tool input",
			in:    `{"type":"assistant","message":{"content":[{"type":"tool_use","input":{"command":"echo ` + gh + `"}}]}}`,
			want:  `{"type":"assistant","message":{"content":[{"type":"tool_use","input":{"command":"echo [REDACTED:github-token]"}}]}}`,
			paths: []string{".message.content[0].input.command"},
		},
		{
			name:  "escaped newlines around a PEM block, the rest kept",
			in:    `{"a" : 1 ,"toolUseResult":{"stdout":` + quote("key:\n"+pem+"done \"ok\"") + `}, "b":[true,null,-1.5e3]}`,
			want:  `{"a" : 1 ,"toolUseResult":{"stdout":"key:\n[REDACTED:private-key]\ndone \"ok\""}, "b":[true,null,-1.5e3]}`,
			paths: []string{".toolUseResult.stdout"},
		},
		{
			name:  "a keyword hidden behind \\u",
			in:    `{"x":"` + strings.Replace(ant, "-", `\u002d`, 1) + `"}`,
			want:  `{"x":"[REDACTED:anthropic-api-key]"}`,
			paths: []string{".x"},
		},
		{
			name:  "odd keys, two secrets in one string",
			in:    `{"my key":["x",` + quote(gh+" and "+ant) + `]}`,
			want:  `{"my key":["x","[REDACTED:github-token] and [REDACTED:anthropic-api-key]"]}`,
			paths: []string{`.["my key"][1]`, `.["my key"][1]`},
		},
		{
			name:  "a bare string",
			in:    quote(gh),
			want:  `"[REDACTED:github-token]"`,
			paths: []string{"."},
		},
		{
			name: "keys are names, not scanned",
			in:   `{` + quote(gh) + `:1}`,
			want: `{` + quote(gh) + `:1}`,
		},
		{
			name: "keyword hits without a secret keep every byte",
			in:   `{"usage":{"input_tokens":12,"output_tokens":3},"text":"the token is sk- and \u00e9 \/ fine"}`,
			want: `{"usage":{"input_tokens":12,"output_tokens":3},"text":"the token is sk- and \u00e9 \/ fine"}`,
		},
	} {
		out, found, err := Default.RedactJSON(nil, []byte(c.in))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if string(out) != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, out, c.want)
		}
		if !json.Valid(out) {
			t.Errorf("%s: output is not valid JSON", c.name)
		}
		var paths []string
		for _, f := range found {
			paths = append(paths, f.Path)
		}
		if fmt.Sprint(paths) != fmt.Sprint(c.paths) {
			t.Errorf("%s: paths %v, want %v", c.name, paths, c.paths)
		}
		scan, err := Default.ScanJSON([]byte(c.in))
		if err != nil || fmt.Sprint(scan) != fmt.Sprint(found) {
			t.Errorf("%s: ScanJSON %v %v, RedactJSON %v", c.name, scan, err, found)
		}
		sameStreamed(t, c.name, c.in, out, found)
	}
}

// sameStreamed checks that RedactJSONTo, the streaming twin of
// RedactJSON (cc-redact --hook's), writes what RedactJSON returns.
func sameStreamed(t *testing.T, name, in string, out []byte, found []JSONMatch) {
	t.Helper()
	var buf bytes.Buffer
	found2, err := Default.RedactJSONTo(&buf, []byte(in))
	if err != nil || !bytes.Equal(buf.Bytes(), out) || fmt.Sprint(found2) != fmt.Sprint(found) {
		t.Errorf("%s: RedactJSONTo wrote %.300q (%v, %v), RedactJSON %.300q (%v)", name, buf.Bytes(), found2, err, out, found)
	}
}

// A string longer than RedactJSONTo's pieces, with escapes, colour inside
// a key and a secret near each end, comes out the same streamed.
func TestRedactJSONToLongString(t *testing.T) {
	key := "sk-ant-api03-" + strings.Repeat("A1b2C3d4E5", 9) + "-AAAAAA"
	coloured := `\u001b[01;31m\u001b[K` + key[:20] + `\u001b[m` + key[20:]
	body := "KEY=" + key + `\n` + strings.Repeat(`plain line \\ with \"quotes\" and \u00e9\n`, 20000) + coloured + `\n`
	in := `{"stdout":"` + body + `","stderr":"","n":[1,2,{"k":"` + key + `"}]}`
	out, found, err := Default.RedactJSON(nil, []byte(in))
	if err != nil || len(found) != 3 || bytes.Contains(out, []byte(key[20:])) {
		t.Fatalf("RedactJSON: %v %v", found, err)
	}
	sameStreamed(t, "long string", in, out, found)
	var w failWriter
	if _, err := Default.RedactJSONTo(&w, []byte(in)); err == nil || w.n != 1 {
		t.Errorf("a failed write: %v after %d writes, want its error after one", err, w.n)
	}
}

type failWriter struct{ n int }

func (w *failWriter) Write([]byte) (int, error) {
	w.n++
	return 0, errors.New("disk full")
}

func TestRedactJSONMalformed(t *testing.T) {
	gh := "ghp_" + fake(11, alnum, 36)
	for _, in := range []string{
		`{"a":"` + gh,         // cut short
		`{"a":"` + gh + `"`,   // no closing brace
		`{"a":"` + gh + `"}x`, // data after
		`{"a":"\q ` + gh + `"}`,
		`{"a":tru, "b":"` + gh + `"}`,
	} {
		out, found, err := Default.RedactJSON(nil, []byte(in))
		if !errors.Is(err, ErrNotJSON) {
			t.Errorf("%q: err %v", in, err)
		}
		if len(found) != 1 || bytes.Contains(out, []byte(gh)) {
			t.Errorf("%q: found %v, out %s", in, found, out)
		}
	}
	// A malformed line without a secret comes back as it is, with the error;
	// ScanJSON does not parse a line without a keyword.
	out, _, err := Default.RedactJSON(nil, []byte(`{"a":`))
	if string(out) != `{"a":` || !errors.Is(err, ErrNotJSON) {
		t.Errorf("got %s, %v", out, err)
	}
	if _, err := Default.ScanJSON([]byte(`{"a":`)); err != nil {
		t.Errorf("ScanJSON: %v", err)
	}
}

func TestRedactJSONDeepNesting(t *testing.T) {
	in := strings.Repeat("[", jsonscan.MaxDepth+5) + `"ghp_x"` + strings.Repeat("]", jsonscan.MaxDepth+5)
	if _, _, err := Default.RedactJSON(nil, []byte(in)); err == nil {
		t.Error("no error for nesting past the limit")
	}
}

// FuzzRedactJSON: for any string planted in a record, the output is valid
// JSON, holds no planted secret, is unchanged by a second pass, and equals
// the input when nothing was found.
func FuzzRedactJSON(f *testing.F) {
	ps := plants()
	for i, p := range ps {
		f.Add(strings.Replace(p.context, "%s", p.secret, 1), uint8(i), uint8(i*7))
	}
	f.Add("plain text with token: and ://", uint8(0), uint8(0))
	f.Add("\u2028\x00\"\\ ", uint8(3), uint8(1))
	f.Fuzz(func(t *testing.T, s string, which, shape uint8) {
		p := ps[int(which)%len(ps)]
		if strings.Contains(s, p.secret) {
			return // the filler holds the secret too, maybe where it is not one
		}
		planted := s + " " + strings.Replace(p.context, "%s", p.secret, 1)
		var rec string
		switch shape % 4 {
		case 0:
			rec = `{"type":"user","message":{"content":[{"type":"tool_result","content":` + quote(planted) + `}]}}`
		case 1:
			rec = `[1,{"k":` + quote(s) + `},` + quote(planted) + `]`
		case 2:
			rec = `{"toolUseResult":{"stdout":` + quote(planted) + `,"n":` + quote(s) + `}}`
		default:
			// \u-escape every byte outside ASCII letters and digits.
			var b strings.Builder
			b.WriteString(`{"x":"`)
			for _, r := range planted {
				if r < 0x10000 && !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') {
					fmt.Fprintf(&b, `\u%04x`, r)
				} else {
					b.WriteRune(r)
				}
			}
			b.WriteString(`"}`)
			rec = b.String()
		}
		if !json.Valid([]byte(rec)) {
			return // s held invalid UTF-8 that quote replaced; still fine, but skip
		}
		out, found, err := Default.RedactJSON(nil, []byte(rec))
		if err != nil {
			t.Fatalf("error on valid JSON %q: %v", rec, err)
		}
		if !json.Valid(out) {
			t.Fatalf("invalid output %q", out)
		}
		if len(found) == 0 {
			t.Fatalf("planted %s not found in %q", p.kind, rec)
		}
		var v any
		_ = json.Unmarshal(out, &v)
		if flat, _ := json.Marshal(v); bytes.Contains(flat, []byte(p.secret)) {
			t.Fatalf("planted %s survives in %q", p.kind, out)
		}
		sameStreamed(t, "fuzz", rec, out, found)
		again, found2, err := Default.RedactJSON(nil, out)
		if err != nil || len(found2) != 0 || !bytes.Equal(again, out) {
			t.Fatalf("second pass changed %q: %v %v", out, found2, err)
		}
		// The filler alone: byte for byte unless it holds a secret itself.
		clean := `{"k":` + quote(s) + `}`
		out, found, _ = Default.RedactJSON(nil, []byte(clean))
		if len(found) == 0 && string(out) != clean {
			t.Fatalf("clean record changed: %q -> %q", clean, out)
		}
	})
}

// The parse errors are jsonscan's, as every fast path reports them, and
// so is the grammar: a raw control character in a string or a number
// such as 01 is not JSON (encoding/json and cc-entries agree).
func TestRedactJSONErrors(t *testing.T) {
	for in, want := range map[string]string{
		`{"a":1,}`:         "not valid JSON: expected a key at byte 7",
		`{"a":"x`:          "not valid JSON: unterminated string at byte 7",
		"{\"a\":\"\x01\"}": "not valid JSON: control character in string at byte 6",
		`{"a":01}`:         "not valid JSON: expected ',' or '}' at byte 6",
		`{"a":"\q"}`:       "not valid JSON: invalid escape at byte 6",
		`[`:                "not valid JSON: unterminated array at byte 1",
	} {
		_, _, err := Default.RedactJSON(nil, []byte(in))
		if err == nil || err.Error() != want || !errors.Is(err, ErrNotJSON) {
			t.Errorf("%q: got %v, want %s", in, err, want)
		}
	}
}
