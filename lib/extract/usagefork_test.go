package extract

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/lib/pricing"
)

// forkCorpus are the main transcripts of testdata/corpus-fork (real CLI):
// an original, its fork, a fork of the fork, and a fork whose only call
// failed.
func forkCorpus(t *testing.T) []string {
	paths, err := filepath.Glob("../../testdata/corpus-fork/claude/projects/*/*.jsonl")
	if err != nil || len(paths) != 4 {
		t.Fatalf("fork corpus: %v %v", paths, err)
	}
	return paths
}

// TestForkCopiesCountInOriginal is issue 23 items 1 and 2: a message a
// fork copied counts once, in the session that made the request, whichever
// transcript is read first and through either reader (the fast path of
// files, and entries); the failed fork is listed with 0 messages.
func TestForkCopiesCountInOriginal(t *testing.T) {
	paths := forkCorpus(t)
	rev := slices.Clone(paths)
	slices.Reverse(rev)
	for _, o := range []Options{
		{Kind: "usage", Subagents: true},
		{Kind: "usage", Subagents: true, Sum: "session"},
		{Kind: "usage", Subagents: true, Sum: "session", Prices: pricing.Embedded()},
		{Kind: "usage", Subagents: true, Sum: "block", Prices: pricing.Embedded(), Now: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)},
	} {
		name := o.Sum
		if o.Prices != nil {
			name += " cost"
		}
		t.Run(name, func(t *testing.T) {
			want, _, err := readInputs(t, o, paths)
			if err != nil {
				t.Fatal(err)
			}
			got, _, err := readInputs(t, o, rev)
			if err != nil {
				t.Fatal(err)
			}
			sorted := func(s string) string {
				l := strings.Split(s, "\n")
				slices.Sort(l)
				return strings.Join(l, "\n")
			}
			if sorted(got) != sorted(want) {
				t.Errorf("read backwards:\n%s\nforwards:\n%s", got, want)
			}
			if ent := readEntries(t, o, rev); sorted(ent) != sorted(want) {
				t.Errorf("entries:\n%s\nfiles:\n%s", ent, want)
			}
			if o.Sum != "session" {
				return
			}
			var counts []string
			for _, l := range strings.Split(strings.TrimSpace(want), "\n") {
				_, id, _ := strings.Cut(l, `"session_id":"`)
				_, n, _ := strings.Cut(l, `"messages":`)
				n, _, _ = strings.Cut(n, ",")
				counts = append(counts, id[:8]+"="+n)
			}
			if got := strings.Join(counts, " "); got != "f0a1f001=5 f0a1f002=1 f0a1f003=1 f0a1f004=0" {
				t.Errorf("messages per session: %s", got)
			}
		})
	}
}

// A fork read without its original: its copies of the original's
// messages are not its calls and are left out, counted in a warning; its
// own call counts (cc-sessions --limit 1 on a fork gives one row).
func TestForkAloneCountsItsOwn(t *testing.T) {
	grand := forkCorpus(t)[2]
	for _, o := range []Options{{Kind: "usage"}, {Kind: "usage", Sum: "session"}, {Kind: "usage", Sum: "day"}} {
		out, warns, err := readInputs(t, o, []string{grand})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Count(out, "\n") != 1 || (o.Sum != "day" && !strings.Contains(out, `"f0a1f003-`)) || (o.Sum != "" && !strings.Contains(out, `"messages":1,`)) {
			t.Errorf("%s: %s", o.Sum, out)
		}
		// Which sessions, and how to count them (issue 41 item 11).
		if len(warns) != 1 || !strings.Contains(warns[0], "4 messages a fork copied from 2 sessions not read") ||
			!strings.Contains(warns[0], "(f0a1f001-0000-4000-8000-000000000001, f0a1f002-0000-4000-8000-000000000002)") ||
			!strings.Contains(warns[0], "cc-sessions --find ID") {
			t.Errorf("%s: warnings %q", o.Sum, warns)
		}
		if ent := readEntries(t, o, []string{grand}); ent != out {
			t.Errorf("%s: entries give %s", o.Sum, ent)
		}
	}
}

// TestSumSessionWindow: under --since/--until, --sum session lists the
// sessions with an assistant record in the window only; a session whose
// messages are all outside it is not a 0-message row (--since today on
// an old corpus listed every session with 0), through either reader.
func TestSumSessionWindow(t *testing.T) {
	paths := forkCorpus(t)
	at := func(s string) time.Time { tm, _ := time.Parse(time.RFC3339, s); return tm }
	for _, tc := range []struct {
		name         string
		since, until time.Time
		want         string
	}{
		{"after", at("2026-12-02T00:00:00Z"), time.Time{}, ""},
		{"before", time.Time{}, at("2026-12-01T00:00:00Z"), ""},
		// f0a1f004's failed call (21:02:33) is in the window, its copies
		// are not: listed with 0.
		{"the failed fork", at("2026-12-01T21:02:30Z"), time.Time{}, "f0a1f004=0"},
	} {
		o := Options{Kind: "usage", Sum: "session", Since: tc.since, Until: tc.until}
		out, _, err := readInputs(t, o, paths)
		if err != nil {
			t.Fatal(err)
		}
		var counts []string
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			if l == "" {
				continue
			}
			_, id, _ := strings.Cut(l, `"session_id":"`)
			_, n, _ := strings.Cut(l, `"messages":`)
			n, _, _ = strings.Cut(n, ",")
			counts = append(counts, id[:8]+"="+n)
		}
		if got := strings.Join(counts, " "); got != tc.want {
			t.Errorf("%s: files give %q, want %q", tc.name, got, tc.want)
		}
		if ent := readEntries(t, o, paths); ent != out {
			t.Errorf("%s: entries give\n%s\nfiles\n%s", tc.name, ent, out)
		}
	}
}
