package registry

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		data    string
		pid     int
		want    Record
		wantErr string
	}{
		{
			name: "full",
			data: `{"pid":23728,"sessionId":"65062edb-0000-4000-8000-000000000001","cwd":"/home/lab/projB","startedAt":1796032410531,"procStart":"154244","version":"2.1.328","peerProtocol":1,"peerFeatures":["notify_idle"],"kind":"interactive","entrypoint":"cli","pidDomain":"linux:m:pid:[1]","tmux":"a:@2.%2","messagingSocketPath":"/tmp/cc-socks/23728.sock","name":"beta two!","nameSource":"peer","nameSince":1796032800384,"status":"idle","updatedAt":1796033054119,"statusUpdatedAt":1796033054119}`,
			pid:  23728,
			want: Record{Pid: 23728, SessionID: "65062edb-0000-4000-8000-000000000001", Cwd: "/home/lab/projB", StartedAt: 1796032410531,
				ProcStart: "154244", Version: "2.1.328", PeerProtocol: 1, PeerFeatures: []string{"notify_idle"}, Kind: "interactive",
				Entrypoint: "cli", PidDomain: "linux:m:pid:[1]", Tmux: "a:@2.%2", MessagingSocketPath: "/tmp/cc-socks/23728.sock",
				Name: "beta two!", NameSource: "peer", NameSince: 1796032800384, Status: "idle", UpdatedAt: 1796033054119, StatusUpdatedAt: 1796033054119},
		},
		{name: "only pid", data: `{"pid":5}`, pid: 5, want: Record{Pid: 5}},
		{name: "pid from file name", data: `{}`, pid: 9, want: Record{Pid: 9}},
		{name: "pid disagrees", data: `{"pid":8}`, pid: 9, want: Record{Pid: 9, Mismatches: []string{"pid"}}},
		{name: "unknown enums read as absent", data: `{"pid":1,"status":"dreaming","kind":"robot","nameSource":"magic"}`, pid: 1, want: Record{Pid: 1}},
		{name: "wrong types", data: `{"pid":1,"sessionId":42,"cwd":["x"],"peerProtocol":"one","startedAt":"soon"}`, pid: 1,
			want: Record{Pid: 1, Mismatches: []string{"sessionId", "cwd", "startedAt", "peerProtocol"}}},
		{name: "null fields", data: `{"pid":1,"name":null,"asksForConvertedSkills":null}`, pid: 1, want: Record{Pid: 1, Name: ""}},
		{name: "torn", data: `{"pid":1,"sessionId":"abc`, pid: 1, wantErr: "invalid JSON (torn record?)"},
		{name: "two objects", data: `{"pid":1}{"pid":1}`, pid: 1, wantErr: "data after the object"},
		{name: "not an object", data: `[1,2]`, pid: 1, wantErr: "invalid JSON"},
		{name: "null", data: `null`, pid: 1, wantErr: "not a JSON object"},
		{name: "no pid anywhere", data: `{"name":"x"}`, pid: 0, wantErr: "no pid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.data), tt.pid)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got.Raw) != tt.data {
				t.Errorf("Raw = %s, want the input", got.Raw)
			}
			got.Raw = nil
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRead(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "10.json"), `{"pid":10,"name":"a"}`)
	write(t, filepath.Join(dir, "9.json"), `{"pid":9,"name":"b"}`)
	write(t, filepath.Join(dir, "11.json"), `{"pid":11,"na`)
	write(t, filepath.Join(dir, "007.json"), `{"pid":7}`)
	write(t, filepath.Join(dir, "12.abc.key"), `{"peerToken":"x"}`)
	write(t, filepath.Join(dir, "13.json.tmp"), `{"pid":13}`)
	write(t, filepath.Join(dir, "14.json"), strings.Repeat(" ", MaxRecordBytes+1))
	recs, errs := Read(dir)
	var pids []int
	for _, r := range recs {
		pids = append(pids, r.Pid)
		if r.File != filepath.Join(dir, strconv.Itoa(r.Pid)+".json") {
			t.Errorf("File = %s", r.File)
		}
	}
	if !reflect.DeepEqual(pids, []int{9, 10}) {
		t.Errorf("pids = %v, want [9 10]", pids)
	}
	if len(errs) != 2 {
		t.Fatalf("errs = %v, want the torn and the oversized record", errs)
	}
	msgs := fmt.Sprint(errs)
	for _, want := range []string{"11.json: skipped: invalid JSON", "14.json: skipped: larger than"} {
		if !strings.Contains(msgs, want) {
			t.Errorf("errors %q lack %q", msgs, want)
		}
	}
	if recs, errs := Read(filepath.Join(dir, "missing")); recs != nil || errs != nil {
		t.Errorf("missing dir: %v %v", recs, errs)
	}
}

// A record torn by a rewrite in progress is read again and then parses.
func TestReadRetriesTornRecord(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "21.json")
	write(t, path, `{"pid":21,"status":"bu`)
	old := RetryDelay
	RetryDelay = 200 * time.Millisecond
	defer func() { RetryDelay = old }()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		time.Sleep(50 * time.Millisecond)
		write(t, path, `{"pid":21,"status":"busy"}`)
	}()
	recs, errs := Read(dir)
	wg.Wait()
	if len(errs) != 0 || len(recs) != 1 || recs[0].Status != "busy" {
		t.Fatalf("recs %+v errs %v, want the rewritten record", recs, errs)
	}
}

func TestStatField(t *testing.T) {
	tests := []struct {
		stat string
		n    int
		want string
		err  bool
	}{
		{"1234 (claude) S 1 1234 1234 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 11 0 144903 1000 200", 22, "144903", false},
		{"1234 (claude) S 1 1234 1234 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 11 0 144903 1000 200", 4, "1", false},
		{"77 (a (b) c) R 5 77 77 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 999 0 0", 22, "999", false},
		{"77 (x y) R 6 77", 4, "6", false},
		{"77 (x y) R 6 77", 22, "", true},
		{"no parens at all", 22, "", true},
		{"", 4, "", true},
	}
	for _, tt := range tests {
		got, err := StatField([]byte(tt.stat), tt.n)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("StatField(%q, %d) = %q, %v; want %q, err %v", tt.stat, tt.n, got, err, tt.want, tt.err)
		}
	}
}

// fakeProc writes /proc/<pid>/stat files with the given start tokens.
func fakeProc(t *testing.T, starts map[int]string) string {
	root := t.TempDir()
	for pid, st := range starts {
		d := filepath.Join(root, strconv.Itoa(pid))
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(d, "stat"), fmt.Sprintf("%d (cl aude)) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 %s 0 0\n", pid, st))
	}
	return root
}

func TestCheck(t *testing.T) {
	root := fakeProc(t, map[int]string{100: "5000", 200: "6000"})
	h := &Host{Domain: "linux:m:pid:[1]", ProcRoot: root, Probe: func(pid int) bool { return pid == 100 || pid == 200 || pid == 300 }}
	tests := []struct {
		name string
		rec  Record
		want Liveness
	}{
		{"alive", Record{Pid: 100, ProcStart: "5000", PidDomain: "linux:m:pid:[1]"}, Alive},
		{"reused pid", Record{Pid: 100, ProcStart: "4999", PidDomain: "linux:m:pid:[1]"}, Dead},
		{"gone", Record{Pid: 101, ProcStart: "5000", PidDomain: "linux:m:pid:[1]"}, Dead},
		{"other domain, never probed", Record{Pid: 101, ProcStart: "1", PidDomain: "linux:other:pid:[1]"}, Unknown},
		{"other namespace", Record{Pid: 100, ProcStart: "5000", PidDomain: "linux:m:pid:[2]"}, Unknown},
		{"no domain taken as local", Record{Pid: 200, ProcStart: "6000"}, Alive},
		{"no procStart", Record{Pid: 200, PidDomain: "linux:m:pid:[1]"}, Alive},
		{"exists but no stat", Record{Pid: 300, ProcStart: "1", PidDomain: "linux:m:pid:[1]"}, Dead},
		{"pid zero", Record{Pid: 0}, Dead},
	}
	for _, tt := range tests {
		if got := h.Check(tt.rec); got != tt.want {
			t.Errorf("%s: Check = %s, want %s", tt.name, got, tt.want)
		}
	}
	probed := false
	h2 := &Host{Domain: "d", ProcRoot: root, Probe: func(int) bool { probed = true; return true }}
	h2.Check(Record{Pid: 100, PidDomain: "e"})
	if probed {
		t.Error("a record of another pidDomain was probed")
	}
}

// The real host: this process is alive under its own start token, and not
// under another one.
func TestCheckLocal(t *testing.T) {
	h := LocalHost()
	start, err := h.ProcStart(os.Getpid())
	if err != nil {
		t.Skip("no /proc")
	}
	if !strings.HasPrefix(h.Domain, "linux:") || !strings.Contains(h.Domain, ":pid:[") {
		t.Errorf("Domain = %q, want linux:<machine-id>:pid:[...]", h.Domain)
	}
	r := Record{Pid: os.Getpid(), ProcStart: start, PidDomain: h.Domain}
	if got := h.Check(r); got != Alive {
		t.Errorf("self: %s", got)
	}
	r.ProcStart += "0"
	if got := h.Check(r); got != Dead {
		t.Errorf("self with another start token: %s", got)
	}
	if got := h.Check(Record{Pid: 999999999, PidDomain: h.Domain}); got != Dead {
		t.Errorf("pid beyond pid_max: %s", got)
	}
	// kill(2) would see these as 0 (our process group) and -1 (every
	// process) and answer yes.
	for _, pid := range []int64{1 << 32, 1<<32 - 1, 1<<32 + int64(os.Getpid())} {
		if got := h.Check(Record{Pid: int(pid), PidDomain: h.Domain}); got != Dead {
			t.Errorf("pid %d beyond pid_t: %s", pid, got)
		}
	}
	ppid, err := h.ParentPid(os.Getpid())
	if err != nil || ppid != os.Getppid() {
		t.Errorf("ParentPid = %d, %v; want %d", ppid, err, os.Getppid())
	}
}

func TestKey(t *testing.T) {
	dir := t.TempDir()
	const sock = "/tmp/cc-socks/23728.sock"
	const token = "feedc0defeedc0defeedc0defeedc0de"
	path := KeyPath(dir, 23728, sock)
	if want := filepath.Join(dir, "23728."+SocketHash(sock)+".key"); path != want {
		t.Fatalf("KeyPath = %s", path)
	}
	// sha256 of the socket path, as `printf %s PATH | sha256sum` gives.
	if got := SocketHash("/tmp/cc-socks/21214.sock"); len(got) != 64 || got != SocketHash("/tmp/cc-socks/21214.sock") {
		t.Errorf("SocketHash = %s", got)
	}
	if _, err := ReadKey(dir, 23728, sock); !errors.Is(err, ErrNoKey) {
		t.Errorf("missing key: %v", err)
	}
	write(t, path, `{"peerToken":"`+token+`","procStart":"154244","pidDomain":"linux:m:pid:[1]"}`)
	k, err := ReadKey(dir, 23728, sock)
	if err != nil {
		t.Fatal(err)
	}
	if k.Token() != token || k.ProcStart != "154244" {
		t.Errorf("key = %v", k)
	}
	for _, s := range []string{fmt.Sprint(k), fmt.Sprintf("%v %+v %#v %s %q", k, k, k, k, k), k.String()} {
		if strings.Contains(s, token) {
			t.Errorf("printing the key shows the token: %s", s)
		}
	}
	rec := Record{Pid: 23728, File: filepath.Join(dir, "23728.json"), ProcStart: "154244", PidDomain: "linux:m:pid:[1]", MessagingSocketPath: sock}
	k2, err := KeyFor(rec)
	if err != nil || k2.Token() != token || !k2.MatchesRecord(rec) {
		t.Errorf("KeyFor: %v %v", k2, err)
	}
	rec.ProcStart = "1"
	if k2.MatchesRecord(rec) {
		t.Error("a key of an earlier process with the same pid matches")
	}
	write(t, path, `{"peerToken":"`+token+`" garbage`)
	if _, err := ReadKey(dir, 23728, sock); err == nil || strings.Contains(err.Error(), token) {
		t.Errorf("bad key file: %v", err)
	}
	write(t, path, `{"procStart":"1"}`)
	if _, err := ReadKey(dir, 23728, sock); err == nil {
		t.Error("a key without peerToken was accepted")
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"pid":1,"sessionId":"x","peerFeatures":["a"],"startedAt":1.5e3}`), 1)
	f.Add([]byte(`{"pid":"1"}`), 0)
	f.Add([]byte(`{"pid":1,"status":"idle"`), 2)
	f.Fuzz(func(t *testing.T, data []byte, pid int) {
		r, err := Parse(data, pid)
		if err != nil {
			return
		}
		if pid > 0 && r.Pid != pid {
			t.Fatalf("pid %d from a file named %d", r.Pid, pid)
		}
		if len(r.Raw) == 0 {
			t.Fatal("a parsed record without Raw")
		}
	})
}

// FindKey takes the first readable key of the dirs; an unreadable one is
// reported only when no other dir has one.
func TestFindKey(t *testing.T) {
	const sock = "/tmp/cc-socks/23728.sock"
	none, bad, good := t.TempDir(), t.TempDir(), t.TempDir()
	write(t, KeyPath(bad, 23728, sock), `{"peerToken":7}`)
	write(t, KeyPath(good, 23728, sock), `{"peerToken":"feedc0defeedc0defeedc0defeedc0de"}`)
	if k, err := FindKey([]string{none, bad, good}, 23728, sock); err != nil || k.Token() == "" {
		t.Errorf("bad then good: %v %v", k, err)
	}
	if _, err := FindKey([]string{none, bad}, 23728, sock); err == nil || errors.Is(err, ErrNoKey) {
		t.Errorf("only a bad key: %v", err)
	}
	if _, err := FindKey([]string{none, ""}, 23728, sock); !errors.Is(err, ErrNoKey) {
		t.Errorf("no key: %v", err)
	}
	if _, err := FindKey([]string{good}, 0, sock); !errors.Is(err, ErrNoKey) {
		t.Errorf("no pid: %v", err)
	}
}
