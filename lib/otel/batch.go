package otel

import (
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

// Resource is what every export's resource says besides service.version
// (which is each session's Claude Code version): host.arch and os.type
// of this machine, the provenance mark, then OTEL_RESOURCE_ATTRIBUTES
// (which win, as in the SDK).
type Resource struct {
	HostArch, OSType string
	Extra            [][2]string
}

// batch is the events of one export request of each signal.
type batch struct {
	res     Resource
	logs    plog.Logs
	metrics pmetric.Metrics
	// by Claude Code version: the scope of each signal
	logScopes map[string]plog.ScopeLogs
	metScopes map[string]*metricScope
}

type metricScope struct {
	session, tokens, cost pmetric.NumberDataPointSlice
	sm                    pmetric.ScopeMetrics
}

func newBatch(res Resource) *batch {
	return &batch{res: res, logs: plog.NewLogs(), metrics: pmetric.NewMetrics(),
		logScopes: map[string]plog.ScopeLogs{}, metScopes: map[string]*metricScope{}}
}

func (r Resource) fill(m pcommon.Map, version string) {
	m.PutStr("service.name", ServiceName)
	if version != "" {
		m.PutStr("service.version", version)
	}
	if r.HostArch != "" {
		m.PutStr("host.arch", r.HostArch)
	}
	if r.OSType != "" {
		m.PutStr("os.type", r.OSType)
	}
	m.PutStr(ProvenanceKey, ProvenanceValue)
	for _, kv := range r.Extra {
		m.PutStr(kv[0], kv[1])
	}
}

func (b *batch) logScope(version string) plog.ScopeLogs {
	if sl, ok := b.logScopes[version]; ok {
		return sl
	}
	rl := b.logs.ResourceLogs().AppendEmpty()
	b.res.fill(rl.Resource().Attributes(), version)
	sl := rl.ScopeLogs().AppendEmpty()
	sl.Scope().SetName(EventsScope)
	sl.Scope().SetVersion(version)
	b.logScopes[version] = sl
	return sl
}

func (b *batch) metricScope(version string) *metricScope {
	if ms, ok := b.metScopes[version]; ok {
		return ms
	}
	rm := b.metrics.ResourceMetrics().AppendEmpty()
	b.res.fill(rm.Resource().Attributes(), version)
	sm := rm.ScopeMetrics().AppendEmpty()
	sm.Scope().SetName(MetricsScope)
	sm.Scope().SetVersion(version)
	ms := &metricScope{sm: sm}
	b.metScopes[version] = ms
	return ms
}

// sum appends a delta monotonic sum metric (as Claude Code sends all of
// them) and returns its points.
func (ms *metricScope) sum(name, unit, desc string) pmetric.NumberDataPointSlice {
	m := ms.sm.Metrics().AppendEmpty()
	m.SetName(name)
	m.SetUnit(unit)
	m.SetDescription(desc)
	s := m.SetEmptySum()
	s.SetAggregationTemporality(pmetric.AggregationTemporalityDelta)
	s.SetIsMonotonic(true)
	return s.DataPoints()
}

func putAttrs(m pcommon.Map, attrs []Attr) {
	for _, a := range attrs {
		switch a.Kind {
		case KindInt:
			m.PutInt(a.Key, a.Int)
		case KindFloat:
			m.PutDouble(a.Key, a.Float)
		default:
			m.PutStr(a.Key, a.Str)
		}
	}
}

// common are the attributes Claude Code puts on every point and event
// that a transcript knows: user.id and session.id.
func common(m pcommon.Map, e *Event) {
	if e.UserID != "" {
		m.PutStr("user.id", e.UserID)
	}
	m.PutStr("session.id", e.SessionID)
}

// addLog appends e's log event.
func (b *batch) addLog(e *Event) {
	e.complete()
	lr := b.logScope(e.Version).LogRecords().AppendEmpty()
	ts := pcommon.NewTimestampFromTime(e.Time)
	lr.SetTimestamp(ts)
	lr.SetObservedTimestamp(ts)
	lr.Body().SetStr(eventBody(e.Name))
	m := lr.Attributes()
	m.EnsureCapacity(5 + len(e.Attrs))
	common(m, e)
	m.PutStr("event.name", e.Name)
	m.PutStr("event.timestamp", e.Time.UTC().Format("2006-01-02T15:04:05.000Z"))
	m.PutInt("event.sequence", e.Seq)
	putAttrs(m, e.Attrs)
}

// eventBody is the body of an event: its name with the claude_code.
// prefix (the names sent made once, not per event).
func eventBody(name string) string {
	switch name {
	case EventUserPrompt:
		return "claude_code." + EventUserPrompt
	case EventAPIRequest:
		return "claude_code." + EventAPIRequest
	case EventToolDecision:
		return "claude_code." + EventToolDecision
	case EventToolResult:
		return "claude_code." + EventToolResult
	}
	return "claude_code." + name
}

// hasPoints says e adds metric points: a session's start, an API
// request (the only events with an APIRequest).
func hasPoints(e *Event) bool { return e.SessionStart() || e.Name == EventAPIRequest }

// point appends one point of e to s (the metric made on first use): the
// delta of that one moment (start time = time), with e's common
// attributes and attrs.
func (ms *metricScope) point(s *pmetric.NumberDataPointSlice, name, unit, desc string, e *Event, v float64, attrs []Attr) {
	if *s == (pmetric.NumberDataPointSlice{}) {
		*s = ms.sum(name, unit, desc)
	}
	p := s.AppendEmpty()
	ts := pcommon.NewTimestampFromTime(e.Time)
	p.SetStartTimestamp(ts)
	p.SetTimestamp(ts)
	p.SetDoubleValue(v)
	m := p.Attributes()
	m.EnsureCapacity(2 + len(attrs))
	common(m, e)
	putAttrs(m, attrs)
}

// tokenTypes are the token.usage types, in the order Claude Code sends.
var tokenTypes = [...]string{"input", "output", "cacheRead", "cacheCreation"}

// addPoints appends e's metric points: 1 to session.count for a start;
// the four token counts and the cost for an API request.
func (b *batch) addPoints(e *Event) {
	e.complete()
	ms := b.metricScope(e.Version)
	if e.SessionStart() {
		ms.point(&ms.session, MetricSessionCount, "", "Count of CLI sessions started", e, 1, nil)
		return
	}
	a := e.API
	var buf [4]Attr
	attrs := append(buf[:0], S("model", a.Model))
	if a.QuerySource != "" {
		attrs = append(attrs, S("query_source", a.QuerySource))
	}
	if a.Effort != "" {
		attrs = append(attrs, S("effort", a.Effort))
	}
	if a.Priced {
		ms.point(&ms.cost, MetricCostUsage, "USD", "Cost of the Claude Code session", e, a.CostUSD, attrs)
	}
	for i, n := range [...]int64{a.Input, a.Output, a.CacheRead, a.CacheCreation} {
		ms.point(&ms.tokens, MetricTokenUsage, "tokens", "Number of tokens used", e, float64(n), append(attrs, S("type", tokenTypes[i])))
	}
}

func (b *batch) resetLogs() {
	b.logs = plog.NewLogs()
	clear(b.logScopes)
}

func (b *batch) resetMetrics() {
	b.metrics = pmetric.NewMetrics()
	clear(b.metScopes)
}
