package hooks

import (
	"encoding/json"
	"reflect"
	"strings"
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
// must not cost the whole line: it is read field by field (DecodeLenient),
// the bad ones left empty and named in bad (non-nil then). err is json's
// error when data is not an object at all.
func ParseStatusLine(data []byte) (p StatusLine, bad []string, err error) {
	if err = json.Unmarshal(data, &p); err == nil {
		return p, nil, nil
	}
	bad = []string{} // non-nil: read leniently
	if !DecodeLenient(&p, data, &bad) {
		return p, nil, err
	}
	return p, bad, nil
}

// DecodeLenient decodes the JSON object data into the struct v points to,
// field by field (recursing into struct fields), leaving a field of
// another type empty and naming it in bad by its dotted path. It returns
// false when data is not an object.
func DecodeLenient(v any, data []byte, bad *[]string) bool {
	return lenient(reflect.ValueOf(v).Elem(), data, "", bad)
}

func lenient(v reflect.Value, raw []byte, path string, bad *[]string) bool {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil || obj == nil {
		return false
	}
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		fv, ok := obj[name]
		if !ok || name == "" {
			continue
		}
		f := v.Field(i)
		if json.Unmarshal(fv, f.Addr().Interface()) == nil {
			continue
		}
		f.Set(reflect.Zero(f.Type()))
		st := f.Type()
		if st.Kind() == reflect.Pointer {
			st = st.Elem()
		}
		if st.Kind() == reflect.Struct {
			nv := reflect.New(st).Elem()
			if lenient(nv, fv, path+name+".", bad) {
				if f.Kind() == reflect.Pointer {
					p := reflect.New(st)
					p.Elem().Set(nv)
					f.Set(p)
				} else {
					f.Set(nv)
				}
				continue
			}
		}
		*bad = append(*bad, path+name)
	}
	return true
}
