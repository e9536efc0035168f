package pricing

import (
	"math"
	"testing"
)

func TestBillingRule(t *testing.T) {
	resp := Record{Type: "assistant", Model: "claude-opus-5-5", UsageObject: true, MessageID: "msg_1", RequestID: "req_1",
		RequestRef: "ref-1", UUID: "u1", SessionID: "A"}
	with := func(f func(r *Record)) Record { r := resp; f(&r); return r }
	tests := []struct {
		name     string
		r        Record
		billable bool
		key      string
		owner    string
		copied   bool
	}{
		{"a response", resp, true, "msg_1\x00req_1", "A", false},
		{"no requestId: requestRef", with(func(r *Record) { r.RequestID = "" }), true, "msg_1\x00ref-1", "A", false},
		{"no message id: its uuid", with(func(r *Record) { r.MessageID = "" }), true, "uuid\x00u1", "A", false},
		{"a fork's copy", with(func(r *Record) { r.SessionID, r.RequestSessionID = "B", "A" }), true, "msg_1\x00req_1", "A", true},
		{"requestSessionId of its own session", with(func(r *Record) { r.RequestSessionID = "A" }), true, "msg_1\x00req_1", "A", false},
		{"a failed call", with(func(r *Record) { r.Model, r.APIError = Synthetic, true }), false, "msg_1\x00req_1", "A", false},
		{"synthetic without error", with(func(r *Record) { r.Model = Synthetic }), false, "msg_1\x00req_1", "A", false},
		{"API error flag alone", with(func(r *Record) { r.APIError = true }), false, "msg_1\x00req_1", "A", false},
		{"no usage object", with(func(r *Record) { r.UsageObject = false }), false, "msg_1\x00req_1", "A", false},
		{"a user record", with(func(r *Record) { r.Type = "user" }), false, "msg_1\x00req_1", "A", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.r.Billable(); got != tt.billable {
				t.Errorf("Billable %v, want %v", got, tt.billable)
			}
			if got := tt.r.Key(); got != tt.key {
				t.Errorf("Key %q, want %q", got, tt.key)
			}
			if got := tt.r.Owner(); got != tt.owner {
				t.Errorf("Owner %q, want %q", got, tt.owner)
			}
			if got := tt.r.Copied(); got != tt.copied {
				t.Errorf("Copied %v, want %v", got, tt.copied)
			}
		})
	}
	// A copy and its original are one message.
	cp := with(func(r *Record) { r.SessionID, r.RequestSessionID = "C", "A" })
	if resp.Key() != cp.Key() {
		t.Error("a copy's key differs from the original's")
	}
	byUUID, byID := Record{UUID: "m"}, Record{MessageID: "uuid"}
	if byUUID.Key() == byID.Key() {
		t.Error("a uuid key equals a message key")
	}
}

func TestReplaces(t *testing.T) {
	if !Replaces(10, 9) || Replaces(9, 9) || Replaces(8, 9) {
		t.Error("the record with more tokens replaces; a tie keeps the first")
	}
	u := Usage{InputTokens: 1, OutputTokens: 2, CacheReadInputTokens: 4, CacheCreationInputTokens: 8, Ephemeral1h: 100}
	if u.Tokens() != 15 {
		t.Errorf("Tokens %v", u.Tokens())
	}
}

// SessionTotal adds in time order whatever order the parts come in:
// 0.1+0.2+0.3 and 0.3+0.2+0.1 differ in the last bit.
func TestSessionTotal(t *testing.T) {
	inOrder := []Timed{{"2026-01-01T00:00:01Z", 0.1}, {"2026-01-01T00:00:02Z", 0.2}, {"2026-01-01T00:00:03Z", 0.3}}
	a, b, c := inOrder[0].USD, inOrder[1].USD, inOrder[2].USD // variables: constants add exactly
	want, other := a+b+c, c+b+a
	if want == other {
		t.Fatal("the orders give the same float: the test shows nothing")
	}
	rev := []Timed{inOrder[2], inOrder[1], inOrder[0]}
	if got := SessionTotal(rev); got != want {
		t.Errorf("SessionTotal %v (%b), want %v (%b)", got, math.Float64bits(got), want, math.Float64bits(want))
	}
	// Equal times keep their order.
	same := []Timed{{"t", 1}, {"t", 2}}
	SessionTotal(same)
	if same[0].USD != 1 {
		t.Error("equal times reordered")
	}
}
