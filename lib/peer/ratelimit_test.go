package peer

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeReceiver applies Claude Code's per-sender limits to arrivals: a
// token bucket (Burst, one per Every) and the drop of a text identical to
// the previous admitted one within Dedup.
type fakeReceiver struct {
	limits   Limits
	started  bool
	tokens   float64
	at       time.Time
	last     string
	lastAt   time.Time
	admitted []string
	dropped  []string
}

func (r *fakeReceiver) arrive(now time.Time, text string) {
	if !r.started {
		r.started, r.tokens, r.at = true, float64(r.limits.Burst), now
	}
	r.tokens = min(float64(r.limits.Burst), r.tokens+float64(now.Sub(r.at))/float64(r.limits.Every))
	r.at = now
	switch {
	case r.tokens < 1:
		r.dropped = append(r.dropped, "rate-limited: "+text)
	case r.last == text && now.Sub(r.lastAt) < r.limits.Dedup && len(r.admitted) > 0:
		r.tokens--
		r.dropped = append(r.dropped, "duplicate: "+text)
	default:
		r.tokens--
		r.admitted = append(r.admitted, text)
		r.last, r.lastAt = text, now
	}
}

// lines splits the admitted messages back into input lines.
func (r *fakeReceiver) lines() []string {
	var out []string
	for _, m := range r.admitted {
		out = append(out, strings.Split(m, "\n")...)
	}
	return out
}

// fakeClock advances only when the code under test waits.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.Advance(d)
	ch := make(chan time.Time, 1)
	ch <- c.Now()
	return ch
}

var t0 = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

func checkAllArrived(t *testing.T, r *fakeReceiver, want []string) {
	t.Helper()
	if len(r.dropped) > 0 {
		t.Fatalf("receiver dropped %d messages, first: %q", len(r.dropped), r.dropped[0])
	}
	got := r.lines()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("arrived %d lines, want %d in order:\n%q", len(got), len(want), got)
	}
}

// TestRateLimitedSenderBurst: 100 lines in one burst, delivered with a
// fake clock, all reach the fake receiver, in order, within its limits.
func TestRateLimitedSenderBurst(t *testing.T) {
	for _, stamp := range []bool{false, true} {
		for _, same := range []bool{false, true} {
			t.Run(fmt.Sprintf("stamp=%v,identical=%v", stamp, same), func(t *testing.T) {
				clock := &fakeClock{now: t0}
				recv := &fakeReceiver{limits: ReceiverLimits}
				var rl *RateLimitedSender
				var want []string
				next := 0
				deliver := func(_ context.Context, b Batch) error {
					clock.Advance(3 * time.Millisecond) // the exchange takes a little time
					recv.arrive(clock.Now(), b.Text)
					// More lines come in while we deliver: the burst is fed
					// 10 at a time, so batches form as in a real pipe.
					for i := 0; i < 10 && next < 100; i++ {
						rl.Add(line(next, same))
						next++
					}
					if next == 100 {
						rl.Close()
					}
					return nil
				}
				o := RateOptions{Clock: clock}
				if stamp {
					o.Stamp = DefaultStamp
				}
				rl = NewRateLimitedSender(deliver, o)
				rl.Add(line(next, same))
				next++
				if err := rl.Run(context.Background()); err != nil {
					t.Fatal(err)
				}
				for i := 0; i < 100; i++ {
					w := line(i, same)
					if stamp {
						w = DefaultStamp(i+1, t0) + w
					}
					want = append(want, w)
				}
				if stamp {
					// Stamps carry the (fake) time each line was queued; compare without it.
					for i, l := range recv.admitted {
						recv.admitted[i] = stripTimes(l)
					}
					for i := range want {
						want[i] = stripTimes(want[i])
					}
				}
				checkAllArrived(t, recv, want)
				if len(recv.admitted) >= 100 {
					t.Errorf("%d messages for 100 lines: nothing was joined", len(recv.admitted))
				}
				if rl.Pending() != 0 {
					t.Errorf("%d pending", rl.Pending())
				}
			})
		}
	}
}

func line(i int, same bool) string {
	if same {
		return "FAIL test_flaky"
	}
	return fmt.Sprintf("FAIL test_%03d", i)
}

func stripTimes(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if i := strings.Index(l, " 2026-"); i >= 0 {
			if j := strings.Index(l[i:], "] "); j >= 0 {
				l = l[:i] + l[i+j:]
			}
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// TestPacerSteadyStream: three lines a second for two minutes. The first
// 30 go alone, then one joined message per 2 s; the receiver admits all.
func TestPacerSteadyStream(t *testing.T) {
	p := Pacer{Limits: ReceiverLimits}
	recv := &fakeReceiver{limits: ReceiverLimits}
	var want []string
	now := t0
	for i := 0; i < 360; i++ {
		now = t0.Add(time.Duration(i) * time.Second / 3)
		l := line(i, false)
		want = append(want, l)
		p.Push(now, l)
		for {
			b, ok, _ := p.Take(now)
			if !ok {
				break
			}
			recv.arrive(now, b.Text)
			p.Done(now)
		}
	}
	for p.Len() > 0 {
		_, _, wait := p.Take(now)
		now = now.Add(wait)
		if b, ok, _ := p.Take(now); ok {
			recv.arrive(now, b.Text)
			p.Done(now)
		}
	}
	checkAllArrived(t, recv, want)
	if n := len(recv.admitted); n > 30+60+2 {
		t.Errorf("%d messages in 2 minutes", n)
	}
}

func TestPacerDuplicate(t *testing.T) {
	p := Pacer{Limits: ReceiverLimits}
	p.Push(t0, "X")
	if b, ok, _ := p.Take(t0); !ok || b.Text != "X" {
		t.Fatal("first X not sent")
	}
	p.Done(t0)
	p.Push(t0.Add(time.Second), "X")
	_, ok, wait := p.Take(t0.Add(time.Second))
	if ok || wait < 29*time.Second || wait > 30*time.Second {
		t.Fatalf("identical text within 30 s: ok=%v wait=%v", ok, wait)
	}
	// More text joins it: no longer identical, goes at once.
	p.Push(t0.Add(2*time.Second), "Y")
	if b, ok, _ := p.Take(t0.Add(2 * time.Second)); !ok || b.Text != "X\nY" || b.Lines != 2 || b.First != 2 {
		t.Fatalf("joined: %+v %v", b, ok)
	}
	p.Done(t0.Add(2 * time.Second))
	p.Push(t0.Add(3*time.Second), "X\nY")
	if _, ok, _ := p.Take(t0.Add(3 * time.Second)); ok {
		t.Fatal("identical joined text sent within 30 s")
	}
	if b, ok, _ := p.Take(t0.Add(33 * time.Second)); !ok || b.Text != "X\nY" {
		t.Fatal("not sent after the window")
	}
}

func TestPacerMaxBytes(t *testing.T) {
	p := Pacer{Limits: ReceiverLimits, MaxBytes: 10}
	for _, s := range []string{"aaaa", "bbbb", "cccc", strings.Repeat("d", 20)} {
		p.Push(t0, s)
	}
	var got []string
	for p.Len() > 0 {
		b, ok, _ := p.Take(t0)
		if !ok {
			t.Fatal("no token")
		}
		got = append(got, b.Text)
	}
	want := []string{"aaaa\nbbbb", "cccc", strings.Repeat("d", 20)}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("batches %q, want %q", got, want)
	}
}

func TestRateLimitedSenderStops(t *testing.T) {
	clock := &fakeClock{now: t0}
	boom := fmt.Errorf("boom")
	rl := NewRateLimitedSender(func(context.Context, Batch) error { return boom }, RateOptions{Clock: clock})
	rl.Add("a")
	if err := rl.Run(context.Background()); err != boom {
		t.Errorf("deliver error: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rl2 := NewRateLimitedSender(func(context.Context, Batch) error { return nil }, RateOptions{Clock: clock})
	if err := rl2.Run(ctx); err != context.Canceled {
		t.Errorf("cancelled: %v", err)
	}
}

func TestDefaultStamp(t *testing.T) {
	if got := DefaultStamp(12, t0.Add(65*time.Minute)); got != "[#12 2026-11-30T11:05:00Z] " {
		t.Errorf("stamp %q", got)
	}
}
