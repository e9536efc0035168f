package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/commands/ccotel"
	"github.com/ccpipe/ccpipe/lib/internal/claudetest"
	"github.com/ccpipe/ccpipe/lib/internal/fakeapi"
)

// otlpSink is an OTLP/HTTP receiver (protobuf or JSON) that keeps every
// request it was sent.
type otlpSink struct {
	mu      sync.Mutex
	logs    []plog.Logs
	metrics []pmetric.Metrics
	bad     []string
}

func (s *otlpSink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	isJSON := strings.HasPrefix(r.Header.Get("Content-Type"), "application/json")
	s.mu.Lock()
	defer s.mu.Unlock()
	var err error
	switch r.URL.Path {
	case "/v1/logs":
		req := plogotlp.NewExportRequest()
		if isJSON {
			err = req.UnmarshalJSON(body)
		} else {
			err = req.UnmarshalProto(body)
		}
		s.logs = append(s.logs, req.Logs())
	case "/v1/metrics":
		req := pmetricotlp.NewExportRequest()
		if isJSON {
			err = req.UnmarshalJSON(body)
		} else {
			err = req.UnmarshalProto(body)
		}
		s.metrics = append(s.metrics, req.Metrics())
	}
	if err != nil {
		s.bad = append(s.bad, r.URL.Path+": "+err.Error())
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte("{}"))
}

// otelEvent is one log event: its name, scope, resource and attributes.
type otelEvent struct {
	name, scope string
	res, attrs  map[string]any
}

func (s *otlpSink) events() []otelEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []otelEvent
	for _, l := range s.logs {
		for i := 0; i < l.ResourceLogs().Len(); i++ {
			rl := l.ResourceLogs().At(i)
			for j := 0; j < rl.ScopeLogs().Len(); j++ {
				sl := rl.ScopeLogs().At(j)
				for k := 0; k < sl.LogRecords().Len(); k++ {
					lr := sl.LogRecords().At(k)
					out = append(out, otelEvent{name: lr.Body().AsString(), scope: sl.Scope().Name(),
						res: rl.Resource().Attributes().AsRaw(), attrs: lr.Attributes().AsRaw()})
				}
			}
		}
	}
	return out
}

// otelMetric is what a metric is, apart from its points.
type otelMetric struct {
	name, unit, desc, scope string
	temporality             pmetric.AggregationTemporality
	monotonic               bool
}

// metrics are each metric's shape and its points' sums by the attributes
// named in by.
func (s *otlpSink) metricSums(by ...string) (map[string]otelMetric, map[string]float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	shapes := map[string]otelMetric{}
	sums := map[string]float64{}
	for _, md := range s.metrics {
		for i := 0; i < md.ResourceMetrics().Len(); i++ {
			rm := md.ResourceMetrics().At(i)
			for j := 0; j < rm.ScopeMetrics().Len(); j++ {
				sm := rm.ScopeMetrics().At(j)
				for k := 0; k < sm.Metrics().Len(); k++ {
					m := sm.Metrics().At(k)
					if m.Type() != pmetric.MetricTypeSum {
						shapes[m.Name()] = otelMetric{name: m.Name(), unit: "not a sum"}
						continue
					}
					shapes[m.Name()] = otelMetric{name: m.Name(), unit: m.Unit(), desc: m.Description(), scope: sm.Scope().Name(),
						temporality: m.Sum().AggregationTemporality(), monotonic: m.Sum().IsMonotonic()}
					dps := m.Sum().DataPoints()
					for d := 0; d < dps.Len(); d++ {
						key := m.Name()
						for _, a := range by {
							if v, ok := dps.At(d).Attributes().Get(a); ok {
								key += " " + a + "=" + v.AsString()
							}
						}
						sums[key] += pointValue(dps.At(d))
					}
				}
			}
		}
	}
	return shapes, sums
}

func pointValue(p pmetric.NumberDataPoint) float64 {
	if p.ValueType() == pmetric.NumberDataPointValueTypeInt {
		return float64(p.IntValue())
	}
	return p.DoubleValue()
}

// byName keeps the events called claude_code.<name>, keyed by the
// attribute key (several values joined).
func byName(evs []otelEvent, name string, key ...string) map[string]otelEvent {
	out := map[string]otelEvent{}
	for _, e := range evs {
		if e.name != "claude_code."+name {
			continue
		}
		var k []string
		for _, a := range key {
			k = append(k, fmt.Sprint(e.attrs[a]))
		}
		out[strings.Join(k, "|")] = e
	}
	return out
}

// sameAttr compares one attribute of two events: the same JSON value
// (an int and a float of one value differ; so do "1" and 1).
func sameAttr(a, b map[string]any, key string) bool {
	ja, _ := json.Marshal(a[key])
	jb, _ := json.Marshal(b[key])
	_, okA := a[key]
	_, okB := b[key]
	return okA == okB && bytes.Equal(ja, jb)
}

// TestOtelMatchesClaudeCode is issue 39's oracle: the real Claude Code
// 2.1.328 with telemetry on sends its OpenTelemetry to a local receiver;
// cc-otel over the transcript that run wrote sends to another; the
// api_request, user_prompt, tool_decision and tool_result events, the
// token and cost sums per model and type, and the metrics' names, units,
// descriptions and temporality must be the same.
func TestOtelMatchesClaudeCode(t *testing.T) {
	Require(t)
	live := &otlpSink{}
	liveSrv := httptest.NewServer(live)
	defer liveSrv.Close()
	turns := []fakeapi.Turn{
		{Blocks: []fakeapi.Block{fakeapi.Text("First."), fakeapi.ToolUse("Bash", map[string]any{"command": "echo otel-one"})},
			Usage: &fakeapi.Usage{InputTokens: 1200, OutputTokens: 150, CacheCreationInputTokens: 2000, CacheReadInputTokens: 30000}},
		{Match: "otel-one", Blocks: []fakeapi.Block{fakeapi.ToolUse("Bash", map[string]any{"command": "echo 'ünïcode' && exit 3"})},
			Usage: &fakeapi.Usage{InputTokens: 800, OutputTokens: 60, CacheCreationInputTokens: 500, CacheReadInputTokens: 32000,
				CacheCreation: &fakeapi.CacheCreation{Ephemeral5m: 100, Ephemeral1h: 400}}},
		{Match: "Exit code 3", Blocks: []fakeapi.Block{fakeapi.Text("Done.")},
			Usage: &fakeapi.Usage{InputTokens: 100, OutputTokens: 20, CacheReadInputTokens: 33000, Speed: "fast"}},
	}
	e := claudetest.New(t, claudetest.Config{Script: &fakeapi.Script{Turns: turns}})
	res := e.Headless(claudetest.Cmd{Prompt: "Please run the otel checks — twice 🙂", AllowedTools: []string{"Bash"},
		Env: []string{"CLAUDE_CODE_ENABLE_TELEMETRY=1", "OTEL_METRICS_EXPORTER=otlp", "OTEL_LOGS_EXPORTER=otlp",
			"OTEL_EXPORTER_OTLP_PROTOCOL=http/json", "OTEL_EXPORTER_OTLP_ENDPOINT=" + liveSrv.URL,
			"OTEL_METRIC_EXPORT_INTERVAL=500", "OTEL_LOGS_EXPORT_INTERVAL=200"}})
	if res.ExitCode != 0 {
		t.Fatalf("claude: exit %d: %s", res.ExitCode, res.Stderr)
	}
	e.WaitFor("the live api_request events", 20*time.Second, func() (bool, error) {
		return len(byName(live.events(), "api_request", "request_id")) == len(turns), nil
	})
	time.Sleep(time.Second) // the last metric interval

	back := &otlpSink{}
	backSrv := httptest.NewServer(back)
	defer backSrv.Close()
	env := map[string]string{"XDG_CACHE_HOME": filepath.Join(e.Root, "ccpipe-cache"), "OTEL_EXPORTER_OTLP_ENDPOINT": backSrv.URL,
		"OTEL_EXPORTER_OTLP_PROTOCOL": "http/json", "CLAUDE_CONFIG_DIR": e.ConfigDir}
	var out, errb bytes.Buffer
	sys := cli.System{Getenv: func(k string) string { return env[k] }, Home: e.Home}
	if code := ccotel.RunWith(sys, e.Transcripts(), nil, &out, &errb); code != 0 {
		t.Fatalf("cc-otel: exit %d: %s", code, errb.String())
	}
	if len(live.bad)+len(back.bad) > 0 {
		t.Fatalf("undecodable requests: %v %v", live.bad, back.bad)
	}
	liveEv, backEv := live.events(), back.events()

	// api_request: model, every token field, cost_usd to the bit.
	la, ba := byName(liveEv, "api_request", "request_id"), byName(backEv, "api_request", "request_id")
	if len(la) != len(turns) || len(ba) != len(la) {
		t.Fatalf("api_request events: live %d, cc-otel %d, want %d", len(la), len(ba), len(turns))
	}
	apiAttrs := []string{"session.id", "user.id", "event.name", "prompt.id", "model", "input_tokens", "output_tokens", "cache_read_tokens",
		"cache_creation_tokens", "cache_creation_5m_tokens", "cache_creation_1h_tokens", "cost_usd", "cost_usd_micros",
		"request_id", "speed", "query_source", "effort"}
	for id, l := range la {
		b := ba[id]
		for _, k := range apiAttrs {
			if !sameAttr(l.attrs, b.attrs, k) {
				t.Errorf("api_request %s: %s live %#v, cc-otel %#v", id, k, l.attrs[k], b.attrs[k])
			}
		}
	}
	// user_prompt, tool_decision, tool_result.
	for _, c := range []struct {
		name  string
		key   []string
		attrs []string
	}{
		{"user_prompt", []string{"message.uuid"}, []string{"session.id", "user.id", "event.name", "prompt.id", "prompt_length", "prompt", "prompt_text", "message.uuid"}},
		{"tool_decision", []string{"tool_use_id"}, []string{"session.id", "user.id", "event.name", "prompt.id", "decision", "tool_name", "tool_use_id", "request_id"}},
		{"tool_result", []string{"tool_use_id"}, []string{"session.id", "user.id", "event.name", "prompt.id", "tool_name", "tool_use_id", "success",
			"tool_input_size_bytes", "tool_result_size_bytes", "request_id"}},
	} {
		lv, bv := byName(liveEv, c.name, c.key...), byName(backEv, c.name, c.key...)
		if len(lv) == 0 || len(lv) != len(bv) {
			t.Errorf("%s: live %d events, cc-otel %d", c.name, len(lv), len(bv))
		}
		for id, l := range lv {
			b, ok := bv[id]
			if !ok {
				t.Errorf("%s %s: cc-otel sent none", c.name, id)
				continue
			}
			for _, k := range c.attrs {
				if !sameAttr(l.attrs, b.attrs, k) {
					t.Errorf("%s %s: %s live %#v, cc-otel %#v", c.name, id, k, l.attrs[k], b.attrs[k])
				}
			}
		}
	}
	// Every event: the same scope, service and attribute types.
	for _, evs := range [][]otelEvent{liveEv, backEv} {
		for _, ev := range evs {
			if ev.scope != "com.anthropic.claude_code.events" || ev.res["service.name"] != "claude-code" || ev.res["service.version"] != claudetest.Version {
				t.Errorf("%s: scope %q, resource %v", ev.name, ev.scope, ev.res)
			}
		}
	}

	// The metrics: names, units, descriptions, temporality; the token and
	// cost sums per model and type; one session.
	by := []string{"model", "type", "session.id", "user.id"}
	lshape, lsum := live.metricSums(by...)
	bshape, bsum := back.metricSums(by...)
	for name, b := range bshape {
		if l, ok := lshape[name]; !ok || l != b {
			t.Errorf("metric %s: live %+v, cc-otel %+v", name, l, b)
		}
	}
	for _, name := range []string{"claude_code.session.count", "claude_code.token.usage", "claude_code.cost.usage"} {
		if _, ok := bshape[name]; !ok {
			t.Errorf("cc-otel sent no %s", name)
		}
	}
	var keys []string
	for k := range lsum {
		if !strings.HasPrefix(k, "claude_code.active_time") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	if len(keys) < 6 {
		t.Errorf("live sums: %v", lsum)
	}
	for _, k := range keys {
		if l, b := lsum[k], bsum[k]; math.Abs(l-b) > 1e-12*math.Max(1, math.Abs(l)) {
			t.Errorf("sum %s: live %v, cc-otel %v", k, l, b)
		}
	}
	for k := range bsum {
		if _, ok := lsum[k]; !ok {
			t.Errorf("cc-otel sums %s = %v; live has no such series", k, bsum[k])
		}
	}
	if t.Failed() {
		dump := filepath.Join(t.TempDir(), "events.txt")
		var b strings.Builder
		for _, ev := range append(liveEv, backEv...) {
			fmt.Fprintf(&b, "%s %v\n", ev.name, ev.attrs)
		}
		_ = os.WriteFile(dump, []byte(b.String()), 0o644)
		t.Logf("events: %s\n%s", dump, b.String())
	}
}
