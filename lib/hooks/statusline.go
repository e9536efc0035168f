package hooks

import (
	"encoding/json"
	"reflect"
)

// StatusLine is the part of the statusLine payload (the JSON Claude Code
// pipes to a status line command on every refresh) that cc-statusline
// reads.
type StatusLine struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Model          struct {
		ID          string `json:"id"`
		DisplayName string `json:"display_name"`
	} `json:"model"`
	Cost struct {
		TotalCostUSD *float64 `json:"total_cost_usd"`
	} `json:"cost"`
	ContextWindow *struct {
		UsedPercentage    *float64 `json:"used_percentage"`
		ContextWindowSize *float64 `json:"context_window_size"`
	} `json:"context_window"`
	RateLimits json.RawMessage `json:"rate_limits"`
}

// ParseStatusLine reads a statusLine payload. One field of another type
// must not cost the whole line: it is then read field by field (the
// decoder of hook payloads), the bad ones left empty and named in bad
// (non-nil then). err is json's error when data is not an object at all.
func ParseStatusLine(data []byte) (p StatusLine, bad []string, err error) {
	if err = json.Unmarshal(data, &p); err == nil {
		return p, nil, nil
	}
	obj, perr := parseObject(data)
	if perr != nil {
		return StatusLine{}, nil, err
	}
	p = StatusLine{}
	bad, _ = decodeFields(reflect.ValueOf(&p).Elem(), obj, "")
	if bad == nil {
		bad = []string{} // non-nil: read leniently
	}
	return p, bad, nil
}
