package otel

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"
)

// testEvents are a session's events across two Claude Code versions: a
// start, then prompts, API requests and tool results.
func testEvents(sid string, n int) []Event {
	t0 := time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC)
	evs := []Event{{SessionID: sid, Version: "2.1.300", Time: t0}}
	for i := range n {
		v := "2.1.300"
		if i >= n/2 {
			v = "2.1.328"
		}
		t := t0.Add(time.Duration(i) * time.Second)
		switch i % 3 {
		case 0:
			evs = append(evs, Event{Name: EventUserPrompt, SessionID: sid, ID: fmt.Sprint("p", i), Version: v, Time: t,
				Attrs: []Attr{S("prompt", Redacted), S("prompt_length", "12")}})
		case 1:
			a := &APIRequest{Model: "claude-opus-5-5", Input: int64(i), Output: 7, CacheRead: 3, CacheCreation: 2, CostUSD: 0.25, Priced: true, QuerySource: "main"}
			evs = append(evs, Event{Name: EventAPIRequest, SessionID: sid, ID: fmt.Sprint("m", i), Version: v, Time: t,
				Attrs: []Attr{S("model", a.Model), I("input_tokens", a.Input), F("cost_usd", a.CostUSD)}, API: a})
		default:
			evs = append(evs, Event{Name: EventToolResult, SessionID: sid, ID: fmt.Sprint("t", i), Version: v, Time: t,
				Attrs: []Attr{S("tool_name", "Bash"), S("success", "true")}})
		}
	}
	return evs
}

// TestConcatenatedRequests: protobuf's merge rule, checked with pdata's
// own codec (the collector's): the pieces of sessions concatenated decode
// to the request pdata builds with each piece's resources appended in
// turn, byte for byte once marshalled again, and to the same records as
// the one request the events make when built together (the dry run's).
func TestConcatenatedRequests(t *testing.T) {
	ps := NewPieces(t.TempDir(), Resource{HostArch: "amd64", OSType: "linux", Extra: [][2]string{{"team", "x"}}}, 4)
	var body [2][]byte
	var whole [2][]*Event
	wantLogs, wantMetrics := plog.NewLogs(), pmetric.NewMetrics()
	for i, n := range []int{1, 9, 17} {
		evs := testEvents(fmt.Sprint("s", i), n)
		p, err := ps.build(evs, "user-1")
		if err != nil {
			t.Fatal(err)
		}
		for si, s := range signals {
			for _, pc := range p.sig[si] {
				body[si] = append(body[si], pc.b...)
				if s == Logs {
					r := plogotlp.NewExportRequest()
					if err := r.UnmarshalProto(pc.b); err != nil {
						t.Fatal(err)
					}
					r.Logs().ResourceLogs().MoveAndAppendTo(wantLogs.ResourceLogs())
				} else {
					r := pmetricotlp.NewExportRequest()
					if err := r.UnmarshalProto(pc.b); err != nil {
						t.Fatal(err)
					}
					r.Metrics().ResourceMetrics().MoveAndAppendTo(wantMetrics.ResourceMetrics())
				}
			}
		}
		for j := range evs {
			e := evs[j]
			e.Seq, e.UserID = int64(j), "user-1"
			for si, s := range signals {
				if member(s, &e) {
					whole[si] = append(whole[si], &e)
				}
			}
		}
	}
	gotLogs := plogotlp.NewExportRequest()
	if err := gotLogs.UnmarshalProto(body[0]); err != nil {
		t.Fatal(err)
	}
	gotMetrics := pmetricotlp.NewExportRequest()
	if err := gotMetrics.UnmarshalProto(body[1]); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		got, want func() ([]byte, error)
	}{
		{"logs remarshalled", gotLogs.MarshalProto, func() ([]byte, error) { return body[0], nil }},
		{"logs appended", gotLogs.MarshalProto, plogotlp.NewExportRequestFromLogs(wantLogs).MarshalProto},
		{"metrics remarshalled", gotMetrics.MarshalProto, func() ([]byte, error) { return body[1], nil }},
		{"metrics appended", gotMetrics.MarshalProto, pmetricotlp.NewExportRequestFromMetrics(wantMetrics).MarshalProto},
	} {
		got, err1 := c.got()
		want, err2 := c.want()
		if err1 != nil || err2 != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes, want %d (%v %v)", c.name, len(got), len(want), err1, err2)
		}
	}
	// The records of one request the events make built together.
	b := newBatch(ps.Resource)
	for _, e := range whole[0] {
		b.addLog(e)
	}
	for _, e := range whole[1] {
		b.addPoints(e)
	}
	if got, want := logRecords(gotLogs.Logs()), logRecords(b.logs); got != want || gotLogs.Logs().LogRecordCount() == 0 {
		t.Errorf("log records differ:\n%s\nwant\n%s", got, want)
	}
	if got, want := metricPoints(gotMetrics.Metrics()), metricPoints(b.metrics); got != want || gotMetrics.Metrics().DataPointCount() == 0 {
		t.Errorf("metric points differ:\n%s\nwant\n%s", got, want)
	}
	if n, m := gotLogs.Logs().ResourceLogs().Len(), b.logs.ResourceLogs().Len(); n <= m {
		t.Errorf("the pieces make %d resources, the events built together %d: no piece was cut", n, m)
	}
}

// logRecords are a request's log records, each with its resource and
// scope, sorted: grouped by resource, records of several versions come
// in another order.
func logRecords(l plog.Logs) string {
	var lines []string
	for _, rl := range l.ResourceLogs().All() {
		for _, sl := range rl.ScopeLogs().All() {
			for _, lr := range sl.LogRecords().All() {
				lines = append(lines, fmt.Sprintf("%v %s %s %v %v %s %v", rl.Resource().Attributes().AsRaw(), sl.Scope().Name(),
					sl.Scope().Version(), lr.Timestamp(), lr.ObservedTimestamp(), lr.Body().AsString(), lr.Attributes().AsRaw()))
			}
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// metricPoints are a request's points, each with its metric, resource
// and scope, sorted.
func metricPoints(m pmetric.Metrics) string {
	var lines []string
	for _, rm := range m.ResourceMetrics().All() {
		for _, sm := range rm.ScopeMetrics().All() {
			for _, mt := range sm.Metrics().All() {
				for _, p := range mt.Sum().DataPoints().All() {
					lines = append(lines, fmt.Sprintf("%v %s %s %s %s %s %v %v %v %v %g %v", rm.Resource().Attributes().AsRaw(),
						sm.Scope().Name(), sm.Scope().Version(), mt.Name(), mt.Unit(), mt.Description(), mt.Sum().AggregationTemporality(),
						mt.Sum().IsMonotonic(), p.StartTimestamp(), p.Timestamp(), p.DoubleValue(), p.Attributes().AsRaw()))
				}
			}
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// TestSegmentReadMappedIsPread: a chunk read from its segment through the
// memory map (the fast path) is the chunk read with pread (its slow twin)
// and the bytes built: whole, damaged (refused by both) and in a segment
// cut shorter after it was mapped (refused, no crash).
func TestSegmentReadMappedIsPread(t *testing.T) {
	dir := t.TempDir()
	w := NewPieces(dir, Resource{HostArch: "amd64", OSType: "linux"}, 4)
	p, err := w.build(testEvents("s1", 400), "user-1")
	if err != nil {
		t.Fatal(err)
	}
	var built [][]byte
	for si := range p.sig {
		for _, pc := range p.sig[si] {
			built = append(built, pc.b)
		}
	}
	if err := w.Close(nil); err != nil {
		t.Fatal(err)
	}
	// Each chunk read back, mapped or with pread, into a body that holds
	// something already.
	read := func(mapped bool) ([][]byte, []bool) {
		t.Helper()
		r := NewPieces(dir, w.Resource, 4)
		defer r.Close(nil)
		q := &pieces{seg: p.seg, base: p.base, chunk: p.chunk, fp: p.fp}
		for si := range p.sig {
			for _, pc := range p.sig[si] {
				q.sig[si] = append(q.sig[si], piece{n: pc.n, crc: pc.crc})
			}
		}
		if !q.locate(r) {
			t.Fatal("the segment was not found")
		}
		var got [][]byte
		var oks []bool
		for si := range q.sig {
			for i := range q.sig[si] {
				pc := &q.sig[si][i]
				if !mapped {
					pc.seg.mapFail = true
				}
				body, ok := pc.appendTo([]byte("head"))
				if string(body[:4]) != "head" || (!ok && len(body) != 4) {
					t.Fatalf("mapped %v: the body's head was changed, or a refused chunk left bytes: %q", mapped, body[:min(len(body), 12)])
				}
				got, oks = append(got, body[4:]), append(oks, ok)
				if (pc.seg.mem != nil) != mapped {
					t.Fatalf("mapped %v: the segment's map is %v", mapped, pc.seg.mem != nil)
				}
			}
		}
		return got, oks
	}
	for _, mapped := range []bool{true, false} {
		got, oks := read(mapped)
		for i := range built {
			if !oks[i] || !bytes.Equal(got[i], built[i]) {
				t.Errorf("mapped %v: chunk %d read back as %d bytes (ok %v), built %d", mapped, i, len(got[i]), oks[i], len(built[i]))
			}
		}
	}
	// The second chunk damaged: both refuse it, and only it.
	path := filepath.Join(dir, p.seg)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	off := int(p.base) + len(built[0]) + 3
	b[off] ^= 0x55
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, mapped := range []bool{true, false} {
		_, oks := read(mapped)
		for i, ok := range oks {
			if ok != (i != 1) {
				t.Errorf("mapped %v, the second chunk damaged: chunk %d read back %v", mapped, i, ok)
			}
		}
	}
	// A segment cut shorter after it was mapped: the chunks past the cut
	// are refused (the map faults: no crash), the ones before read.
	r := NewPieces(dir, w.Resource, 4)
	defer r.Close(nil)
	q := &pieces{seg: p.seg, base: p.base}
	for si := range p.sig {
		for _, pc := range p.sig[si] {
			q.sig[si] = append(q.sig[si], piece{n: pc.n, crc: pc.crc})
		}
	}
	if !q.locate(r) {
		t.Fatal("the segment was not found")
	}
	first := &q.sig[0][0]
	if first.seg.mapped() == nil {
		t.Skip("segments cannot be mapped here")
	}
	if err := os.Truncate(path, p.base+int64(len(built[0]))); err != nil {
		t.Fatal(err)
	}
	if _, ok := first.appendTo(nil); !ok {
		t.Error("the chunk before the cut was refused")
	}
	// (Past the cut, the whole pages past the new end are gone.)
	last := &q.sig[1][len(q.sig[1])-1]
	if last.off-(p.base+int64(len(built[0]))) < 2*int64(os.Getpagesize()) {
		t.Fatal("the segment is too short for this test")
	}
	if _, ok := last.appendTo(nil); ok {
		t.Error("a chunk past the cut read back")
	}
}
