package pricing

import (
	"errors"
	"strings"
	"testing"
)

// A count beyond float64 is out of range, named as such (issue 31 #16:
// it was reported as "no usage object").
func TestParseUsageHugeCount(t *testing.T) {
	_, err := ParseUsage([]byte(`{"input_tokens":1e400,"output_tokens":1}`))
	var re *RangeError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "input_tokens: 1e400 is not a token count") {
		t.Errorf("err %v", err)
	}
}

// A duplicate row and a second YAML document are errors, not ignored
// (issue 31 #16).
func TestOverridesDuplicatesAndDocuments(t *testing.T) {
	row := "- {name: m1, inputPerMtok: 1, outputPerMtok: 2, cacheReadPerMtok: 0.1, cacheWritePerMtok: 1.25}\n"
	for _, c := range []struct{ in, want string }{
		{row + row, "p.yaml:2: a second row for m1 (the first is on line 1)"},
		{row + "---\n" + strings.Replace(row, "m1", "m2", 1), "p.yaml:2: a second YAML document"},
	} {
		if _, err := ParseOverrides("p.yaml", []byte(c.in)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.in, err, c.want)
		}
	}
	if rows, err := ParseOverrides("p.yaml", []byte(row+strings.Replace(row, "m1", "m2", 1))); err != nil || len(rows) != 2 {
		t.Errorf("two rows: %v %v", rows, err)
	}
}
