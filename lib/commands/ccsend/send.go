package ccsend

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
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

// Statuses of a result besides the receipt statuses of package peer.
const (
	statusSent     = "sent"     // written and read by the receiver; no wait
	statusAccepted = "accepted" // waited: no receipt came, which means the receiver took it
)

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// delivery is a sent message awaiting its receipt or idle notice.
type delivery struct {
	t      *target
	res    result
	msgID  string
	idleID string
	done   bool // nothing more to wait for
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
	listeners := map[string]*peer.Listener{}
	defer func() {
		for _, l := range listeners {
			l.Close()
		}
	}()
	waiting := o.wait || o.waitIdle
	sender := &peer.Sender{Timeout: o.timeout}
	var pending []*delivery
	failed := 0
	for _, t := range targets {
		if t.keyProblem != nil {
			env.Warnf("%s: key file not readable, sending without the auth line: %v", t.who(), t.keyProblem)
		}
		replyPath := peer.ReplyPath(t.SocketPath, o.label)
		from := peer.Address(replyPath)
		if waiting && listeners[replyPath] == nil {
			l, err := peer.Listen(replyPath)
			if err != nil {
				return fmt.Errorf("%s: %w", t.who(), err)
			}
			listeners[replyPath] = l
		}
		d := &delivery{t: t, res: result{SessionID: nullable(t.SessionID), Address: nullable(t.address), SocketPath: t.SocketPath, Status: statusSent}}
		var frames []peer.Frame
		var err error
		if o.rename != "" {
			var f peer.Frame
			f, err = peer.RenameFrame(o.rename)
			frames, d.res.Rename = []peer.Frame{f}, o.rename
		} else {
			d.msgID = peer.NewMsgID()
			d.res.MsgID = &d.msgID
			var f peer.Frame
			f, err = peer.UserFrame(o.message(text, from, d.msgID))
			frames = []peer.Frame{f}
			if err == nil && o.waitIdle {
				// After the message, so the subscription sees it queued and
				// fires only when the turn it starts has ended.
				d.idleID = peer.NewMsgID()
				f, err = peer.NotifyWhenIdleFrame(from, d.idleID)
				frames = append(frames, f)
			}
		}
		if err != nil {
			if errors.Is(err, peer.ErrTooLarge) {
				return err // the same for every target
			}
			return fmt.Errorf("%s: %w", t.who(), err)
		}
		res, err := sender.Send(env.Ctx, t.Target, frames...)
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
		if err := o.await(env, pending, listeners); err != nil {
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

// await collects receipts and idle notices for the deliveries until each
// is settled or the wait ends.
func (o *options) await(env *cli.Env, pending []*delivery, listeners map[string]*peer.Listener) error {
	timeout := o.waitTimeout
	if timeout == 0 && !o.waitIdle {
		timeout = DefaultWaitTimeout
	}
	ctx, cancel := env.Ctx, context.CancelFunc(func() {})
	if timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, timeout)
	}
	defer cancel()
	notices := make(chan peer.Notice)
	for _, l := range listeners {
		go func() {
			for {
				n, err := l.Next(ctx)
				if err != nil {
					return
				}
				select {
				case notices <- n:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	open := len(pending)
	for open > 0 {
		var n peer.Notice
		select {
		case n = <-notices:
		case <-ctx.Done():
			if env.Ctx.Err() != nil {
				return env.Ctx.Err()
			}
			open = 0
			continue
		}
		matched := false
		for _, d := range pending {
			if d.done {
				continue
			}
			switch {
			case n.Action == peer.ActionStatus && n.About(d.msgID):
				matched = true
				d.res.Status, d.res.Reason, d.res.DropReason = n.Status, n.Reason, n.DropReason
				// A message that will not run ends an idle wait too.
				if peer.Final(n.Status) && (!o.waitIdle || n.Status != peer.StatusDelivered) {
					d.done = true
				}
			case n.Action == peer.ActionIdle && d.idleID != "" && n.OrigMsgID == d.idleID:
				matched = true
				d.res.IdleState = n.State
				if n.FinishedAt > 0 {
					d.res.FinishedAt = time.UnixMilli(n.FinishedAt).UTC().Format(time.RFC3339Nano)
				}
				d.done = true
			}
			if d.done {
				open--
			}
		}
		if !matched {
			env.Warnf("ignored a frame on the reply socket that answers none of our messages: %s", describeNotice(n))
		}
	}
	for _, d := range pending {
		if o.wait && d.res.Status == statusSent {
			// No receipt is sent for a message accepted normally.
			d.res.Status = statusAccepted
		}
	}
	for _, l := range listeners {
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
	from := peer.Address(peer.ReplyPath(t.SocketPath, o.label))
	sender := &peer.Sender{Timeout: o.timeout}
	deliver := func(ctx context.Context, b peer.Batch) error {
		id := peer.NewMsgID()
		f, err := peer.UserFrame(o.message(b.Text, from, id))
		if errors.Is(err, peer.ErrTooLarge) {
			env.Warnf("%s: lines %d-%d not sent: %v", t.who(), b.First, b.First+b.Lines-1, err)
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
		readErr <- readLines(env, rl)
		rl.Close()
	}()
	err := rl.Run(env.Ctx)
	if n := rl.Pending(); err != nil && n > 0 {
		env.Warnf("%s: %d lines not sent", t.who(), n)
	}
	if err != nil {
		return err
	}
	return <-readErr
}

// readLines queues each non-blank stdin line; over-long lines are skipped
// with a warning.
func readLines(env *cli.Env, rl *peer.RateLimitedSender) error {
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
			env.Warnf("<stdin>:%d: line too long for a message, skipped", rd.Line())
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
