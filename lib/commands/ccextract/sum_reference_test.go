package ccextract

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/internal/claudetest"
)

// refMsg is one API message as the reference reads it: straight from the
// transcript lines with encoding/json, none of lib/extract's code.
type refMsg struct {
	ts, model, session, cwd string
	in, out, cr, cc         int64
}

// referenceMessages reads every assistant message of files once (by its
// message id and request id, the copy with the most tokens), leaving out
// Claude Code's synthetic and API-error records, which are no API call.
func referenceMessages(t *testing.T, files []string) []refMsg {
	t.Helper()
	byKey := map[string]int{}
	var msgs []refMsg
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var r struct {
				Type       string `json:"type"`
				UUID       string `json:"uuid"`
				Timestamp  string `json:"timestamp"`
				SessionID  string `json:"sessionId"`
				Cwd        string `json:"cwd"`
				RequestID  string `json:"requestId"`
				RequestRef string `json:"requestRef"`
				APIError   bool   `json:"isApiErrorMessage"`
				Message    *struct {
					ID    string `json:"id"`
					Model string `json:"model"`
					Usage *struct {
						In  int64 `json:"input_tokens"`
						Out int64 `json:"output_tokens"`
						CR  int64 `json:"cache_read_input_tokens"`
						CC  int64 `json:"cache_creation_input_tokens"`
					} `json:"usage"`
				} `json:"message"`
			}
			if json.Unmarshal(sc.Bytes(), &r) != nil || r.Type != "assistant" || r.Message == nil || r.Message.Usage == nil ||
				r.Message.Model == "<synthetic>" || r.APIError {
				continue
			}
			u := r.Message.Usage
			m := refMsg{ts: r.Timestamp, model: r.Message.Model, session: r.SessionID, cwd: r.Cwd, in: u.In, out: u.Out, cr: u.CR, cc: u.CC}
			key := "uuid:" + r.UUID
			if r.Message.ID != "" {
				key = r.Message.ID + "\x00" + r.RequestID
				if r.RequestID == "" {
					key += r.RequestRef
				}
			}
			if i, ok := byKey[key]; ok {
				if m.in+m.out+m.cr+m.cc > msgs[i].in+msgs[i].out+msgs[i].cr+msgs[i].cc {
					m.ts = msgs[i].ts // the message's first record dates it
					msgs[i] = m
				}
				continue
			}
			byKey[key] = len(msgs)
			msgs = append(msgs, m)
		}
		fh.Close()
		if err := sc.Err(); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
	return msgs
}

// refKey is a message's group under keys, computed with the time package
// alone: the date in loc, the week's first day counting back to
// weekStart, the month.
func refKey(m refMsg, keys []string, loc *time.Location, weekStart time.Weekday) string {
	ts, _ := time.Parse(time.RFC3339Nano, m.ts)
	local := ts.In(loc)
	var parts []string
	for _, k := range keys {
		switch k {
		case "day":
			parts = append(parts, local.Format("2006-01-02"))
		case "week":
			for local.Weekday() != weekStart {
				local = local.AddDate(0, 0, -1)
			}
			parts = append(parts, local.Format("2006-01-02"))
			local = ts.In(loc)
		case "month":
			parts = append(parts, local.Format("2006-01"))
		case "model":
			parts = append(parts, m.model)
		case "session":
			parts = append(parts, m.session)
		case "project":
			parts = append(parts, m.cwd)
		}
	}
	return strings.Join(parts, "|")
}

// referenceFiles are transcripts written by the real Claude Code: the
// corpus (2026-11-30, a Monday, in November) and the pricing corpus
// (2026-12-01, a Tuesday, in December; 33 sessions, 20-odd models, a
// subagent), so that days, weeks and months fall apart, and more so in
// zones far from UTC.
func referenceFiles(t *testing.T) []string {
	var files []string
	for _, g := range []string{"../../../testdata/corpus/claude/projects/*/*.jsonl", "../../../testdata/corpus/claude/projects/*/*/subagents/*.jsonl",
		"../../../testdata/corpus-pricing/*.jsonl", "../../../testdata/corpus-pricing/*/subagents/*.jsonl"} {
		m, _ := filepath.Glob(g)
		files = append(files, m...)
	}
	if len(files) < 40 {
		t.Fatalf("%d transcripts, want the two corpora", len(files))
	}
	return uniqueIDs(t, files)
}

// uniqueIDs copies the transcripts with their message and request ids
// made unique per session: the fake API that stood in for Anthropic's
// numbered them msg_fake_t000, ... in every session, where real ids never
// repeat, and a message counts once across the whole input.
func uniqueIDs(t *testing.T, files []string) []string {
	dir := t.TempDir()
	var out []string
	for i, f := range files {
		sid := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		if filepath.Base(filepath.Dir(f)) == "subagents" {
			sid = filepath.Base(filepath.Dir(filepath.Dir(f)))
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b = bytes.ReplaceAll(b, []byte(`"msg_fake_`), []byte(`"msg_`+sid+`_`))
		b = bytes.ReplaceAll(b, []byte(`"req_fake_`), []byte(`"req_`+sid+`_`))
		sub := filepath.Join(dir, fmt.Sprint(i))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(sub, filepath.Base(f))
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

// TestSumReference checks usage --sum day,model, week, month and the
// other composite groups against the reference computed above, to the
// token and message, in several zones and week starts.
func TestSumReference(t *testing.T) {
	files := referenceFiles(t)
	msgs := referenceMessages(t, files)
	for _, tc := range []struct {
		sum, tz, weekStart string
	}{
		{"day,model", "UTC", ""},
		{"day,model", "Australia/Brisbane", ""}, // UTC+10: 14:00Z is the next day
		{"week", "Pacific/Pago_Pago", ""},       // UTC-11: 2026-11-30 10:46Z is a Sunday, the week before
		{"week", "UTC", "tuesday"},
		{"week", "Asia/Tokyo", "tuesday"},
		{"month", "UTC", ""},
		{"month", "Pacific/Honolulu", ""}, // UTC-10: 2026-12-01 before 10:00Z is November
		{"project,day", "Asia/Tokyo", ""},
		{"session,model", "UTC", ""},
		{"model,week,month", "America/New_York", "wednesday"},
	} {
		name := strings.Join([]string{tc.sum, tc.tz, tc.weekStart}, " ")
		t.Run(name, func(t *testing.T) {
			loc, err := time.LoadLocation(tc.tz)
			if err != nil {
				t.Skipf("no zone data: %v", err)
			}
			keys := strings.Split(tc.sum, ",")
			ws := time.Monday
			args := []string{"usage", "--sum", tc.sum, "--tz", tc.tz}
			if tc.weekStart != "" {
				ws, _ = weekday(tc.weekStart)
				args = append(args, "--week-start", tc.weekStart)
			}
			want := map[string][5]int64{}
			for _, m := range msgs {
				k := refKey(m, keys, loc, ws)
				w := want[k]
				w[0]++
				w[1] += m.in
				w[2] += m.out
				w[3] += m.cr
				w[4] += m.cc
				want[k] = w
			}
			var out, errb bytes.Buffer
			if code := RunWith(cli.System{}, append(args, files...), nil, &out, &errb); code != 0 {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			got := map[string][5]int64{}
			var order []string
			for _, line := range bytes.Split(bytes.TrimSpace(out.Bytes()), []byte("\n")) {
				var r map[string]any
				d := json.NewDecoder(bytes.NewReader(line))
				d.UseNumber()
				if err := d.Decode(&r); err != nil {
					t.Fatal(err)
				}
				var parts []string
				for _, k := range keys {
					field := map[string]string{"day": "date", "session": "session_id"}[k]
					if field == "" {
						field = k
					}
					parts = append(parts, fmt.Sprint(r[field]))
				}
				n := func(f string) int64 { v, _ := r[f].(json.Number).Int64(); return v }
				k := strings.Join(parts, "|")
				got[k] = [5]int64{n("messages"), n("input_tokens"), n("output_tokens"), n("cache_read_input_tokens"), n("cache_creation_input_tokens")}
				order = append(order, k)
				if n("total_tokens") != got[k][1]+got[k][2]+got[k][3]+got[k][4] {
					t.Errorf("%s: total_tokens %d is not the sum of the four", k, n("total_tokens"))
				}
			}
			if len(got) != len(want) {
				t.Errorf("%d groups, reference %d", len(got), len(want))
			}
			for k, w := range want {
				if got[k] != w {
					t.Errorf("%s: [messages input output cache_read cache_creation] %v, reference %v", k, got[k], w)
				}
			}
			if !strings.Contains(tc.sum, "session") && !sort.SliceIsSorted(order, func(i, j int) bool {
				return slices.Compare(strings.Split(order[i], "|"), strings.Split(order[j], "|")) < 0
			}) {
				t.Errorf("groups not in key order: %q", order)
			}
			if len(want) < 2 {
				t.Errorf("only %d group: the case tells nothing", len(want))
			}
		})
	}
}

// TestSumSessionModelCost checks that a composite group of one session
// still adds its charges as Claude Code's ledger does (in time order,
// subagents included): on every session of the pricing corpus answered by
// one model, --cost --sum session,model equals the totalCostUSD Claude
// Code wrote, to the bit. (Claude Code's own per-model ledger, modelUsage,
// files an advisor iteration under the advisor's model, where --sum model
// files the whole message under the model that answered; so it is not the
// oracle here.)
func TestSumSessionModelCost(t *testing.T) {
	files, _ := filepath.Glob("../../../testdata/corpus-pricing/*.jsonl")
	compared := 0
	for _, f := range files {
		want, _ := claudetest.CostState(t, f)
		var out, errb bytes.Buffer
		if code := RunWith(cli.System{}, []string{"usage", "--cost", "--sum", "session,model", "--subagents", f}, nil, &out, &errb); code != 0 {
			t.Fatalf("%s: exit %d: %s", f, code, errb.String())
		}
		lines := bytes.Split(bytes.TrimSpace(out.Bytes()), []byte("\n"))
		if len(lines) != 1 {
			continue // several models: their sum is in another float order
		}
		var r struct {
			SessionID *string `json:"session_id"`
			Model     *string `json:"model"`
			CostUSD   float64 `json:"cost_usd"`
		}
		if err := json.Unmarshal(lines[0], &r); err != nil {
			t.Fatal(err)
		}
		if r.SessionID == nil || r.Model == nil {
			t.Errorf("%s: %s: want session_id and model", filepath.Base(f), lines[0])
		}
		if r.CostUSD != want {
			t.Errorf("%s: cost_usd %v (%x), Claude Code %v (%x)", filepath.Base(f), r.CostUSD, math.Float64bits(r.CostUSD), want, math.Float64bits(want))
		}
		compared++
	}
	if compared < 30 {
		t.Errorf("compared %d sessions, want most of the 33", compared)
	}
}
