package extract

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/usage"
)

// genMessage is one API message of a generated transcript: the ground
// truth usage sums are computed from these, independently of the code.
type genMessage struct {
	id, req, ref, model, ts string
	u                       TokenUsage
}

func (m genMessage) key() string { return m.id + "|" + m.req + "|" + m.ref }

// genTranscripts writes sessions of random messages: each written as 1-4
// block records repeating the usage (earlier copies sometimes with a
// smaller streaming output count), with user and system lines between,
// request ids sometimes missing (requestRef then), message ids sometimes
// reused by another request, and whole messages copied into a later
// session (as a fork does). It returns the paths and, per path, the
// messages in file order.
func genTranscripts(t *testing.T, rng *rand.Rand, dir string) ([]string, [][]genMessage) {
	models := []string{"claude-opus-5-5", "claude-sonnet-5", "claude-haiku-5"}
	var paths []string
	var perFile [][]genMessage
	var all []genMessage
	for s := 0; s < 3; s++ {
		sid := fmt.Sprintf("00000000-0000-4000-8000-%012d", s)
		p := filepath.Join(dir, "-proj", sid+".jsonl")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		var msgs []genMessage
		n := 5 + rng.IntN(40)
		for i := 0; i < n; i++ {
			var m genMessage
			if len(all) > 0 && rng.IntN(8) == 0 {
				m = all[rng.IntN(len(all))] // a copy from earlier
			} else {
				m = genMessage{
					id:    fmt.Sprintf("msg_%d", rng.IntN(60)),
					model: models[rng.IntN(len(models))],
					ts:    fmt.Sprintf("2026-05-%02dT%02d:%02d:00.000Z", 1+rng.IntN(3), rng.IntN(24), rng.IntN(60)),
					u: TokenUsage{InputTokens: rng.Int64N(5000), OutputTokens: 1 + rng.Int64N(900),
						CacheReadInputTokens: rng.Int64N(20000), CacheCreationInputTokens: rng.Int64N(3000)},
				}
				if rng.IntN(4) == 0 {
					m.ref = fmt.Sprintf("ref-%d", rng.Int())
				} else {
					m.req = fmt.Sprintf("req_%d", rng.Int())
				}
				all = append(all, m)
			}
			blocks := 1 + rng.IntN(4)
			for k := 0; k < blocks; k++ {
				u := m.u
				if k < blocks-1 && rng.IntN(3) == 0 {
					u.OutputTokens = rng.Int64N(u.OutputTokens) // a partial streaming count
				}
				rec := map[string]any{
					"type": "assistant", "uuid": fmt.Sprintf("u%d-%d-%d", s, i, k), "timestamp": m.ts, "sessionId": sid, "cwd": "/p",
					"message": map[string]any{"id": m.id, "model": m.model, "content": []any{map[string]any{"type": "text", "text": "x\"}"}},
						"usage": map[string]any{"input_tokens": u.InputTokens, "output_tokens": u.OutputTokens,
							"cache_read_input_tokens": u.CacheReadInputTokens, "cache_creation_input_tokens": u.CacheCreationInputTokens}},
				}
				if m.req != "" {
					rec["requestId"] = m.req
				}
				if m.ref != "" {
					rec["requestRef"] = m.ref
				}
				line, _ := json.Marshal(rec)
				b.Write(line)
				b.WriteByte('\n')
			}
			if rng.IntN(2) == 0 {
				fmt.Fprintf(&b, `{"type":"user","uuid":"x%d","sessionId":"%s","message":{"role":"user","content":"{\"type\":\"assistant\"}"}}`+"\n", i, sid)
			}
			msgs = append(msgs, m)
		}
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
		perFile = append(perFile, msgs)
	}
	return paths, perFile
}

func TestUsageTotalsProperty(t *testing.T) {
	for seed := uint64(1); seed <= 25; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		dir := t.TempDir()
		paths, perFile := genTranscripts(t, rng, dir)
		// Independent sums: each message counted once, in read order, for
		// the session of the file it first appears in.
		want := map[string]map[string][5]int64{"session": {}, "model": {}, "day": {}}
		seen := map[string]bool{}
		var total [5]int64
		for f, msgs := range perFile {
			sid := fmt.Sprintf("00000000-0000-4000-8000-%012d", f)
			for _, m := range msgs {
				if seen[m.key()] {
					continue
				}
				seen[m.key()] = true
				v := [5]int64{m.u.InputTokens, m.u.OutputTokens, m.u.CacheReadInputTokens, m.u.CacheCreationInputTokens, 1}
				for group, key := range map[string]string{"session": sid, "model": m.model, "day": m.ts[:10]} {
					w := want[group][key]
					for i := range w {
						w[i] += v[i]
					}
					want[group][key] = w
				}
				for i := range total {
					total[i] += v[i]
				}
			}
		}
		for group := range want {
			got := map[string][5]int64{}
			x, err := New(Options{Kind: "usage", Sum: group}, func(v any) error {
				s := v.(*usage.Sum)
				key := deref(s.SessionID) + deref(s.Model) + deref(s.Date)
				got[key] = [5]int64{s.InputTokens, s.OutputTokens, s.CacheReadInputTokens, s.CacheCreationInputTokens, s.Messages}
				if s.TotalTokens != s.InputTokens+s.OutputTokens+s.CacheReadInputTokens+s.CacheCreationInputTokens {
					t.Errorf("seed %d: total_tokens %d is not the sum of the four counts", seed, s.TotalTokens)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			readAll(t, x, paths)
			if fmt.Sprint(sortedMap(got)) != fmt.Sprint(sortedMap(want[group])) {
				t.Errorf("seed %d, --sum %s:\n got %v\nwant %v", seed, group, sortedMap(got), sortedMap(want[group]))
			}
		}
		// Per-message facts add up to the same totals.
		var sum [5]int64
		x, _ := New(Options{Kind: "usage"}, func(v any) error {
			u := v.(Usage)
			for i, n := range []int64{u.InputTokens, u.OutputTokens, u.CacheReadInputTokens, u.CacheCreationInputTokens, 1} {
				sum[i] += n
			}
			return nil
		})
		readAll(t, x, paths)
		if sum != total {
			t.Errorf("seed %d: usage facts add up to %v, want %v", seed, sum, total)
		}
	}
}

func readAll(t testing.TB, x *Extractor, paths []string) {
	t.Helper()
	err := x.ReadTranscripts(t.Context(), func(add func(string) error) error {
		for _, p := range paths {
			if err := add(p); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		err = x.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
}

func sortedMap(m map[string][5]int64) []string {
	var out []string
	for k, v := range m {
		out = append(out, fmt.Sprint(k, v))
	}
	sort.Strings(out)
	return out
}
