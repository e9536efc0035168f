package secrets

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// oracleSets are the sets the old and new walks are compared with: the
// default rules, Blackbox's (word boundaries, JS whitespace) and one with
// a rule without keywords, which makes every string a candidate.
var oracleSets = []*Set{
	Default,
	Blackbox.Markers,
	Blackbox.UserData,
	MustSet(&Rule{Kind: "digits", Pattern: regexp.MustCompile(`[0-9]{6}`)}),
}

// FuzzJSONOracle compares the jsonscan walk with the walker lib/secrets
// had before (oldjson_test.go). On a line encoding/json accepts, the
// redacted bytes, the findings (paths, offsets, kinds) and ScanJSON's are
// the same, and neither errs. A line it rejects is an ErrNotJSON error of
// the new walk (the old walker let some through: raw control characters
// in strings, bad escapes in unchecked strings, numbers such as 01 or
// 1.); where the old one erred too, the bytes and findings agree.
func FuzzJSONOracle(f *testing.F) {
	for _, s := range []string{
		`{"a":"ghp_` + strings.Repeat("x1", 18) + `"}`,
		`{"message":{"content":[{"type":"text","text":"export TOKEN=sk-ant-api03-` + strings.Repeat("A", 90) + `AA"}]}}`,
		`{"a":"line\nkey=AKIAIOSFODNN7EXAMPLE","b":[1,2.5e3,-0,true,false,null]}`,
		`{"cmd":"x=\"ghp_` + strings.Repeat("a1", 18) + `\""}`,
		`{"u":"\u0067hp_` + strings.Repeat("b2", 18) + `","s":"\ud83d\ude00 \ud800 \udc00x"}`,
		`{"odd key":{"\u0041":["toolu_abc1 msg_x9 Bearer abcdefghijklmnop1234"]}}`,
		"{\"a\":\"\xff\xfe ghp_" + strings.Repeat("c3", 18) + "\"}",
		"{\"a\":\"\x01 ghp_" + strings.Repeat("c3", 18) + "\"}",
		`{"a":01,"b":"ghp_` + strings.Repeat("d4", 18) + `"}`,
		`{"a":"\q ghp_` + strings.Repeat("d4", 18) + `"}`,
		`{"a":"ghp_` + strings.Repeat("e5", 18) + `"`,
		`{"a":1}x`, `[1,]`, `{"a":1,}`, `[`, ``, ` `, `"123456"`, `123456`,
		strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
		strings.Repeat(`{"a":`, 50) + `"ghp_` + strings.Repeat("f6", 18) + `"` + strings.Repeat("}", 50),
		`{"big":"` + strings.Repeat(`ab\n\u00e9 `, 4000) + `ghp_` + strings.Repeat("g7", 18) + `"}`,
	} {
		f.Add(s)
	}
	// The planted secrets of rules_test.go, in arrays, behind escapes.
	for _, p := range plants() {
		text := strings.Replace(p.context, "%s", p.secret, 1)
		f.Add(`{"m":{"content":[{"type":"text","text":` + quote(text) + `},` + quote(text) + `]}}`)
		f.Add(`["a",{"b\u0020c":"x\n` + strings.ReplaceAll(quote(text)[1:], "a", `\u0061`) + `}]`)
	}
	f.Fuzz(func(t *testing.T, s string) { compareWalks(t, []byte(s)) })
}

// TestJSONOracleCorpus compares the two walks on every line of the
// real-CLI corpus.
func TestJSONOracleCorpus(t *testing.T) {
	n := 0
	err := filepath.WalkDir("../../testdata/corpus", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, line := range bytes.Split(b, []byte("\n")) {
			n++
			compareWalks(t, line)
		}
		return nil
	})
	if err != nil || n < 100 {
		t.Fatalf("compared %d lines: %v", n, err)
	}
}

// compareWalks fails t where the old and new walks of line differ.
func compareWalks(t *testing.T, line []byte) {
	t.Helper()
	valid := json.Valid(line)
	for si, set := range oracleSets {
		var oldFound []JSONMatch
		oldOut, oldErr := set.oldRedactJSON([]byte("prefix"), line, &oldFound, true)
		newOut, newFound, newErr := set.RedactJSON([]byte("prefix"), line)
		if newErr != nil && !errors.Is(newErr, ErrNotJSON) {
			t.Fatalf("set %d: error %v does not wrap ErrNotJSON", si, newErr)
		}
		if valid != (newErr == nil) {
			t.Fatalf("set %d: json.Valid %v, RedactJSON error %v", si, valid, newErr)
		}
		if valid && oldErr != nil {
			t.Fatalf("set %d: old walker rejects valid JSON: %v", si, oldErr)
		}
		if valid || oldErr != nil {
			if !bytes.Equal(oldOut, newOut) {
				t.Fatalf("set %d: output\nold %q\nnew %q", si, oldOut, newOut)
			}
			if showMatches(oldFound) != showMatches(newFound) {
				t.Fatalf("set %d: findings\nold %s\nnew %s", si, showMatches(oldFound), showMatches(newFound))
			}
		}
		var oldScan []JSONMatch
		_, oldErr = set.oldRedactJSON(nil, line, &oldScan, false)
		newScan, newErr := set.ScanJSON(line)
		if oldErr == nil && newErr == nil || valid || oldErr != nil && newErr != nil {
			if showMatches(oldScan) != showMatches(newScan) {
				t.Fatalf("set %d: ScanJSON\nold %s %v\nnew %s %v", si, showMatches(oldScan), oldErr, showMatches(newScan), newErr)
			}
		}
		if valid && newErr != nil {
			t.Fatalf("set %d: ScanJSON error on valid JSON: %v", si, newErr)
		}
	}
}

// showMatches renders findings with their paths (Match's String method,
// promoted to JSONMatch, leaves the path out).
func showMatches(ms []JSONMatch) string {
	var b strings.Builder
	for _, m := range ms {
		fmt.Fprintf(&b, "%s %s %d-%d;", m.Path, m.Kind, m.Start, m.End)
	}
	return b.String()
}
