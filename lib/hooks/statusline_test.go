package hooks

import (
	"reflect"
	"testing"
)

func TestParseStatusLine(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	for _, tt := range []struct {
		name, in string
		bad      []string // nil: decoded whole
		err      bool
		check    func(p StatusLine) bool
	}{
		{name: "whole", in: `{"session_id":"s1","model":{"id":"m","display_name":"Opus"},"cost":{"total_cost_usd":0.42},"context_window":{"used_percentage":12}}`,
			check: func(p StatusLine) bool {
				return p.SessionID == "s1" && p.Model.DisplayName == "Opus" && *p.Cost.TotalCostUSD == 0.42 && *p.ContextWindow.UsedPercentage == 12
			}},
		{name: "top-level mismatch", in: `{"session_id":7,"transcript_path":"/t.jsonl"}`, bad: []string{"session_id"},
			check: func(p StatusLine) bool { return p.SessionID == "" && p.TranscriptPath == "/t.jsonl" }},
		{name: "nested mismatch keeps siblings", in: `{"model":{"id":"m","display_name":5},"cost":{"total_cost_usd":1}}`, bad: []string{"model.display_name"},
			check: func(p StatusLine) bool {
				return p.Model.ID == "m" && p.Model.DisplayName == "" && *p.Cost.TotalCostUSD == 1
			}},
		{name: "pointer struct salvaged", in: `{"context_window":{"used_percentage":"x","context_window_size":200000}}`, bad: []string{"context_window.used_percentage"},
			check: func(p StatusLine) bool {
				cw := p.ContextWindow
				return cw != nil && cw.UsedPercentage == nil && reflect.DeepEqual(cw.ContextWindowSize, f(200000))
			}},
		{name: "struct of another type", in: `{"model":"Opus","session_id":"s"}`, bad: []string{"model"},
			check: func(p StatusLine) bool { return p.Model.ID == "" && p.SessionID == "s" }},
		{name: "not an object", in: `[1,2]`, err: true},
		{name: "not JSON", in: `{"session_id":`, err: true},
		{name: "null", in: `null`, check: func(p StatusLine) bool { return p.SessionID == "" }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, bad, err := ParseStatusLine([]byte(tt.in))
			if (err != nil) != tt.err {
				t.Fatalf("err = %v, want error %v", err, tt.err)
			}
			if tt.err {
				return
			}
			if !reflect.DeepEqual(bad, tt.bad) {
				t.Errorf("bad = %#v, want %#v", bad, tt.bad)
			}
			if !tt.check(p) {
				t.Errorf("decoded %+v", p)
			}
		})
	}
}
