package registry

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// Liveness says whether the process behind a record runs.
type Liveness string

const (
	// Alive: the pid exists and its start token equals the record's.
	Alive Liveness = "alive"
	// Dead: the pid is gone, or it now belongs to another process.
	Dead Liveness = "dead"
	// Unknown: the record belongs to another pid namespace or machine
	// (another pidDomain); its pid was not probed.
	Unknown Liveness = "unknown"
)

// Host is the machine and pid namespace a liveness check runs in.
type Host struct {
	// Domain is this reader's pidDomain, computed the way Claude Code does
	// on Linux: linux:<machine-id>:<readlink /proc/self/ns/pid>.
	Domain string
	// ProcRoot is where /proc lives ("/proc").
	ProcRoot string
	// Probe reports whether pid exists; nil means kill(pid, 0).
	Probe func(pid int) bool
}

var (
	localOnce sync.Once
	local     *Host
)

// LocalHost is the host this process runs on, computed once.
func LocalHost() *Host {
	localOnce.Do(func() {
		local = &Host{Domain: LocalDomain("/etc", "/proc"), ProcRoot: "/proc"}
	})
	return local
}

// LocalDomain computes the pidDomain of the reading process from etcDir's
// machine-id and procRoot's pid namespace link. Off Linux it is "linux",
// as Claude Code writes it on macOS.
func LocalDomain(etcDir, procRoot string) string {
	if runtime.GOOS != "linux" {
		return "linux"
	}
	id, err := os.ReadFile(filepath.Join(etcDir, "machine-id"))
	if err != nil {
		id, _ = os.ReadFile("/var/lib/dbus/machine-id")
	}
	ns, _ := os.Readlink(filepath.Join(procRoot, "self", "ns", "pid"))
	return "linux:" + strings.TrimSpace(string(id)) + ":" + ns
}

// SameDomain reports whether a record's pidDomain is this host's. A record
// without pidDomain (an older writer) is taken as local.
func (h *Host) SameDomain(domain string) bool {
	return domain == "" || domain == h.Domain
}

// Check decides whether the record's process runs: same pidDomain (else
// Unknown, never probed), the pid exists, and field 22 of
// /proc/<pid>/stat equals procStart (a reused pid is Dead). A record
// without procStart is judged by the pid alone.
func (h *Host) Check(r Record) Liveness {
	if !h.SameDomain(r.PidDomain) {
		return Unknown
	}
	if r.Pid <= 0 || r.Pid > math.MaxInt32 || !h.exists(r.Pid) {
		return Dead
	}
	if r.ProcStart == "" {
		return Alive
	}
	start, err := h.ProcStart(r.Pid)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return Dead
		}
		// No /proc (macOS): the pid alone has to do.
		return Alive
	}
	if start != r.ProcStart {
		return Dead
	}
	return Alive
}

// exists probes pid. The kernel's pid_t is 32 bits: a larger pid would be
// cut to 0 or -1 by kill(2), which then probes our own process group or
// every process, so it never exists.
func (h *Host) exists(pid int) bool {
	if pid <= 0 || pid > math.MaxInt32 {
		return false
	}
	if h.Probe != nil {
		return h.Probe(pid)
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// ProcStart reads the start time token of pid: field 22 (starttime) of
// /proc/<pid>/stat, counted after the last ')' so that a command name with
// spaces or parentheses cannot shift it.
func (h *Host) ProcStart(pid int) (string, error) {
	data, err := os.ReadFile(filepath.Join(h.procRoot(), strconv.Itoa(pid), "stat"))
	if err != nil {
		return "", err
	}
	return StatField(data, 22)
}

// ParentPid reads the parent pid (field 4) of /proc/<pid>/stat.
func (h *Host) ParentPid(pid int) (int, error) {
	data, err := os.ReadFile(filepath.Join(h.procRoot(), strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, err
	}
	s, err := StatField(data, 4)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(s)
}

func (h *Host) procRoot() string {
	if h.ProcRoot == "" {
		return "/proc"
	}
	return h.ProcRoot
}

// StatField returns field n (1-based, as in proc(5)) of a /proc/<pid>/stat
// line. Fields 1 and 2 are the pid and "(comm)"; the rest are split after
// the last ')'.
func StatField(stat []byte, n int) (string, error) {
	end := bytes.LastIndexByte(stat, ')')
	if end < 0 || n < 3 {
		return "", fmt.Errorf("malformed stat line")
	}
	rest := strings.Fields(string(stat[end+1:]))
	if n-3 >= len(rest) {
		return "", fmt.Errorf("malformed stat line: no field %d", n)
	}
	return rest[n-3], nil
}
