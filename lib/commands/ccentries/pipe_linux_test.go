package ccentries

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// Into a pipe cc-entries raises the pipe (to 1 MiB or the system's
// pipe-max-size) and writes the records byte for byte.
func TestPipeStdout(t *testing.T) {
	b, err := os.ReadFile("/proc/sys/fs/pipe-max-size")
	if err != nil {
		t.Skip("no pipe-max-size")
	}
	max, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	done := make(chan []byte)
	go func() {
		data, _ := io.ReadAll(pr)
		done <- data
	}()
	var errb bytes.Buffer
	o := &options{stopFor: registryStop}
	code := o.command().Main([]string{session}, nil, pw, &errb)
	size, serr := unix.FcntlInt(pw.Fd(), unix.F_GETPIPE_SZ, 0)
	pw.Close()
	data := <-done
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if serr != nil || size < min(1<<20, max) {
		t.Errorf("pipe of %d bytes (%v), want %d", size, serr, min(1<<20, max))
	}
	want, _ := os.ReadFile(session)
	if !bytes.Equal(data, bytes.ReplaceAll(want, []byte("\r\n"), []byte("\n"))) {
		t.Errorf("records differ from the transcript: %d bytes, want %d", len(data), len(want))
	}
}
