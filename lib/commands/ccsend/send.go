package ccsend

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/ndjson"
	"github.com/ccpipe/ccpipe/lib/peer"
)

// result is the output record of one delivered message.
type result struct {
	SessionID  *string `json:"session_id"`
	Address    *string `json:"address"`
	SocketPath string  `json:"socket_path"`
	MsgID      *string `json:"msg_id"`
	Bytes      int     `json:"bytes"`
	Auth       bool    `json:"auth"`
	Status     string  `json:"status"`
	Lines      int     `json:"lines,omitempty"`
	Rename     string  `json:"rename,omitempty"`
	Reason     string  `json:"reason,omitempty"`
	DropReason string  `json:"drop_reason,omitempty"`
	IdleState  string  `json:"idle_state,omitempty"`
	FinishedAt string  `json:"finished_at,omitempty"`
}

// statusSent is a result's status without --wait: written and read by
// the receiver.
const statusSent = "sent"

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// delivery is a sent message awaiting its receipt or idle notice.
type delivery struct {
	t   *target
	res result
	p   peer.Pending
}

func (o *options) message(body, from, msgID string) peer.Message {
	return peer.Message{Body: body, From: from, FromName: o.name, FromMode: o.mode, Priority: o.priority, MsgID: msgID}
}

// sendAll delivers one message (or the rename) to each target, then waits
// for receipts when asked, and writes the results.
func (o *options) sendAll(env *cli.Env, targets []*target, text string) error {
	if o.rename == "" && strings.TrimSpace(text) == "" {
		return cli.Usagef("empty message after --")
	}
	replies := &peer.Replies{Label: o.label}
	defer replies.Close()
	waiting := o.wait || o.waitIdle
	sender := &peer.Sender{Timeout: o.timeout}
	var pending []*delivery
	failed := 0
	for _, t := range targets {
		if t.keyProblem != nil {
			env.Warnf("%s: key file not readable, sending without the auth line: %v", t.who(), t.keyProblem)
		}
		from := replies.From(t.SocketPath)
		d := &delivery{t: t, res: result{SessionID: nullable(t.SessionID), Address: nullable(t.address), SocketPath: t.SocketPath, Status: statusSent}}
		var frames []peer.Frame
		var err error
		if o.rename != "" {
			var f peer.Frame
			f, err = peer.RenameFrame(o.rename)
			frames, d.res.Rename = []peer.Frame{f}, o.rename
		} else {
			d.p.MsgID = peer.NewMsgID()
			d.res.MsgID = &d.p.MsgID
			var f peer.Frame
			f, err = peer.UserFrame(o.message(text, from, d.p.MsgID))
			frames = []peer.Frame{f}
			if err == nil && o.waitIdle {
				// After the message, so the subscription sees it queued and
				// fires only when the turn it starts has ended.
				d.p.IdleID = peer.NewMsgID()
				f, err = peer.NotifyWhenIdleFrame(from, d.p.IdleID)
				frames = append(frames, f)
			}
		}
		if err != nil {
			if errors.Is(err, peer.ErrTooLarge) {
				return err // the same for every target
			}
			return fmt.Errorf("%s: %w", t.who(), err)
		}
		// The reply socket is bound once the target proved a live socket,
		// and before the frames that name it go out.
		var ready func() error
		if waiting {
			ready = replies.Ready(t.SocketPath)
		}
		res, err := sender.SendAfter(env.Ctx, t.Target, ready, frames...)
		if err != nil {
			env.Warnf("%v", t.named(err))
			failed++
			continue
		}
		d.res.Bytes, d.res.Auth = res.Bytes, res.Auth
		if !waiting {
			if err := env.Out.Write(d.res); err != nil {
				return err
			}
			continue
		}
		pending = append(pending, d)
	}
	if len(pending) > 0 {
		if err := o.await(env, pending, replies.Listeners()); err != nil {
			return err
		}
		for _, d := range pending {
			if err := env.Out.Write(d.res); err != nil {
				return err
			}
			switch d.res.Status {
			case peer.StatusDropped, peer.StatusDenied, peer.StatusExpired, peer.StatusRefused:
				env.Warnf("%s: message %s %s", d.t.who(), d.res.Status, why(d.res))
				failed++
			default:
				if o.waitIdle && d.res.IdleState == "" {
					env.Warnf("%s: no idle notice within %s", d.t.who(), o.waitTimeout)
					failed++
				}
			}
		}
	}
	if failed > 0 {
		return &cli.ExitError{Code: cli.ExitFail}
	}
	return nil
}

func why(r result) string {
	switch {
	case r.DropReason != "":
		return "(" + r.DropReason + ")"
	case r.Reason != "":
		return "(" + r.Reason + ")"
	}
	return ""
}

// await collects receipts and idle notices (peer.Await) and puts them in
// the results.
func (o *options) await(env *cli.Env, pending []*delivery, ls []*peer.Listener) error {
	timeout := o.waitTimeout
	if timeout == 0 && !o.waitIdle {
		timeout = DefaultWaitTimeout
	}
	ctx, cancel := env.Ctx, context.CancelFunc(func() {})
	if timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, timeout)
	}
	defer cancel()
	ps := make([]*peer.Pending, len(pending))
	for i, d := range pending {
		ps[i] = &d.p
	}
	err := peer.Await(ctx, ls, ps, func(n peer.Notice) {
		env.Warnf("ignored a frame on the reply socket that answers none of our messages: %s", describeNotice(n))
	})
	if err != nil {
		return err
	}
	for _, d := range pending {
		p := &d.p
		if p.Status != "" {
			d.res.Status = p.Status
		} else if o.wait {
			d.res.Status = peer.StatusAccepted // no receipt comes for a message taken normally
		}
		d.res.Reason, d.res.DropReason, d.res.IdleState = p.Reason, p.DropReason, p.IdleState
		if !p.FinishedAt.IsZero() {
			d.res.FinishedAt = p.FinishedAt.Format(time.RFC3339Nano)
		}
	}
	for _, l := range ls {
		if k := l.Skipped(); k > 0 {
			env.Warnf("reply socket %s: %d malformed lines skipped", l.Path, k)
		}
	}
	return nil
}

func describeNotice(n peer.Notice) string {
	switch {
	case n.Type == "user":
		return "a message from " + n.From
	case n.Action != "":
		return n.Action + " from " + n.From
	}
	return "a " + n.Type + " frame"
}

// sendLines sends each stdin line as a message through a rate-limited
// sender, joining lines that queue up, and writes a result per delivery.
func (o *options) sendLines(env *cli.Env, t *target) error {
	if t.keyProblem != nil {
		env.Warnf("%s: key file not readable, sending without the auth line: %v", t.who(), t.keyProblem)
	}
	from := (&peer.Replies{Label: o.label}).From(t.SocketPath)
	sender := &peer.Sender{Timeout: o.timeout}
	// Lines skipped on the way (too long to be a message) end the run
	// with exit 1, after the others went out.
	var unsent atomic.Int64
	deliver := func(ctx context.Context, b peer.Batch) error {
		id := peer.NewMsgID()
		f, err := peer.UserFrame(o.message(b.Text, from, id))
		if errors.Is(err, peer.ErrTooLarge) {
			env.Warnf("%s: lines %d-%d not sent: %v", t.who(), b.First, b.First+b.Lines-1, err)
			unsent.Add(int64(b.Lines))
			return nil
		}
		if err != nil {
			return err
		}
		res, err := sender.Send(ctx, t.Target, f)
		if err != nil {
			return t.named(err)
		}
		r := result{SessionID: nullable(t.SessionID), Address: nullable(t.address), SocketPath: t.SocketPath,
			MsgID: &id, Bytes: res.Bytes, Auth: res.Auth, Status: statusSent, Lines: b.Lines}
		if err := env.Out.Write(r); err != nil {
			return err
		}
		return env.Out.Flush() // a pipeline reads the results as they happen
	}
	ro := peer.RateOptions{}
	if o.stamp {
		ro.Stamp = peer.DefaultStamp
	}
	rl := peer.NewRateLimitedSender(deliver, ro)
	readErr := make(chan error, 1)
	go func() {
		readErr <- readLines(env, rl, &unsent)
		rl.Close()
	}()
	err := rl.Run(env.Ctx)
	if n := rl.Pending(); err != nil && n > 0 {
		env.Warnf("%s: %d lines not sent", t.who(), n)
	}
	if err != nil {
		return err
	}
	if err := <-readErr; err != nil {
		return err
	}
	if n := unsent.Load(); n > 0 {
		return &cli.ExitError{Code: cli.ExitFail, Err: fmt.Errorf("%s: %d lines not sent", t.who(), n)}
	}
	return nil
}

// readLines queues each non-blank stdin line; over-long lines are skipped
// with a warning and counted in unsent.
func readLines(env *cli.Env, rl *peer.RateLimitedSender, unsent *atomic.Int64) error {
	if !env.HasInput() {
		return nil
	}
	rd := ndjson.NewReader(env.Stdin)
	rd.MaxLine = maxStdinMessage
	for {
		line, err := rd.Next()
		switch {
		case err == io.EOF:
			return nil
		case errors.Is(err, ndjson.ErrLineTooLong):
			env.Warnf("<stdin>:%d: line too long for a message (over %d bytes), not sent", rd.Line(), maxStdinMessage)
			unsent.Add(1)
			continue
		case err != nil:
			return fmt.Errorf("reading stdin: %w", err)
		}
		if strings.TrimSpace(string(line)) == "" {
			continue
		}
		rl.Add(string(line))
	}
}
