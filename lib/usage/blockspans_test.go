package usage

import (
	"testing"
	"time"
)

func TestBlockSpans(t *testing.T) {
	at := func(s string) time.Time { tt, _ := time.Parse(time.RFC3339, s); return tt }
	times := []time.Time{
		at("2026-05-02T10:20:00Z"), at("2026-05-02T15:00:00Z"), // 15:00 is the block's end: still in
		at("2026-05-02T15:00:01Z"), // past the end: a new block at 15:00
		at("2026-05-02T20:00:02Z"), // within the 15:00 block's span? no: past 20:00
		at("2026-05-03T02:00:00Z"), // a gap over 5 h
	}
	got := BlockSpans(times)
	want := []BlockSpan{{Start: at("2026-05-02T10:00:00Z"), From: 0, To: 2}, {Start: at("2026-05-02T15:00:00Z"), From: 2, To: 3}, {Start: at("2026-05-02T20:00:00Z"), From: 3, To: 4}, {Start: at("2026-05-03T02:00:00Z"), From: 4, To: 5}}
	if len(got) != len(want) {
		t.Fatalf("spans %v, want %v", got, want)
	}
	for i := range want {
		if !got[i].Start.Equal(want[i].Start) || got[i].From != want[i].From || got[i].To != want[i].To {
			t.Errorf("span %d: %v, want %v", i, got[i], want[i])
		}
	}
}
