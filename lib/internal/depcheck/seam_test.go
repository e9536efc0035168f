package depcheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// seamReads are what only cli.System reads of the process around a
// command: the environment, the home and cache dirs, the zone, the place
// in the process tree, and the clock (see clockUses).
var seamReads = map[string]bool{
	"os.Getenv": true, "os.LookupEnv": true, "os.Environ": true,
	"os.UserHomeDir": true, "os.UserCacheDir": true, "os.UserConfigDir": true,
	"os.Getppid": true, "time.Local": true, "time.Now": true,
}

// clockUses are the files that call time.Now outside lib/cli, each with
// how many times and why that is not "the clock of an answer": a
// deadline, an elapsed time, a unique name, or the moment an event
// happens as it is recorded. A time.Now that decides what a command
// answers (which day, which block is active, how old) comes from
// cli.System's clock instead, so that tests can set it.
var clockUses = map[string]struct {
	n   int
	why string
}{
	"lib/atomicfile/append.go":                  {2, "a deadline: how long an append waits for another holder of a log's lock"},
	"lib/cache/cache.go":                        {2, "an entry's last use, recorded (the oldest go first when the store is over its bound); the moment a stamp is taken, to tell a racy one (RacyWindow)"},
	"lib/cache/statpath_linux.go":               {1, "the moment a stamp is taken, to tell a racy one (RacyWindow)"},
	"lib/cassette/proxy/api.go":                 {1, "the moment a proxied model call is recorded"},
	"lib/cassette/proxy/fork.go":                {1, "the moment a fork's run ends (completed, failed by exit, by the upstream or at a bound), recorded"},
	"lib/cassette/proxy/run.go":                 {1, "the cassette's createdAt: when the recording starts"},
	"lib/cassette/proxy/session.go":             {3, "the moments a model call starts and ends, and an upstream failure, recorded"},
	"lib/cassette/proxy/side.go":                {2, "the moments a side call starts and ends, recorded"},
	"lib/commands/internal/warm/warm.go":        {1, "the deadline of a cold spend read"},
	"lib/peer/listener.go":                      {1, "a read deadline"},
	"lib/peer/ratelimit.go":                     {1, "the rate limiter's real clock (tests pass a fake one)"},
	"lib/registry/ended.go":                     {1, "how often the registry is polled"},
	"lib/render/lines.go":                       {1, "a unique reference for spilled lines"},
	"lib/otel/ledger.go":                        {4, "the deadline of the wait for the ledger lock (2), a segment file's unique name, and how long since the ledger was last synced to disk"},
	"lib/otel/pieces.go":                        {1, "a pieces segment file's unique name"},
	"lib/commands/ccgrep/progress.go":           {1, "elapsed time before progress is shown"},
	"lib/searchindex/dirs.go":                   {1, "the moment a directory is read, recorded with its listing: kept only when the directory changed 2 s before"},
	"lib/commands/ccstatusline/ccstatusline.go": {1, "the start of the --budget deadline"},
	"lib/usage/ledger.go":                       {1, "cc-statusline's --budget deadline (RecentOptions.Deadline)"},
	"lib/usage/recent.go":                       {1, "cc-statusline's --budget deadline (RecentOptions.Deadline)"},
}

// seamExempt are the places that may read the process directly: lib/cli
// (System itself), the mains (cmd/*: the process boundary, e.g. GOGC),
// test harnesses (_test.go files, lib/internal/..., lib/peer/peertest)
// and bench/.
func seamExempt(rel string) bool {
	return strings.HasPrefix(rel, "lib/cli/") || strings.HasPrefix(rel, "cmd/") || strings.HasPrefix(rel, "bench/") ||
		strings.HasPrefix(rel, "lib/internal/") || strings.HasPrefix(rel, "lib/peer/peertest/") ||
		strings.HasSuffix(rel, "_test.go")
}

// TestSeam: no file outside lib/cli (and the exempt places) reads the
// environment, home, cache dir, zone, parent pid or clock itself; they
// come from cli.System. A selector is matched by the package's own name
// (os.Getenv, time.Now), which is how every file here imports them.
func TestSeam(t *testing.T) {
	root, _ := filepath.Abs("../../..")
	clocks := map[string]int{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") && path != root {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if !strings.HasSuffix(rel, ".go") || seamExempt(rel) {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			x, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			name := x.Name + "." + sel.Sel.Name
			switch {
			case name == "time.Now":
				clocks[rel]++
			case seamReads[name]:
				t.Errorf("%s reads %s: take it from cli.System (lib/cli/system.go) and pass it down as a value", rel, name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	files := make([]string, 0, len(clocks))
	for f := range clocks {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, f := range files {
		if use, ok := clockUses[f]; !ok || use.n != clocks[f] {
			t.Errorf("%s calls time.Now %d times (clockUses says %d): the clock of an answer comes from cli.System's Clock; a deadline, elapsed time or recorded moment goes into clockUses with why", f, clocks[f], use.n)
		}
	}
	for f := range clockUses {
		if clocks[f] == 0 {
			t.Errorf("%s is in clockUses but calls time.Now no more: remove it", f)
		}
	}
}

// TestArchitectureNamesEveryPackage: docs/architecture.md names every
// package under lib/ (as `lib/...`), so the map keeps up with the tree.
func TestArchitectureNamesEveryPackage(t *testing.T) {
	root, _ := filepath.Abs("../../..")
	doc, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	for pkg := range list(t, root) {
		if strings.HasPrefix(pkg, "lib/") && !strings.Contains(string(doc), "`"+pkg+"`") {
			t.Errorf("docs/architecture.md does not name %s: add it where it belongs, with what it holds", pkg)
		}
	}
}

// maxFuncLines bounds a function, a test's included: past it a function
// holds several steps that want names of their own.
const maxFuncLines = 160

// TestFunctionLength: no function or function literal in the tree is over
// maxFuncLines lines, generated files ("Code generated ... DO NOT EDIT",
// such as the fold table) excepted.
func TestFunctionLength(t *testing.T) {
	root, _ := filepath.Abs("../../..")
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") && path != root {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if ast.IsGenerated(f) {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		ast.Inspect(f, func(n ast.Node) bool {
			var name string
			switch fn := n.(type) {
			case *ast.FuncDecl:
				name = fn.Name.Name
			case *ast.FuncLit:
				name = "func literal"
			default:
				return true
			}
			if lines := fset.Position(n.End()).Line - fset.Position(n.Pos()).Line + 1; lines > maxFuncLines {
				t.Errorf("%s:%d: %s is %d lines (at most %d): split it along its own steps", filepath.ToSlash(rel), fset.Position(n.Pos()).Line, name, lines, maxFuncLines)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
