package usage_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/extract"
	"github.com/ccpipe/ccpipe/lib/pricing"
	"github.com/ccpipe/ccpipe/lib/transcript"
	"github.com/ccpipe/ccpipe/lib/usage"
)

// TestReadMessagesIsExtractUsage: on both real-CLI corpora, the messages
// ReadMessages gives (counted once by a Counter, each session's files in
// cc-extract's order: the main transcript, then its subagents') are
// cc-extract usage --cost --subagents's records: the same messages, the
// same tokens and the same cost, to the bit.
func TestReadMessagesIsExtractUsage(t *testing.T) {
	cat := pricing.Embedded()
	for _, corpus := range []string{"corpus", "corpus-fork"} {
		t.Run(corpus, func(t *testing.T) {
			trs, _ := filepath.Glob(filepath.Join("..", "..", "testdata", corpus, "claude", "projects", "*", "*.jsonl"))
			var want, got []string
			x, err := extract.New(extract.Options{Kind: "usage", Subagents: true, Prices: cat}, func(v any) error {
				u := v.(extract.CostedUsage)
				want = append(want, fmt.Sprintf("%s %s %s %d %d %d %d %v", *u.SessionID, deref(u.AgentID), *u.UUID, u.InputTokens, u.OutputTokens,
					u.CacheReadInputTokens, u.CacheCreationInputTokens, *u.CostUSD))
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			var c usage.Counter
			for _, tr := range trs {
				if err := x.ReadTranscript(context.Background(), tr); err != nil {
					t.Fatal(err)
				}
				sid := transcript.SessionID(tr)
				files := []struct{ path, agent string }{{tr, ""}}
				subs, err := transcript.Subagents(tr)
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range subs {
					files = append(files, struct{ path, agent string }{s.Path, s.AgentID})
				}
				for _, f := range files {
					in, err := os.Open(f.path)
					if err != nil {
						t.Fatal(err)
					}
					_, err = usage.ReadMessages(in, usage.ReadOptions{SessionID: sid, AgentID: f.agent}, func(m *usage.Message) error {
						if !c.Count(m.Key, m.Copied, m.SessionID) {
							return nil
						}
						ch, _, err := m.Price(cat)
						if err != nil {
							return err
						}
						tk := m.Tokens
						if tk.CacheCreation5m+tk.CacheCreation1h > 0 {
							if tk.CacheCreation5m+tk.CacheCreation1h != tk.CacheCreationInputTokens {
								t.Errorf("%s: cache write split %d + %d, of %d", m.UUID, tk.CacheCreation5m, tk.CacheCreation1h, tk.CacheCreationInputTokens)
							}
						}
						got = append(got, fmt.Sprintf("%s %s %s %d %d %d %d %v", m.SessionID, m.AgentID, m.UUID, tk.InputTokens, tk.OutputTokens,
							tk.CacheReadInputTokens, tk.CacheCreationInputTokens, ch.USD))
						return nil
					})
					in.Close()
					if err != nil {
						t.Fatal(err)
					}
				}
			}
			if err := x.Close(); err != nil {
				t.Fatal(err)
			}
			if len(want) == 0 || strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("ReadMessages:\n%s\ncc-extract usage:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// ReadMessages reads every token field, the cache write's split included
// (the corpora's fake API writes it as 0), merges a response's records and
// keeps what prices it: the requested model and the raw usage.
func TestReadMessagesFields(t *testing.T) {
	rec := func(uuid string, out int) string {
		return `{"type":"assistant","uuid":"` + uuid + `","timestamp":"2026-05-02T10:30:00.000Z","sessionId":"s","requestId":"r1",` +
			`"requestedModel":"claude-opus-5-5","isSidechain":false,"message":{"id":"m1","model":"claude-opus-5-5",` +
			`"usage":{"input_tokens":10,"output_tokens":` + fmt.Sprint(out) + `,"cache_read_input_tokens":20,` +
			`"cache_creation_input_tokens":7,"cache_creation":{"ephemeral_5m_input_tokens":3,"ephemeral_1h_input_tokens":4}}}}` + "\n"
	}
	in := rec("a", 1) + rec("b", 50) + `{"type":"assistant","message":{"model":"<synthetic>","usage":{}}}` + "\n" + "not json \"assistant\"\n"
	var got []usage.Message
	st, err := usage.ReadMessages(strings.NewReader(in), usage.ReadOptions{SessionID: "s0", AgentID: "a0"}, func(m *usage.Message) error {
		got = append(got, *m)
		return nil
	})
	if err != nil || len(got) != 1 || st.Malformed != 1 || st.Lines != 4 {
		t.Fatalf("%d messages, %+v, %v", len(got), st, err)
	}
	m := got[0]
	want := usage.Tokens{InputTokens: 10, OutputTokens: 50, CacheReadInputTokens: 20, CacheCreationInputTokens: 7, CacheCreation5m: 3, CacheCreation1h: 4}
	if m.Tokens != want || m.UUID != "a" || m.SessionID != "s" || m.AgentID != "a0" || m.RequestedModel != "claude-opus-5-5" {
		t.Errorf("message %+v", m)
	}
	_, wantUsage := usage.CostFields([]byte(strings.Split(in, "\n")[1]))
	if m.Usage != wantUsage {
		t.Errorf("raw usage %s, want %s", m.Usage, wantUsage)
	}
	if total, _ := m.Tokens.Total(); total != 87 {
		t.Errorf("total %d", total)
	}
	n := 0
	for m, err := range usage.Messages(strings.NewReader(in+rec("c", 1)[:40]), usage.ReadOptions{}) {
		if err != nil || m.UUID != "a" {
			t.Errorf("Messages: %v %v", m, err)
		}
		n++
	}
	if n != 1 {
		t.Errorf("Messages gave %d", n)
	}
}
