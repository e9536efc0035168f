package collectortest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/provider/fileprovider"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/exporter/debugexporter"
	"go.opentelemetry.io/collector/otelcol"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/service/telemetry/otelconftelemetry"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/commands/ccextract"
	"github.com/ccpipe/ccpipe/lib/commands/ccotel"
)

// The corpus the real Claude Code wrote.
var corpus = filepath.Join("..", "..", "..", "testdata", "corpus", "claude", "projects")

// sink is the test's own exporter: it keeps what the collector's
// pipelines hand it.
type sink struct {
	mu      sync.Mutex
	logs    []plog.Logs
	metrics []pmetric.Metrics
	// file, when set, gets each batch as the contrib file exporter writes
	// it (format json): one OTLP JSON export request a line.
	file *os.File
	err  error
}

func (s *sink) write(b []byte, err error) {
	if s.file == nil {
		return
	}
	if err == nil {
		_, err = s.file.Write(append(b, '\n'))
	}
	if err != nil && s.err == nil {
		s.err = err
	}
}

func (s *sink) Start(context.Context, component.Host) error { return nil }
func (s *sink) Shutdown(context.Context) error              { return nil }
func (s *sink) Capabilities() consumer.Capabilities         { return consumer.Capabilities{} }

// keep runs add (which keeps a batch) and writes the batch, under the lock.
func (s *sink) keep(add func(), b []byte, err error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	add()
	s.write(b, err)
	return nil
}

func (s *sink) ConsumeLogs(_ context.Context, l plog.Logs) error {
	c := plog.NewLogs()
	l.CopyTo(c)
	b, err := (&plog.JSONMarshaler{}).MarshalLogs(c)
	return s.keep(func() { s.logs = append(s.logs, c) }, b, err)
}

func (s *sink) ConsumeMetrics(_ context.Context, m pmetric.Metrics) error {
	c := pmetric.NewMetrics()
	m.CopyTo(c)
	b, err := (&pmetric.JSONMarshaler{}).MarshalMetrics(c)
	return s.keep(func() { s.metrics = append(s.metrics, c) }, b, err)
}

type sinkConfig struct{}

func sinkFactory(s *sink) exporter.Factory {
	return exporter.NewFactory(component.MustNewType("sink"), func() component.Config { return &sinkConfig{} },
		exporter.WithLogs(func(context.Context, exporter.Settings, component.Config) (exporter.Logs, error) {
			return s, nil
		}, component.StabilityLevelStable),
		exporter.WithMetrics(func(context.Context, exporter.Settings, component.Config) (exporter.Metrics, error) {
			return s, nil
		}, component.StabilityLevelStable))
}

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

const config = `receivers:
  otlp:
    protocols:
      grpc: {endpoint: "%s"}
      http: {endpoint: "%s"}
exporters:
  debug: {verbosity: basic}
  sink: {}
service:
  telemetry:
    metrics: {level: none}
  pipelines:
    logs: {receivers: [otlp], exporters: [debug, sink]}
    metrics: {receivers: [otlp], exporters: [debug, sink]}
`

// collector is an OpenTelemetry Collector built from the collector's own
// modules (one release): the OTLP receiver, the debug exporter and the
// test's sink, configured from a YAML file as a deployed one is.
type collector struct {
	grpc, http string
	sink       *sink
	logs       *observer.ObservedLogs
	col        *otelcol.Collector
	done       chan error
}

func startCollector(t *testing.T, s *sink) *collector {
	t.Helper()
	c := &collector{grpc: freePort(t), http: freePort(t), sink: s, done: make(chan error, 1)}
	path := filepath.Join(t.TempDir(), "collector.yaml")
	if err := os.WriteFile(path, fmt.Appendf(nil, config, c.grpc, c.http), 0o600); err != nil {
		t.Fatal(err)
	}
	core, logs := observer.New(zapcore.InfoLevel)
	c.logs = logs
	factories := func() (otelcol.Factories, error) {
		var f otelcol.Factories
		var err error
		if f.Receivers, err = otelcol.MakeFactoryMap(otlpreceiver.NewFactory()); err != nil {
			return f, err
		}
		if f.Exporters, err = otelcol.MakeFactoryMap(debugexporter.NewFactory(), sinkFactory(c.sink)); err != nil {
			return f, err
		}
		f.Telemetry = otelconftelemetry.NewFactory()
		return f, nil
	}
	col, err := otelcol.NewCollector(otelcol.CollectorSettings{
		BuildInfo:               component.BuildInfo{Command: "otelcol-ccpipe-test", Version: "test"},
		Factories:               factories,
		DisableGracefulShutdown: true,
		SkipSettingGRPCLogger:   true,
		LoggingOptions:          []zap.Option{zap.WrapCore(func(zapcore.Core) zapcore.Core { return core })},
		ConfigProviderSettings: otelcol.ConfigProviderSettings{ResolverSettings: confmap.ResolverSettings{
			URIs:              []string{"file:" + path},
			ProviderFactories: []confmap.ProviderFactory{fileprovider.NewFactory()},
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	c.col = col
	go func() { c.done <- col.Run(context.Background()) }()
	deadline := time.Now().Add(30 * time.Second)
	for col.GetState() != otelcol.StateRunning {
		select {
		case err := <-c.done:
			t.Fatalf("the collector stopped: %v\n%s", err, c.logText())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the collector did not start in 30 s\n%s", c.logText())
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Cleanup(func() {
		col.Shutdown()
		if err := <-c.done; err != nil {
			t.Errorf("collector: %v", err)
		}
	})
	return c
}

func (c *collector) logText() string {
	var b strings.Builder
	for _, e := range c.logs.All() {
		fmt.Fprintf(&b, "%s %s %v\n", e.Level, e.Message, e.ContextMap())
	}
	return b.String()
}

// debugCount sums a field of the debug exporter's log lines with message
// msg ("Logs" or "Metrics").
func (c *collector) debugCount(msg, field string) int64 {
	var n int64
	for _, e := range c.logs.FilterMessage(msg).All() {
		if v, ok := e.ContextMap()[field].(int64); ok {
			n += v
		}
	}
	return n
}

// seen is what a run delivered: one line per log record and per metric
// point (name, time, attributes, value), and the events' cost.
type seen struct {
	lines    []string
	events   map[string]int // log records by body
	points   map[string]int // metric points by metric name
	costLogs float64        // sum of api_request cost_usd
	costSum  float64        // sum of claude_code.cost.usage points
}

func newSeen() *seen { return &seen{events: map[string]int{}, points: map[string]int{}} }

func (s *seen) addLogs(l plog.Logs) {
	for _, rl := range l.ResourceLogs().All() {
		res, _ := json.Marshal(rl.Resource().Attributes().AsRaw())
		for _, sl := range rl.ScopeLogs().All() {
			for _, lr := range sl.LogRecords().All() {
				a, _ := json.Marshal(lr.Attributes().AsRaw())
				body := lr.Body().Str()
				s.lines = append(s.lines, "log "+sl.Scope().Name()+" "+body+" "+lr.Timestamp().String()+" "+string(a)+" "+string(res))
				s.events[body]++
				if body == "claude_code.api_request" {
					if v, ok := lr.Attributes().Get("cost_usd"); ok {
						s.costLogs += v.Double()
					}
				}
			}
		}
	}
}

func (s *seen) addMetrics(m pmetric.Metrics) {
	for _, rm := range m.ResourceMetrics().All() {
		res, _ := json.Marshal(rm.Resource().Attributes().AsRaw())
		for _, sm := range rm.ScopeMetrics().All() {
			for _, mt := range sm.Metrics().All() {
				sum := mt.Sum()
				for _, p := range sum.DataPoints().All() {
					a, _ := json.Marshal(p.Attributes().AsRaw())
					s.lines = append(s.lines, fmt.Sprintf("point %s %s %s %s %v %v %s %g %s %s", sm.Scope().Name(), mt.Name(), mt.Unit(),
						sum.AggregationTemporality(), sum.IsMonotonic(), p.Timestamp(), a, p.DoubleValue(), res, mt.Type()))
					s.points[mt.Name()]++
					if mt.Name() == "claude_code.cost.usage" {
						s.costSum += p.DoubleValue()
					}
				}
			}
		}
	}
}

func (s *seen) text() string {
	sort.Strings(s.lines)
	return strings.Join(s.lines, "\n")
}

func run(t *testing.T, env map[string]string, run func(cli.System, []string, *bytes.Buffer, *bytes.Buffer) int, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	sys := cli.System{Getenv: func(k string) string { return env[k] }}
	if code := run(sys, args, &out, &errb); code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errb.String())
	}
	return out.String()
}

func otelRun(sys cli.System, args []string, out, errb *bytes.Buffer) int {
	return ccotel.RunWith(sys, args, nil, out, errb)
}

func extractRun(sys cli.System, args []string, out, errb *bytes.Buffer) int {
	return ccextract.RunWith(sys, args, nil, out, errb)
}

// dryRun is what cc-otel says it would send (its --dry-run OTLP JSON).
func dryRun(t *testing.T) *seen {
	t.Helper()
	out := run(t, map[string]string{"XDG_CACHE_HOME": t.TempDir()}, otelRun, "--dry-run", corpus)
	s := newSeen()
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		switch {
		case strings.HasPrefix(line, `{"resourceLogs"`):
			req := plogotlp.NewExportRequest()
			if err := req.UnmarshalJSON([]byte(line)); err != nil {
				t.Fatal(err)
			}
			s.addLogs(req.Logs())
		case strings.HasPrefix(line, `{"resourceMetrics"`):
			req := pmetricotlp.NewExportRequest()
			if err := req.UnmarshalJSON([]byte(line)); err != nil {
				t.Fatal(err)
			}
			s.addMetrics(req.Metrics())
		default:
			t.Fatalf("--dry-run wrote %.80q", line)
		}
	}
	return s
}

// extractCost is cc-extract usage --cost's total over the corpus: the
// cost the export must carry.
func extractCost(t *testing.T) (float64, int) {
	t.Helper()
	out := run(t, map[string]string{"XDG_CACHE_HOME": t.TempDir()}, extractRun, "usage", "--cost", corpus)
	total, n := 0.0, 0
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var u struct {
			CostUSD *float64 `json:"cost_usd"`
		}
		if err := json.Unmarshal([]byte(line), &u); err != nil {
			t.Fatal(err)
		}
		if u.CostUSD != nil {
			total += *u.CostUSD
		}
		n++
	}
	return total, n
}

// TestCollectorTakesEachProtocol: a real OpenTelemetry Collector takes
// cc-otel's export in each protocol, and what its pipelines hand on is
// what cc-otel meant to send (its --dry-run), with cc-extract's cost.
func TestCollectorTakesEachProtocol(t *testing.T) {
	want := dryRun(t)
	cost, requests := extractCost(t)
	if want.events["claude_code.api_request"] != requests || requests == 0 {
		t.Fatalf("--dry-run has %d api_request events, cc-extract usage %d messages", want.events["claude_code.api_request"], requests)
	}
	for _, name := range []string{"claude_code.user_prompt", "claude_code.tool_decision", "claude_code.tool_result"} {
		if want.events[name] == 0 {
			t.Errorf("--dry-run has no %s event: the corpus should give some", name)
		}
	}
	for _, proto := range []string{"http/protobuf", "http/json", "grpc"} {
		t.Run(strings.ReplaceAll(proto, "/", "-"), func(t *testing.T) {
			c := startCollector(t, &sink{})
			endpoint := "http://" + c.http
			if proto == "grpc" {
				endpoint = "http://" + c.grpc
			}
			env := map[string]string{"XDG_CACHE_HOME": t.TempDir(), "OTEL_EXPORTER_OTLP_ENDPOINT": endpoint,
				"OTEL_EXPORTER_OTLP_PROTOCOL": proto}
			out := run(t, env, otelRun, corpus)
			var sent int
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				var s struct {
					Signal           string
					Sent, Waiting    int
					Rejected         int64
					Protocol, Endpnt string
				}
				if err := json.Unmarshal([]byte(line), &s); err != nil {
					t.Fatal(err)
				}
				if s.Waiting != 0 || s.Rejected != 0 || s.Protocol != proto {
					t.Errorf("summary %s", line)
				}
				sent += s.Sent
			}
			got := newSeen()
			c.sink.mu.Lock()
			for _, l := range c.sink.logs {
				got.addLogs(l)
			}
			for _, m := range c.sink.metrics {
				got.addMetrics(m)
			}
			c.sink.mu.Unlock()

			if got.text() != want.text() {
				t.Errorf("the collector handed on %d records, --dry-run has %d", len(got.lines), len(want.lines))
			}
			if fmt.Sprint(got.events) != fmt.Sprint(want.events) || fmt.Sprint(got.points) != fmt.Sprint(want.points) {
				t.Errorf("events %v points %v, want %v %v", got.events, got.points, want.events, want.points)
			}
			if got.points["claude_code.token.usage"] != 4*requests || got.points["claude_code.cost.usage"] != requests {
				t.Errorf("points %v for %d API requests", got.points, requests)
			}
			if math.Abs(got.costLogs-cost) > 1e-9 || math.Abs(got.costSum-cost) > 1e-9 {
				t.Errorf("cost: events %.9f, metric %.9f, cc-extract usage %.9f", got.costLogs, got.costSum, cost)
			}
			// The debug exporter saw the same.
			var records int
			for _, n := range got.events {
				records += n
			}
			if n := c.debugCount("Logs", "log records"); n != int64(records) {
				t.Errorf("debug exporter: %d log records, the sink %d\n%s", n, records, c.logText())
			}
			if n := c.debugCount("Metrics", "data points"); n != int64(len(got.lines)-records) {
				t.Errorf("debug exporter: %d data points, the sink %d", n, len(got.lines)-records)
			}
			if sent == 0 {
				t.Errorf("cc-otel says it sent nothing: %s", out)
			}
		})
	}
}
