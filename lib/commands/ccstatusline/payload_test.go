package ccstatusline

import (
	"os"
	"strings"
	"testing"
)

// One wrong-typed field costs that field, not the line (issue 31 #16: the
// whole status line was lost).
func TestWrongTypedFieldKeepsLine(t *testing.T) {
	for _, c := range []struct{ payload, want string }{
		{`{"model":{"display_name":"M"},"cost":{"total_cost_usd":"0.5"}}`, "M"},
		{`{"model":"Opus","cost":{"total_cost_usd":0.5}}`, "$0.50 session"},
		{`{"model":{"display_name":7,"id":"x"},"cost":{"total_cost_usd":0.5},"context_window":{"used_percentage":"12"}}`, "$0.50 session"},
		{`{"session_id":5,"model":{"display_name":"M"},"cost":{"total_cost_usd":0.5}}`, "M | $0.50 session"},
	} {
		code, out, errs := run(t, []byte(c.payload), "--cache-dir", t.TempDir())
		if code != 0 || !strings.Contains(out, c.want) || !strings.Contains(errs, "read as empty") {
			t.Errorf("%s: exit %d, %q, %q", c.payload, code, out, errs)
		}
	}
}

// With HOME unset (and no XDG_CACHE_HOME) the line is still printed.
func TestNoHome(t *testing.T) {
	t.Setenv("HOME", "")
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("TMPDIR", t.TempDir())
	code, out, errs := run(t, []byte(`{"model":{"display_name":"M"},"cost":{"total_cost_usd":0.5}}`))
	if code != 0 || out != "M | $0.50 session\n" {
		t.Errorf("exit %d, %q, %q", code, out, errs)
	}
}

// TestReferencePayload: the whole payload in reference.md is the one the
// contract suite recorded, and the line it documents is what it prints.
func TestReferencePayload(t *testing.T) {
	ref, err := os.ReadFile("reference.md")
	if err != nil {
		t.Fatal(err)
	}
	payload, err := os.ReadFile("testdata/payload-2.1.328.json")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(ref), "```json\n"+strings.TrimRight(string(payload), "\n")+"\n```") {
		t.Error("reference.md's payload is not testdata/payload-2.1.328.json")
	}
	code, out, errs := run(t, payload, "--no-cache")
	if code != 0 || out != "Opus 5.5 | $0.03 session | ctx 2%\n" || !strings.Contains(string(ref), "`"+strings.TrimSpace(out)+"`") {
		t.Errorf("exit %d, %q, %q", code, out, errs)
	}
	// A payload without a model or a cost: those parts left out, never "$?".
	for p, want := range map[string]string{`{}`: "\n", `{"cost":{"total_cost_usd":0.0042}}`: "$0.0042 session\n", `{"model":{"display_name":"M"}}`: "M\n"} {
		if code, out, errs := run(t, []byte(p), "--no-cache"); code != 0 || out != want {
			t.Errorf("%s: exit %d, %q, %q", p, code, out, errs)
		}
	}
}
