package depcheck

import (
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// layer is a row of docs/architecture.md's layer table.
type layer struct {
	name     string
	packages []string // a name, or a prefix ending in "/..."
	from     []string // the layers it may import from
}

// holds reports whether the layer's row names pkg, and how closely: the
// length of the name that matched (a package's own name beats a prefix).
func (l layer) holds(pkg string) int {
	best := 0
	for _, p := range l.packages {
		if base, ok := strings.CutSuffix(p, "/..."); ok {
			if pkg == base || strings.HasPrefix(pkg, base+"/") {
				best = max(best, len(base))
			}
		} else if pkg == p {
			best = max(best, len(p)+1)
		}
	}
	return best
}

var backquoted = regexp.MustCompile("`([^`]+)`")

// layerRows reads the table under "## The layers": | layer | packages |
// imports from |, the header and the separator left out.
func layerRows(doc string) []layer {
	_, after, ok := strings.Cut(doc, "\n## The layers\n")
	if !ok {
		return nil
	}
	if end := strings.Index(after, "\n## "); end >= 0 {
		after = after[:end]
	}
	var rows []layer
	for _, line := range strings.Split(after, "\n") {
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if !strings.HasPrefix(line, "| ") || len(cells) != 3 || cells[0] == "layer" || strings.HasPrefix(cells[0], "---") {
			continue
		}
		l := layer{name: cells[0]}
		for _, m := range backquoted.FindAllStringSubmatch(cells[1], -1) {
			l.packages = append(l.packages, m[1])
		}
		for _, f := range strings.Split(cells[2], ",") {
			l.from = append(l.from, strings.TrimSpace(f))
		}
		rows = append(rows, l)
	}
	return rows
}

// layerOf is the row that names pkg most closely; "" when none does.
func layerOf(rows []layer, pkg string) string {
	name, best := "", 0
	for _, l := range rows {
		if n := l.holds(pkg); n > best {
			name, best = l.name, n
		}
	}
	return name
}

// TestLayers: docs/architecture.md's layer table matches the imports.
// Every package of the tree is in a row, and imports only from the layers
// its row names; every layer a row names exists.
func TestLayers(t *testing.T) {
	root, _ := filepath.Abs("../../..")
	doc, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := layerRows(string(doc))
	if len(rows) < 5 {
		t.Fatalf("docs/architecture.md: %d rows in the layer table under \"## The layers\"", len(rows))
	}
	byName := map[string]layer{}
	for _, l := range rows {
		byName[l.name] = l
	}
	for _, l := range rows {
		for _, f := range l.from {
			if _, ok := byName[f]; !ok {
				t.Errorf("layer %s imports from %q: no such layer", l.name, f)
			}
		}
	}
	pkgs := list(t, root)
	for _, pkg := range slices.Sorted(maps.Keys(pkgs)) {
		mine := layerOf(rows, pkg)
		if mine == "" {
			t.Errorf("%s is in no row of docs/architecture.md's layer table: add it to the layer it belongs to", pkg)
			continue
		}
		for _, imp := range pkgs[pkg].imports {
			if !ours(imp) {
				continue
			}
			theirs := layerOf(rows, imp)
			if !slices.Contains(byName[mine].from, theirs) {
				t.Errorf("%s (%s) imports %s (%s): docs/architecture.md's layer table says %s imports from %s only", pkg, mine, imp, theirs, mine, strings.Join(byName[mine].from, ", "))
			}
		}
	}
}

// TestLayerRows: the table parser reads rows, prefixes and the layers
// they import from, so TestLayers cannot pass on nothing.
func TestLayerRows(t *testing.T) {
	doc := "# x\n\n## The layers\n\n| layer | packages | imports from |\n| --- | --- | --- |\n| a | `lib/x` `lib/y/...` | a |\n| b | `lib/y/z` | a, b |\n\n## Next\n| c | `lib/q` | c |\n"
	rows := layerRows(doc)
	if len(rows) != 2 || rows[1].name != "b" || !slices.Equal(rows[1].from, []string{"a", "b"}) {
		t.Fatalf("rows %+v", rows)
	}
	for pkg, want := range map[string]string{"lib/x": "a", "lib/y": "a", "lib/y/w": "a", "lib/y/z": "b", "lib/xx": "", "lib/q": ""} {
		if got := layerOf(rows, pkg); got != want {
			t.Errorf("layerOf(%s) = %q, want %q", pkg, got, want)
		}
	}
}
