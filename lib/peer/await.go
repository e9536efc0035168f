package peer

import (
	"context"
	"errors"
	"time"
)

// StatusAccepted is the status of a message that was waited for and got
// no receipt: the receiver sends none for a message it takes normally.
const StatusAccepted = "accepted"

// Pending is a sent message whose receipt (and idle notice, when IdleID
// is set) Await collects.
type Pending struct {
	MsgID  string // the message's msg_id
	IdleID string // msg_id of the notify_when_idle sent after it, or ""

	// Filled in by Await.
	Status     string    // a Status* value, StatusAccepted, or "" (no receipt while waiting for idle)
	Reason     string    // the receiver's sentence
	DropReason string    // for StatusDropped
	IdleState  string    // from the idle notice: idle, exited, unavailable
	FinishedAt time.Time // from the idle notice, when it says
	done       bool
}

// settle applies n to p and reports whether n was about p. A message that
// will not run (dropped, denied, …) ends an idle wait too; a held one
// that is delivered does not, its turn is still to come.
func (p *Pending) settle(n Notice) bool {
	switch {
	case n.Action == ActionStatus && n.About(p.MsgID):
		p.Status, p.Reason, p.DropReason = n.Status, n.Reason, n.DropReason
		if Final(n.Status) && (p.IdleID == "" || n.Status != StatusDelivered) {
			p.done = true
		}
		return true
	case n.Action == ActionIdle && p.IdleID != "" && n.OrigMsgID == p.IdleID:
		p.IdleState = n.State
		if n.FinishedAt > 0 {
			p.FinishedAt = time.UnixMilli(n.FinishedAt).UTC()
		}
		p.done = true
		return true
	}
	return false
}

// Await reads the listeners' notices into pending until every message is
// settled or ctx ends (its deadline is the wait's bound: the end of a
// wait is not an error). A notice that answers none of them goes to
// stray, if given. It returns ctx's error only when ctx was cancelled.
// A message still without a status got no receipt: with a plain wait,
// that means StatusAccepted.
func Await(ctx context.Context, listeners []*Listener, pending []*Pending, stray func(Notice)) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	notices := make(chan Notice)
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
	open := 0
	for _, p := range pending {
		if !p.done {
			open++
		}
	}
	var err error
	for open > 0 {
		var n Notice
		select {
		case n = <-notices:
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.Canceled) {
				err = ctx.Err()
			}
			open = 0
			continue
		}
		matched := false
		for _, p := range pending {
			if p.done {
				continue
			}
			if p.settle(n) {
				matched = true
				if p.done {
					open--
				}
			}
		}
		if !matched && stray != nil {
			stray(n)
		}
	}
	return err
}

// Replies are the reply sockets of one sender label: one per directory
// of receiver sockets, bound when first needed and closed together.
type Replies struct {
	Label string
	ls    map[string]*Listener
}

// From is the `from` address of the label's reply socket for a receiver
// socket: what its frames carry, whether or not the socket is bound.
func (r *Replies) From(targetSocket string) string {
	return Address(ReplyPath(targetSocket, r.Label))
}

// Ready is the step for Sender.SendAfter that binds the reply socket for
// targetSocket (ListenReply) unless it is bound already.
func (r *Replies) Ready(targetSocket string) func() error {
	return func() error {
		path := ReplyPath(targetSocket, r.Label)
		if r.ls[path] != nil {
			return nil
		}
		l, err := ListenReply(targetSocket, r.Label)
		if err != nil {
			return err
		}
		if r.ls == nil {
			r.ls = map[string]*Listener{}
		}
		r.ls[path] = l
		return nil
	}
}

// Listeners are the bound reply sockets.
func (r *Replies) Listeners() []*Listener {
	out := make([]*Listener, 0, len(r.ls))
	for _, l := range r.ls {
		out = append(out, l)
	}
	return out
}

// Close closes every reply socket.
func (r *Replies) Close() {
	for _, l := range r.ls {
		l.Close()
	}
}
