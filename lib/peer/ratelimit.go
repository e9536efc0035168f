package peer

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Limits are a receiver's limits per sender (per `from` address).
type Limits struct {
	Burst int           // token bucket capacity
	Every time.Duration // one more message per Every once the burst is spent
	Dedup time.Duration // a text identical to the sender's previous one within Dedup is dropped
}

// ReceiverLimits are Claude Code 2.1.328's defaults (30 per burst, then
// one per 2 s, identical text within 30 s dropped).
var ReceiverLimits = Limits{Burst: 30, Every: 2 * time.Second, Dedup: 30 * time.Second}

// DefaultMaxBatch bounds the text of one joined message, far below the
// receiver's line limit even after JSON escaping.
const DefaultMaxBatch = 128 << 10

// Batch is one message made of one or more queued texts joined by "\n".
type Batch struct {
	Text  string
	Lines int // how many texts it joins
	First int // the 1-based sequence number of its first text
}

// Pacer decides when queued texts may go out so that a receiver with
// Limits admits every one. It is a plain state machine over the times it
// is given; RateLimitedSender drives it with a clock.
type Pacer struct {
	Limits   Limits
	MaxBytes int // of a joined text; 0 means DefaultMaxBatch
	// Stamp, when set, prefixes each text as it is queued (a sequence
	// number or time), so that two real events with the same text are
	// not taken for a repeat.
	Stamp func(seq int, at time.Time) string

	started  bool
	tokens   float64
	at       time.Time // when tokens was last brought up to date
	lastText string
	lastAt   time.Time
	queue    []string
	seq      int // texts pushed so far
	first    int // sequence number of queue[0]
}

// Push queues text, received at now.
func (p *Pacer) Push(now time.Time, text string) {
	p.seq++
	if len(p.queue) == 0 {
		p.first = p.seq
	}
	if p.Stamp != nil {
		text = p.Stamp(p.seq, now) + text
	}
	p.queue = append(p.queue, text)
}

// Len is the number of queued texts.
func (p *Pacer) Len() int { return len(p.queue) }

func (p *Pacer) refill(now time.Time) {
	if !p.started {
		p.started, p.tokens, p.at = true, float64(p.Limits.Burst), now
		return
	}
	if now.After(p.at) && p.Limits.Every > 0 {
		p.tokens += float64(now.Sub(p.at)) / float64(p.every())
		if p.tokens > float64(p.Limits.Burst) {
			p.tokens = float64(p.Limits.Burst)
		}
		p.at = now
	}
}

// Take returns the batch to send at now, joining as many queued texts as
// fit, and spends a token. When nothing may go out yet it returns ok false
// and how long to wait; wait is 0 when the queue is empty.
func (p *Pacer) Take(now time.Time) (b Batch, ok bool, wait time.Duration) {
	if len(p.queue) == 0 {
		return Batch{}, false, 0
	}
	p.refill(now)
	n, text := p.candidate()
	if p.tokens < 1 {
		wait = time.Duration((1 - p.tokens) * float64(p.every()))
	}
	if dedup := p.Limits.Dedup + p.Limits.Dedup/50; text == p.lastText && now.Sub(p.lastAt) < dedup {
		// The receiver would take it for a repeat: hold it until the
		// window passes or more text joins it.
		wait = max(wait, p.lastAt.Add(dedup).Sub(now))
	}
	if wait > 0 {
		return Batch{}, false, wait + time.Millisecond
	}
	p.tokens--
	b = Batch{Text: text, Lines: n, First: p.first}
	p.queue = p.queue[n:]
	p.first += n
	if len(p.queue) == 0 {
		p.queue = nil
	}
	p.lastText, p.lastAt = text, now
	return b, true, 0
}

// every is the refill interval the pacer counts with: 2% longer than the
// receiver's, so that rounding and clock jitter between the two processes
// never make the receiver one token short.
func (p *Pacer) every() time.Duration { return p.Limits.Every + p.Limits.Every/50 }

// Done records that the batch taken last has been delivered at now. The
// time the delivery took earns no tokens, so the receiver, which counts
// from arrival, never sees two messages closer than the pacer allowed.
func (p *Pacer) Done(now time.Time) {
	if now.After(p.at) {
		p.at = now
	}
	if now.After(p.lastAt) {
		p.lastAt = now
	}
}

// candidate joins queued texts up to MaxBytes (always at least one).
func (p *Pacer) candidate() (int, string) {
	limit := p.MaxBytes
	if limit <= 0 {
		limit = DefaultMaxBatch
	}
	size, n := len(p.queue[0]), 1
	for n < len(p.queue) && size+1+len(p.queue[n]) <= limit {
		size += 1 + len(p.queue[n])
		n++
	}
	if n == 1 {
		return 1, p.queue[0]
	}
	return n, strings.Join(p.queue[:n], "\n")
}

// DefaultStamp prefixes a text with its sequence number and UTC time:
// "[#12 2026-11-30T10:04:05Z] ".
func DefaultStamp(seq int, at time.Time) string {
	return fmt.Sprintf("[#%d %s] ", seq, at.UTC().Format(time.RFC3339))
}

// Clock is the time source of a RateLimitedSender (tests use a fake).
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// RateOptions configure a RateLimitedSender.
type RateOptions struct {
	Limits   Limits // zero: ReceiverLimits
	MaxBytes int    // of one joined message; 0: DefaultMaxBatch
	Stamp    func(seq int, at time.Time) string
	Clock    Clock // nil: the real clock
}

// RateLimitedSender queues texts and delivers them to one receiver
// within its limits: texts that queue up while it must wait are joined
// into one message, so nothing is dropped. Add from any goroutine; Run
// delivers until Close and an empty queue.
type RateLimitedSender struct {
	deliver func(context.Context, Batch) error
	clock   Clock
	mu      sync.Mutex
	pacer   Pacer
	closed  bool
	wake    chan struct{}
}

// NewRateLimitedSender returns a sender that calls deliver for each
// batch, one at a time.
func NewRateLimitedSender(deliver func(context.Context, Batch) error, o RateOptions) *RateLimitedSender {
	if o.Limits == (Limits{}) {
		o.Limits = ReceiverLimits
	}
	if o.Clock == nil {
		o.Clock = realClock{}
	}
	return &RateLimitedSender{
		deliver: deliver,
		clock:   o.Clock,
		pacer:   Pacer{Limits: o.Limits, MaxBytes: o.MaxBytes, Stamp: o.Stamp},
		wake:    make(chan struct{}, 1),
	}
}

// Add queues one text. It never blocks.
func (r *RateLimitedSender) Add(text string) {
	r.mu.Lock()
	r.pacer.Push(r.clock.Now(), text)
	r.mu.Unlock()
	r.poke()
}

// Close says no more texts will come; Run returns once the queue is sent.
func (r *RateLimitedSender) Close() {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	r.poke()
}

// Pending is the number of queued texts not yet delivered.
func (r *RateLimitedSender) Pending() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.pacer.Len()
}

func (r *RateLimitedSender) poke() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// Run delivers batches until Close was called and the queue is empty, ctx
// ends (queued texts stay pending), or deliver fails (its batch is lost;
// the rest stays pending).
func (r *RateLimitedSender) Run(ctx context.Context) error {
	for {
		r.mu.Lock()
		b, ok, wait := r.pacer.Take(r.clock.Now())
		closed := r.closed
		r.mu.Unlock()
		if ok {
			if err := r.deliver(ctx, b); err != nil {
				return err
			}
			r.mu.Lock()
			r.pacer.Done(r.clock.Now())
			r.mu.Unlock()
			continue
		}
		if wait == 0 {
			if closed {
				return nil
			}
			select {
			case <-r.wake:
			case <-ctx.Done():
				return ctx.Err()
			}
			continue
		}
		select {
		case <-r.clock.After(wait):
		case <-r.wake:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
