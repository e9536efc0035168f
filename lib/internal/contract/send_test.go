package contract

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/lib/commands/ccsend"
	"github.com/ccpipe/ccpipe/lib/internal/claudetest"
	"github.com/ccpipe/ccpipe/lib/internal/fakeapi"
	"github.com/ccpipe/ccpipe/lib/peer"
)

// sendResult is a cc-send output record.
type sendResult struct {
	SessionID  string `json:"session_id"`
	Address    string `json:"address"`
	SocketPath string `json:"socket_path"`
	MsgID      string `json:"msg_id"`
	Bytes      int    `json:"bytes"`
	Auth       bool   `json:"auth"`
	Status     string `json:"status"`
	Rename     string `json:"rename"`
	Lines      int    `json:"lines"`
	Reason     string `json:"reason"`
	IdleState  string `json:"idle_state"`
	FinishedAt string `json:"finished_at"`
}

// ccSend runs cc-send in-process against the test machine.
func ccSend(t *testing.T, e *claudetest.Env, stdin string, args ...string) ([]sendResult, string, int) {
	t.Helper()
	if stdin == "" {
		return ccSendFrom(t, e, nil, args...)
	}
	return ccSendFrom(t, e, strings.NewReader(stdin), args...)
}

// ccSendFrom runs cc-send with stdin read from r (nil: no input).
func ccSendFrom(t *testing.T, e *claudetest.Env, r io.Reader, args ...string) ([]sendResult, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := ccsend.RunWith(system(e.Home, e.ConfigDir), args, r, &out, &errb)
	var res []sendResult
	for _, line := range bytes.Split(bytes.TrimSpace(out.Bytes()), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var r sendResult
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("cc-send printed %q: %v", line, err)
		}
		res = append(res, r)
	}
	if strings.Contains(out.String()+errb.String(), `"token"`) {
		t.Errorf("cc-send output mentions a token: %s %s", out.String(), errb.String())
	}
	return res, errb.String(), code
}

const peerPreamble = "Another Claude session sent a message:\n"

// A message sent with cc-send reaches the model of an idle interactive
// session (the next API request carries it after the peer preamble, in the
// envelope with the display name), the UI shows the name, --wait-idle
// returns after the turn it started, --wait on a default-mode session
// gets no receipt (accepted), and --rename renames the session with
// nameSource peer.
func TestSendInteractive(t *testing.T) {
	Require(t)
	t.Parallel()
	e := claudetest.New(t, claudetest.Config{Script: &fakeapi.Script{Fallback: "ack-from-fake"}})
	dir := e.Project("send")
	s := e.Interactive(claudetest.Cmd{Dir: dir, Args: []string{"-n", "send-target"}})
	s.WaitReady(40 * time.Second)
	reg := e.WaitRegistry(s.Pid, 10*time.Second, func(r claudetest.Registry) bool { return r.Fields["status"] == "idle" })
	sock, _ := reg.Fields["messagingSocketPath"].(string)
	target := "pid:" + strconv.Itoa(s.Pid)

	before := time.Now()
	res, stderr, code := ccSend(t, e, "", target, "--name", `CI "bot"`, "--wait-idle", "--wait-timeout", "90s", "--", "PING-SEND-1 pipeline #1234 failed")
	if code != 0 || len(res) != 1 {
		t.Fatalf("cc-send --wait-idle: exit %d, %d results, stderr %s", code, len(res), stderr)
	}
	r := res[0]
	if r.SocketPath != sock || r.Status != "sent" || !r.Auth || r.IdleState != "idle" || r.MsgID == "" {
		t.Errorf("result %+v", r)
	}
	if fin, err := time.Parse(time.RFC3339Nano, r.FinishedAt); err != nil || fin.Before(before.Add(-time.Second)) {
		t.Errorf("finished_at %q (%v) is not after the send at %s", r.FinishedAt, err, before)
	}
	// The turn is over when --wait-idle returns, so the request is already logged.
	reply := filepath.Join(filepath.Dir(sock), "ccpipe-cc-send.sock")
	want := peerPreamble + `<cross-session-message from="uds:` + reply + `" from-name="CI bot">` + "\nPING-SEND-1 pipeline #1234 failed\n</cross-session-message>\n\n"
	found := false
	for _, req := range e.API.Requests() {
		if req.Contains(want) {
			found = true
		}
	}
	if !found {
		t.Errorf("no API request before the idle notice carries %q", want)
	}
	// The UI shows the name as a handle: spaces become dashes.
	s.WaitScreen("Message from @CI-bot: PING-SEND-1", 10*time.Second)
	if _, err := os.Lstat(reply); !os.IsNotExist(err) {
		t.Errorf("reply socket left behind: %v", err)
	}

	// A default-mode receiver accepts without a receipt.
	res, stderr, code = ccSend(t, e, "", target, "--wait", "--wait-timeout", "3s", "--", "PING-SEND-2")
	if code != 0 || len(res) != 1 || res[0].Status != "accepted" {
		t.Errorf("--wait: exit %d %+v %s", code, res, stderr)
	}

	res, stderr, code = ccSend(t, e, "", target, "--rename", "renamed by peer")
	if code != 0 || len(res) != 1 || res[0].Rename != "renamed by peer" {
		t.Fatalf("--rename: exit %d %+v %s", code, res, stderr)
	}
	e.WaitRegistry(s.Pid, 10*time.Second, func(r claudetest.Registry) bool {
		return r.Fields["name"] == "renamed by peer" && r.Fields["nameSource"] == "peer"
	})

	// The new name finds it, as an address and as a name.
	res, stderr, code = ccSend(t, e, "Pipeline #1235 passed\n", "renamed by peer")
	if code != 0 || len(res) != 1 || res[0].Address == "" || !strings.HasSuffix(res[0].Address, "/renamed by peer") {
		t.Errorf("send by the new name: exit %d %+v %s", code, res, stderr)
	}
	waitRequest(t, e, peerPreamble+"Pipeline #1235 passed\n\n")

	// 100 lines in a burst: paced and joined, every one reaches the model.
	var lines strings.Builder
	for i := range 100 {
		fmt.Fprintf(&lines, "LINE-%03d failed\n", i)
	}
	res, stderr, code = ccSend(t, e, lines.String(), target, "--lines", "--from", "lines-test")
	checkLinesArrived(t, e, "burst", res, stderr, code, "LINE-%03d failed", 100)

	// 45 lines trickling in over 1.4 s; how many messages they make depends
	// on how fast the receiver takes each one (it closes the connection
	// 0.2-0.8 s after our EOF while a turn runs). None may be missing.
	pr, pw := io.Pipe()
	go func() {
		for i := range 45 {
			fmt.Fprintf(pw, "TRICKLE-%03d\n", i)
			time.Sleep(30 * time.Millisecond)
		}
		pw.Close()
	}()
	res, stderr, code = ccSendFrom(t, e, pr, target, "--lines", "--from", "trickle-test")
	checkLinesArrived(t, e, "trickle", res, stderr, code, "TRICKLE-%03d", 45)

	// A crashed session leaves its socket file: a clear error, no hang.
	s.Kill9()
	// Its record stays, but the registry lookup sees the pid is gone.
	_, stderr, code = ccSend(t, e, "", target, "--timeout", "3s", "--", "late")
	if code != 1 || !strings.Contains(stderr, target+": no running or past session matches") {
		t.Errorf("dead pid: exit %d, stderr %q", code, stderr)
	}
	recs := `{"socket_path":"` + sock + `","session_id":"` + reg.Fields["sessionId"].(string) + `"}` + "\n"
	_, stderr, code = ccSend(t, e, recs, "--timeout", "3s", "--", "late")
	if code != 1 || !strings.Contains(stderr, "connection refused: stale socket file") {
		t.Errorf("stale socket: exit %d, stderr %q", code, stderr)
	}
}

// checkLinesArrived checks that a --lines run sent all n lines (format
// names line i) and that every one of them reached the model.
func checkLinesArrived(t *testing.T, e *claudetest.Env, what string, res []sendResult, stderr string, code int, format string, n int) {
	t.Helper()
	total := 0
	for _, r := range res {
		total += r.Lines
	}
	if code != 0 || total != n {
		t.Fatalf("--lines %s: exit %d, %d lines in %d messages, stderr %s", what, code, total, len(res), stderr)
	}
	t.Logf("--lines %s: %d lines went as %d messages", what, n, len(res))
	waitRequest(t, e, fmt.Sprintf(format, n-1))
	for i := range n {
		l := fmt.Sprintf(format, i)
		found := false
		for _, r := range e.API.Requests() {
			if r.Contains(l) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("%s never reached the model (dropped by the receiver?)", l)
		}
	}
}

func waitRequest(t *testing.T, e *claudetest.Env, text string) {
	t.Helper()
	err := claudetest.Poll(30*time.Second, func() (bool, error) {
		for _, r := range e.API.Requests() {
			if r.Contains(text) {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("no API request carries %q", text)
	}
}

// A receiver in bypass-permissions mode holds a message that asserts no
// mode: cc-send --wait reports held; once the user delivers it, the
// delivered receipt arrives and the model gets the message.
func TestSendHeldInBypass(t *testing.T) {
	Require(t)
	t.Parallel()
	e := claudetest.New(t, claudetest.Config{
		Script: &fakeapi.Script{Fallback: "ack-from-fake"},
		Env:    []string{"IS_SANDBOX=1"}, // bypass mode is refused to root otherwise
	})
	dir := e.Project("held")
	s := e.Interactive(claudetest.Cmd{Dir: dir, Args: []string{"--permission-mode", "bypassPermissions"}})
	s.WaitScreen("Yes, I accept", 40*time.Second)
	s.Choose("Yes, I accept", 20*time.Second)
	s.WaitReady(40 * time.Second)
	e.WaitRegistry(s.Pid, 10*time.Second, func(r claudetest.Registry) bool { return r.Fields["status"] == "idle" })
	target := "pid:" + strconv.Itoa(s.Pid)

	res, stderr, code := ccSend(t, e, "", target, "--wait", "--wait-timeout", "4s", "--", "PING-HELD-1")
	if code != 0 || len(res) != 1 || res[0].Status != "held" || res[0].Reason == "" {
		t.Fatalf("--wait against bypass: exit %d %+v %s", code, res, stderr)
	}
	s.WaitScreen("PING-HELD-1", 10*time.Second)
	s.WaitScreen("Deliver this message to Claude", 10*time.Second)
	// Deny (the first choice); nobody listens for that receipt any more.
	// Under load the dialog can draw before it takes keys, so press until
	// it is gone: a second message must not find this one still held.
	decideHeld(t, s, "PING-HELD-1", "Deny")

	// The user decides while cc-send waits: Deliver, then Deny.
	for _, c := range []struct {
		text, choice, status string
		code                 int
	}{
		{"PING-HELD-2", "Deliver", "delivered", 0},
		{"PING-HELD-3", "Deny", "denied", 1},
	} {
		type out struct {
			res    []sendResult
			stderr string
			code   int
		}
		done := make(chan out, 1)
		go func() {
			r, e2, code := ccSend(t, e, "", target, "--wait", "--wait-timeout", "60s", "--", c.text)
			done <- out{r, e2, code}
		}()
		s.WaitScreen("«"+c.text+"»", 20*time.Second)
		decideHeld(t, s, c.text, c.choice)
		var o out
		select {
		case o = <-done:
		case <-time.After(40 * time.Second):
			t.Fatalf("%s: cc-send --wait did not return; screen:\n%s", c.text, s.Screen())
		}
		if o.code != c.code || len(o.res) != 1 || o.res[0].Status != c.status {
			t.Errorf("%s: exit %d %+v %s\nscreen:\n%s", c.text, o.code, o.res, o.stderr, s.Screen())
		}
	}
	waitRequest(t, e, "PING-HELD-2")
	for _, r := range e.API.Requests() {
		if r.Contains("PING-HELD-1") || r.Contains("PING-HELD-3") {
			t.Errorf("a denied message reached the model: request %d", r.Seq)
		}
	}
}

// decideHeld picks choice ("Deny" or "Deliver") in the held-message
// dialog showing text. Under load the dialog draws before it takes keys,
// so it moves the cursor until the screen shows it on choice, presses
// Enter only then, and goes on until the dialog is gone: a key that
// landed early must neither pick the other choice nor leave the message
// held for the next one to find.
func decideHeld(t *testing.T, s *claudetest.Tmux, text, choice string) {
	t.Helper()
	move := map[string]string{"Deny": "Up", "Deliver": "Down"}[choice]
	deadline := time.Now().Add(30 * time.Second)
	for {
		scr := s.Screen()
		if !strings.Contains(scr, "Deliver this message to Claude") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the dialog for %s did not close; screen:\n%s", text, scr)
		}
		if strings.Contains(scr, "\n "+text+"\n") {
			if strings.Contains(scr, "❯ "+choice) {
				s.Keys("Enter")
			} else {
				s.Keys(move)
			}
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// The real receiver's limits, and RateLimitedSender staying within them:
// 35 messages sent at once from one address get 5 dropped as rate-limited
// (a burst of 30), reported by receipts to the reply socket; 40 messages
// fed one at a time through a RateLimitedSender from another address get
// no drop receipt at all.
func TestSendPacerAgainstReceiver(t *testing.T) {
	Require(t)
	t.Parallel()
	e := claudetest.New(t, claudetest.Config{Script: &fakeapi.Script{Fallback: "ack-from-fake"}})
	s := e.Interactive(claudetest.Cmd{Dir: e.Project("pace")})
	s.WaitReady(40 * time.Second)
	reg := e.WaitRegistry(s.Pid, 10*time.Second, func(r claudetest.Registry) bool { return r.Fields["status"] == "idle" })
	sock, _ := reg.Fields["messagingSocketPath"].(string)
	tg := peer.Target{SocketPath: sock, PeerProtocol: 1}
	sender := &peer.Sender{Timeout: 10 * time.Second}

	dropped := func(l *peer.Listener, settle time.Duration) map[string]bool {
		ids := map[string]bool{}
		ctx, cancel := context.WithTimeout(t.Context(), settle)
		defer cancel()
		for {
			n, err := l.Next(ctx)
			if err != nil {
				return ids
			}
			if n.Status == peer.StatusDropped {
				if n.DropReason != "rate-limited" {
					t.Errorf("drop reason %q", n.DropReason)
				}
				ids[n.OrigMsgID] = true
				for _, id := range n.DroppedMsgIDs {
					ids[id] = true
				}
			}
		}
	}

	burst, err := peer.Listen(peer.ReplyPath(sock, "burst-test"))
	if err != nil {
		t.Fatal(err)
	}
	defer burst.Close()
	// One connection, so the 35 arrive faster than any refill (the
	// receiver takes 0.2-0.8 s per connection while its turns run).
	var frames []peer.Frame
	for i := range 35 {
		f, _ := peer.UserFrame(peer.Message{Body: fmt.Sprintf("BURST-%02d", i), From: burst.Addr, MsgID: peer.NewMsgID()})
		frames = append(frames, f)
	}
	if _, err := sender.Send(t.Context(), tg, frames...); err != nil {
		t.Fatal(err)
	}
	// The first drop receipt comes at once, the rest coalesced ~5 s later.
	if got := dropped(burst, 12*time.Second); len(got) != 5 {
		t.Errorf("burst of 35: %d dropped, want 5", len(got))
	}

	paced, err := peer.Listen(peer.ReplyPath(sock, "paced-test"))
	if err != nil {
		t.Fatal(err)
	}
	defer paced.Close()
	var rl *peer.RateLimitedSender
	next := 1
	rl = peer.NewRateLimitedSender(func(ctx context.Context, b peer.Batch) error {
		f, err := peer.UserFrame(peer.Message{Body: b.Text, From: paced.Addr, MsgID: peer.NewMsgID()})
		if err != nil {
			return err
		}
		if _, err := sender.Send(ctx, tg, f); err != nil {
			return err
		}
		// Feed the next line only now, so every batch is one message.
		if next < 40 {
			rl.Add(fmt.Sprintf("PACED-%02d", next))
			next++
		} else {
			rl.Close()
		}
		return nil
	}, peer.RateOptions{})
	rl.Add("PACED-00")
	start := time.Now()
	if err := rl.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Logf("40 paced messages took %s", time.Since(start))
	if got := dropped(paced, 7*time.Second); len(got) != 0 {
		t.Errorf("paced: %d dropped", len(got))
	}
	waitRequest(t, e, "PACED-39")
}
