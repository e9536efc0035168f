package otel

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"
)

// BatchSize is how many events go into one export request of a signal:
// the OpenTelemetry SDK's default export batch (512), which Claude Code's
// own exporter sends at most; a larger one held more memory in flight
// (at 2000, a warm run over 300 sessions faulted in half as many pages
// again, for no fewer CPU seconds).
const BatchSize = 512

// Channel is one signal's way out: a sender and the ledger of its
// destination. A nil Channel is a signal turned off.
type Channel struct {
	Signal Signal
	Sender Sender
	Ledger *Ledger
	// taken is every key queued in this run: an event met twice (a
	// fork's copy of a prompt) is sent once.
	taken map[Key]struct{}
	down  error
	Stats Stats
}

// Stats count one signal's events.
type Stats struct {
	Sent     int   // acknowledged in this run
	Already  int   // acknowledged before (in the ledger)
	Waiting  int   // not acknowledged: the next run sends them
	Rejected int64 // the collector acknowledged but said it dropped
	// Unmarked were acknowledged but the ledger could not be written:
	// the next run sends them again.
	Unmarked int
}

// Exporter sends events in batches and marks each acknowledged batch in
// its signal's ledger.
type Exporter struct {
	Resource Resource
	Logs     *Channel
	Metrics  *Channel
	// DryRun, when set, gets each request as OTLP JSON, one per line (the
	// collector file exporter's format), instead of a collector; the
	// ledgers are read, not written.
	DryRun    io.Writer
	BatchSize int
	// Pieces, when set, is told of each piece that did not read back.
	Pieces *Pieces
	// req is the next request of each signal (logs, metrics): its
	// events, built on the delivering goroutine.
	req   [2]pending
	keys  keyer
	plans [2]plan
	// out takes the requests' events to a goroutine of its own, which
	// builds, sends and marks them one request at a time, in order, while
	// the next is gathered: on two cores, taking events (the cache, the
	// ledger's keys) and building and sending them (pdata, marshalling,
	// the round trip, the ledger's writes) overlap.
	out  chan exportRequest
	done chan struct{}
	// b is the delivering goroutine's batch, which alone touches it;
	// free a request body the sender is done with, for the next.
	b    *batch
	free []byte
	mu   sync.Mutex
	err  error // a delivery's error not returned yet
}

// plan is what AddSession takes of a session's events for a signal.
type plan struct {
	c      *Channel
	proto  bool
	chunks []piece
	evs    []*Event
	taken  []bool
	keys   []Key
	n      int
	piece  bool // the chunk of the event at n went as its piece
}

// pending is what a request of a signal holds so far: its parts, their
// keys and how many events they are.
type pending struct {
	parts []part
	keys  []Key
	n     int
}

// part is an event of a request, or a piece: a chunk of events
// marshalled (pieces.go), with its events (built again should the piece
// not read back).
type part struct {
	ev    *Event
	piece *piece
	evs   []*Event
}

// exportRequest is the events of one export request of a signal, with
// their keys.
type exportRequest struct {
	c     *Channel
	keys  []Key
	parts []part
	ctx   context.Context
}

func (x *Exporter) batch() *batch {
	if x.b == nil {
		x.b = newBatch(x.Resource)
	}
	return x.b
}

func (x *Exporter) size() int {
	if x.BatchSize > 0 {
		return x.BatchSize
	}
	return BatchSize
}

func (x *Exporter) channel(s Signal) *Channel {
	if s == Metrics {
		return x.Metrics
	}
	return x.Logs
}

// Add queues an event; a full batch is sent. The exporter keeps e until
// its request is built: the caller must not change it after.
func (x *Exporter) Add(ctx context.Context, e *Event) error {
	for _, s := range signals {
		if c := x.channel(s); c != nil && member(s, e) {
			if k, ok := x.take(c, e); ok {
				if err := x.place(ctx, s, part{ev: e}, k); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// AddSession queues a session's events, as Add each in turn would; with
// pieces, each chunk whose events all go, into one request, goes as its
// piece, when the signal is sent as protobuf (http/protobuf, grpc).
func (x *Exporter) AddSession(ctx context.Context, se *SessionEvents) error {
	p := se.pieces
	if p == nil || !(x.proto(x.Logs) || x.proto(x.Metrics)) {
		for _, e := range se.Events {
			if err := x.Add(ctx, e); err != nil {
				return err
			}
		}
		return nil
	}
	// Each signal's events of the session taken first: a chunk goes as
	// its piece only when all its events do. (The plans' taken and keys
	// are the exporter's, reused session after session: a part's keys are
	// copied into its request; its events are not, and are the session's.)
	plans := &x.plans
	for si, s := range signals {
		pl := &plans[si]
		*pl = plan{taken: pl.taken[:0], keys: pl.keys[:0]}
		c := x.channel(s)
		if c == nil {
			continue
		}
		pl.c, pl.proto, pl.chunks = c, x.proto(c), p.sig[si]
		pl.evs = make([]*Event, 0, len(se.Events))
		for _, e := range se.Events {
			if member(s, e) {
				k, ok := x.take(c, e)
				pl.taken, pl.keys, pl.evs = append(pl.taken, ok), append(pl.keys, k), append(pl.evs, e)
			}
		}
	}
	for _, e := range se.Events {
		for si, s := range signals {
			pl := &plans[si]
			if pl.c == nil || !member(s, e) {
				continue
			}
			j := pl.n
			pl.n++
			if j%p.chunk == 0 {
				end := min(j+p.chunk, len(pl.taken))
				pl.piece = pl.proto && j/p.chunk < len(pl.chunks) && x.req[si].n+end-j <= x.size() &&
					!slices.Contains(pl.taken[j:end], false)
				if pl.piece {
					if err := x.place(ctx, s, part{piece: &pl.chunks[j/p.chunk], evs: pl.evs[j:end]}, pl.keys[j:end]...); err != nil {
						return err
					}
				}
			}
			if !pl.piece && pl.taken[j] {
				if err := x.place(ctx, s, part{ev: e}, pl.keys[j]); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// proto says c's requests are sent as protobuf bodies, which pieces can
// make.
func (x *Exporter) proto(c *Channel) bool {
	if c == nil || x.DryRun != nil {
		return false
	}
	ps, ok := c.Sender.(protoSender)
	return ok && ps.sendsProto()
}

// place adds a part of keys' events to signal s's next request, and
// sends it when full.
func (x *Exporter) place(ctx context.Context, s Signal, p part, keys ...Key) error {
	r := &x.req[sigIndex(s)]
	r.parts = append(r.parts, p)
	r.keys = append(r.keys, keys...)
	r.n += len(keys)
	if r.n >= x.size() {
		return x.flush(ctx, s)
	}
	return nil
}

// take says whether e goes into c's next request, and its key.
func (x *Exporter) take(c *Channel, e *Event) (Key, bool) {
	k := x.keys.key(c.Signal, e)
	if c.Ledger != nil && c.Ledger.HadBefore(k) {
		c.Stats.Already++
		return k, false
	}
	if c.taken == nil {
		c.taken = map[Key]struct{}{}
	}
	// One probe of the map: a key it had leaves its size as it was.
	n := len(c.taken)
	c.taken[k] = struct{}{}
	return k, len(c.taken) > n
}

// Close sends what is queued, waits for every request to be delivered,
// and syncs and compacts the ledgers.
func (x *Exporter) Close(ctx context.Context) error {
	err := errors.Join(x.flush(ctx, Logs), x.flush(ctx, Metrics))
	if x.out != nil {
		close(x.out)
		<-x.done
		x.out = nil
	}
	err = errors.Join(err, x.pending())
	for _, c := range []*Channel{x.Logs, x.Metrics} {
		if c != nil && c.Ledger != nil && x.DryRun == nil {
			err = errors.Join(err, c.Ledger.Finish())
		}
	}
	return err
}

// flush queues signal s's request, if it has events.
func (x *Exporter) flush(ctx context.Context, s Signal) error {
	r := &x.req[sigIndex(s)]
	if r.n == 0 {
		return nil
	}
	q := *r
	*r = pending{parts: make([]part, 0, len(q.parts)), keys: make([]Key, 0, len(q.keys))}
	return x.queue(ctx, x.channel(s), q)
}

// queue hands a request of c's signal to the delivering goroutine
// (started on first use), and returns the error of one delivered before,
// if any.
func (x *Exporter) queue(ctx context.Context, c *Channel, q pending) error {
	if x.out == nil {
		x.out, x.done = make(chan exportRequest, 1), make(chan struct{})
		go x.deliverAll()
	}
	x.out <- exportRequest{c: c, keys: q.keys, parts: q.parts, ctx: ctx}
	return x.pending()
}

// pending returns (once) the error of a delivery.
func (x *Exporter) pending() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	err := x.err
	x.err = nil
	return err
}

func (x *Exporter) deliverAll() {
	defer close(x.done)
	for r := range x.out {
		if err := x.deliver(r); err != nil {
			x.mu.Lock()
			x.err = errors.Join(x.err, err)
			x.mu.Unlock()
		}
	}
}

// build makes the OTLP request of r's events: its JSON and its sending.
// Sent as protobuf, the body is its parts' in turn: a piece as it is,
// the events between pieces built (pdata) and marshalled as one request.
func (x *Exporter) build(r exportRequest) (asJSON func() ([]byte, error), send func() (int64, error)) {
	b := x.batch()
	s := r.c.Signal
	if x.proto(r.c) {
		body, err := x.protoBody(r)
		if err != nil {
			return nil, func() (int64, error) { return 0, err }
		}
		return nil, func() (int64, error) {
			rejected, free, err := r.c.Sender.(protoSender).sendProto(r.ctx, s, body)
			x.free = free
			return rejected, err
		}
	}
	for _, p := range r.parts {
		b.add(s, p.ev)
	}
	if s == Logs {
		l := b.logs
		b.resetLogs()
		return func() ([]byte, error) { return plogotlp.NewExportRequestFromLogs(l).MarshalJSON() },
			func() (int64, error) { return r.c.Sender.Logs(r.ctx, l) }
	}
	m := b.metrics
	b.resetMetrics()
	return func() ([]byte, error) { return pmetricotlp.NewExportRequestFromMetrics(m).MarshalJSON() },
		func() (int64, error) { return r.c.Sender.Metrics(r.ctx, m) }
}

// protoBody is the protobuf body of r: its parts' in turn, a piece as
// it is, the events between pieces built (pdata) and marshalled as one
// request; a piece that does not read back is built from its events. It
// is made in the memory of the last body when the sender gave it back.
func (x *Exporter) protoBody(r exportRequest) ([]byte, error) {
	b, s := x.batch(), r.c.Signal
	size := 0
	for _, p := range r.parts {
		if p.piece != nil {
			size += p.piece.n
		}
	}
	body := slices.Grow(x.free, size+size/8)
	x.free = nil
	n := 0
	for i, p := range r.parts {
		if p.piece != nil {
			var ok bool
			if body, ok = p.piece.appendTo(body); !ok {
				if x.Pieces != nil {
					x.Pieces.noteBad(p.piece)
				}
				for _, e := range p.evs {
					b.add(s, e)
				}
				n++
			}
		} else {
			b.add(s, p.ev)
			n++
		}
		if n > 0 && (i == len(r.parts)-1 || r.parts[i+1].ev == nil) {
			m, err := b.marshal(s)
			if err != nil {
				return nil, err
			}
			body, n = append(body, m...), 0
		}
	}
	return body, nil
}

// deliver builds and sends one request (or prints it, dry) and marks its
// keys once acknowledged. A refusal is no error of the run: the signal is
// down, its events wait (those of the requests after it too); an
// unwritable ledger is. It runs on the delivering goroutine, which alone
// touches a channel's down, Sent, Waiting, Rejected and Unmarked.
func (x *Exporter) deliver(r exportRequest) error {
	c, keys := r.c, r.keys
	if x.DryRun == nil && c.down != nil {
		c.Stats.Waiting += len(keys)
		return nil
	}
	asJSON, send := x.build(r)
	if x.DryRun != nil {
		b, err := asJSON()
		if err != nil {
			return err
		}
		if _, err := x.DryRun.Write(append(b, '\n')); err != nil {
			return err
		}
		c.Stats.Sent += len(keys)
		return nil
	}
	rejected, err := send()
	if err != nil {
		c.down = err
		c.Stats.Waiting += len(keys)
		return nil
	}
	c.Stats.Rejected += rejected
	if err := c.Ledger.Mark(keys); err != nil {
		c.Stats.Unmarked += len(keys)
		return fmt.Errorf("%d %s acknowledged but not recorded (%w): the next run sends them again", len(keys), c.Signal, err)
	}
	c.Stats.Sent += len(keys)
	return nil
}

// Down is why c's signal stopped being sent (nil: it was not); read it
// after Close.
func (c *Channel) Down() error { return c.down }
