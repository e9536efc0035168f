package transcript

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const (
	fixtureDir     = "../../testdata/transcripts"
	fixtureSession = fixtureDir + "/claude/projects/-home-dev-work-alpha/11111111-2222-4333-8444-555555555555.jsonl"
)

// readAll returns the uuids (or types, for records without one) handed on.
func readAll(t *testing.T, path string, opts Options) ([]string, Diagnostics) {
	t.Helper()
	var got []string
	d, err := ReadFile(path, opts, func(l *Line) error {
		if len(l.Header.UUID) > 0 {
			got = append(got, string(l.Header.UUID))
		} else {
			got = append(got, string(l.Header.Type))
		}
		if opts.Decode && l.Entry == nil {
			t.Errorf("line %d: no entry", l.Number)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got, d
}

func TestMalformedFixtures(t *testing.T) {
	tests := []struct {
		file string
		want []string
		diag func(d Diagnostics) bool
	}{
		{"truncated.jsonl", []string{"t1"}, func(d Diagnostics) bool {
			return d.IncompleteLastLine && d.Malformed == 0 && d.Lines == 2
		}},
		{"nul.jsonl", []string{"n1", "n3"}, func(d Diagnostics) bool {
			return reflect.DeepEqual(d.MalformedLines, []int{2, 3}) && !d.IncompleteLastLine
		}},
		{"badutf8.jsonl", []string{"i1", "i2"}, func(d Diagnostics) bool { return d.Malformed == 0 && d.Aligned }},
		{"garbage.jsonl", []string{"g1", "g3", "g4"}, func(d Diagnostics) bool {
			return reflect.DeepEqual(d.MalformedLines, []int{3, 4, 5}) && d.Blank == 2 && d.Records == 3
		}},
		{"unknown.jsonl", []string{"k1", "k2", "k3", "", "k4"}, func(d Diagnostics) bool {
			return reflect.DeepEqual(d.UnknownTypes, map[string]int{"hologram": 2, "(none)": 1}) &&
				reflect.DeepEqual(d.UnknownBlocks, map[string]int{"server_tool_use": 1, "search_result": 1}) && d.Aligned
		}},
		{"wrongtypes.jsonl", []string{"w1", "w2", "w3", "w4", "user", "cost-state"}, func(d Diagnostics) bool {
			return !d.Aligned && d.TypeMismatches["message.content"] == 1 && d.TypeMismatches["message.usage.input_tokens"] == 1 &&
				d.TypeMismatches["attachment"] == 1 && len(d.TypeMismatches) == 10 && d.Malformed == 0
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			var warned []int
			got, d := readAll(t, filepath.Join(fixtureDir, "malformed", tt.file), Options{Decode: true,
				Warn: func(line int, err error) { warned = append(warned, line) }})
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("records %q, want %q", got, tt.want)
			}
			if !tt.diag(d) {
				t.Errorf("diagnostics %+v", d)
			}
			if n := d.Malformed + len(d.TooLongLines); d.IncompleteLastLine && len(warned) != n+1 || !d.IncompleteLastLine && len(warned) != n {
				t.Errorf("warned for lines %v, diagnostics %+v", warned, d)
			}
		})
	}
}

func TestTypesPrefilter(t *testing.T) {
	got, d := readAll(t, fixtureSession, Options{Types: []string{"assistant"}})
	want := []string{"as1", "as2", "as3", "as4", "as5", "as6", "as7"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if d.Records != 7 || d.Prefiltered != d.Lines-7 {
		t.Errorf("diagnostics %+v", d)
	}
	// The byte check lets a user record quoting "assistant" through; the
	// scanned type then drops it.
	dir := t.TempDir()
	p := filepath.Join(dir, "x.jsonl")
	os.WriteFile(p, []byte(`{"type":"user","uuid":"u","message":{"content":"\"assistant\""}}`+"\n"+
		`{"uuid":"a","type":"assistant"}`+"\n"+`{"type" : "assistant" , "uuid":"b"}`+"\n"), 0o644)
	got, _ = readAll(t, p, Options{Types: []string{"assistant", "system"}})
	if !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Errorf("got %q", got)
	}
}

func TestLineTooLong(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.jsonl")
	os.WriteFile(p, []byte(`{"uuid":"a"}`+"\n"+`{"uuid":"`+strings.Repeat("x", 200)+`"}`+"\n"+`{"uuid":"c"}`+"\n"), 0o644)
	got, d := readAll(t, p, Options{MaxLine: 100})
	if !reflect.DeepEqual(got, []string{"a", "c"}) || !reflect.DeepEqual(d.TooLongLines, []int{2}) {
		t.Errorf("got %q, diagnostics %+v", got, d)
	}
}

// TestHugeLine reads a 300 MB line (a giant tool output) between two
// normal ones: no cap, nothing lost.
func TestHugeLine(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 300 MB file")
	}
	p := filepath.Join(t.TempDir(), "huge.jsonl")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString(`{"type":"user","uuid":"before"}` + "\n")
	w.WriteString(`{"type":"user","uuid":"huge","toolUseResult":{"stdout":"`)
	chunk := strings.Repeat("0123456789abcdef\\n", 1<<16) // 1.125 MiB with escapes
	for i := 0; i < 267; i++ {
		w.WriteString(chunk)
	}
	w.WriteString(`"}}` + "\n" + `{"type":"user","uuid":"after"}` + "\n")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	var sizes []int
	got, d := readAll(t, p, Options{Types: []string{"user"}})
	_, _ = ReadFile(p, Options{}, func(l *Line) error { sizes = append(sizes, len(l.Bytes)); return nil })
	if !reflect.DeepEqual(got, []string{"before", "huge", "after"}) || d.Malformed != 0 || sizes[1] < 300<<20 {
		t.Errorf("got %q sizes %v diagnostics %+v", got, sizes, d)
	}
}

func TestEachStopsOnCallbackError(t *testing.T) {
	stop := errors.New("stop")
	n := 0
	_, err := ReadFile(fixtureSession, Options{}, func(*Line) error { n++; return stop })
	if err != stop || n != 1 {
		t.Errorf("err %v after %d lines", err, n)
	}
	if _, err := ReadFile(filepath.Join(t.TempDir(), "missing.jsonl"), Options{}, nil); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}
