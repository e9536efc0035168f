package cassette

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// TestImportEdgeCases imports each crafted transcript of testdata/ccedges
// and compares the cassette with the one Blackbox 0.2.2's importer writes
// for it, as spec §10.1 (corrected) describes it. Each case is a txtar
// archive: its comment says which rule it pins and how the expected
// cassette follows from the spec; transcript.jsonl is the input; want
// lists the steps, one a line, as "TYPE +MS PAYLOAD" (MS after createdAt,
// PAYLOAD as JSON.stringify writes it), then "status S"; or error holds a
// part of the refusal's message. The expected steps are written by hand
// from the spec, never by the importer: a case fails until the importer
// does what Blackbox does.
func TestImportEdgeCases(t *testing.T) {
	paths, err := filepath.Glob("testdata/ccedges/*.txtar")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(bytes.TrimSpace(ar.Comment)) == 0 {
				t.Fatal("the case says nothing of why: write the reasoning in its comment")
			}
			files := map[string]string{}
			for _, f := range ar.Files {
				files[f.Name] = string(f.Data)
			}
			src, ok := files["transcript.jsonl"]
			if !ok {
				t.Fatal("no transcript.jsonl")
			}
			want, wantErr := files["want"], strings.TrimSpace(files["error"])
			if (want == "") == (wantErr == "") {
				t.Fatal("a case has either a want or an error section")
			}
			got, err := importEdge(src)
			if wantErr != "" {
				if err == nil {
					t.Fatalf("imported, want a refusal containing %q:\n%s", wantErr, got)
				}
				if !strings.Contains(err.Error(), wantErr) {
					t.Fatalf("error %q, want one containing %q", err, wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("cassette differs from Blackbox's:\n got:\n%s want:\n%s", got, want)
			}
		})
	}
}

// importEdge imports a transcript and writes its steps as the cases'
// want sections hold them. The cassette must pass verify.
func importEdge(src string) (string, error) {
	im := NewClaudeCodeImporter(ImportOptions{ID: "edge"})
	for i, line := range strings.Split(src, "\n") {
		if err := im.Add([]byte(line), i+1); err != nil {
			return "", err
		}
	}
	c, err := im.Finish()
	if err != nil {
		return "", err
	}
	at, _ := c.Header.Get("createdAt")
	base, _ := at.Int()
	var b strings.Builder
	for _, sv := range c.Steps {
		s, err := DecodeStep(sv)
		if err != nil {
			return "", err
		}
		p, _ := sv.Get("payload")
		js, err := AppendJS(nil, p)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "%s +%d %s\n", s.Type, s.Timestamp-base, js)
	}
	r := Verify(c)
	if !r.Pass {
		return "", fmt.Errorf("the cassette fails verify: %+v", r.FirstFailure)
	}
	fmt.Fprintf(&b, "status %s\n", r.Status)
	return b.String(), nil
}
