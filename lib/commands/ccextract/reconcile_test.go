package ccextract

import (
	"bytes"
	"encoding/json"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/internal/claudetest"
)

// reconciled is what usage --sum session --cost says of Claude Code's own
// figure for a session.
type reconciled struct {
	SessionID  string   `json:"session_id"`
	CostUSD    float64  `json:"cost_usd"`
	Recorded   *float64 `json:"recorded_cost_usd"`
	Difference *float64 `json:"cost_difference_usd"`
	Reasons    []string `json:"difference_reasons"`
}

func reconcileRun(t *testing.T, args ...string) []reconciled {
	t.Helper()
	var out, errb bytes.Buffer
	if code := Run(append([]string{"usage", "--cost", "--sum", "session"}, args...), nil, &out, &errb); code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errb.String())
	}
	var rows []reconciled
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var r reconciled
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		rows = append(rows, r)
	}
	return rows
}

// TestRecordedCostReconciled: on every session of testdata's real-CLI
// corpora (written by Claude Code 2.1.328), usage --sum session carries
// the totalCostUSD of the session's last cost-state as recorded_cost_usd,
// to the bit, and every session whose recorded cost differs from ccpipe's
// has a reason: c0a1f003's /compact (a call no transcript holds) and the
// forks of corpus-fork, whose figure starts from the original's running
// total. The others (every pricing oracle session, each read alone, since
// they share message ids) differ by nothing and give no reason.
func TestRecordedCostReconciled(t *testing.T) {
	var rows []reconciled
	want := map[string][]string{}
	for _, dir := range []string{"corpus", "corpus-fork"} {
		mains, _ := filepath.Glob("../../../testdata/" + dir + "/claude/projects/*/*.jsonl")
		for _, r := range reconcileRun(t, mains...) {
			m, _ := filepath.Glob("../../../testdata/" + dir + "/claude/projects/*/" + r.SessionID + ".jsonl")
			if len(m) != 1 {
				t.Fatalf("%s: no transcript", r.SessionID)
			}
			if got, _ := claudetest.CostState(t, m[0]); r.Recorded == nil || *r.Recorded != got {
				t.Errorf("%s: recorded_cost_usd %v, the last cost-state %v", r.SessionID, r.Recorded, got)
			}
			rows = append(rows, r)
		}
	}
	pricing, _ := filepath.Glob("../../../testdata/corpus-pricing/*.jsonl")
	for _, f := range pricing {
		rs := reconcileRun(t, f)
		if got, _ := claudetest.CostState(t, f); len(rs) != 1 || rs[0].Recorded == nil || *rs[0].Recorded != got {
			t.Errorf("%s: %+v, the last cost-state %v", f, rs, got)
		}
		rows = append(rows, rs...)
	}
	if len(rows) != 7+4+33 {
		t.Fatalf("%d sessions, want 44", len(rows))
	}
	want["c0a1f003-0000-4000-8000-000000000003"] = []string{"compaction"}
	for _, id := range []string{"f0a1f002-0000-4000-8000-000000000002", "f0a1f003-0000-4000-8000-000000000003", "f0a1f004-0000-4000-8000-000000000004"} {
		want[id] = []string{"fork_base"}
	}
	differ := 0
	for _, r := range rows {
		d := *r.Recorded - r.CostUSD
		if r.Difference == nil || math.Float64bits(*r.Difference) != math.Float64bits(d) {
			t.Errorf("%s: cost_difference_usd %v, want %v", r.SessionID, r.Difference, d)
		}
		if d != 0 {
			differ++
			if len(r.Reasons) == 0 {
				t.Errorf("%s: recorded $%v, ccpipe $%v, and no reason", r.SessionID, *r.Recorded, r.CostUSD)
			}
		}
		if w := want[r.SessionID]; !reflect.DeepEqual(r.Reasons, append([]string{}, w...)) {
			t.Errorf("%s: difference_reasons %q, want %q", r.SessionID, r.Reasons, w)
		}
	}
	if differ != len(want) {
		t.Errorf("%d sessions differ, want %d", differ, len(want))
	}
}
