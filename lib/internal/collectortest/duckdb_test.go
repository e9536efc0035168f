package collectortest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// duckDBPackage is the DuckDB release the team query is written for:
// its Node API, whose npm package ships the native library.
const duckDBPackage = "@duckdb/node-api@1.5.6-r.1"

// duckDBDir is where it is installed: $CCPIPE_DUCKDB_CACHE, else
// ~/.cache/ccpipe/duckdb (as lib/internal/claudetest installs Claude Code).
func duckDBDir(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("CCPIPE_DUCKDB_CACHE"); d != "" {
		abs, err := filepath.Abs(d)
		if err != nil {
			t.Fatal(err)
		}
		return abs
	}
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatalf("duckdb: cache dir: %v", err)
	}
	return filepath.Join(home, ".cache", "ccpipe", "duckdb")
}

// duckDB installs the DuckDB Node API once per machine (npm, under a
// file lock) and returns the path of its module.
func duckDB(t *testing.T) string {
	t.Helper()
	dir := duckDBDir(t)
	mod := filepath.Join(dir, "node_modules", "@duckdb", "node-api", "lib", "index.js")
	version := strings.TrimPrefix(duckDBPackage, "@duckdb/node-api@")
	installed := func() bool {
		b, err := os.ReadFile(filepath.Join(dir, "node_modules", "@duckdb", "node-api", "package.json"))
		return err == nil && strings.Contains(string(b), `"version": "`+version+`"`)
	}
	if installed() {
		return mod
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	lock, err := os.OpenFile(filepath.Join(dir, ".install.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN) //nolint:errcheck
	if installed() {
		return mod
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Fatalf("duckdb: npm not found (the team query runs in DuckDB's Node API): %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "install", "--prefix", dir, "--save-exact", "--no-audit", "--no-fund", duckDBPackage)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("duckdb: npm install %s: %v\n%s", duckDBPackage, err, out)
	}
	if !installed() {
		t.Fatalf("duckdb: npm install %s left no %s", duckDBPackage, mod)
	}
	return mod
}

// runner runs the SQL file argv[3] with the DuckDB module argv[2] in the
// current directory and prints the rows as one JSON array.
const runner = `const { DuckDBInstance } = await import(process.argv[2]);
const sql = (await import('node:fs')).readFileSync(process.argv[3], 'utf8');
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const r = await con.runAndReadAll(sql);
process.stdout.write(JSON.stringify(r.getRowObjectsJson()));
`

// duckQuery runs sql in dir with DuckDB and returns the rows.
func duckQuery(t *testing.T, dir, sql string) []map[string]any {
	t.Helper()
	mod := duckDB(t)
	tmp := t.TempDir()
	script, sqlFile := filepath.Join(tmp, "run.mjs"), filepath.Join(tmp, "query.sql")
	if err := os.WriteFile(script, []byte(runner), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(sqlFile, []byte(sql), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", script, "file://"+mod, sqlFile)
	cmd.Dir = dir
	var errb strings.Builder
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("duckdb: %v\n%s", err, errb.String())
	}
	var rows []map[string]any
	if err := json.Unmarshal(out, &rows); err != nil {
		t.Fatalf("duckdb printed %.200q: %v", out, err)
	}
	return rows
}

// docQuery is the SQL block of docs/cc-otel.md that reads the file
// exporter's output: the query the docs give, as written.
func docQuery(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "cc-otel.md"))
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, m := range regexp.MustCompile("(?s)```sql\n(.*?)```").FindAllStringSubmatch(string(b), -1) {
		if strings.Contains(m[1], "read_json_objects(") {
			found = append(found, m[1])
		}
	}
	if len(found) != 1 {
		t.Fatalf("docs/cc-otel.md has %d sql blocks that read the file exporter's output, want 1", len(found))
	}
	return found[0]
}

func str(v any) string { return fmt.Sprint(v) }
