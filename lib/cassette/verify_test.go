package cassette

import (
	"math"
	"os"
	"strings"
	"testing"
)

func fixture(t *testing.T, name string) Cassette {
	t.Helper()
	f, err := os.Open("testdata/blackbox/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cs, err := ReadAll(f)
	if err != nil || len(cs) != 1 {
		t.Fatal(err)
	}
	return cs[0]
}

// edit returns c with step i's member key replaced.
func edit(c Cassette, i int, key string, v Value) Cassette {
	steps := append([]Value(nil), c.Steps...)
	steps[i] = steps[i].With(key, v)
	return Cassette{Header: c.Header, Steps: steps}
}

func TestVerify(t *testing.T) {
	good := fixture(t, "fork-child.v2.json")
	tampered := edit(good, 3, "payload", ObjectValue(Member{"toolName", StringValue("search")}, Member{"result", IntValue(1)}, Member{"toolCallId", StringValue("call-0")}))
	cases := []struct {
		name   string
		c      Cassette
		check  string
		step   int // -1: none
		detail string
	}{
		{"good", good, "", -1, ""},
		{"tampered payload", tampered, CheckChain, 3, `step 3 hash mismatch — the stored hash is not the hash of the step's content (recomputed "`},
		{"index", edit(good, 2, "index", IntValue(5)), CheckChain, 2, "step at position 2 has index 5; expected 2"},
		{"index fraction", edit(good, 2, "index", NumberValue(2.5)), CheckChain, 2, "has index a non-integer value"},
		{"prevHash 0", edit(good, 0, "prevHash", StringValue("x")), CheckChain, 0, "first step must have prevHash null"},
		{"prevHash", edit(good, 4, "prevHash", StringValue("x")), CheckChain, 4, `step 4 prevHash does not match the previous step's hash "bbf0f149`},
		{"missing payload", Cassette{good.Header, []Value{good.Steps[0].Without("payload")}}, CheckChain, 0, "step 0 cannot be hashed: step has no payload field"},
		{"non-finite", edit(good, 1, "timestamp", NumberValue(math.Inf(1))), CheckChain, 1, "non-finite number"},
		{"version", Cassette{good.Header.With("version", IntValue(1)), good.Steps}, CheckSchema, -1, "version 1 is not supported (expected 2)"},
		{"no version", Cassette{good.Header.Without("version"), good.Steps}, CheckSchema, -1, "version field is missing"},
		{"null version", Cassette{good.Header.With("version", Value{}), good.Steps}, CheckSchema, -1, "version field is missing"},
		{"version a string", Cassette{good.Header.With("version", StringValue("2")), good.Steps}, CheckSchema, -1, `unsupported version "2" (expected the number 2)`},
		{"version a long string", Cassette{good.Header.With("version", StringValue(strings.Repeat("9", 5000))), good.Steps}, CheckSchema, -1, `unsupported version "` + strings.Repeat("9", 78) + `…`},
		{"marker", Cassette{good.Header.With("usage", IntValue(1)), good.Steps}, CheckNeutrality, -1, "markers: usage"},
	}
	for _, c := range cases {
		r := Verify(c.c)
		if c.check == "" {
			if !r.Pass || r.Status != StatusSuccess || r.Steps != 7 {
				t.Errorf("%s: %+v", c.name, r)
			}
			continue
		}
		if r.Pass || r.FirstFailure == nil || r.FirstFailure.Name != c.check || !strings.Contains(r.FirstFailure.Detail, c.detail) {
			t.Errorf("%s: first failure %+v, want %s %q", c.name, r.FirstFailure, c.check, c.detail)
			continue
		}
		if (c.step < 0) != (r.FirstFailure.StepIndex == nil) || (c.step >= 0 && *r.FirstFailure.StepIndex != c.step) {
			t.Errorf("%s: step index %v, want %d", c.name, r.FirstFailure.StepIndex, c.step)
		}
		// Every check after the failing one is skipped.
		after := false
		for _, inv := range r.Invariants {
			if after && inv.Status != Skip {
				t.Errorf("%s: %s is %s after a failure", c.name, inv.Name, inv.Status)
			}
			after = after || inv.Status == Fail
		}
	}
}

func TestNeutralityScan(t *testing.T) {
	base := fixture(t, "success-final-answer.v2.json")
	cases := []struct {
		header Value
		want   string
	}{
		{StringValue("toolu_abc1"), "toolu_"},
		{StringValue("toolu_abc"), ""},
		{StringValue("x_toolu_1"), ""},
		{StringValue("send_msg_to_user"), ""},
		{StringValue("desk-antenna"), "sk-ant"},
		{StringValue("call-12"), ""},
		{StringValue("Bearer abcdefghijklmnop1234"), "bearer-token"},
		// Inside user data only real credential shapes count.
		{ObjectValue(Member{"text", StringValue("toolu_abc1 desk-antenna")}), ""},
		{ObjectValue(Member{"result", StringValue("sk-ant-" + strings.Repeat("a", 20))}), "sk-ant"},
		{ObjectValue(Member{"content", ObjectValue(Member{"usage", IntValue(1)})}), ""},
	}
	for _, c := range cases {
		r := Verify(Cassette{base.Header.With("extra", c.header), base.Steps})
		got := ""
		if r.FirstFailure != nil && r.FirstFailure.Name == CheckNeutrality {
			got = strings.TrimPrefix(r.FirstFailure.Detail, "markers: ")
		}
		if got != c.want {
			t.Errorf("%v: markers %q, want %q", c.header, got, c.want)
		}
	}
	// A supplied key is found, named and never printed.
	key := "sk-secret-value-1"
	c := edit(base, 1, "payload", ObjectValue(Member{"type", StringValue("final_answer")}, Member{"text", StringValue("my key is " + key)}))
	r := Verify(c, key)
	for _, inv := range r.Invariants {
		if strings.Contains(inv.Detail, key) {
			t.Errorf("detail prints the key: %s", inv.Detail)
		}
	}
}

func TestReplayability(t *testing.T) {
	good := fixture(t, "success-final-answer.v2.json")
	// A success claim that is not the last step.
	r := NewRecorder("x")
	var steps []Value
	for _, s := range good.Steps {
		typ, _ := s.GetString("type")
		p, _ := s.Get("payload")
		st, _ := r.Append(typ, 0, p)
		steps = append(steps, st.Value())
	}
	st, _ := r.Append(ModelInput, 0, ObjectValue(Member{"messages", ArrayValue()}, Member{"tools", ArrayValue()}))
	steps = append(steps, st.Value())
	rep := Verify(Cassette{good.Header, steps})
	if rep.Pass || rep.FirstFailure.Name != CheckReplay || *rep.FirstFailure.StepIndex != 3 ||
		rep.FirstFailure.Detail != `trace claims run_completed/success but replay status is "incomplete"` {
		t.Errorf("%+v", rep.FirstFailure)
	}
}

func TestFindingPath(t *testing.T) {
	base := fixture(t, "success-final-answer.v2.json")
	r := Verify(edit(base, 0, "payload", ObjectValue(Member{"messages", ArrayValue(ObjectValue(Member{"role", StringValue("user")}, Member{"id", StringValue("msg_01abc")}))})))
	if len(r.Findings) != 1 || r.Findings[0].Label != "msg_" || r.Findings[0].Path != "payload.messages[0].id" || *r.Findings[0].Step != 0 {
		t.Errorf("findings %+v", r.Findings)
	}
}

// Two recordings of the same run at other times: by hash they diverge at
// step 0 (timestamps are hashed); --semantic finds them the same.
func TestDiffSemantic(t *testing.T) {
	a := fixture(t, "error-unknown-tool.v2.json")
	r := NewRecorder("later")
	var steps []Value
	for _, s := range a.Steps {
		st, _ := DecodeStep(s)
		ns, _ := r.Append(st.Type, st.Timestamp+1000, st.Payload)
		steps = append(steps, ns.Value())
	}
	b := Cassette{Header{Version: 2, ID: "later"}.Value(), steps}
	d := Diff(a, b, false)
	if d.Same || d.FirstDivergence.Index != 0 || d.FirstDivergence.Path != "timestamp" || !d.Outcome.BehaviorallyEquivalent {
		t.Errorf("hash diff: %+v %+v", d, d.FirstDivergence)
	}
	if d := Diff(a, b, true); !d.Same || d.SharedPrefixLength != 5 {
		t.Errorf("semantic diff: %+v", d)
	}
	// A shorter child: the parent is not a prefix, the child is.
	c := Cassette{a.Header, a.Steps[:3]}
	d = Diff(a, c, false)
	if d.Same || !d.ChildIsStrictPrefix || d.FirstDivergence.Summary != "child ended before parent at index 3" ||
		d.Outcome.Verdict != "outcome flipped: parent error → child incomplete" {
		t.Errorf("prefix: %+v %+v", d, d.FirstDivergence)
	}
}
