package rules

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

func TestLoadCases(t *testing.T) {
	yaml := "cases:\n  - name: a\n    payload: {hook_event_name: Stop, stop_hook_active: false}\n    decision: block\n"
	ndjson := `{"name":"a","payload":{"hook_event_name":"Stop","stop_hook_active":false},"decision":"block"}` + "\n"
	for _, data := range []string{yaml, ndjson} {
		cs, err := LoadCases([]byte(data))
		if err != nil || len(cs) != 1 || cs[0].Decision != "block" || !json.Valid(cs[0].Payload) {
			t.Errorf("%q: %v %+v", data, err, cs)
		}
	}
	for _, bad := range []string{
		"cases:\n  - {name: a, decision: block}\n",                                     // no payload
		"cases:\n  - {payload: {stop_hook_active: true}, decision: block}\n",           // no event
		"cases:\n  - {payload: {hook_event_name: Stop}}\n",                             // no decision
		"cases:\n  - {payload: {hook_event_name: Stop}, decision: block, expect: x}\n", // unknown key
		`{"payload":{"hook_event_name":"Stop"},"decision":"none","extra":1}` + "\n",    // unknown key
		"",
	} {
		if _, err := LoadCases([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestCaseOutcome(t *testing.T) {
	f, err := Load([]byte("rules:\n  - {name: b, events: Stop, if: '.stop_hook_active | not', decision: block, reason: r}\n  - {events: UserPromptSubmit, additional_context: c}\n"))
	if err != nil {
		t.Fatal(err)
	}
	cs, err := LoadCases([]byte("cases:\n  - {payload: {hook_event_name: Stop, stop_hook_active: false}, decision: block, rule: b}\n" +
		"  - {payload: {hook_event_name: Stop, stop_hook_active: true}, decision: none}\n" +
		"  - {payload: {hook_event_name: UserPromptSubmit, prompt: hi}, decision: context}\n" +
		"  - {payload: {hook_event_name: Stop, stop_hook_active: true}, decision: block}\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []bool{true, true, true, false}
	for i, c := range cs {
		if got := c.Passes(f.Test(context.Background(), c)); got != want[i] {
			t.Errorf("case %d: passes %v, want %v", i, got, want[i])
		}
	}
}

// FuzzLoadCases: a case file either loads into cases whose payloads are
// JSON objects with an event, or fails; it never panics.
func FuzzLoadCases(f *testing.F) {
	if data, err := os.ReadFile("../../../testdata/hooks/guard.cases.yaml"); err == nil {
		f.Add(data)
	}
	f.Add([]byte(`{"payload":{"hook_event_name":"Stop"},"decision":"none"}`))
	f.Add([]byte("cases:\n  - payload: [1]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cs, err := LoadCases(data)
		if err != nil {
			return
		}
		for _, c := range cs {
			if !json.Valid(c.Payload) || !strings.HasPrefix(string(c.Payload), "{") || c.Decision == "" {
				t.Fatalf("case %+v", c)
			}
		}
	})
}
