package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

var seeds = []string{
	`{}`, ` { } `, `{"a":1}`, `{"a":-0.5e+10,"b":[true,false,null,{"c":"d"}]}`,
	`{"type":"user","uuid":"x","parentUuid":null}`,
	`{"s":"esc \" \\ \/ \b \f \n \r \t \u00e9 \uD83D\uDE00"}`,
	`{"s":"12345678\"12345678\\12345678"}`, // escapes at 8-byte boundaries
	`{"a":01}`, `{"a":1.}`, `{"a":.5}`, `{"a":-}`, `{"a":1e}`, `{"a":+1}`, `{"a":1e999}`,
	`{"a":tru}`, `{"x":tru,"message":{"usage":{"input_tokens":5}}}`, `{"a":nul}`,
	`{"a":"x\q"}`, `{"a":"\u12G4"}`, `{"a":"` + "\x01" + `"}`, `{"a":"\ud800"}`,
	`{"a":1,}`, `{,"a":1}`, `{"a" 1}`, `{"a":1 "b":2}`, `{"a":[1,]}`, `{"a":[1 2]}`, `{"a":[,1]}`,
	`{"a":1}}`, `{"a":1} x`, `{"a":"unterminated}`, `{"a":[`, `{"a":{"b":}`, `{"a":[] , "b" : { } }`,
	`{1:2}`, `{"a":1`, "{\"a\":\"\xff\xfe\"}", `{"a":"` + strings.Repeat("x", 1000) + `"}`,
	`{"type":"a\u0073sistant"}`, `{"a\"b":1,"a\\":2}`, `[1,2]`, `"s"`, `12`, ``, ` `, `nul`,
	`{"a":[[[[[]]]]]}`, strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
}

func TestValidAgreesWithEncodingJSON(t *testing.T) {
	for _, in := range seeds {
		if got, want := Valid([]byte(in)), json.Valid([]byte(in)); got != want {
			t.Errorf("Valid(%.60q) = %v, json.Valid = %v", in, got, want)
		}
	}
}

// walk reads any JSON text with the cursor API alone (Enter/Member,
// EnterArray/Elem, String, Number, Bool, Null) and builds what
// encoding/json would decode it to.
func walk(c *Cursor) (any, error) {
	switch c.Peek() {
	case '{':
		if err := c.Enter(); err != nil {
			return nil, err
		}
		m := map[string]any{}
		for {
			k, esc, ok, err := c.Member()
			if err != nil {
				return nil, err
			}
			if !ok {
				return m, nil
			}
			v, err := walk(c)
			if err != nil {
				return nil, err
			}
			m[Key(k, esc)] = v
		}
	case '[':
		if err := c.EnterArray(); err != nil {
			return nil, err
		}
		a := []any{}
		for {
			ok, err := c.Elem()
			if err != nil {
				return nil, err
			}
			if !ok {
				return a, nil
			}
			v, err := walk(c)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
	case '"':
		s, err := c.String()
		return string(s), err
	case 't', 'f':
		return c.Bool()
	case 'n':
		_, err := c.Null()
		return nil, err
	}
	n, err := c.Number()
	return json.Number(n), err
}

func decodeStd(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, errors.New("more")
	}
	return v, nil
}

// check runs the differential test on one input: the cursor accepts
// exactly what encoding/json accepts, and reads the same values.
func check(t *testing.T, in []byte) {
	t.Helper()
	valid := json.Valid(in)
	if Valid(in) != valid {
		t.Fatalf("Valid(%.80q) = %v, json.Valid = %v", in, !valid, valid)
	}
	c := New(in)
	got, err := walk(&c)
	if err == nil {
		err = c.End()
	}
	if (err == nil) != valid {
		t.Fatalf("walk(%.80q): err %v, json.Valid = %v", in, err, valid)
	}
	if err != nil {
		if !errors.Is(err, ErrSyntax) {
			t.Fatalf("walk(%.80q): error %v does not wrap ErrSyntax", in, err)
		}
		return
	}
	want, werr := decodeStd(in)
	if werr != nil {
		// Depth: encoding/json's limit counts differently by a level.
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("walk(%.80q) = %#v, encoding/json %#v", in, got, want)
	}
	// Members agrees on objects: same keys, same raw values, and the
	// member bytes rebuild the object.
	if len(bytes.TrimSpace(in)) > 0 && bytes.TrimSpace(in)[0] == '{' {
		var raws map[string]json.RawMessage
		if json.Unmarshal(in, &raws) != nil {
			t.Fatalf("object %.80q: encoding/json failed", in)
		}
		seen := map[string]json.RawMessage{}
		err := Members(in, func(m *Member) error {
			if !bytes.HasPrefix(m.Bytes, m.RawKey()) || !bytes.HasSuffix(m.Bytes, m.Value) {
				t.Fatalf("member %q: bytes %q, value %q", m.Key, m.Bytes, m.Value)
			}
			seen[m.Name()] = m.Value
			return nil
		})
		if err != nil {
			t.Fatalf("Members(%.80q): %v", in, err)
		}
		if len(seen) != len(raws) {
			t.Fatalf("Members(%.80q): keys %d, encoding/json %d", in, len(seen), len(raws))
		}
		for k, v := range raws {
			if !bytes.Equal(seen[k], v) {
				t.Fatalf("Members(%.80q)[%q] = %q, encoding/json %q", in, k, seen[k], v)
			}
		}
	}
}

func TestCursorAgreesWithEncodingJSON(t *testing.T) {
	for _, in := range seeds {
		check(t, []byte(in))
	}
}

// FuzzCursor compares the scanner with encoding/json both ways: whatever
// one accepts the other must, and the values read must match.
func FuzzCursor(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) { check(t, in) })
}

// FuzzString puts arbitrary bytes between quotes: escapes (valid and not),
// control characters and invalid UTF-8 must decode as encoding/json
// decodes them, or fail where it fails.
func FuzzString(f *testing.F) {
	for _, s := range []string{`a`, `\"`, `\u00e9`, `\ud83d\ude00`, `\ud800x`, `\q`, "\xff", "\x01", `\`, `\u12`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		in := append(append([]byte{'"'}, body...), '"')
		c := New(in)
		got, err := c.String()
		if err == nil {
			err = c.End()
		}
		var want string
		werr := json.Unmarshal(in, &want)
		if (err == nil) != (werr == nil) {
			t.Fatalf("String(%q): err %v, encoding/json %v", in, err, werr)
		}
		if err == nil && string(got) != want {
			t.Fatalf("String(%q) = %q, encoding/json %q", in, got, want)
		}
	})
}

func TestCursorErrors(t *testing.T) {
	c := New([]byte(`{"a":"x"}`))
	if err := c.EnterArray(); !errors.Is(err, ErrSyntax) {
		t.Errorf("EnterArray on an object: %v", err)
	}
	c = New([]byte(`{"a":"x"}`))
	_ = c.Enter()
	if _, _, _, err := c.Member(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Number(); err == nil || !strings.Contains(err.Error(), "expected a number at byte 5") {
		t.Errorf("Number on a string: %v", err)
	}
	if err := Members([]byte(`[1]`), func(*Member) error { return nil }); !errors.Is(err, ErrNotObject) {
		t.Errorf("Members on an array: %v", err)
	}
	stop := errors.New("stop")
	n := 0
	err := Members([]byte(`{"a":1,"b":2}`), func(*Member) error { n++; return stop })
	if err != stop || n != 1 {
		t.Errorf("Members stops at fn's error: %v after %d", err, n)
	}
}

func BenchmarkSkip(b *testing.B) {
	line := []byte(`{"type":"assistant","message":{"content":[{"type":"text","text":"` +
		strings.Repeat("some prose with \\\"quotes\\\" and more words ", 100) + `"}],"usage":{"input_tokens":3}}}`)
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		c := New(line)
		if c.Skip() != nil {
			b.Fatal()
		}
	}
}

// The string scan and decode work in steps of eight and sixteen bytes:
// put escapes, quotes, control characters and non-ASCII bytes at every
// offset of a step and compare with encoding/json.
func TestStringSteps(t *testing.T) {
	for _, mark := range []string{`\n`, `\"`, `\\`, `\u00e9`, `\ud83d\ude00`, "é", "\xff", "\x01", `"`, `\q`} {
		for pre := 0; pre < 34; pre++ {
			for post := 0; post < 18; post += 5 {
				body := strings.Repeat("a", pre) + mark + strings.Repeat("b", post) + mark
				in := []byte(`{"k":"` + body + `","n":1}`)
				check(t, in)
				c := New([]byte(`"` + body + `"`))
				got, err := c.String()
				if err == nil {
					err = c.End()
				}
				var want string
				werr := json.Unmarshal([]byte(`"`+body+`"`), &want)
				if (err == nil) != (werr == nil) || err == nil && string(got) != want {
					t.Errorf("String(%q) = %q, %v; encoding/json %q, %v", body, got, err, want, werr)
				}
			}
		}
	}
}

// BenchmarkSkipLong: a record holding a long string without escapes (an
// image's base64) and a long text with an escape every line, as tool
// results are.
func BenchmarkSkipLong(b *testing.B) {
	for _, tt := range []struct{ name, body string }{
		{"base64", strings.Repeat("iVBORw0KGgoAAAANSUhEUgAAA+gAAAPoCAIAAAB", 20000)},
		{"lines", strings.Repeat(`    return fmt.Errorf(\"wrap: %w\", err) // a line of code\n`, 5000)},
	} {
		line := []byte(`{"type":"user","message":{"content":[{"type":"tool_result","content":"` + tt.body + `"}]}}`)
		b.Run(tt.name, func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			for b.Loop() {
				c := New(line)
				if c.Skip() != nil {
					b.Fatal()
				}
			}
		})
	}
}

// TestStringLongRuns: a string scan that goes on by plainSpan after a long
// plain run reads what encoding/json reads, wherever the run ends (a
// quote, an escape, a control character, invalid UTF-8, the end of the
// input) and whatever the window then is.
func TestStringLongRuns(t *testing.T) {
	defer func(n int) { longRun = n }(longRun)
	for _, lr := range []int{0, 16, 256} {
		longRun = lr
		for _, mark := range []string{`\n`, `\"`, `\u00e9`, "é", "\xff", "\x01", "\x1f", `"`, `\q`, ""} {
			for _, pre := range []int{0, 15, 16, 17, 40, 255, 256, 257, 300, 511, 512, 513, 1000, 5000, 70000} {
				for _, post := range []int{0, 3, 300} {
					body := strings.Repeat("a", pre) + mark + strings.Repeat("b", post) + mark + strings.Repeat("c", pre)
					for _, in := range []string{`{"k":"` + body + `","n":1}`, `{"k":"` + body, `"` + body + `"`} {
						check(t, []byte(in))
						if t.Failed() {
							t.Fatalf("longRun %d, mark %q, pre %d, post %d", lr, mark, pre, post)
						}
					}
				}
			}
		}
	}
}
