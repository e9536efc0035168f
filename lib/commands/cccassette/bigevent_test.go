//go:build linux

package cccassette

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ccpipe/ccpipe/lib/internal/golden"
)

// TestRecordBigEventBounded is issue 36's "a 300 MB SSE event takes 2.3 GB
// in the proxy": under an address-space limit, cc-cassette record facing
// one 300 MB server-sent event (generated on the fly) refuses it as its
// help says (the stream cut, a cc-cassette: message, exit 1, no cassette)
// instead of running out of memory; a 12 MB event under the same limit is
// recorded whole.
func TestRecordBigEventBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 300 MB through cc-cassette under ulimit -v")
	}
	for _, tool := range []string{"bash", "curl"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip("needs " + tool)
		}
	}
	// The real binary without cgo (see golden.Build).
	bin := golden.Build(t, "cc-cassette", "CGO_ENABLED=0")
	// size is the event's length; the first case's handler may still be
	// writing when the second sets it.
	var size atomic.Int64
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		ev := func(name, data string) error {
			_, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, data)
			return err
		}
		_ = ev("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"usage":{"input_tokens":1,"output_tokens":1}}}`)
		_ = ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
		if _, err := fmt.Fprint(w, `event: content_block_delta`+"\n"+`data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"`); err != nil {
			return
		}
		chunk := []byte(strings.Repeat("a", 1<<20))
		for n, end := 0, int(size.Load()); n < end; n += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return // the proxy cut the stream
			}
		}
		_, _ = fmt.Fprint(w, "\"}}\n\n")
		_ = ev("content_block_stop", `{"type":"content_block_stop","index":0}`)
		_ = ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":2}}`)
		_ = ev("message_stop", `{"type":"message_stop"}`)
	}))
	defer upstream.Close()

	// A main-loop request (it offers a tool) that streams.
	req := `{"model":"m","max_tokens":10,"stream":true,"tools":[{"name":"Bash","description":"run","input_schema":{"type":"object"}}],"messages":[{"role":"user","content":"hi"}]}`
	record := func(t *testing.T, mb int) (int, string, string) {
		size.Store(int64(mb) << 20)
		out := filepath.Join(t.TempDir(), "run.ndjson")
		client := `curl -sS -N -o /dev/null -X POST "$ANTHROPIC_BASE_URL/v1/messages" -H 'content-type: application/json' -H 'anthropic-version: 2023-06-01' -d '` + req + `'`
		// 2 GB of address space: this Go runtime takes about 1.5 GB of it
		// at start; main's proxy needed 2.3 GB more for a 300 MB event.
		cmd := exec.Command("bash", "-c", "ulimit -v 2000000; exec cc-cassette record --out "+out+" -- sh -c \"$CLIENT\"")
		cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
			"ANTHROPIC_BASE_URL="+upstream.URL, "ANTHROPIC_API_KEY=", "CLIENT="+client)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(out)
		return code, stderr.String(), string(b)
	}

	t.Run("300 MB event", func(t *testing.T) {
		code, errs, cas := record(t, 300)
		if code != 1 || !strings.Contains(errs, "cc-cassette: model response: a stream event over 16 MiB: refused") {
			t.Errorf("exit %d, want 1 with the refusal\nstderr: %.2000s", code, errs)
		}
		for _, bad := range []string{"out of memory", "panic", "fatal error"} {
			if strings.Contains(errs, bad) {
				t.Errorf("stderr has %q: %.2000s", bad, errs)
			}
		}
		if cas != "" {
			t.Errorf("a cassette was written without the refused answer: %.300s", cas)
		}
	})
	t.Run("12 MB event", func(t *testing.T) {
		code, errs, cas := record(t, 12)
		if code != 0 || !strings.Contains(errs, "cc-cassette: recorded ") {
			t.Fatalf("exit %d\nstderr: %.2000s", code, errs)
		}
		if !strings.Contains(cas, `"model_output"`) || !strings.Contains(cas, strings.Repeat("a", 12<<20)) {
			t.Errorf("the cassette lacks the 12 MB answer (%d bytes)", len(cas))
		}
	})
}
