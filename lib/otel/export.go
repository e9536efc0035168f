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
	b         *batch
	keys      keyer
	// out takes the requests built to a goroutine of their own, which
	// sends them one at a time, in order, while the next is built: on
	// two cores, building and sending (marshalling, the ledger) overlap.
	out  chan exportRequest
	done chan struct{}
	mu   sync.Mutex
	err  error // a delivery's error not returned yet
}

// exportRequest is one export request of a signal, built, with the keys
// of its events.
type exportRequest struct {
	c      *Channel
	keys   []Key
	asJSON func() ([]byte, error)
	send   func() (int64, error)
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

// Add queues an event; a full batch is sent.
func (x *Exporter) Add(ctx context.Context, e *Event) error {
	if c := x.Logs; c != nil && !e.SessionStart() {
		if x.take(c, e) {
			x.batch().addLog(e)
			if x.b.nLogs >= x.size() {
				if err := x.flushLogs(ctx); err != nil {
					return err
				}
			}
		}
	}
	if c := x.Metrics; c != nil && hasPoints(e) {
		if x.take(c, e) {
			x.batch().addPoints(e)
			if x.b.nPoints >= x.size() {
				if err := x.flushMetrics(ctx); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// take says whether e goes into c's next request.
func (x *Exporter) take(c *Channel, e *Event) bool {
	k := x.keys.key(c.Signal, e)
	if c.Ledger != nil && c.Ledger.Has(k) {
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
// and compacts the ledgers.
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
			err = errors.Join(err, c.Ledger.Compact())
		}
	}
	return err
}

func (x *Exporter) flushLogs(ctx context.Context) error {
	if x.b == nil || x.b.nLogs == 0 {
		return nil
	}
	l := x.b.logs
	x.b.resetLogs()
	return x.queue(x.Logs, func() ([]byte, error) { return plogotlp.NewExportRequestFromLogs(l).MarshalJSON() },
		func() (int64, error) { return x.Logs.Sender.Logs(ctx, l) })
}

func (x *Exporter) flushMetrics(ctx context.Context) error {
	if x.b == nil || x.b.nPoints == 0 {
		return nil
	}
	m := x.b.metrics
	x.b.resetMetrics()
	return x.queue(x.Metrics, func() ([]byte, error) { return pmetricotlp.NewExportRequestFromMetrics(m).MarshalJSON() },
		func() (int64, error) { return x.Metrics.Sender.Metrics(ctx, m) })
}

// queue hands a built request of c's signal to the delivering goroutine
// (started on first use), and returns the error of one delivered before,
// if any.
func (x *Exporter) queue(c *Channel, asJSON func() ([]byte, error), send func() (int64, error)) error {
	if x.out == nil {
		x.out, x.done = make(chan exportRequest, 1), make(chan struct{})
		go x.deliverAll()
	}
	keys := c.keys
	c.keys = nil
	x.out <- exportRequest{c: c, keys: keys, asJSON: asJSON, send: send}
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

// deliver sends one request (or prints it, dry) and marks its keys once
// acknowledged. A refusal is no error of the run: the signal is down, its
// events wait (those of the requests after it too); an unwritable ledger
// is. It runs on the delivering goroutine, which alone touches a
// channel's down, Sent, Waiting, Rejected and Unmarked.
func (x *Exporter) deliver(r exportRequest) error {
	c, keys := r.c, r.keys
	if x.DryRun != nil {
		b, err := r.asJSON()
		if err != nil {
			return err
		}
		if _, err := x.DryRun.Write(append(b, '\n')); err != nil {
			return err
		}
		c.Stats.Sent += len(keys)
		return nil
	}
	if c.down != nil {
		c.Stats.Waiting += len(keys)
		return nil
	}
	rejected, err := r.send()
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
