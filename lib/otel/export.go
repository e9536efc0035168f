package otel

import (
	"context"
	"errors"
	"fmt"
	"io"
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
	keys   []Key
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
	// logs and points are the events taken for the next request of each
	// signal; the request is built from them on the delivering goroutine.
	logs, points []*Event
	keys         keyer
	// out takes the requests' events to a goroutine of its own, which
	// builds, sends and marks them one request at a time, in order, while
	// the next is gathered: on two cores, taking events (the cache, the
	// ledger's keys) and building and sending them (pdata, marshalling,
	// the round trip, the ledger's writes) overlap.
	out  chan exportRequest
	done chan struct{}
	// b is the delivering goroutine's batch, which alone touches it.
	b   *batch
	mu  sync.Mutex
	err error // a delivery's error not returned yet
}

// exportRequest is the events of one export request of a signal, with
// their keys.
type exportRequest struct {
	c      *Channel
	keys   []Key
	events []*Event
	ctx    context.Context
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

// Add queues an event; a full batch is sent. The exporter keeps e until
// its request is built: the caller must not change it after.
func (x *Exporter) Add(ctx context.Context, e *Event) error {
	if c := x.Logs; c != nil && !e.SessionStart() && x.take(c, e) {
		x.logs = append(x.logs, e)
		if len(x.logs) >= x.size() {
			if err := x.flushLogs(ctx); err != nil {
				return err
			}
		}
	}
	if c := x.Metrics; c != nil && hasPoints(e) && x.take(c, e) {
		x.points = append(x.points, e)
		if len(x.points) >= x.size() {
			if err := x.flushMetrics(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

// take says whether e goes into c's next request.
func (x *Exporter) take(c *Channel, e *Event) bool {
	k := x.keys.key(c.Signal, e)
	if c.Ledger != nil && c.Ledger.HadBefore(k) {
		c.Stats.Already++
		return false
	}
	if _, dup := c.taken[k]; dup {
		return false
	}
	if c.taken == nil {
		c.taken = map[Key]struct{}{}
	}
	c.taken[k] = struct{}{}
	c.keys = append(c.keys, k)
	return true
}

// Close sends what is queued, waits for every request to be delivered,
// and syncs and compacts the ledgers.
func (x *Exporter) Close(ctx context.Context) error {
	err := errors.Join(x.flushLogs(ctx), x.flushMetrics(ctx))
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

func (x *Exporter) flushLogs(ctx context.Context) error {
	if len(x.logs) == 0 {
		return nil
	}
	evs := x.logs
	x.logs = make([]*Event, 0, x.size())
	return x.queue(ctx, x.Logs, evs)
}

func (x *Exporter) flushMetrics(ctx context.Context) error {
	if len(x.points) == 0 {
		return nil
	}
	evs := x.points
	x.points = make([]*Event, 0, x.size())
	return x.queue(ctx, x.Metrics, evs)
}

// queue hands the events of a request of c's signal to the delivering
// goroutine (started on first use), and returns the error of one
// delivered before, if any.
func (x *Exporter) queue(ctx context.Context, c *Channel, events []*Event) error {
	if x.out == nil {
		x.out, x.done = make(chan exportRequest, 1), make(chan struct{})
		go x.deliverAll()
	}
	keys := c.keys
	c.keys = nil
	x.out <- exportRequest{c: c, keys: keys, events: events, ctx: ctx}
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
func (x *Exporter) build(r exportRequest) (asJSON func() ([]byte, error), send func() (int64, error)) {
	b := x.batch()
	if r.c.Signal == Logs {
		for _, e := range r.events {
			b.addLog(e)
		}
		l := b.logs
		b.resetLogs()
		return func() ([]byte, error) { return plogotlp.NewExportRequestFromLogs(l).MarshalJSON() },
			func() (int64, error) { return r.c.Sender.Logs(r.ctx, l) }
	}
	for _, e := range r.events {
		b.addPoints(e)
	}
	m := b.metrics
	b.resetMetrics()
	return func() ([]byte, error) { return pmetricotlp.NewExportRequestFromMetrics(m).MarshalJSON() },
		func() (int64, error) { return r.c.Sender.Metrics(r.ctx, m) }
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
