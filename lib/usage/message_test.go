package usage

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzCostFields: on any line, CostFields finds the requestedModel and a
// usage object equal to message.usage as a map decode reads them.
func FuzzCostFields(f *testing.F) {
	f.Add([]byte(`{"type":"assistant","requestedModel":"claude-opus-5-5","message":{"id":"m","usage":{"input_tokens":1,"cache_creation":{"ephemeral_1h_input_tokens":2}}}}`))
	f.Add([]byte(`{"requestedModel":"a\"b","message":{"usage":null}}`))
	f.Add([]byte(`{"message":[1,2],"requestedModel":7}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		var want map[string]any // exact keys (a struct would match any case)
		model, usage := CostFields(line)
		if json.Unmarshal(line, &want) != nil || !json.Valid(line) || bytes.Count(line, []byte(`"requestedModel"`)) > 1 ||
			bytes.Count(line, []byte(`"usage"`)) > 1 || bytes.Count(line, []byte(`"message"`)) > 1 {
			return // duplicate keys: json takes the last, the walker may differ
		}
		if s, ok := want["requestedModel"].(string); ok && s != model {
			t.Fatalf("requestedModel %q, walker %q", s, model)
		}
		m, _ := want["message"].(map[string]any)
		u, has := m["usage"]
		if !has || u == nil {
			return
		}
		var got any
		if err := json.Unmarshal([]byte(usage), &got); err != nil {
			t.Fatalf("usage %q: %v", usage, err)
		}
		a, _ := json.Marshal(u)
		b, _ := json.Marshal(got)
		if !bytes.Equal(a, b) {
			t.Fatalf("usage %s, walker %s", a, b)
		}
	})
}
