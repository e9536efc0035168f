// Package claudetest runs the real Claude Code CLI (version Version)
// offline against the fake Messages API of lib/internal/fakeapi, for the contract
// suite (lib/internal/contract) and the corpus generator (lib/internal/claudetest/cmd/gencorpus).
//
// # Usage for contract cases
//
// Contract cases live in lib/internal/contract/<command>_test.go and start with
// contract.Require(t) (skips unless CCPIPE_CONTRACT=1). Then:
//
//	e := claudetest.New(t, claudetest.Config{Script: &fakeapi.Script{Turns: []fakeapi.Turn{
//		{Blocks: []fakeapi.Block{fakeapi.ToolUse("Bash", map[string]any{"command": "echo hi"})}},
//		{Match: "hi", Blocks: []fakeapi.Block{fakeapi.Text("done")}},
//	}}})
//	dir := e.Project("alpha")            // trusted project dir under e.Root
//
// Headless (claude -p), to the end or in the background:
//
//	res := e.Headless(claudetest.Cmd{Dir: dir, Prompt: "go", AllowedTools: []string{"Bash"}})
//	// res.Stdout, res.Stderr, res.ExitCode
//	p := e.Start(claudetest.Cmd{Dir: dir, Prompt: "go"})  // p.Pid while it runs
//	reg := e.WaitRegistry(p.Pid, 20*time.Second, nil)   // sessions/<pid>.json
//	res = p.Wait()
//
// Hooks: write the script with e.WriteFile("hook.sh", "#!/bin/sh\n...", 0o755)
// (or point at a built cc-hook binary) and pass Cmd.Settings, e.g.
// map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{
// "matcher": "Bash", "hooks": []any{map[string]any{"type": "command", "command": path}}}}}}.
//
// Interactive, under a private tmux server:
//
//	s := e.Interactive(claudetest.Cmd{Dir: dir, Args: []string{"-n", "gamma"}})
//	reg := s.WaitReady(30 * time.Second)  // registry record + input prompt
//	s.Type("hello")                        // text + Enter
//	s.WaitScreen("done", 20*time.Second)
//	s.Exit(10 * time.Second)               // or s.Kill9() for a crash
//
// A live session's socket is reg.Fields["messagingSocketPath"]; the
// transcript is e.TranscriptPath(dir, sessionID) (wait with
// e.WaitTranscript). The fake API's request log is e.API.Requests(), and
// e.API.WaitRequest(ctx, func(r fakeapi.Request) bool { return
// r.Contains("injected text") }) waits until the model was sent something
// (a message sent over the socket, a hook's additional context).
// e.API.AddTurns scripts more turns while a session runs.
//
// To run a ccpipe command against the test machine in-process, give it
// e.Environ() values: HOME=e.Home, CLAUDE_CONFIG_DIR=e.ConfigDir.
//
// Everything started (processes with their process groups, tmux servers,
// the fake API, Root) is stopped or removed at the test's cleanup.
//
// # Environment
//
// The CLI is found in $CCPIPE_CLAUDE_BIN, else installed once per machine
// with npm into $CCPIPE_CLAUDE_CACHE (default ~/.cache/ccpipe/claude-code).
// Each process gets the test's environment minus ANTHROPIC_*, CLAUDE_*,
// CLAUDECODE, TMUX*, XDG_RUNTIME_DIR, plus HOME=Root/home,
// CLAUDE_CONFIG_DIR=Root/claude (unless Config.InHome),
// CLAUDE_CODE_TMPDIR=Root/tmp (so sockets are Root/tmp/cc-socks/<pid>.sock),
// ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY=TestKey,
// CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1, DISABLE_AUTOUPDATER=1,
// LANG=C.UTF-8, TERM=xterm-256color, SHELL=/bin/bash.
package claudetest
