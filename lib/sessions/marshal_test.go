package sessions

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestMarshalFastIsSlow: the record written by hand (appendRecord) is
// byte for byte encoding/json's (marshalSlow), for random sessions with
// strings of every kind (control bytes, quotes, <>&, non-ASCII, U+2028,
// bytes that are not UTF-8), zero and non-zero times, and a running one.
func TestMarshalFastIsSlow(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	pieces := []string{"", "a", "/home/dev/src", `"`, `\`, "\n", "\t", "\x00", "\x01", "\x1f", "\x7f", "<b>&amp;", "/",
		"é", "ß", "日本", "\u2028", "\u2029", "\xff", "\xe2\x80", "😀", "\b\f\r", " "}
	str := func() string {
		s := ""
		for range r.IntN(4) {
			s += pieces[r.IntN(len(pieces))]
		}
		return s
	}
	tm := func() time.Time {
		if r.IntN(4) == 0 {
			return time.Time{}
		}
		return time.Unix(r.Int64N(4e9), r.Int64N(1e9)).In(time.FixedZone("x", 3600*(r.IntN(25)-12)))
	}
	fast := 0
	for i := range 20000 {
		s := Session{SessionID: str(), TranscriptPath: str(), ProjectDir: str(), Cwd: str(), Title: str(), FirstPrompt: str(),
			StartedAt: tm(), LastActivityAt: tm(), SizeBytes: r.Int64N(1<<40) - 5, Compressed: r.IntN(2) == 0,
			HasSubagents: r.IntN(2) == 0, Source: str()}
		switch r.IntN(4) {
		case 0:
		case 1:
			s.Profiles = []string{}
		default:
			for range 1 + r.IntN(3) {
				s.Profiles = append(s.Profiles, str())
			}
		}
		if i%50 == 0 {
			s.Active = &Active{SessionID: s.SessionID, Name: str()}
		}
		want, err := s.marshalSlow()
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.MarshalJSON()
		if err != nil || string(got) != string(want) {
			t.Fatalf("session %d:\nfast %s (%v)\nslow %s", i, got, err, want)
		}
		if _, ok := s.appendRecord(nil); ok {
			fast++
		}
		// Appended to a buffer of records, as cc-grep writes them.
		if got, err := s.AppendJSON([]byte("prev\n")); err != nil || string(got) != "prev\n"+string(want) {
			t.Fatalf("session %d: AppendJSON after a record:\n%s (%v)\nwant prev and %s", i, got, err, want)
		}
	}
	if fast < 2000 {
		t.Fatalf("only %d of 20000 records written by hand", fast)
	}
}
