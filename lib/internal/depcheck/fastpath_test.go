package depcheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// fastPathTest is how a row of the fast-path table names a test: the
// package's directory and the test or fuzz function, `lib/x.TestName`.
var fastPathTest = regexp.MustCompile("`((?:lib|cmd|bench)/[a-z0-9/_-]+)\\.((?:Test|Fuzz)[A-Za-z0-9_]*)`")

// fastPathRows are the rows of docs/architecture.md's "## Fast paths"
// table, the header and the separator left out, each split into cells.
func fastPathRows(doc string) [][]string {
	_, after, ok := strings.Cut(doc, "\n## Fast paths\n")
	if !ok {
		return nil
	}
	if end := strings.Index(after, "\n## "); end >= 0 {
		after = after[:end]
	}
	var rows [][]string
	header := true
	for _, line := range strings.Split(after, "\n") {
		if !strings.HasPrefix(line, "|") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if header || strings.HasPrefix(line, "| ---") {
			header = false
			continue
		}
		rows = append(rows, cells)
	}
	return rows
}

// testFuncs are the names of the test and fuzz functions declared in the
// _test.go files of dir.
func testFuncs(t *testing.T, dir string) map[string]bool {
	t.Helper()
	names := map[string]bool{}
	files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	for _, path := range files {
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil {
				names[fn.Name.Name] = true
			}
		}
	}
	return names
}

// TestFastPathTable: every row of docs/architecture.md's fast-path table
// names a fast path, its slow twin and at least one test, and every test
// it names is declared in the package it names, so a row cannot outlive
// the test that keeps the two paths equal.
func TestFastPathTable(t *testing.T) {
	root, _ := filepath.Abs("../../..")
	doc, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := fastPathRows(string(doc))
	if len(rows) == 0 {
		t.Fatal(`docs/architecture.md has no "## Fast paths" table`)
	}
	funcs := map[string]map[string]bool{}
	for _, row := range rows {
		if len(row) != 3 || strings.TrimSpace(row[0]) == "" || strings.TrimSpace(row[1]) == "" {
			t.Errorf("fast-path row %q: want | fast path | slow twin | tests |", row)
			continue
		}
		tests := fastPathTest.FindAllStringSubmatch(row[2], -1)
		if len(tests) == 0 {
			t.Errorf("fast-path row %q names no test (`lib/x.TestName`)", row[0])
		}
		for _, m := range tests {
			dir, name := m[1], m[2]
			if funcs[dir] == nil {
				funcs[dir] = testFuncs(t, filepath.Join(root, dir))
			}
			if !funcs[dir][name] {
				t.Errorf("fast-path row %q names %s.%s: no such test in %s", row[0], dir, name, dir)
			}
		}
	}
}

// TestFastPathRows: the table parser reads the rows a table holds and
// finds a named test, so TestFastPathTable cannot pass on nothing.
func TestFastPathRows(t *testing.T) {
	doc := "# x\n\n## Fast paths\n\ntext\n\n| a | b | c |\n| --- | --- | --- |\n| one | two | `lib/x.TestY`, `lib/z.FuzzW` |\n| three | four | none |\n\n## Next\n\n| not | this | one |\n"
	rows := fastPathRows(doc)
	if len(rows) != 2 || rows[0][0] != "one" || rows[1][2] != "none" {
		t.Fatalf("rows %q", rows)
	}
	m := fastPathTest.FindAllStringSubmatch(rows[0][2], -1)
	if len(m) != 2 || m[0][1] != "lib/x" || m[0][2] != "TestY" || m[1][2] != "FuzzW" {
		t.Fatalf("tests %q", m)
	}
}
