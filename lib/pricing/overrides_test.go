package pricing

import (
	"strings"
	"testing"
)

func TestParseOverrides(t *testing.T) {
	rows, err := ParseOverrides("p.yaml", []byte("- name: claude-sonnet-5-5\n  inputPerMtok: 1\n  outputPerMtok: 2.5\n  cacheReadPerMtok: 0.1\n  cacheWritePerMtok: 1.25\n"))
	if err != nil || len(rows) != 1 || rows[0] != (OverrideRow{"claude-sonnet-5-5", 1, 2.5, 0.1, 1.25}) {
		t.Fatalf("yaml: %v %+v", err, rows)
	}
	rows, err = ParseOverrides("p.json", []byte(`{"overrides":[{"name":"gw-model","inputPerMtok":3,"outputPerMtok":15,"cacheReadPerMtok":0.3,"cacheWritePerMtok":3.75}]}`))
	if err != nil || len(rows) != 1 || rows[0].Name != "gw-model" || rows[0].OutputPerMtok != 15 {
		t.Fatalf("json: %v %+v", err, rows)
	}
	for _, tc := range []struct{ in, want string }{
		{"- name: a\n  inputPerMtok: 1\n  outputPerMtok: 2\n  cacheReadPerMtok: 3\n", "p:1: field cacheWritePerMtok is missing"},
		{"- name: a\n  inputPerMtok: -1\n  outputPerMtok: 2\n  cacheReadPerMtok: 3\n  cacheWritePerMtok: 4\n", "p:2: field inputPerMtok: -1 is negative"},
		{"- name: a\n  inputPerMtok: 1\n  outputPerMtok: cheap\n  cacheReadPerMtok: 3\n  cacheWritePerMtok: 4\n", `p:3: field outputPerMtok: "cheap" is not a number`},
		{"- name: a\n  inputPerMtok: 1\n  outputPerMtok: 2\n  cacheReadPerMtok: 3\n  cacheWritePerMtok: 4\n  discount: 5\n", `p:6: unknown field "discount"`},
		{"[\n{\"name\": \"a\", \"inputPerMtok\": \"1\"}]", `p:2: field inputPerMtok: "1" is not a number`},
		{"- 3\n", "p:1: a price row must be an object"},
		{"", "p:1: no price rows"},
		{"rows: []\n", `p:1: unknown key "rows"`},
	} {
		_, err := ParseOverrides("p", []byte(tc.in))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v, want %q", tc.in, err, tc.want)
		}
	}
}

func FuzzParseOverrides(f *testing.F) {
	f.Add([]byte(`[{"name":"m","inputPerMtok":1,"outputPerMtok":2,"cacheReadPerMtok":0.1,"cacheWritePerMtok":1}]`))
	f.Add([]byte("overrides:\n - {name: m, inputPerMtok: 1}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		rows, err := ParseOverrides("f", b)
		if err != nil {
			return
		}
		for _, r := range rows {
			if r.Name == "" || r.InputPerMtok < 0 || r.OutputPerMtok < 0 || r.CacheReadPerMtok < 0 || r.CacheWritePerMtok < 0 {
				t.Fatalf("accepted a bad row %+v", r)
			}
		}
	})
}

func FuzzParseUsage(f *testing.F) {
	f.Add([]byte(modelSession[1]))
	f.Add([]byte(fastMsg))
	f.Fuzz(func(t *testing.T, b []byte) {
		u, err := ParseUsage(b)
		if err != nil {
			return
		}
		ch := Embedded().Cost("claude-opus-5-5", &u)
		if ch.USD < 0 {
			t.Fatalf("negative cost %v for %s", ch.USD, b)
		}
	})
}
