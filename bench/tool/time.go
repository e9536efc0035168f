package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Timing is one measured run. Peak RSS comes from wait4's rusage, the same
// number GNU time -v prints as "Maximum resident set size" (it includes the
// waited-for children of the command, so pipelines under bash -c count).
type Timing struct {
	WallS    float64 `json:"wall_s"`
	UserS    float64 `json:"user_s"`
	SysS     float64 `json:"sys_s"`
	MaxRSSKB int64   `json:"max_rss_kb"`
	Exit     int     `json:"exit"`
}

func timeCmd(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("time", flag.ContinueOnError)
	in := fs.String("in", "", "stdin file (default: /dev/null)")
	out := fs.String("out", "", "stdout file (default: /dev/null)")
	errf := fs.String("err", "", "stderr file (default: /dev/null)")
	cp := fs.String("copy", "", "SRC:DST: copy a file before the clock starts (a run's setup, not its time)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return errors.New("no command")
	}
	if *cp != "" {
		src, dst, ok := strings.Cut(*cp, ":")
		if !ok {
			return fmt.Errorf("-copy %q: want SRC:DST", *cp)
		}
		b, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		if err := os.WriteFile(dst, b, 0o600); err != nil {
			return err
		}
	}
	t, err := timeOne(fs.Args(), *in, *out, *errf)
	if err != nil {
		return err
	}
	b, _ := json.Marshal(t)
	_, err = fmt.Fprintf(stdout, "%s\n", b)
	return err
}

func openOr(path string, write bool) (*os.File, error) {
	if path == "" {
		path = os.DevNull
	}
	if write {
		return os.Create(path)
	}
	return os.Open(path)
}

func timeOne(argv []string, in, out, errf string) (Timing, error) {
	var t Timing
	// "env K=V... cmd" is run as cmd with K=V set: the exec of env
	// itself (some milliseconds in a VM) is not the command's time, and
	// its peer, run bare, does not pay it.
	var env []string
	if filepath.Base(argv[0]) == "env" {
		i := 1
		for i < len(argv) && strings.Contains(argv[i], "=") && !strings.HasPrefix(argv[i], "-") {
			i++
		}
		if i < len(argv) {
			env, argv = argv[1:i], argv[i:]
		}
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	var files []*os.File
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	for i, spec := range []struct {
		path  string
		write bool
	}{{in, false}, {out, true}, {errf, true}} {
		f, err := openOr(spec.path, spec.write)
		if err != nil {
			return t, err
		}
		files = append(files, f)
		switch i {
		case 0:
			cmd.Stdin = f
		case 1:
			cmd.Stdout = f
		case 2:
			cmd.Stderr = f
		}
	}
	start := time.Now()
	err := cmd.Run()
	t.WallS = time.Since(start).Seconds()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		t.Exit = ee.ExitCode()
	default:
		return t, fmt.Errorf("run %s: %w", argv[0], err)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		t.MaxRSSKB = ru.Maxrss
		t.UserS = time.Duration(ru.Utime.Nano()).Seconds()
		t.SysS = time.Duration(ru.Stime.Nano()).Seconds()
	}
	return t, nil
}
