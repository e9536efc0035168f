package sessions

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"

	"github.com/ccpipe/ccpipe/lib/cache"
	"github.com/ccpipe/ccpipe/lib/profiles"
	"github.com/ccpipe/ccpipe/lib/registry"
)

// TestCompleter: the records a Completer makes of listed files are the
// records List makes of the same sessions (summary, running session, the
// launch dir filter, newest first), and no running session without a
// transcript is added.
func TestCompleter(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	cfg := filepath.Join(root, "cfg")
	for path, body := range map[string]string{
		"projects/-w-a/" + idA + ".jsonl": `{"type":"user","cwd":"/w/a","timestamp":"2026-01-01T00:00:00.000Z","message":{"content":"a"}}` + "\n",
		"projects/-w-c/" + idC + ".jsonl": `{"type":"user","cwd":"/w/c","timestamp":"2026-01-02T00:00:00.000Z","message":{"content":"c"}}` + "\n",
		"sessions/10.json":                `{"pid":10,"sessionId":"` + idA + `","cwd":"/w/a","pidDomain":"d","name":"x","status":"idle","updatedAt":1796033054119}`,
		"sessions/11.json":                `{"pid":11,"sessionId":"` + idB + `","cwd":"/w/b","pidDomain":"d","name":"y","status":"busy","updatedAt":1796033054119}`,
	} {
		p := filepath.Join(cfg, path)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cache.Settle() // else List's stamps and the Completer's may differ: one racy, one settled
	profs := []profiles.Profile{{Name: "p", ConfigDir: cfg, ProjectsDir: filepath.Join(cfg, "projects"), SessionsDir: filepath.Join(cfg, "sessions")}}
	host := &registry.Host{Domain: "d", ProcRoot: t.TempDir(), Probe: func(int) bool { return true }}
	ctx := context.Background()
	for _, within := range [][]string{nil, {"/w/a"}, {"/w/c"}} {
		opt := ListOptions{CwdWithin: within, Host: host, Getenv: func(string) string { return "" }}
		all, errs := List(ctx, profs, opt)
		if len(errs) > 0 {
			t.Fatalf("List: %v", errs)
		}
		files, errs := Files(ctx, ProjectsDirs(profs), nil) // unfiltered: the Completer filters
		if len(errs) > 0 || len(files) != 2 {
			t.Fatalf("Files: %d files, %v", len(files), errs)
		}
		var want []Session
		for _, s := range all {
			if s.SessionID != idB { // running, no transcript
				want = append(want, s)
			}
		}
		if len(all) == len(want) && within == nil {
			t.Fatalf("List has no session without a transcript: %+v", all)
		}
		// Handed over one at a time, from several goroutines.
		c := NewCompleter(ctx, profs, opt)
		var wg sync.WaitGroup
		for _, f := range files {
			wg.Go(func() { c.Add(f) })
		}
		wg.Wait()
		got, errs := c.Done()
		if len(errs) > 0 {
			t.Fatalf("Completer: %v", errs)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("within %v:\nCompleter %+v\nList      %+v", within, got, want)
		}
		if within == nil && (len(got) != 2 || got[0].SessionID != idC || got[1].Active == nil || got[1].Active.Pid != 10) {
			t.Errorf("want C then A (running as pid 10), got %+v", got)
		}
	}
}

// TestCompleterEmpty: Done without Add, and a vanished transcript, give
// no record and no error.
func TestCompleterEmpty(t *testing.T) {
	ctx := context.Background()
	c := NewCompleter(ctx, nil, ListOptions{NoActive: true})
	if got, errs := c.Done(); len(got) != 0 || len(errs) != 0 {
		t.Errorf("empty: %v %v", got, errs)
	}
	c = NewCompleter(ctx, nil, ListOptions{NoActive: true, Workers: 1})
	c.Add(Session{SessionID: idA, TranscriptPath: filepath.Join(t.TempDir(), idA+".jsonl"), SizeBytes: 10})
	if got, errs := c.Done(); len(got) != 0 || len(errs) != 0 {
		t.Errorf("vanished: %v %v", got, errs)
	}
}
