package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/ccpipe/ccpipe/lib/internal/claudetest"
	"github.com/ccpipe/ccpipe/lib/internal/contract"
	"github.com/ccpipe/ccpipe/lib/internal/fakeapi"
)

// runner is the claudetest.TB of a command: Fatalf stops the generation
// (by panic, recovered in run) and cleanups run in reverse at the end.
type runner struct {
	stderr   io.Writer
	cleanups []func()
}

type fatal struct{ msg string }

func (r *runner) Helper()          {}
func (r *runner) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }
func (r *runner) Logf(format string, a ...any) {
	fmt.Fprintf(r.stderr, "gencorpus: "+format+"\n", a...)
}
func (r *runner) Fatalf(format string, a ...any) { panic(fatal{fmt.Sprintf(format, a...)}) }

func (r *runner) cleanup() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

func run(args []string, stdout, stderr io.Writer) (code int) {
	fl := flag.NewFlagSet("gencorpus", flag.ContinueOnError)
	fl.SetOutput(stderr)
	out := fl.String("out", "testdata/corpus", "output `dir` (its claude/, README.md and MANIFEST.md are replaced)")
	keep := fl.Bool("keep", false, "keep the raw temp dir and print its path")
	docsOnly := fl.Bool("docs-only", false, "only rewrite README.md and MANIFEST.md from the corpus already in -out (no CLI runs)")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if *docsOnly {
		list := sessions(func(name string) string { return anonProjects + "/" + name }, anonHooks)
		if err := writeDocs(*out, list); err != nil {
			fmt.Fprintf(stderr, "gencorpus: %v\n", err)
			return 1
		}
		return 0
	}
	r := &runner{stderr: stderr}
	defer func() {
		if p := recover(); p != nil {
			f, ok := p.(fatal)
			if !ok {
				panic(p)
			}
			fmt.Fprintf(stderr, "gencorpus: %s\n", f.msg)
			code = 1
		}
		r.cleanup() // stops every process; removes the temp dir unless -keep
	}()
	root, err := os.MkdirTemp("", "cct")
	if err != nil {
		r.Fatalf("%v", err)
	}
	if !*keep {
		r.Cleanup(func() { _ = os.RemoveAll(root) })
	} else {
		fmt.Fprintf(stderr, "gencorpus: raw dir %s\n", root)
	}
	start := time.Now()
	g := &gen{r: r, e: claudetest.New(r, claudetest.Config{Root: root, Script: &fakeapi.Script{Title: "Corpus session"}})}
	g.prepareProjects()
	logf, err := os.Create(filepath.Join(root, "requests.jsonl"))
	if err != nil {
		r.Fatalf("%v", err)
	}
	defer logf.Close()
	g.e.API.SetLog(logf)
	hookDir := filepath.Dir(g.e.WriteFile("hooks/deny.sh", "#!/bin/sh\ncat >/dev/null\nprintf '%s\\n' '"+denyJSON+"'\n", 0o755))
	g.e.WriteFile("hooks/title.sh", "#!/bin/sh\ncat >/dev/null\nprintf '%s\\n' '"+titleJSON+"'\n", 0o755)
	list := sessions(g.e.Project, hookDir)
	for _, s := range list {
		t0 := time.Now()
		if s.interactive {
			g.interactiveQueue(s)
		} else {
			g.headless(s)
		}
		r.Logf("session %s (%s) done in %v", s.id, s.project, time.Since(t0).Round(100*time.Millisecond))
	}
	if err := g.export(*out, list); err != nil {
		r.Fatalf("%v", err)
	}
	fmt.Fprintf(stdout, "gencorpus: wrote %s in %v\n", *out, time.Since(start).Round(time.Second))
	return 0
}

type gen struct {
	r *runner
	e *claudetest.Env
}

// prepareProjects puts a few files in the project dirs for the file tools.
func (g *gen) prepareProjects() {
	alpha := g.e.Project("alpha")
	files := map[string]string{
		"README.md":       "# alpha\n\nA small project for the ccpipe corpus.\nStatus: draft\n",
		"src/main.go":     "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"alpha\")\n}\n",
		"src/util/str.go": "package util\n\n// Upper is a helper.\nfunc Upper(s string) string { return s }\n",
	}
	for name, content := range files {
		p := filepath.Join(alpha, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			g.r.Fatalf("%v", err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			g.r.Fatalf("%v", err)
		}
	}
	g.e.Project("beta")
	g.e.Project("gamma")
}

// addTurns scripts the next run; the previous run must have used its turns.
func (g *gen) addTurns(turns []fakeapi.Turn) {
	if u := g.e.API.Unused(); len(u) > 0 {
		g.r.Fatalf("script turns %v were never requested", u)
	}
	if err := g.e.API.AddTurns(turns...); err != nil {
		g.r.Fatalf("%v", err)
	}
}

func (g *gen) headless(s session) {
	dir := g.e.Project(s.project)
	for i, rn := range s.runs {
		g.addTurns(rn.turns)
		args := append([]string{}, rn.args...)
		if i == 0 {
			args = append(args, "--session-id", s.id)
		} else {
			args = append(args, "--resume", s.id)
		}
		res := g.e.Headless(claudetest.Cmd{Dir: dir, Prompt: rn.prompt, Args: args, Env: rn.env,
			Settings: rn.settings, AllowedTools: s.tools, Timeout: 2 * time.Minute})
		if res.ExitCode != rn.exit {
			g.r.Fatalf("session %s run %d: exit %d, want %d\nstdout: %s\nstderr: %s", s.id, i, res.ExitCode, rn.exit, res.Stdout, res.Stderr)
		}
	}
	if u := g.e.API.Unused(); len(u) > 0 {
		g.r.Fatalf("session %s: script turns %v were never requested", s.id, u)
	}
}

// interactiveQueue types a prompt whose turn runs `sleep`, and a second
// prompt while the first is busy, so the second is queued.
func (g *gen) interactiveQueue(s session) {
	dir := g.e.Project(s.project)
	g.addTurns([]fakeapi.Turn{
		{Name: "interactive: sleep", Match: "FIRST-INTERACTIVE", Blocks: []fakeapi.Block{fakeapi.Text("Sleeping a bit."), bash("sleep 6; echo woke-up")}},
		{Name: "interactive: after queue", Match: "woke-up", Blocks: []fakeapi.Block{fakeapi.Text("Queue handled.")}},
	})
	t := g.e.Interactive(claudetest.Cmd{Dir: dir, Args: []string{"--session-id", s.id}, AllowedTools: s.tools})
	t.WaitReady(60 * time.Second)
	t.Type("FIRST-INTERACTIVE prompt: sleep please")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := g.e.API.WaitRequest(ctx, func(r fakeapi.Request) bool { return r.TurnName == "interactive: sleep" }); err != nil {
		g.r.Fatalf("%v\nscreen:\n%s", err, t.Screen())
	}
	time.Sleep(1500 * time.Millisecond)
	t.Type("QUEUED-FOLLOW-UP: and then say done")
	t.WaitScreen("Queue handled.", 60*time.Second)
	// Let the CLI settle (the queued prompt may get its own turn).
	time.Sleep(3 * time.Second)
	t.Exit(30 * time.Second)
}

// export copies the config dir's projects/ to out/claude with stable
// paths, checks it, and writes README.md and MANIFEST.md.
func (g *gen) export(out string, list []session) error {
	rep := replacer(g.e)
	dst := filepath.Join(out, "claude")
	if err := os.RemoveAll(dst); err != nil {
		return err
	}
	src := g.e.ProjectsDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(g.e.ConfigDir, p)
		target := filepath.Join(dst, rep.Replace(rel))
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, []byte(rep.Replace(string(data))), 0o644)
	})
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if err := g.verify(dst, list); err != nil {
		return err
	}
	return writeDocs(out, list)
}

// writeDocs writes README.md and MANIFEST.md for the corpus in out.
func writeDocs(out string, list []session) error {
	if err := os.WriteFile(filepath.Join(out, "README.md"), []byte(readme), 0o644); err != nil {
		return err
	}
	m, err := manifest(filepath.Join(out, "claude"), list)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "MANIFEST.md"), []byte(m), 0o644)
}

// Stable names for the temp paths.
const (
	anonHome     = "/home/dev"
	anonConfig   = "/home/dev/.claude"
	anonProjects = "/home/dev/projects"
	anonHooks    = "/home/dev/hooks"
	anonTmp      = "/tmp"
)

// replacer maps every temp path (and its slug, as found in project dir
// names and temp dirs) to a stable one, longest first.
func replacer(e *claudetest.Env) *strings.Replacer {
	uidTmp := filepath.Join(e.TmpDir, fmt.Sprintf("claude-%d", os.Getuid()))
	pairs := [][2]string{
		{uidTmp, anonTmp + "/claude-1000"},
		{filepath.Join(e.Root, "files", "hooks"), anonHooks},
		{e.ConfigDir, anonConfig},
		{filepath.Join(e.Root, "projects"), anonProjects},
		{e.TmpDir, anonTmp},
		{e.Home, anonHome},
		{e.Root, anonHome + "/root"},
		{claudetest.TestKey, "sk-ant-REDACTED"},
	}
	var args []string
	for _, p := range pairs {
		args = append(args, p[0], p[1])
	}
	for _, p := range pairs[:len(pairs)-1] {
		args = append(args, claudetest.Slug(p[0]), claudetest.Slug(p[1]))
	}
	// strings.Replacer compares in argument order: longest first.
	type kv struct{ k, v string }
	var kvs []kv
	for i := 0; i < len(args); i += 2 {
		kvs = append(kvs, kv{args[i], args[i+1]})
	}
	sort.SliceStable(kvs, func(i, j int) bool { return len(kvs[i].k) > len(kvs[j].k) })
	args = args[:0]
	for _, p := range kvs {
		args = append(args, p.k, p.v)
	}
	return strings.NewReplacer(args...)
}

// verify checks the exported corpus: no temp path or key left, every
// record parses and has its shape, each session has its transcript and
// the texts it is meant to cover.
func (g *gen) verify(dst string, list []session) error {
	root := filepath.Base(g.e.Root)
	var problems []string
	all := map[string]*bytes.Buffer{}
	err := filepath.WalkDir(dst, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dst, p)
		for _, bad := range []string{root, "sk-ant-test", "sk-ant-REDACTED"} {
			if bytes.Contains(data, []byte(bad)) || strings.Contains(rel, bad) {
				problems = append(problems, fmt.Sprintf("%s contains %q", rel, bad))
			}
		}
		for _, s := range list {
			if strings.Contains(rel, s.id) {
				if all[s.id] == nil {
					all[s.id] = &bytes.Buffer{}
				}
				all[s.id].Write(data)
			}
		}
		if strings.HasSuffix(p, ".jsonl") {
			for i, line := range bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n")) {
				var m map[string]any
				if err := json.Unmarshal(line, &m); err != nil {
					problems = append(problems, fmt.Sprintf("%s:%d: %v", rel, i+1, err))
					continue
				}
				for _, err := range contract.Check(m) {
					problems = append(problems, fmt.Sprintf("%s:%d: %v", rel, i+1, err))
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, s := range list {
		main := filepath.Join(dst, "projects", claudetest.Slug(anonProjects+"/"+s.project), s.id+".jsonl")
		if _, err := os.Stat(main); err != nil {
			problems = append(problems, fmt.Sprintf("session %s: %v", s.id, err))
			continue
		}
		for _, want := range s.expect {
			if all[s.id] == nil || !bytes.Contains(all[s.id].Bytes(), []byte(want)) {
				problems = append(problems, fmt.Sprintf("session %s: no %q in its files", s.id, want))
			}
		}
	}
	if len(problems) > 0 {
		return errors.New("corpus check failed:\n  " + strings.Join(problems, "\n  "))
	}
	return nil
}

const readme = `# The real-CLI corpus

claude/ is a Claude Code config dir (use it as CLAUDE_CONFIG_DIR) written by
the real Claude Code ` + claudetest.Version + ` CLI, run offline against the scripted
fake Messages API of lib/internal/fakeapi. MANIFEST.md lists every session, what it
covers, and its tool_use ids, subagents and tool-results files.

Regenerate (needs Node/npm the first time, and tmux):

    go run ./lib/internal/claudetest/cmd/gencorpus -out testdata/corpus

The generator (lib/internal/claudetest/cmd/gencorpus) runs each session from a fixed
script with a fixed --session-id, so file names, session ids, message ids
(msg_fake_tNNN) and tool_use ids (toolu_fake_tNNN_bN) stay the same; uuids,
timestamps, subagent ids and tool-results file names change on every run.
Paths are rewritten: the temp config dir becomes /home/dev/.claude, the
project dirs /home/dev/projects/{alpha,beta,gamma} (and their slugs
-home-dev-projects-*), HOME /home/dev, the CLI temp dir /tmp/claude-1000,
hook scripts /home/dev/hooks. Only projects/ is kept: the session registry,
.claude.json, backups and plugin files are dropped. The API key was a fake
and does not appear. The generator refuses to write a corpus whose records
fail lib/internal/contract's shape checker or lack what a session is meant to cover.
`
