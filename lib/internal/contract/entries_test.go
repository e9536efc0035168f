package contract

import (
	"bufio"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/lib/commands/ccentries"
	"github.com/ccpipe/ccpipe/lib/internal/claudetest"
	"github.com/ccpipe/ccpipe/lib/internal/fakeapi"
	"github.com/ccpipe/ccpipe/lib/transcript"
)

// cc-entries --follow on a running interactive session prints each new
// record soon after Claude Code writes it (the latency is logged), every real record
// decodes aligned, and the follow ends by itself once /exit removes the
// session's registry record.
func TestEntriesFollowInteractive(t *testing.T) {
	Require(t)
	t.Parallel()
	e := claudetest.New(t, claudetest.Config{Script: &fakeapi.Script{Turns: []fakeapi.Turn{
		{Blocks: []fakeapi.Block{fakeapi.Text("follow-marker-one")}},
		{Blocks: []fakeapi.Block{fakeapi.Text("follow-marker-two")}},
	}}})
	dir := e.Project("follow")
	s := e.Interactive(claudetest.Cmd{Dir: dir})
	reg := s.WaitReady(40 * time.Second)
	sid, _ := reg.Fields["sessionId"].(string)
	path := e.TranscriptPath(dir, sid)

	s.Type("first")
	e.WaitTranscript(path, "follow-marker-one", 30*time.Second)

	// cc-entries in-process, its stdout a pipe read line by line.
	pr, pw := io.Pipe()
	code := make(chan int, 1)
	go func() {
		c := ccentries.Run([]string{"--follow", "--tail", "0", "--types", "assistant", path}, nil, pw, os.Stderr)
		pw.Close()
		code <- c
	}()
	var mu sync.Mutex
	seen := map[string]time.Time{}
	go func() {
		br := bufio.NewReader(pr)
		for {
			line, err := br.ReadString('\n')
			if line != "" {
				mu.Lock()
				seen[line] = time.Now()
				mu.Unlock()
			}
			if err != nil {
				return
			}
		}
	}()

	s.Type("second")
	// Note when the record lands in the file, then when cc-entries prints it.
	var written time.Time
	claudetest.Poll(30*time.Second, func() (bool, error) {
		b, err := os.ReadFile(path)
		if strings.Contains(string(b), "follow-marker-two") {
			written = time.Now()
			return true, nil
		}
		return false, err
	})
	var printed time.Time
	claudetest.Poll(5*time.Second, func() (bool, error) {
		mu.Lock()
		defer mu.Unlock()
		for line, at := range seen {
			if strings.Contains(line, "follow-marker-two") {
				printed = at
				return true, nil
			}
		}
		return false, nil
	})
	if printed.IsZero() {
		t.Fatal("cc-entries --follow never printed the new record")
	}
	// The issue asks for "within a second"; speed is not asserted in tests
	// (a loaded machine would make it flaky), so the latency is logged for
	// the record and the poll above bounds it at 5 s. printed may even
	// precede the poll that saw the file.
	t.Logf("follow latency: record printed %v after the poll saw it written", printed.Sub(written))
	mu.Lock()
	for line := range seen {
		if strings.Contains(line, "follow-marker-one") {
			t.Errorf("--tail 0 printed an old record: %s", line)
		}
	}
	mu.Unlock()

	s.Exit(20 * time.Second)
	select {
	case c := <-code:
		if c != 0 {
			t.Errorf("cc-entries --follow exit %d", c)
		}
	case <-time.After(10 * time.Second):
		t.Error("cc-entries --follow did not end after /exit removed the registry record")
	}

	// Every record of the real transcript decodes aligned.
	d, err := transcript.ReadFile(path, transcript.Options{Decode: true}, func(*transcript.Line) error { return nil })
	if err != nil || !d.Aligned || d.Malformed != 0 || len(d.UnknownTypes) != 0 || len(d.UnknownBlocks) != 0 {
		t.Errorf("diagnostics of the real transcript: %+v, %v", d, err)
	}
}
