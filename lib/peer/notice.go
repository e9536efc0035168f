package peer

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Actions of the frames a reply socket receives.
const (
	ActionStatus = "peer_message_status" // a receipt for one message
	ActionIdle   = "peer_idle_notice"    // the answer to notify_when_idle
)

// Receipt statuses. No receipt is sent for a message accepted normally.
const (
	StatusHeld      = "held"      // waits for the receiver's user (bypass mode, mode mismatch)
	StatusDelivered = "delivered" // a held message was approved
	StatusDropped   = "dropped"   // see DropReason: rate-limited, duplicate, queue-full, …
	StatusDenied    = "denied"    // the receiver's user denied a held message
	StatusExpired   = "expired"   // held until the receiver ended
	StatusRefused   = "refused"   // the receiver's policy refuses peer messages
)

// Final reports whether no further receipt can follow status.
func Final(status string) bool { return status != StatusHeld && status != "" }

// Notice is one frame received on a reply socket. Fields that were absent
// or of another type are zero; Raw keeps the line.
type Notice struct {
	Type   string // "control" for receipts and idle notices
	Action string // ActionStatus, ActionIdle, or another action

	Status        string   // receipts: a Status* value (expired with status_detail "refused" reads as refused)
	Reason        string   // receipts: the receiver's sentence
	DropReason    string   // dropped: rate-limited, duplicate, queue-full, …
	DroppedMsgIDs []string // dropped: every message a coalesced receipt covers
	OrigMsgID     string   // the msg_id this answers

	State      string // idle notices: idle, exited, unavailable
	FinishedAt int64  // idle notices: ms since the epoch when the turn ended (0: unknown)
	Detail     string // idle notices: the receiver's one-line status, if it sent one
	FromMode   string

	From    string // the receiver's address
	MsgID   string // the frame's own id
	Content string // a user frame (a reply sent to this socket)

	Raw json.RawMessage
}

// About reports whether the notice answers msgID (directly, or as one of
// the messages a coalesced drop receipt lists).
func (n Notice) About(msgID string) bool {
	if msgID == "" {
		return false
	}
	if n.OrigMsgID == msgID {
		return true
	}
	for _, id := range n.DroppedMsgIDs {
		if id == msgID {
			return true
		}
	}
	return false
}

// ErrNotObject is returned by ParseNotice for a line that is valid JSON
// but not an object.
var ErrNotObject = errors.New("not a JSON object")

// ParseNotice decodes one line received on a reply socket. It accepts any
// object; fields of unexpected types are ignored.
func ParseNotice(line []byte) (Notice, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		return Notice{}, fmt.Errorf("malformed frame: %w", err)
	}
	if m == nil {
		return Notice{}, ErrNotObject
	}
	str := func(k string) string {
		var s string
		if json.Unmarshal(m[k], &s) != nil {
			return ""
		}
		return s
	}
	n := Notice{
		Type: str("type"), Action: str("action"), Status: str("status"), Reason: str("reason"),
		DropReason: str("drop_reason"), OrigMsgID: str("orig_msg_id"), State: str("state"),
		Detail: str("detail"), FromMode: str("from_mode"), From: str("from"), MsgID: str("msg_id"),
		Raw: append(json.RawMessage(nil), line...),
	}
	if n.Status == StatusExpired && str("status_detail") == "refused" {
		n.Status = StatusRefused
	}
	var ids []json.RawMessage
	if json.Unmarshal(m["dropped_msg_ids"], &ids) == nil {
		for _, raw := range ids {
			var s string
			if json.Unmarshal(raw, &s) == nil && s != "" {
				n.DroppedMsgIDs = append(n.DroppedMsgIDs, s)
			}
		}
	}
	var f float64
	if json.Unmarshal(m["finished_at"], &f) == nil && f > 0 && f < 1e15 {
		n.FinishedAt = int64(f)
	}
	var msg struct {
		Content string `json:"content"`
	}
	if json.Unmarshal(m["message"], &msg) == nil {
		n.Content = msg.Content
	}
	return n, nil
}
