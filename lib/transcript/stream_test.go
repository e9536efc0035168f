package transcript

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func streamIDs(t *testing.T, src Source, opts Options, sel Select) ([]string, Diagnostics, error) {
	t.Helper()
	var got []string
	d, err := Stream(context.Background(), src, opts, sel, func(l *Line) error {
		id := string(l.Header.UUID)
		if id == "" {
			id = string(l.Header.Type)
		}
		got = append(got, id)
		return nil
	})
	return got, d, err
}

func TestSelect(t *testing.T) {
	at := func(s string) time.Time { tm, _ := time.Parse(time.RFC3339, s); return tm }
	tests := []struct {
		name string
		opts Options
		sel  Select
		want []string
	}{
		// u5 was left by a rewind (u6 replaced it); the walk crosses the
		// compaction boundary c1 through logicalParentUuid.
		{"branch", Options{}, Select{Branch: true},
			[]string{"u1", "a1", "as1", "as2", "as3", "u2", "as4", "u3", "as5", "s1", "u6", "as6", "c1", "u7", "as7"}},
		{"branch and types", Options{Types: []string{"user"}}, Select{Branch: true}, []string{"u1", "u2", "u3", "u6", "u7"}},
		{"tail", Options{}, Select{Tail: 3}, []string{"u7", "as7", "cost-state"}},
		{"tail of a type", Options{Types: []string{"user"}}, Select{Tail: 2}, []string{"u6", "u7"}},
		{"tail none", Options{}, Select{Tail: -1}, nil},
		// Records without a timestamp (last-prompt, mode, cost-state)
		// take the one before them.
		{"since until", Options{}, Select{Since: at("2026-05-01T10:00:25Z"), Until: at("2026-05-01T10:00:50Z")},
			[]string{"as5", "s1", "last-prompt", "u5", "u6"}},
		{"since", Options{Types: []string{"assistant"}}, Select{Since: at("2026-05-01T10:01:00Z")}, []string{"as7"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, d, err := streamIDs(t, Source{Path: fixtureSession}, tt.opts, tt.sel)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %q\nwant %q", got, tt.want)
			}
			if d.Records != len(tt.want) {
				t.Errorf("records %d", d.Records)
			}
		})
	}
}

func TestBranchNeedsAFile(t *testing.T) {
	_, _, err := streamIDs(t, Source{Reader: strings.NewReader("{}\n")}, Options{}, Select{Branch: true})
	if err == nil {
		t.Error("branch over a stream: no error")
	}
}

func TestActiveBranchAfterFork(t *testing.T) {
	// A fork copies records with the same uuids: the chain may point at a
	// parent the file does not hold; the walk stops there.
	p := filepath.Join(t.TempDir(), "f.jsonl")
	os.WriteFile(p, []byte(`{"type":"user","uuid":"x2","parentUuid":"elsewhere"}`+"\n"+
		`{"type":"assistant","uuid":"x3","parentUuid":"x2"}`+"\n"+`{"type":"last-prompt","leafUuid":"x3"}`+"\n"), 0o644)
	on, err := ActiveBranch(p, 0)
	if err != nil || !reflect.DeepEqual(on, map[string]bool{"x2": true, "x3": true}) {
		t.Errorf("branch %v, %v", on, err)
	}
}

func TestDecodeAfterSelection(t *testing.T) {
	var n int
	d, err := Stream(context.Background(), Source{Path: fixtureSession}, Options{Decode: true}, Select{Tail: 2}, func(l *Line) error {
		if l.Entry == nil || l.Entry.Type != string(l.Header.Type) {
			t.Errorf("line %d: entry %+v", l.Number, l.Entry)
		}
		n++
		return nil
	})
	if err != nil || n != 2 || !d.Decoded || !d.Aligned {
		t.Errorf("n %d diagnostics %+v err %v", n, d, err)
	}
}

// TestFollow appends to a transcript while it is followed: a partial line
// is held until its newline arrives, and the follow ends once Stop says so.
func TestFollow(t *testing.T) {
	p := filepath.Join(t.TempDir(), "live.jsonl")
	os.WriteFile(p, []byte(`{"type":"user","uuid":"f1"}`+"\n"+`{"type":"assistant","uu`), 0o644)
	var stop atomic.Bool
	got := make(chan string, 10)
	done := make(chan error, 1)
	go func() {
		_, err := Stream(context.Background(), Source{Path: p, Follow: &Follow{Poll: 5 * time.Millisecond, Stop: stop.Load}},
			Options{}, Select{}, func(l *Line) error {
				got <- string(l.Header.UUID)
				return nil
			})
		done <- err
	}()
	expect := func(want string) {
		t.Helper()
		select {
		case id := <-got:
			if id != want {
				t.Fatalf("got %q, want %q", id, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("no record, want %q", want)
		}
	}
	expect("f1")
	select {
	case id := <-got:
		t.Fatalf("partial line handed on as %q", id)
	case <-time.After(50 * time.Millisecond):
	}
	f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`id":"f2"}` + "\n")
	expect("f2")
	f.WriteString(`{"type":"user","uuid":"f3"}` + "\n")
	stop.Store(true) // f3 was written before the end: the last read gets it
	f.Close()
	expect("f3")
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("follow did not stop")
	}
}

// TestFollowOnlyNew starts at the end (Tail -1) and stops on cancel.
func TestFollowOnlyNew(t *testing.T) {
	p := filepath.Join(t.TempDir(), "live.jsonl")
	os.WriteFile(p, []byte(`{"uuid":"old1"}`+"\n"+`{"uuid":"old2"}`+"\n"), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan string, 10)
	done := make(chan error, 1)
	go func() {
		_, err := Stream(ctx, Source{Path: p, Follow: &Follow{Poll: 5 * time.Millisecond}}, Options{}, Select{Tail: -1},
			func(l *Line) error { got <- string(l.Header.UUID); return nil })
		done <- err
	}()
	time.Sleep(30 * time.Millisecond)
	f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"uuid":"new"}` + "\n")
	f.Close()
	select {
	case id := <-got:
		if id != "new" {
			t.Fatalf("got %q", id)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no record")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestFollowTruncated(t *testing.T) {
	p := filepath.Join(t.TempDir(), "live.jsonl")
	os.WriteFile(p, []byte(`{"uuid":"a"}`+"\n"), 0o644)
	done := make(chan error, 1)
	read := make(chan bool, 1)
	go func() {
		_, err := Stream(context.Background(), Source{Path: p, Follow: &Follow{Poll: 5 * time.Millisecond}}, Options{}, Select{},
			func(*Line) error { read <- true; return nil })
		done <- err
	}()
	<-read
	os.Truncate(p, 0)
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "shrank") {
			t.Fatalf("err %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no error on truncation")
	}
}

// TestSelectUntimedHead: the records at the head of a file, before any
// timestamp (a title, the mode), are in a window exactly when the first
// timestamped record is; --until before the session kept them, though the
// session was wholly outside the window.
func TestSelectUntimedHead(t *testing.T) {
	at := func(s string) time.Time { tm, _ := time.Parse(time.RFC3339, s); return tm }
	p := filepath.Join(t.TempDir(), "h.jsonl")
	os.WriteFile(p, []byte(`{"type":"custom-title","customTitle":"t"}`+"\n"+
		`{"type":"mode","mode":"normal"}`+"\n"+
		`{"type":"user","uuid":"u1","timestamp":"2026-11-30T10:00:00Z"}`+"\n"+
		`{"type":"last-prompt"}`+"\n"+
		`{"type":"assistant","uuid":"a1","timestamp":"2026-11-30T10:05:00Z"}`+"\n"), 0o644)
	for _, tc := range []struct {
		name string
		sel  Select
		want []string
	}{
		{"until before", Select{Until: at("2026-11-29T23:59:59Z")}, nil},
		{"since before", Select{Since: at("2026-11-29T00:00:00Z")}, []string{"custom-title", "mode", "u1", "last-prompt", "a1"}},
		{"until after the start", Select{Until: at("2026-11-30T10:01:00Z")}, []string{"custom-title", "mode", "u1", "last-prompt"}},
		{"since after the start", Select{Since: at("2026-11-30T10:01:00Z")}, []string{"a1"}},
		{"tail", Select{Since: at("2026-11-29T00:00:00Z"), Tail: 4}, []string{"mode", "u1", "last-prompt", "a1"}},
	} {
		got, d, err := streamIDs(t, Source{Path: p}, Options{Decode: true}, tc.sel)
		if err != nil || !reflect.DeepEqual(got, tc.want) || d.Records != len(tc.want) {
			t.Errorf("%s: got %q (%d records, %v), want %q", tc.name, got, d.Records, err, tc.want)
		}
	}
	// A file without any timestamp has nothing in a window.
	os.WriteFile(p, []byte(`{"type":"custom-title","customTitle":"t"}`+"\n"), 0o644)
	if got, _, _ := streamIDs(t, Source{Path: p}, Options{}, Select{Until: at("2026-11-30T00:00:00Z")}); got != nil {
		t.Errorf("untimed file in a window: %q", got)
	}
}
