package ccotel

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"
	"google.golang.org/grpc"

	"github.com/ccpipe/ccpipe/lib/cache"
	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/commands/ccentries"
	"github.com/ccpipe/ccpipe/lib/commands/ccextract"
	"github.com/ccpipe/ccpipe/lib/internal/golden"
	"github.com/ccpipe/ccpipe/lib/otel"
)

// The corpus the real Claude Code wrote (testdata/corpus).
var corpus = filepath.Join("..", "..", "..", "testdata", "corpus", "claude", "projects")

func TestMain(m *testing.M) {
	otel.Retry = nil // a refusal is final within a run: no waits in tests
	if os.Getenv("CCOTEL_CHILD") != "" {
		// The subprocess of TestKilledMidExport: cc-otel itself.
		batchSize, _ = strconv.Atoi(os.Getenv("CCOTEL_BATCH"))
		os.Exit(Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// receiver is an OTLP/HTTP collector: it decodes each request and keeps
// the events of those it acknowledged.
type receiver struct {
	mu sync.Mutex
	// status, when set, answers request n (from 1) of a path with a code
	// other than 200; hang makes it never answer.
	status func(n int, path string) int
	hang   func(n int) bool
	n      int
	acked  []string // one line per acknowledged log event or metric point
	seen   chan int
	// resources counts the resources of the requests a gRPC server took.
	resources int
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	rc.n++
	n := rc.n
	rc.mu.Unlock()
	if rc.seen != nil {
		rc.seen <- n
	}
	rc.mu.Lock()
	hang := rc.hang
	rc.mu.Unlock()
	if hang != nil && hang(n) {
		<-r.Context().Done()
		return
	}
	if rc.status != nil {
		if code := rc.status(n, r.URL.Path); code != 200 {
			http.Error(w, "refused", code)
			return
		}
	}
	var items []string
	switch r.URL.Path {
	case "/v1/logs":
		req := plogotlp.NewExportRequest()
		if err := unmarshal(r, body, req.UnmarshalProto, req.UnmarshalJSON); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		items = logItems(req.Logs())
	case "/v1/metrics":
		req := pmetricotlp.NewExportRequest()
		if err := unmarshal(r, body, req.UnmarshalProto, req.UnmarshalJSON); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		items = metricItems(req.Metrics())
	default:
		http.NotFound(w, r)
		return
	}
	rc.take(items)
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.WriteHeader(200)
}

func (rc *receiver) take(items []string) {
	rc.mu.Lock()
	rc.acked = append(rc.acked, items...)
	rc.mu.Unlock()
}

func unmarshal(r *http.Request, body []byte, proto, json func([]byte) error) error {
	if r.Header.Get("Content-Type") == "application/json" {
		return json(body)
	}
	return proto(body)
}

// logItems are one line per log record: its time and attributes.
func logItems(l plog.Logs) []string {
	var items []string
	rls := l.ResourceLogs()
	for i := 0; i < rls.Len(); i++ {
		sls := rls.At(i).ScopeLogs()
		for j := 0; j < sls.Len(); j++ {
			lrs := sls.At(j).LogRecords()
			for k := 0; k < lrs.Len(); k++ {
				lr := lrs.At(k)
				a, _ := json.Marshal(lr.Attributes().AsRaw())
				items = append(items, "log "+lr.Timestamp().String()+" "+string(a))
			}
		}
	}
	return items
}

// metricItems are one line per point: metric, time, value, attributes.
func metricItems(m pmetric.Metrics) []string {
	var items []string
	rms := m.ResourceMetrics()
	for i := 0; i < rms.Len(); i++ {
		sms := rms.At(i).ScopeMetrics()
		for j := 0; j < sms.Len(); j++ {
			ms := sms.At(j).Metrics()
			for k := 0; k < ms.Len(); k++ {
				m := ms.At(k)
				dps := m.Sum().DataPoints()
				for d := 0; d < dps.Len(); d++ {
					a, _ := json.Marshal(dps.At(d).Attributes().AsRaw())
					items = append(items, "point "+m.Name()+" "+m.Unit()+" "+dps.At(d).Timestamp().String()+" "+
						strconv.FormatFloat(dps.At(d).DoubleValue(), 'g', -1, 64)+" "+string(a))
				}
			}
		}
	}
	return items
}

func (rc *receiver) items() []string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	out := append([]string(nil), rc.acked...)
	sort.Strings(out)
	return out
}

type machine struct {
	env map[string]string
}

func newMachine(t *testing.T, url string) *machine {
	return &machine{env: map[string]string{"XDG_CACHE_HOME": t.TempDir(), "OTEL_EXPORTER_OTLP_ENDPOINT": url,
		"OTEL_EXPORTER_OTLP_HEADERS": "authorization=Bearer%20sekrit-token-123"}}
}

func (m *machine) run(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	sys := cli.System{Getenv: func(k string) string { return m.env[k] }}
	code = RunWith(sys, args, nil, &out, &errb)
	return code, out.String(), errb.String()
}

type summaries map[string]summary

func parseSummaries(t *testing.T, out string) summaries {
	t.Helper()
	s := summaries{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r summary
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("summary %q: %v", line, err)
		}
		s[r.Signal] = r
	}
	return s
}

func noDuplicates(t *testing.T, items []string) {
	t.Helper()
	for i := 1; i < len(items); i++ {
		if items[i] == items[i-1] {
			t.Errorf("received twice: %s", items[i])
		}
	}
}

// reference is what one clean run sends to a collector that takes all.
func reference(t *testing.T) []string {
	t.Helper()
	rc := &receiver{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	if code, _, stderr := newMachine(t, srv.URL).run(corpus); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	items := rc.items()
	if len(items) < 50 {
		t.Fatalf("only %d items from the corpus", len(items))
	}
	noDuplicates(t, items)
	return items
}

func TestSecondRunSendsNothing(t *testing.T) {
	rc := &receiver{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	m := newMachine(t, srv.URL)
	code, out, stderr := m.run(corpus)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	first := parseSummaries(t, out)
	if first["logs"].Sent == 0 || first["metrics"].Sent == 0 || first["logs"].Already != 0 {
		t.Fatalf("first run: %+v", first)
	}
	n := len(rc.items())
	code, out, stderr = m.run(corpus)
	if code != 0 {
		t.Fatalf("second run: exit %d: %s", code, stderr)
	}
	second := parseSummaries(t, out)
	if len(rc.items()) != n || second["logs"].Sent != 0 || second["metrics"].Sent != 0 ||
		second["logs"].Already != first["logs"].Sent || second["metrics"].Already != first["metrics"].Sent {
		t.Errorf("second run sent again: %+v (first %+v), received %d then %d", second, first, n, len(rc.items()))
	}
	if strings.Contains(out+stderr, "sekrit") {
		t.Errorf("a header value was printed: %s %s", out, stderr)
	}
}

// A collector that refuses (500) the logs: the run exits 1 naming how many
// wait, marks nothing of them; the next run, to a collector that takes
// them, sends exactly those, and the metrics it had acknowledged not again.
func TestRefusedThenRetried(t *testing.T) {
	want := reference(t)
	batchSize = 10
	defer func() { batchSize = otel.BatchSize }()
	refuse := true
	rc := &receiver{status: func(n int, path string) int {
		if refuse && path == "/v1/logs" && n > 1 {
			return 500
		}
		return 200
	}}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	m := newMachine(t, srv.URL)
	code, out, stderr := m.run(corpus)
	if code != 1 || !strings.Contains(stderr, "records wait") || !strings.Contains(stderr, "500") {
		t.Fatalf("refused: exit %d, stderr %q", code, stderr)
	}
	s := parseSummaries(t, out)
	if s["logs"].Waiting == 0 || s["logs"].Sent != 10 || s["metrics"].Waiting != 0 {
		t.Fatalf("refused: %+v", s)
	}
	if !strings.Contains(stderr, strconv.Itoa(s["logs"].Waiting)+" records wait") {
		t.Errorf("stderr does not say %d records wait: %s", s["logs"].Waiting, stderr)
	}
	if strings.Contains(out+stderr, "sekrit") {
		t.Errorf("a header value was printed: %s %s", out, stderr)
	}
	refuse = false
	code, out, stderr = m.run(corpus)
	if code != 0 {
		t.Fatalf("retry: exit %d: %s", code, stderr)
	}
	r := parseSummaries(t, out)
	if r["logs"].Sent != s["logs"].Waiting || r["metrics"].Sent != 0 {
		t.Errorf("retry sent %+v after %+v", r, s)
	}
	got := rc.items()
	noDuplicates(t, got)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("refused then retried: %d items received, a clean run sends %d", len(got), len(want))
	}
}

// cc-otel killed (SIGKILL) while the collector holds a request: what it
// acknowledged before is not sent again, the held request is, and all
// arrives once.
func TestKilledMidExport(t *testing.T) {
	want := reference(t)
	seen := make(chan int, 100)
	rc := &receiver{seen: seen, hang: func(n int) bool { return n == 3 }}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	m := newMachine(t, srv.URL)
	cmd := exec.Command(os.Args[0], corpus)
	cmd.Env = []string{"CCOTEL_CHILD=1", "CCOTEL_BATCH=10"}
	for k, v := range m.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for n := range seen {
		if n == 3 {
			break
		}
	}
	time.Sleep(50 * time.Millisecond)
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	before := len(rc.items())
	if before == 0 || before >= len(want) {
		t.Fatalf("%d of %d items acknowledged before the kill: not mid-export (stderr %s)", before, len(want), errb.String())
	}
	rc.mu.Lock()
	rc.hang = nil
	rc.mu.Unlock()
	code, out, stderr := m.run(corpus)
	if code != 0 {
		t.Fatalf("after the kill: exit %d: %s", code, stderr)
	}
	s := parseSummaries(t, out)
	if s["logs"].Already+s["metrics"].Already == 0 {
		t.Errorf("the ledger kept nothing of the killed run: %+v", s)
	}
	got := rc.items()
	noDuplicates(t, got)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("killed then rerun: %d items received, a clean run sends %d", len(got), len(want))
	}
}

func TestDryRunSendsNothing(t *testing.T) {
	rc := &receiver{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	m := newMachine(t, srv.URL)
	code, out, stderr := m.run("--dry-run", corpus)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if len(rc.items()) != 0 {
		t.Errorf("--dry-run sent %d items", len(rc.items()))
	}
	logs := 0
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.HasPrefix(line, `{"resourceLogs"`) {
			req := plogotlp.NewExportRequest()
			if err := req.UnmarshalJSON([]byte(line)); err != nil {
				t.Fatalf("not OTLP JSON: %v", err)
			}
			logs += req.Logs().LogRecordCount()
		}
	}
	// A dry run leaves the ledger alone: the real run sends all of it.
	code, outReal, _ := m.run(corpus)
	if s := parseSummaries(t, outReal); code != 0 || s["logs"].Sent != logs || logs == 0 {
		t.Errorf("dry run printed %d log records; the real run after it: exit %d, %+v", logs, code, s)
	}
}

func TestBadSettings(t *testing.T) {
	m := newMachine(t, "http://127.0.0.1:1")
	m.env["OTEL_EXPORTER_OTLP_PROTOCOL"] = "carrier-pigeon"
	if code, _, stderr := m.run(corpus); code != 2 || !strings.Contains(stderr, "cc-otel: OTEL_EXPORTER_OTLP_PROTOCOL") {
		t.Errorf("bad protocol: exit %d, %q", code, stderr)
	}
	m = newMachine(t, "http://user:pw-secret@127.0.0.1:1")
	m.env["OTEL_EXPORTER_OTLP_TIMEOUT"] = "200"
	code, _, stderr := m.run(corpus)
	if code != 1 || !strings.Contains(stderr, "records wait") || strings.Contains(stderr, "pw-secret") {
		t.Errorf("unreachable collector: exit %d, %q", code, stderr)
	}
}

// TestGolden: the records of a first run, a second run (nothing sent)
// and a run whose collector refuses, over the real-CLI corpus.
func TestGolden(t *testing.T) {
	refuse := false
	rc := &receiver{status: func(_ int, _ string) int {
		if refuse {
			return 503
		}
		return 200
	}}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	m := newMachine(t, srv.URL)
	var b strings.Builder
	for _, step := range []struct {
		name   string
		refuse bool
		fresh  bool
	}{{"first", false, false}, {"second", false, false}, {"refused", true, true}} {
		if step.fresh {
			m = newMachine(t, srv.URL)
		}
		refuse = step.refuse
		code, out, stderr := m.run(corpus)
		fmt.Fprintf(&b, "## %s\n%s", step.name, golden.Output(code, stderr, out))
	}
	golden.Check(t, filepath.Join("testdata", "runs.golden"), strings.ReplaceAll(b.String(), srv.URL, "$COLLECTOR"))
}

type grpcLogs struct {
	plogotlp.UnimplementedGRPCServer
	rc *receiver
}

func (g *grpcLogs) Export(_ context.Context, req plogotlp.ExportRequest) (plogotlp.ExportResponse, error) {
	g.rc.take(logItems(req.Logs()))
	g.rc.mu.Lock()
	g.rc.resources += req.Logs().ResourceLogs().Len()
	g.rc.mu.Unlock()
	return plogotlp.NewExportResponse(), nil
}

type grpcMetrics struct {
	pmetricotlp.UnimplementedGRPCServer
	rc *receiver
}

func (g *grpcMetrics) Export(_ context.Context, req pmetricotlp.ExportRequest) (pmetricotlp.ExportResponse, error) {
	g.rc.take(metricItems(req.Metrics()))
	g.rc.mu.Lock()
	g.rc.resources += req.Metrics().ResourceMetrics().Len()
	g.rc.mu.Unlock()
	return pmetricotlp.NewExportResponse(), nil
}

// TestProtocols: http/json and grpc deliver what http/protobuf does.
func TestProtocols(t *testing.T) {
	want := reference(t)
	for _, proto := range []string{"http/json", "grpc"} {
		t.Run(strings.ReplaceAll(proto, "/", "-"), func(t *testing.T) {
			rc := &receiver{}
			url := ""
			if proto == "grpc" {
				lis, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				s := grpc.NewServer()
				plogotlp.RegisterGRPCServer(s, &grpcLogs{rc: rc})
				pmetricotlp.RegisterGRPCServer(s, &grpcMetrics{rc: rc})
				go func() { _ = s.Serve(lis) }()
				defer s.Stop()
				url = "http://" + lis.Addr().String()
			} else {
				srv := httptest.NewServer(rc)
				defer srv.Close()
				url = srv.URL
			}
			m := newMachine(t, url)
			m.env["OTEL_EXPORTER_OTLP_PROTOCOL"] = proto
			// Without the cache, cold, then warm, each from a fresh ledger:
			// grpc sends the warm runs' events from pieces (more
			// resources, the same records).
			noPieces := 0
			for _, run := range []string{"no-cache", "cold", "warm"} {
				_ = os.RemoveAll(filepath.Join(m.env["XDG_CACHE_HOME"], "ccpipe", "otel"))
				rc.mu.Lock()
				rc.acked, rc.resources = nil, 0
				rc.mu.Unlock()
				args := []string{corpus}
				if run == "no-cache" {
					args = []string{"--no-cache", corpus}
				}
				code, out, stderr := m.run(args...)
				if code != 0 {
					t.Fatalf("%s: exit %d: %s", run, code, stderr)
				}
				if s := parseSummaries(t, out); s["logs"].Protocol != proto {
					t.Errorf("%s: summary %+v", run, s)
				}
				if got := rc.items(); strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("%s, %s: %d items received, http/protobuf sends %d:\n%s", proto, run, len(got), len(want), golden.Diff(strings.Join(want, "\n"), strings.Join(got, "\n")))
				}
				if proto == "grpc" {
					if run == "no-cache" {
						noPieces = rc.resources
					} else if rc.resources <= noPieces {
						t.Errorf("grpc, %s: %d resources, %d without pieces: none sent", run, rc.resources, noPieces)
					}
				}
			}
		})
	}
}

// TestPipedSessionsSendEachOnce: session records piped in send what the
// same transcripts given as arguments send, each event once. The first
// record's probe once read the input after it twice (the probe's buffer
// again behind its peek), so a piped session's events went out twice.
func TestPipedSessionsSendEachOnce(t *testing.T) {
	want := reference(t)
	paths, err := filepath.Glob(filepath.Join(corpus, "*", "*.jsonl"))
	if err != nil || len(paths) < 2 {
		t.Fatalf("corpus transcripts: %v %v", paths, err)
	}
	var in strings.Builder
	for _, p := range paths {
		in.WriteString(`{"session_id":"x","transcript_path":` + strconv.Quote(p) + "}\n")
	}
	rc := &receiver{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	m := newMachine(t, srv.URL)
	var out, errb bytes.Buffer
	sys := cli.System{Getenv: func(k string) string { return m.env[k] }}
	if code := RunWith(sys, nil, strings.NewReader(in.String()), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if got := rc.items(); !slices.Equal(got, want) {
		noDuplicates(t, got)
		t.Errorf("piped sessions sent %d items, the same transcripts as arguments %d", len(got), len(want))
	}
}

// A fork (--fork-session, the real CLI's testdata/corpus-fork) copies the
// prompts of the session it forks, uuids kept: each prompt is sent once,
// within a run and across runs, and each API response once, as cc-extract
// usage counts it.
func TestForkPromptsOnce(t *testing.T) {
	forks := filepath.Join("..", "..", "..", "testdata", "corpus-fork", "claude", "projects")
	original := filepath.Join(forks, "-home-dev-projects-forks", "f0a1f001-0000-4000-8000-000000000001.jsonl")
	prompts := func(items []string) map[string]int {
		n := map[string]int{}
		for _, it := range items {
			if i := strings.Index(it, `"message.uuid":"`); i >= 0 && strings.Contains(it, `"event.name":"user_prompt"`) {
				n[it[i+16:i+16+36]]++
			}
		}
		return n
	}
	rc := &receiver{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	m := newMachine(t, srv.URL)
	// The original alone, then every session (its forks with it).
	for _, arg := range []string{original, forks} {
		if code, _, stderr := m.run(arg); code != 0 {
			t.Fatalf("%s: exit %d: %s", arg, code, stderr)
		}
	}
	got := prompts(rc.items())
	if len(got) == 0 {
		t.Fatal("no user_prompt received from the fork corpus")
	}
	for uuid, n := range got {
		if n != 1 {
			t.Errorf("prompt %s sent %d times", uuid, n)
		}
	}
	// One run over everything sends the same prompts.
	rc2 := &receiver{}
	srv2 := httptest.NewServer(rc2)
	defer srv2.Close()
	if code, _, stderr := newMachine(t, srv2.URL).run(forks); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if one := prompts(rc2.items()); fmt.Sprint(one) != fmt.Sprint(got) {
		t.Errorf("one run sends prompts %v, two runs %v", one, got)
	}
	api := 0
	for _, it := range rc2.items() {
		if strings.Contains(it, `"event.name":"api_request"`) {
			api++
		}
	}
	var out bytes.Buffer
	sys := cli.System{Getenv: func(k string) string { return map[string]string{"XDG_CACHE_HOME": t.TempDir()}[k] }}
	if code := ccextract.RunWith(sys, []string{"usage", forks}, nil, &out, io.Discard); code != 0 {
		t.Fatalf("cc-extract usage: exit %d", code)
	}
	if n := strings.Count(out.String(), "\n"); n != api || api == 0 {
		t.Errorf("%d api_request events, cc-extract usage counts %d messages", api, n)
	}
}

// TestDryRunGolden: the OTLP JSON requests --dry-run writes for the real
// CLI's corpora, byte for byte (this machine's host.arch and os.type
// named; testdata/dry/*.otlp: OTLP, not the NDJSON records the docs and
// lib/records check in *.golden files), so a faster path (the event cache, the reuse of pdata)
// cannot change one byte of what is sent: each corpus is run twice on one
// cache dir, cold then warm, and both match the one golden.
func TestDryRunGolden(t *testing.T) {
	forks := filepath.Join("..", "..", "..", "testdata", "corpus-fork", "claude", "projects")
	forked := filepath.Join(forks, "-home-dev-projects-forks")
	for _, c := range []struct {
		name string
		args []string
	}{{"corpus", []string{corpus}}, {"corpus-fork", []string{forks}},
		// The forks without the session they copy: the fork notes.
		{"forks-alone", []string{filepath.Join(forked, "f0a1f002-0000-4000-8000-000000000002.jsonl"),
			filepath.Join(forked, "f0a1f003-0000-4000-8000-000000000003.jsonl")}}} {
		t.Run(c.name, func(t *testing.T) {
			m := newMachine(t, "http://127.0.0.1:1")
			for _, run := range []string{"cold", "warm"} {
				code, out, stderr := m.run(append([]string{"--dry-run"}, c.args...)...)
				out = strings.ReplaceAll(out, `"stringValue":"`+runtime.GOARCH+`"`, `"stringValue":"$GOARCH"`)
				out = strings.ReplaceAll(out, `"stringValue":"`+runtime.GOOS+`"`, `"stringValue":"$GOOS"`)
				golden.Check(t, filepath.Join("testdata", "dry", c.name+".otlp"), golden.Output(code, stderr, out))
				if t.Failed() {
					t.Fatalf("the %s run differs", run)
				}
			}
		})
	}
}

// TestEventCacheIsFullRead: what cc-otel would send from its event cache
// is what it sends reading every transcript whole (--no-cache), byte for
// byte, run after run as a session's transcripts change: cut short, then
// grown (the main transcript, then a subagent's), then rewritten in place
// with its size and mtime kept (only the ctime tells), then a subagent
// transcript added. The first run after each change reads the changed
// session again; the second takes every session from the cache.
func TestEventCacheIsFullRead(t *testing.T) {
	dir := t.TempDir()
	golden.CopyTree(t, corpus, dir)
	beta := filepath.Join(dir, "-home-dev-projects-beta")
	main := filepath.Join(beta, "c0a1f002-0000-4000-8000-000000000002.jsonl")
	subs := filepath.Join(beta, "c0a1f002-0000-4000-8000-000000000002", "subagents")
	sub := filepath.Join(subs, "agent-a7320cfe3f347049a.jsonl")
	other := filepath.Join(subs, "agent-a620942e6fc1c75cf.jsonl")
	full := map[string][]byte{}
	for _, p := range []string{main, sub, other} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		full[p] = b
	}
	half := func(b []byte) []byte {
		n := bytes.Count(b, []byte("\n")) / 2
		i := 0
		for ; n > 0; n-- {
			i += bytes.IndexByte(b[i:], '\n') + 1
		}
		return b[:i]
	}
	write := func(p string, b []byte) {
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	grow := func(p string) {
		f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		have, _ := f.Stat()
		if _, err := f.Write(full[p][have.Size():]); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	write(main, half(full[main]))
	write(sub, half(full[sub]))
	if err := os.Remove(other); err != nil {
		t.Fatal(err)
	}
	m := newMachine(t, "http://127.0.0.1:1")
	check := func(step string, changed bool) {
		t.Helper()
		cache.Settle() // a file changed just now has a racy stamp: the second run would read it again
		code, want, stderr := m.run("--dry-run", "--no-cache", dir)
		if code != 0 || !strings.Contains(want, "claude_code.api_request") {
			t.Fatalf("%s: --no-cache: exit %d: %s", step, code, stderr)
		}
		for i, run := range []string{"first", "second"} {
			code, got, stderr := m.run("--dry-run", "--cache-stats", dir)
			if code != 0 || got != want {
				t.Errorf("%s, %s run from the cache: exit %d, output differs from --no-cache's:\n%s", step, run, code,
					golden.Diff(want, got))
			}
			// The second run takes every session from the cache; the
			// first reads again the session that changed.
			if all := strings.Contains(stderr, ", 0 read whole;"); all != (i == 1 || !changed) {
				t.Errorf("%s, %s run: %s", step, run, stderr)
			}
		}
	}
	check("cut short", true)
	check("unchanged", false)
	grow(main)
	check("main transcript grown", true)
	grow(sub)
	check("subagent transcript grown", true)
	// The same size and mtime, other bytes: a token count changed.
	fi, err := os.Stat(main)
	if err != nil {
		t.Fatal(err)
	}
	b := bytes.Clone(full[main])
	i := bytes.Index(b, []byte(`"output_tokens":`)) + len(`"output_tokens":`)
	if b[i] == '1' {
		b[i] = '2'
	} else {
		b[i] = '1'
	}
	write(main, b)
	if err := os.Chtimes(main, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	check("main transcript rewritten in place", true)
	write(other, full[other])
	check("subagent transcript added", true)
}

// requestLog is a collector that keeps each request it takes: its path
// and its records, each with its resource and scope, sorted (a request of
// pieces groups them under more resources than one built whole), and how
// many resources it had.
type requestLog struct {
	mu        sync.Mutex
	requests  []string
	resources int
}

func (rl *requestLog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var lines []string
	resources := 0
	switch r.URL.Path {
	case "/v1/logs":
		req := plogotlp.NewExportRequest()
		if err := req.UnmarshalProto(body); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		for _, rs := range req.Logs().ResourceLogs().All() {
			resources++
			for _, sl := range rs.ScopeLogs().All() {
				for _, lr := range sl.LogRecords().All() {
					lines = append(lines, fmt.Sprintf("%v %s %s %v %v %s %v", rs.Resource().Attributes().AsRaw(), sl.Scope().Name(),
						sl.Scope().Version(), lr.Timestamp(), lr.ObservedTimestamp(), lr.Body().AsString(), lr.Attributes().AsRaw()))
				}
			}
		}
	case "/v1/metrics":
		req := pmetricotlp.NewExportRequest()
		if err := req.UnmarshalProto(body); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		for _, rs := range req.Metrics().ResourceMetrics().All() {
			resources++
			for _, sm := range rs.ScopeMetrics().All() {
				for _, mt := range sm.Metrics().All() {
					for _, p := range mt.Sum().DataPoints().All() {
						lines = append(lines, fmt.Sprintf("%v %s %s %s %s %s %v %v %v %v %g %v", rs.Resource().Attributes().AsRaw(),
							sm.Scope().Name(), sm.Scope().Version(), mt.Name(), mt.Unit(), mt.Description(), mt.Sum().AggregationTemporality(),
							mt.Sum().IsMonotonic(), p.StartTimestamp(), p.Timestamp(), p.DoubleValue(), p.Attributes().AsRaw()))
					}
				}
			}
		}
	default:
		http.NotFound(w, r)
		return
	}
	sort.Strings(lines)
	rl.mu.Lock()
	rl.requests = append(rl.requests, r.URL.Path+"\n"+strings.Join(lines, "\n"))
	rl.resources += resources
	rl.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-protobuf")
}

// byPath is each path's requests in the order they came (the two
// signals' requests interleave as their batches fill).
func (rl *requestLog) byPath() string {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	var logs, metrics []string
	for _, r := range rl.requests {
		if strings.HasPrefix(r, "/v1/logs") {
			logs = append(logs, r)
		} else {
			metrics = append(metrics, r)
		}
	}
	return strings.Join(append(logs, metrics...), "\n\n")
}

// TestPiecesAreBuilt: a session's events sent from its pieces (built in
// the run that reads it, or read from their segment by the next run, or
// damaged there and built again) are the requests the events built with
// pdata make (--no-cache: no pieces), request by request, each record
// with its resource and scope; only more resources carry them. A damaged
// chunk is repaired: the run that finds it builds its session's pieces
// again, and the next run sends them all from pieces.
func TestPiecesAreBuilt(t *testing.T) {
	forks := filepath.Join("..", "..", "..", "testdata", "corpus-fork", "claude", "projects")
	defer func() { batchSize = otel.BatchSize }()
	for _, size := range []int{10, otel.BatchSize} {
		batchSize = size
		t.Run(strconv.Itoa(size), func(t *testing.T) {
			send := func(m *machine, args ...string) (*requestLog, string) {
				t.Helper()
				rl := &requestLog{}
				srv := httptest.NewServer(rl)
				defer srv.Close()
				m.env["OTEL_EXPORTER_OTLP_ENDPOINT"] = srv.URL
				_ = os.RemoveAll(filepath.Join(m.env["XDG_CACHE_HOME"], "ccpipe", "otel")) // every event sent
				code, _, stderr := m.run(append(args, corpus, forks)...)
				if code != 0 {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				return rl, stderr
			}
			slow, _ := send(newMachine(t, ""), "--no-cache")
			want := slow.byPath()
			if !strings.Contains(want, "claude_code.api_request") {
				t.Fatalf("no api_request sent: %s", want)
			}
			m := newMachine(t, "")
			segs := filepath.Join(m.env["XDG_CACHE_HOME"], "ccpipe", "otel-events*.pieces", "*.pieces")
			for _, step := range []string{"cold", "warm", "damaged", "repaired"} {
				if step == "damaged" {
					files, _ := filepath.Glob(segs)
					for _, f := range files {
						b, err := os.ReadFile(f)
						if err != nil {
							t.Fatal(err)
						}
						for i := 7; i < len(b); i += 97 {
							b[i] ^= 0x55
						}
						if err := os.WriteFile(f, b, 0o600); err != nil {
							t.Fatal(err)
						}
					}
				}
				rl, stderr := send(m, "--cache-stats")
				if got := rl.byPath(); got != want {
					t.Errorf("%s: the requests differ from --no-cache's:\n%s", step, golden.Diff(want, got))
				}
				if step != "damaged" && rl.resources <= slow.resources {
					t.Errorf("%s: %d resources, %d without pieces: none sent", step, rl.resources, slow.resources)
				}
				if bad := strings.Contains(stderr, "did not read back"); bad != (step == "damaged") {
					t.Errorf("%s: chunks that did not read back reported: %v, want %v (stderr %s)", step, bad, step == "damaged", stderr)
				}
				if files, _ := filepath.Glob(segs); step == "warm" && len(files) != 1 {
					t.Errorf("segments %v, want the one of the cold run", files)
				}
			}
		})
	}
}

// TestPiecesCompacted: under cron, a session whose files changed gets its
// pieces in the new run's segment, and the old segment holds dead bytes
// while another session's pieces are in it. A run that finds a segment
// mostly dead copies the live pieces into its own (or, a chunk damaged
// there, leaves their session without pieces: its next run builds them):
// the old segment, named by no entry, is removed once an hour old, and
// what is sent from the moved pieces is what --no-cache sends.
func TestPiecesCompacted(t *testing.T) {
	for _, damaged := range []bool{false, true} {
		t.Run(fmt.Sprint("damaged=", damaged), func(t *testing.T) {
			piecesCompacted(t, damaged)
		})
	}
}

func piecesCompacted(t *testing.T, damaged bool) {
	dir := t.TempDir()
	golden.CopyTree(t, corpus, dir)
	cache.Settle()
	m := newMachine(t, "")
	send := func(args ...string) (*requestLog, string) {
		t.Helper()
		if len(args) == 0 || strings.HasPrefix(args[len(args)-1], "-") {
			args = append(args, dir)
		}
		rl := &requestLog{}
		srv := httptest.NewServer(rl)
		defer srv.Close()
		m.env["OTEL_EXPORTER_OTLP_ENDPOINT"] = srv.URL
		_ = os.RemoveAll(filepath.Join(m.env["XDG_CACHE_HOME"], "ccpipe", "otel")) // every event sent
		code, _, stderr := m.run(args...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		return rl, stderr
	}
	segs := func() []string {
		files, _ := filepath.Glob(filepath.Join(m.env["XDG_CACHE_HOME"], "ccpipe", "otel-events*.pieces", "*.pieces"))
		return files
	}
	send() // cold: the first segment
	first := segs()
	if len(first) != 1 {
		t.Fatalf("segments after the first run: %v", first)
	}
	if damaged {
		b, err := os.ReadFile(first[0])
		if err != nil {
			t.Fatal(err)
		}
		for i := 7; i < len(b); i += 97 {
			b[i] ^= 0x55
		}
		if err := os.WriteFile(first[0], b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// Every session but one changed, and sent (as cron sends the
	// sessions of the last day): read again, its pieces written anew.
	mains, _ := filepath.Glob(filepath.Join(dir, "*", "*.jsonl"))
	earlier := time.Now().Add(-10 * time.Minute)
	var changed []string
	for _, p := range mains {
		if !strings.Contains(p, "c0a1f004") {
			if err := os.Chtimes(p, earlier, earlier); err != nil {
				t.Fatal(err)
			}
			changed = append(changed, p)
		}
	}
	cache.Settle()
	send(changed...)
	second := segs()
	if len(second) != 2 {
		t.Fatalf("segments after the second run: %v, want 2", second)
	}
	// The first segment an hour old: removed when no entry names it.
	old := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(first[0], old, old); err != nil {
		t.Fatal(err)
	}
	slow, _ := send("--no-cache")
	rl, stderr := send("--cache-stats")
	if got, want := rl.byPath(), slow.byPath(); got != want {
		t.Errorf("from the moved pieces: the requests differ from --no-cache's:\n%s", golden.Diff(want, got))
	}
	if rl.resources <= slow.resources || strings.Contains(stderr, "did not read back") {
		t.Errorf("%d resources, %d without pieces (stderr %s)", rl.resources, slow.resources, stderr)
	}
	now := segs()
	if slices.Contains(now, first[0]) {
		t.Errorf("segments %v: the first, %s, is still there", now, filepath.Base(first[0]))
	}
	// Moved: the second run's segment alone; dropped (damaged): the
	// session's pieces built by the last run, in a segment of its own.
	if want := map[bool]int{false: 1, true: 2}[damaged]; len(now) != want {
		t.Errorf("segments %v, want %d", now, want)
	}
}

// TestDryRunStdinEntries: transcript entries piped in (cc-entries output)
// are read as the transcripts named by path are, stdout and stderr byte
// for byte: cc-entries --subagents of the real CLI's corpora, and a
// transcript piped raw whose file-history-snapshot lines name no session
// (c0a1f007: some of its lines carry a session_id beside sessionId, too).
// records.Classify says what is an entry; only other records are skipped,
// each counted (the first ones named, then how many in all).
func TestDryRunStdinEntries(t *testing.T) {
	forks := filepath.Join("..", "..", "..", "testdata", "corpus-fork", "claude", "projects")
	gamma := filepath.Join(corpus, "-home-dev-projects-gamma", "c0a1f007-0000-4000-8000-000000000007.jsonl")
	run := func(stdin string, args ...string) (int, string, string) {
		m := newMachine(t, "http://127.0.0.1:1")
		var out, errb bytes.Buffer
		sys := cli.System{Getenv: func(k string) string { return m.env[k] }}
		var in io.Reader
		if stdin != "" {
			in = strings.NewReader(stdin)
		}
		code := RunWith(sys, append([]string{"--dry-run"}, args...), in, &out, &errb)
		return code, out.String(), errb.String()
	}
	entries := func(paths []string) string {
		var out, errb bytes.Buffer
		sys := cli.System{Getenv: func(k string) string { return map[string]string{"XDG_CACHE_HOME": t.TempDir()}[k] }}
		if code := ccentries.RunWith(sys, append([]string{"--subagents"}, paths...), nil, &out, &errb); code != 0 {
			t.Fatalf("cc-entries: exit %d: %s", code, errb.String())
		}
		return out.String()
	}
	raw, err := os.ReadFile(gamma)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `{"type":"file-history-snapshot"`) {
		t.Fatal("c0a1f007 has no file-history-snapshot line: the test would prove nothing")
	}
	for _, dir := range []string{corpus, forks} {
		paths, err := filepath.Glob(filepath.Join(dir, "*", "*.jsonl"))
		if err != nil || len(paths) < 2 {
			t.Fatalf("%s: %v %v", dir, paths, err)
		}
		t.Run(filepath.Base(filepath.Dir(filepath.Dir(dir))), func(t *testing.T) {
			code, out, stderr := run("", paths...)
			if code != 0 || !strings.Contains(out, "claude_code.api_request") {
				t.Fatalf("by path: exit %d, stderr %s", code, stderr)
			}
			if c, o, e := run(entries(paths)); c != code || o != out || e != stderr {
				t.Errorf("cc-entries --subagents piped in: exit %d, stderr %q, stdout the same: %v; by path exit %d, stderr %q", c, e, o == out, code, stderr)
			}
		})
	}
	code, out, stderr := run("", gamma)
	if c, o, e := run(string(raw)); c != code || o != out || e != stderr {
		t.Errorf("c0a1f007 piped raw: exit %d, stderr %q, stdout the same: %v; by path exit %d, stderr %q", c, e, o == out, code, stderr)
	}
	// Records that are no transcript entry: skipped, counted, the rest read.
	fact := `{"session_id":"c0a1f007-0000-4000-8000-000000000007","uuid":"u","kind":"prompt"}` + "\n"
	lines := strings.Count(string(raw), "\n")
	c, o, e := run(string(raw) + strings.Repeat(fact, 12))
	want := ""
	for i := 1; i <= 10; i++ {
		want += fmt.Sprintf("cc-otel: <stdin>:%d: not a transcript entry, skipped\n", lines+i)
	}
	want += "cc-otel: <stdin>: 2 more warnings about stdin lines not shown (12 in all)\n"
	if c != code || o != out || e != want {
		t.Errorf("c0a1f007 and 12 facts: exit %d, stdout the same: %v, stderr\n%s\nwant\n%s", c, o == out, e, want)
	}
}
