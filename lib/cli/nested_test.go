package cli

import (
	"bytes"
	"testing"
)

// TestNestedKeys: a column key with dots shows a nested field; a column
// whose field no record has is left out; --jq keeping only the fields the
// layout's keys are in still gets the layout.
func TestNestedKeys(t *testing.T) {
	layout := Layout{Columns: []Column{
		{Head: "Pass", Keys: []string{"pass"}},
		{Head: "Failed", Keys: []string{"first_failure.check.name", "first_failure.invariant.name"}},
		{Head: "Detail", Keys: []string{"first_failure.check.detail", "first_failure.invariant.detail"}},
		{Head: "Deep", Keys: []string{"first_failure.none.deeper"}},
		{Head: "Missing", Keys: []string{"absent.name"}},
	}}
	recs := []string{
		`{"pass":true,"path":"a"}`,
		`{"pass":false,"first_failure":{"kind":"expectation","check":{"name":"tools","detail":"not called: Edit"}}}`,
		`{"pass":false,"first_failure":{"kind":"verify","invariant":{"name":"hash_chain","detail":"step 2"}}}`,
		`{"pass":false,"first_failure":"not an object"}`,
	}
	want := "Pass   Failed      Detail\n" +
		"true\n" +
		"false  tools       not called: Edit\n" +
		"false  hash_chain  step 2\n" +
		"false\n"
	code, out, errs := table(t, term(80, "NO_COLOR", "1"), &layout, recs)
	if code != 0 || out != want {
		t.Errorf("exit %d %s\ngot\n%s\nwant\n%s", code, errs, out, want)
	}
	// NDJSON is the records, whatever the layout.
	code, out, _ = table(t, term(0), &layout, recs)
	if code != 0 || out != string(bytes.Join(bytesOf(recs), []byte("\n")))+"\n" {
		t.Errorf("ndjson: exit %d\n%s", code, out)
	}
	code, out, _ = table(t, term(80, "NO_COLOR", "1"), &layout, recs, "--jq", "{pass, first_failure}", "--format", "table")
	if code != 0 || out != want {
		t.Errorf("--jq keeping the layout's fields: exit %d\n%s", code, out)
	}
}

func bytesOf(l []string) [][]byte {
	b := make([][]byte, len(l))
	for i, s := range l {
		b[i] = []byte(s)
	}
	return b
}
