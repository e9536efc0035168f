package collectortest

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	benchcorpus "github.com/ccpipe/ccpipe/bench/corpus"
)

// genCorpus writes a small synthetic config dir (bench/gen's generator:
// several models, days, subagents and a fork) and returns its projects.
func genCorpus(t *testing.T, seed uint64) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "claude")
	if _, err := benchcorpus.Generate(context.Background(), benchcorpus.Options{Out: dir, Size: 3 << 20, Sessions: 24, Seed: seed,
		HugeLine: -1, Giants: -1, Workers: 1}); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "projects")
}

type costKey struct{ person, model, day string }

// TestTeamCostQuery: two machines, each with its own user.email, send
// their history through one collector, whose file (written as the file
// exporter writes it) the docs' DuckDB query turns into cost per person,
// model and day: the same as cc-extract usage's on each one's
// transcripts.
func TestTeamCostQuery(t *testing.T) {
	sql := docQuery(t)
	out := t.TempDir()
	f, err := os.Create(filepath.Join(out, "claude-code.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	s := &sink{file: f}
	c := startCollector(t, s)
	machines := []struct {
		person, proto string
		paths         []string
	}{
		{"ana@example.com", "http/protobuf", []string{corpus, genCorpus(t, 1)}},
		{"ben@example.com", "grpc", []string{genCorpus(t, 2)}},
	}
	want := map[costKey]float64{}
	wantN := map[costKey]int{}
	for _, m := range machines {
		endpoint := "http://" + c.http
		if m.proto == "grpc" {
			endpoint = "http://" + c.grpc
		}
		env := map[string]string{"XDG_CACHE_HOME": t.TempDir(), "OTEL_EXPORTER_OTLP_ENDPOINT": endpoint,
			"OTEL_EXPORTER_OTLP_PROTOCOL": m.proto, "OTEL_RESOURCE_ATTRIBUTES": "user.email=" + m.person + ",host.name=" + m.person}
		run(t, env, otelRun, m.paths...)
		sums := run(t, map[string]string{"XDG_CACHE_HOME": t.TempDir()}, extractRun,
			append([]string{"usage", "--cost", "--sum", "day,model", "--tz", "UTC"}, m.paths...)...)
		for _, line := range strings.Split(strings.TrimSpace(sums), "\n") {
			var r struct {
				Date, Model      string
				CostUSD          *float64 `json:"cost_usd"`
				Messages         int
				UnpricedMessages int `json:"unpriced_messages"`
			}
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatal(err)
			}
			if r.CostUSD == nil || r.UnpricedMessages != 0 {
				t.Fatalf("cc-extract usage: an unpriced group: %s", line)
			}
			k := costKey{m.person, r.Model, r.Date}
			want[k], wantN[k] = *r.CostUSD, r.Messages
		}
	}
	if err := f.Close(); err != nil || s.err != nil {
		t.Fatal(err, s.err)
	}
	days, models := map[string]bool{}, map[string]bool{}
	for k := range want {
		days[k.day], models[k.model] = true, true
	}
	if len(days) < 2 || len(models) < 2 {
		t.Fatalf("the corpora give %d days and %d models: too few to group", len(days), len(models))
	}

	rows := duckQuery(t, out, sql)
	t.Logf("%d rows: %d people, %d days, %d models", len(rows), len(machines), len(days), len(models))
	got := map[costKey]float64{}
	for _, r := range rows {
		k := costKey{str(r["person"]), str(r["model"]), str(r["day"])}
		cost, err := strconv.ParseFloat(str(r["cost_usd"]), 64)
		if err != nil {
			t.Fatalf("row %v: cost_usd: %v", r, err)
		}
		n, _ := strconv.Atoi(str(r["requests"]))
		if _, dup := got[k]; dup {
			t.Errorf("row %v twice", k)
		}
		got[k] = cost
		if n != wantN[k] {
			t.Errorf("%v: %d api_request events, cc-extract usage counts %d messages", k, n, wantN[k])
		}
	}
	var keys []costKey
	for k := range want {
		keys = append(keys, k)
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		return a.day+a.person+a.model < b.day+b.person+b.model
	})
	for _, k := range keys {
		g, gok := got[k]
		w, wok := want[k]
		// The same costs summed in another order: equal to a nano-dollar.
		if !gok || !wok || math.Abs(g-w) > 1e-9 {
			t.Errorf("%s %s %s: the query says %v (%v), cc-extract usage %v (%v)", k.day, k.person, k.model, g, gok, w, wok)
		}
	}
	if len(rows) != len(want) {
		t.Errorf("the query gave %d rows, cc-extract usage %d groups", len(rows), len(want))
	}
}
