// Package depcheck holds the one test of the tree's layering: which
// package of the module may import which, stated in one table.
package depcheck

import (
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/ccpipe/ccpipe/"

// arrows is every package of the module with the module packages it may
// import (non-test imports; tests may also use lib/internal/... and the
// *test packages). The layers, from the bottom:
//
//   - small shared pieces: bytescan, mapped, jsonscan, ndjson, jq;
//     nothing of ours, or only each other;
//   - domains: profiles, registry, transcript, sessions, extract, search,
//     peer, hooks; never lib/cli, lib/commands or flag: they take
//     options structs;
//   - lib/cli, the command plumbing, on top of jq and ndjson;
//   - lib/commands/cc<name>: wiring of cli and domains, one per command;
//   - cmd/<name>: a main of a few lines calling one command package;
//   - lib/internal: the test harness, reached only by tests and its own
//     tools; bench: the benchmark tools.
//
// A package missing from this table fails the test: add it here with
// the arrows it needs, which is where the layering gets reviewed. An
// arrow no import uses fails too: the table is what the tree does, not
// what it once did.
var arrows = map[string][]string{
	"lib/bytescan":   nil,
	"lib/atomicfile": nil,
	"lib/spell":      nil,
	"lib/quote":      nil,
	"lib/syncwriter": nil,
	"lib/sequencer":  nil,
	"lib/numfmt":     nil,
	"lib/cache":      {"lib/atomicfile", "lib/regular"},
	"lib/mapped":     nil,
	"lib/jsonscan":   {"lib/bytescan"}, // a long string's end by vector scans (plainSpan)
	"lib/ndjson":     {"lib/jsonscan"},
	"lib/jq":         nil,
	"lib/records":    {"lib/jsonscan", "lib/layout"},

	"lib/profiles":      {"lib/layout", "lib/regular"},
	"lib/registry":      {"lib/layout", "lib/regular", "lib/transcript"},
	"lib/sessions":      {"lib/cache", "lib/jsonscan", "lib/layout", "lib/ndjson", "lib/profiles", "lib/quote", "lib/records", "lib/registry", "lib/regular", "lib/transcript"},
	"lib/extract":       {"lib/bytescan", "lib/cache", "lib/hooks", "lib/jsonscan", "lib/layout", "lib/ndjson", "lib/pricing", "lib/sequencer", "lib/transcript", "lib/usage"},
	"lib/usage":         {"lib/cache", "lib/jsonscan", "lib/layout", "lib/ndjson", "lib/numfmt", "lib/pricing", "lib/quote", "lib/regular"},
	"lib/peer":          {"lib/ndjson", "lib/regular"},
	"lib/peer/peertest": nil,
	"lib/hooks":         {"lib/jsonscan", "lib/spell"},
	"lib/hooks/rules":   {"lib/hooks", "lib/jq", "lib/regular", "lib/spell", "lib/usage"},
	"lib/secrets":       {"lib/bytescan", "lib/jsonscan"},
	"lib/cassette":      {"lib/jsonscan", "lib/ndjson", "lib/quote", "lib/secrets"},
	"lib/otel":          {"lib/atomicfile", "lib/cache", "lib/extract", "lib/layout", "lib/mapped", "lib/pricing", "lib/regular", "lib/transcript", "lib/usage"},
	"lib/ratelimit":     {"lib/atomicfile", "lib/regular", "lib/usage"},
	"lib/render":        {"lib/extract", "lib/ndjson", "lib/numfmt", "lib/pricing", "lib/secrets", "lib/transcript", "lib/usage"},
	"lib/hooks/link":    {"lib/hooks", "lib/profiles", "lib/sessions", "lib/transcript"},

	"lib/cli": {"lib/jq", "lib/ndjson", "lib/numfmt", "lib/quote", "lib/regular", "lib/spell", "lib/syncwriter"},

	"lib/commands":               {"lib/cli", "lib/commands/cccassette", "lib/commands/ccentries", "lib/commands/ccextract", "lib/commands/ccgrep", "lib/commands/cchook", "lib/commands/ccotel", "lib/commands/ccprofiles", "lib/commands/ccredact", "lib/commands/ccrender", "lib/commands/ccsend", "lib/commands/ccsessions", "lib/commands/ccstatusline"},
	"lib/commands/internal/load": {"lib/cache", "lib/cli", "lib/layout", "lib/pricing", "lib/profiles", "lib/records", "lib/sessions"},
	"lib/commands/ccotel":        {"lib/cache", "lib/cli", "lib/commands/internal/load", "lib/extract", "lib/ndjson", "lib/otel", "lib/pricing", "lib/records", "lib/secrets", "lib/transcript"},
	"lib/commands/ccsessions":    {"lib/cli", "lib/commands/internal/load", "lib/profiles", "lib/records", "lib/sessions"},
	"lib/commands/ccentries":     {"lib/cli", "lib/commands/internal/load", "lib/hooks", "lib/ndjson", "lib/profiles", "lib/records", "lib/registry", "lib/transcript"},
	"lib/commands/ccprofiles":    {"lib/cli", "lib/profiles", "lib/records"},
	"lib/commands/ccextract":     {"lib/cache", "lib/cli", "lib/commands/internal/load", "lib/extract", "lib/jsonscan", "lib/ndjson", "lib/pricing", "lib/records", "lib/sessions", "lib/transcript", "lib/usage"},
	"lib/commands/ccgrep":        {"lib/cache", "lib/cli", "lib/commands/internal/load", "lib/ndjson", "lib/profiles", "lib/records", "lib/search", "lib/searchindex", "lib/sessions"},
	"lib/commands/ccsend":        {"lib/cli", "lib/commands/internal/load", "lib/layout", "lib/ndjson", "lib/peer", "lib/profiles", "lib/records", "lib/registry", "lib/sessions"},
	"lib/commands/cchook":        {"lib/cli", "lib/commands/internal/warm", "lib/hooks", "lib/hooks/backtest", "lib/hooks/rules", "lib/layout", "lib/records", "lib/usage"},
	"lib/commands/internal/warm": {"lib/cli", "lib/usage"},
	"lib/commands/cccassette":    {"lib/atomicfile", "lib/cassette", "lib/cassette/proxy", "lib/cli", "lib/jq", "lib/ndjson", "lib/records", "lib/transcript"},
	"lib/commands/ccrender":      {"lib/atomicfile", "lib/cli", "lib/commands/internal/load", "lib/records", "lib/registry", "lib/render", "lib/secrets", "lib/sessions", "lib/transcript"},

	"cmd/cc-profiles": {"lib/commands/ccprofiles"},
	"cmd/cc-sessions": {"lib/commands/ccsessions"},
	"cmd/cc-entries":  {"lib/commands/ccentries"},
	"cmd/cc-extract":  {"lib/commands/ccextract"},
	"cmd/cc-grep":     {"lib/commands/ccgrep"},
	"cmd/cc-send":     {"lib/commands/ccsend"},
	"cmd/cc-hook":     {"lib/commands/cchook"},
	"cmd/cc-cassette": {"lib/commands/cccassette"},
	"cmd/cc-render":   {"lib/commands/ccrender"},
	"cmd/cc-otel":     {"lib/commands/ccotel"},

	"lib/internal/depcheck":                 nil,
	"lib/internal/gendocs":                  {"lib/cli", "lib/commands"},
	"lib/internal/golden":                   {"lib/cache"},
	"lib/internal/fulldisk":                 nil,
	"lib/internal/fakeapi":                  nil,
	"lib/internal/fakeapi/cmd/fakeapi":      {"lib/internal/fakeapi"},
	"lib/internal/claudetest":               {"lib/internal/fakeapi"},
	"lib/internal/claudetest/cmd/gencorpus": {"lib/internal/claudetest", "lib/internal/contract", "lib/internal/fakeapi"},
	"lib/internal/contract":                 {"lib/internal/claudetest"},

	"bench/barehook":            nil,
	"bench/corpus":              nil,
	"bench/gen":                 {"bench/corpus"},
	"bench/tool":                {"bench/corpus", "lib/secrets"},
	"cmd/cc-redact":             {"lib/commands/ccredact"},
	"cmd/cc-statusline":         {"lib/commands/ccstatusline"},
	"lib/cassette/proxy":        {"lib/atomicfile", "lib/cassette", "lib/jq", "lib/ndjson", "lib/secrets", "lib/syncwriter"},
	"lib/commands/ccredact":     {"lib/cli", "lib/commands/internal/load", "lib/hooks", "lib/ndjson", "lib/records", "lib/regular", "lib/search", "lib/secrets", "lib/sequencer", "lib/sessions", "lib/transcript"},
	"lib/commands/ccstatusline": {"lib/atomicfile", "lib/cli", "lib/commands/internal/load", "lib/commands/internal/warm", "lib/hooks", "lib/numfmt", "lib/ratelimit", "lib/records", "lib/usage"},
	"lib/pricing":               nil,
	"lib/regular":               nil,
	"lib/layout":                nil,
	"lib/search":                {"lib/bytescan", "lib/jsonscan", "lib/layout", "lib/mapped", "lib/regular", "lib/sequencer", "lib/transcript"},
	"lib/searchindex":           {"lib/bytescan", "lib/cache", "lib/layout", "lib/search", "lib/transcript"}, // a head's last line end by vector scans
	"lib/transcript":            {"lib/atomicfile", "lib/bytescan", "lib/cache", "lib/jsonscan", "lib/layout", "lib/mapped", "lib/ndjson", "lib/profiles", "lib/regular"},
	"lib/hooks/backtest":        {"lib/extract", "lib/hooks", "lib/hooks/rules", "lib/layout", "lib/transcript"},
}

// light are packages on a hot path, with what they must not pull in even
// indirectly: cc-hook runs before every matching tool call.
var light = map[string][]string{
	"lib/hooks":       {"lib/transcript", "lib/registry", "lib/sessions", "github.com/klauspost/compress"},
	"lib/hooks/rules": {"lib/transcript", "lib/registry", "lib/sessions", "github.com/klauspost/compress"},
	// cc-hook backtest reads transcripts (lib/extract): the transcript
	// reader and its archive codecs are linked, so only their init runs
	// on the hot path; the registry and session listing stay out.
	"cmd/cc-hook": {"lib/registry", "lib/sessions"},
}

// flagUsers may import the standard flag package: the CLI plumbing and
// the tools' mains. Everything else takes options structs.
func flagUser(pkg string) bool {
	return pkg == "lib/cli" || strings.HasPrefix(pkg, "cmd/") || strings.HasPrefix(pkg, "bench/") ||
		strings.HasPrefix(pkg, "lib/internal/") || strings.HasPrefix(pkg, "lib/commands/")
}

type pkgInfo struct {
	imports []string // module-relative for ours, full for others
	deps    []string // transitive, same naming
}

func list(t *testing.T, root string) map[string]pkgInfo {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}|{{join .Imports " "}}|{{join .Deps " "}}`, "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	rel := func(s []string) []string {
		for i, p := range s {
			s[i] = strings.TrimPrefix(p, module)
		}
		return s
	}
	pkgs := map[string]pkgInfo{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		parts := strings.SplitN(line, "|", 3)
		pkgs[strings.TrimPrefix(parts[0], module)] = pkgInfo{imports: rel(strings.Fields(parts[1])), deps: rel(strings.Fields(parts[2]))}
	}
	return pkgs
}

func ours(p string) bool {
	return strings.HasPrefix(p, "lib/") || strings.HasPrefix(p, "cmd/") || strings.HasPrefix(p, "bench/")
}

func TestArrows(t *testing.T) {
	root, _ := filepath.Abs("../../..")
	pkgs := list(t, root)
	for _, pkg := range slices.Sorted(maps.Keys(pkgs)) {
		info := pkgs[pkg]
		allowed, known := arrows[pkg]
		if !known {
			var mine []string
			for _, imp := range info.imports {
				if ours(imp) {
					mine = append(mine, imp)
				}
			}
			t.Errorf("%s is not in the dependency table (lib/internal/depcheck arrows): add it with the packages it may import (now %q)", pkg, mine)
			continue
		}
		for _, imp := range info.imports {
			if ours(imp) && !slices.Contains(allowed, imp) {
				t.Errorf("%s imports %s: not an allowed arrow (lib/internal/depcheck arrows)", pkg, imp)
			}
			if imp == "flag" && !flagUser(pkg) {
				t.Errorf("%s imports flag: domain packages take options structs, not flags", pkg)
			}
		}
		for _, bad := range light[pkg] {
			if slices.Contains(info.deps, bad) {
				t.Errorf("%s depends on %s: it is on cc-hook's hot path", pkg, bad)
			}
		}
	}
	for pkg, allowed := range arrows {
		info, ok := pkgs[pkg]
		if !ok {
			t.Errorf("%s is in the dependency table but not in the tree: remove it", pkg)
			continue
		}
		for _, imp := range allowed {
			if !slices.Contains(info.imports, imp) {
				t.Errorf("%s may import %s but does not: remove the arrow (lib/internal/depcheck arrows), so the table says what the tree does", pkg, imp)
			}
		}
	}
}

// TestExitOnlyInMain: os.Exit lives in main packages only (cmd/*/main.go
// and the tools), so every command runs in-process in tests.
func TestExitOnlyInMain(t *testing.T) {
	exitCall := regexp.MustCompile(`\bos\.Exit\(`)
	packageMain := regexp.MustCompile(`(?m)^package main$`)
	root, _ := filepath.Abs("../../..")
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if packageMain.Match(data) {
			return nil
		}
		if exitCall.Match(data) {
			t.Errorf("%s calls os.Exit: only cmd/*/main.go may", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
