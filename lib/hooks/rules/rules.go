// Package rules evaluates declarative hook rule files: each rule names
// events, an optional matcher, a jq condition over the payload and a
// decision; the first rule that matches answers, and no match is no
// opinion. It is what `cc-hook run RULES.yaml` runs before every tool call,
// so it compiles only the rules of the payload's event, each once.
package rules

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/ccpipe/ccpipe/lib/hooks"
	"github.com/ccpipe/ccpipe/lib/jq"
	"github.com/ccpipe/ccpipe/lib/regular"
	"github.com/ccpipe/ccpipe/lib/spell"
	"github.com/ccpipe/ccpipe/lib/usage"
)

// File is a loaded rule file.
type File struct {
	Path  string
	Rules []*Rule
	// SkipUnless makes Eval treat every unless command as failed without
	// running it (cc-hook backtest, unless --run-unless).
	SkipUnless bool
	// Budgets is the file's budgets section (HasBudgets: it has one).
	Budgets    usage.Budgets
	HasBudgets bool
	// Spend gives the spend figures as the payload's session sees them,
	// for the rules that read them ($spend, over_budget); asked at most
	// once an Eval. Nil: no rule may read them (an error when one does).
	Spend func() (usage.Spend, error)
}

// Rule is one entry of a rule file. Field names are the YAML keys.
type Rule struct {
	Name              string   `yaml:"name"`
	Events            []string `yaml:"events"`
	Matcher           string   `yaml:"matcher"` // as in settings.json: "Bash", "Write|Edit", "^mcp__"
	If                string   `yaml:"if"`      // jq over the payload; matches when the first result is truthy
	Unless            string   `yaml:"unless"`  // sh command; the rule applies only when it fails
	Decision          string   `yaml:"decision"`
	Reason            string   `yaml:"reason"`
	AdditionalContext string   `yaml:"additional_context"`
	SystemMessage     string   `yaml:"system_message"`
	SessionTitle      string   `yaml:"session_title"`
	// OverBudget names budget periods (day, week, month, block, or any):
	// the rule matches only when the spend of one of them has reached
	// its limit, and the figure is added to its reason.
	OverBudget []string `yaml:"over_budget"`

	line     int
	prepared bool
	matchAll bool
	names    []string
	re       *regexp.Regexp
	cond     *jq.Filter
	// spend: the condition reads $spend.
	spend bool
}

// Label names the rule in messages: its name, else its line.
func (r *Rule) Label() string {
	if r.Name != "" {
		return fmt.Sprintf("rule %q", r.Name)
	}
	return fmt.Sprintf("rule at line %d", r.line)
}

// MaxFileSize bounds a rule file: a FIFO, /dev/zero or a huge file is
// refused, not read until memory runs out.
const MaxFileSize = 4 << 20

// LoadFile reads and checks a rule file's shape (not yet its conditions:
// see Validate).
func LoadFile(path string) (*File, error) {
	data, err := regular.ReadFile(path, MaxFileSize)
	if err != nil {
		return nil, fmt.Errorf("reading rules: %w", err)
	}
	f, err := Load(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	f.Path = path
	return f, nil
}

// Load parses a rule file: a mapping with one key, rules, a list of rules.
// Unknown keys are errors, so a misspelt field never silently disables a
// rule.
func Load(data []byte) (*File, error) {
	var doc struct {
		Rules   []yaml.Node `yaml:"rules"`
		Budgets yaml.Node   `yaml:"budgets"` // usage.ParseBudgets reads it
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("invalid rule file: %w", err)
	}
	if len(doc.Rules) == 0 {
		return nil, errors.New("invalid rule file: no rules (want a top-level \"rules:\" list)")
	}
	f := &File{}
	var err error
	if f.Budgets, f.HasBudgets, err = usage.ParseBudgets(data); err != nil {
		return nil, fmt.Errorf("invalid rule file: %w", err)
	}
	for i := range doc.Rules {
		n := &doc.Rules[i]
		r := &Rule{line: n.Line}
		if err := decodeRule(n, r); err != nil {
			return nil, fmt.Errorf("rule at line %d: %w", n.Line, err)
		}
		if err := r.checkShape(f); err != nil {
			return nil, fmt.Errorf("%s: %w", r.Label(), err)
		}
		f.Rules = append(f.Rules, r)
	}
	return f, nil
}

// ruleKeys are the YAML keys of a rule.
var ruleKeys = []string{"name", "events", "matcher", "if", "unless", "decision", "reason",
	"additional_context", "system_message", "session_title", "over_budget"}

// decodeRule decodes one rule, refusing unknown keys and accepting a
// single event as a string.
func decodeRule(n *yaml.Node, r *Rule) error {
	if n.Kind != yaml.MappingNode {
		return errors.New("a rule must be a mapping")
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !slices.Contains(ruleKeys, k.Value) {
			if s := spell.Suggest(k.Value, ruleKeys); s != "" {
				return fmt.Errorf("unknown rule field %q; did you mean %s?", k.Value, s)
			}
			return fmt.Errorf("unknown rule field %q (want one of %s)", k.Value, strings.Join(ruleKeys, ", "))
		}
		if (k.Value == "events" || k.Value == "over_budget") && v.Kind == yaml.ScalarNode {
			n.Content[i+1] = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: []*yaml.Node{v}, Line: v.Line}
		}
	}
	line := r.line
	if err := n.Decode(r); err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "yaml: "))
	}
	r.line = line
	return nil
}

var decisions = []string{"", hooks.Allow, hooks.Deny, hooks.Ask, hooks.Defer, hooks.Block,
	hooks.Accept, hooks.Decline, hooks.Cancel, hooks.Retry}

// checkShape is the cheap part of the validation, done at load.
func (r *Rule) checkShape(f *File) error {
	for _, p := range r.OverBudget {
		if p != "any" && !slices.Contains(usage.BudgetPeriods, p) {
			return fmt.Errorf("over_budget: unknown period %q (want day, week, month, block or any)", p)
		}
		if !f.HasBudgets {
			return errors.New("over_budget: the file has no budgets section")
		}
		if p != "any" && f.Budgets.Limit(p) == 0 {
			return fmt.Errorf("over_budget: the budgets section sets no %s limit", p)
		}
	}
	if len(r.Events) == 0 {
		return errors.New("no events")
	}
	for _, e := range r.Events {
		if !hooks.IsEvent(e) {
			return fmt.Errorf("unknown event %q%s", e, spell.DidYouMean(e, hooks.Events))
		}
	}
	if !slices.Contains(decisions, r.Decision) {
		if s := spell.Suggest(r.Decision, decisions); s != "" {
			return fmt.Errorf("unknown decision %q; did you mean %s?", r.Decision, s)
		}
		return fmt.Errorf("unknown decision %q (want allow, deny, ask, defer, block, accept, decline, cancel or retry)", r.Decision)
	}
	if r.Decision == "" && r.AdditionalContext == "" && r.SystemMessage == "" && r.SessionTitle == "" {
		return errors.New("the rule neither decides nor adds anything (set decision, additional_context, system_message or session_title)")
	}
	return nil
}

// prepare compiles the rule's matcher and condition once, and checks that
// its reply is valid for every event it names.
func (r *Rule) prepare() error {
	if r.prepared {
		return nil
	}
	for _, e := range r.Events {
		if r.Matcher != "" && !hooks.TakesMatcher(e) {
			return fmt.Errorf("%s: %s takes no matcher", r.Label(), e)
		}
		if _, err := r.reply(e, r.Reason); err != nil {
			return fmt.Errorf("%s: %w", r.Label(), err)
		}
	}
	switch m := r.Matcher; {
	case m == "" || m == "*":
		r.matchAll = true
	case simpleMatcher().MatchString(m):
		// Claude Code reads a matcher of plain names as an exact list.
		r.names = strings.Split(m, "|")
	default:
		re, err := regexp.Compile(m)
		if err != nil {
			return fmt.Errorf("%s: invalid matcher: %w", r.Label(), err)
		}
		r.re = re
	}
	if r.If != "" {
		f, err := jq.CompileVars(r.If, condVars...)
		if err != nil {
			return fmt.Errorf("%s: if: %w", r.Label(), err)
		}
		r.cond, r.spend = f, strings.Contains(r.If, "$spend")
	}
	r.prepared = true
	return nil
}

var simpleMatcher = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9_|]+$`) })

// condVars are the variables an if condition may read: $spend, the spend
// figures (day, week, month, block, session, unpriced: usage.Spend), and
// $budgets, the file's budgets section (null without one).
var condVars = []string{"spend", "budgets"}

func (r *Rule) reply(event, reason string) (*hooks.Reply, error) {
	return hooks.Decide(event, hooks.Decision{
		Kind:              r.Decision,
		Reason:            reason,
		AdditionalContext: r.AdditionalContext,
		SystemMessage:     r.SystemMessage,
		SessionTitle:      r.SessionTitle,
	})
}

// Validate prepares every rule, so a broken rule is found before it is
// needed (cc-hook settings runs it).
func (f *File) Validate() error {
	for _, r := range f.Rules {
		if err := r.prepare(); err != nil {
			return err
		}
	}
	return nil
}

// Wants reports whether some rule names the event and, for an event
// that takes a matcher, matches value (the tool name, the source, ...):
// whether Eval could answer such a payload. cc-hook backtest asks before
// it builds one. A rule that does not compile is wanted (Eval reports it).
func (f *File) Wants(event, value string) bool {
	for _, r := range f.Rules {
		if !slices.Contains(r.Events, event) {
			continue
		}
		if r.prepare() != nil || r.matches(value) {
			return true
		}
	}
	return false
}

// matches tests the rule's matcher against the payload's matcher value.
func (r *Rule) matches(v string) bool {
	return r.matchAll || r.re != nil && r.re.MatchString(v) || r.re == nil && slices.Contains(r.names, v)
}

// Match is the rule that answered and its reply.
type Match struct {
	Rule  *Rule
	Reply *hooks.Reply
	// Reason is the reply's reason: the rule's, with the tail of a failed
	// unless command's output.
	Reason string
	// UnlessSkipped is set when the rule's unless command was not run
	// (File.SkipUnless).
	UnlessSkipped bool
}

// Eval returns the first rule matching the payload (payload is its JSON,
// ev the parsed event), or nil when none does. An error (a rule that does
// not compile, a condition that fails at run time, an unless command that
// cannot start) means the rule file is broken for this payload.
func (f *File) Eval(ctx context.Context, ev hooks.Event, payload []byte) (*Match, error) {
	var doc any
	decoded := false
	sp := spendOnce{f: f}
	for _, r := range f.Rules {
		if !slices.Contains(r.Events, ev.EventName()) {
			continue
		}
		if err := r.prepare(); err != nil {
			return nil, err
		}
		if v, _ := ev.Matcher(); !r.matches(v) {
			continue
		}
		over, err := r.over(f, &sp)
		if err != nil {
			return nil, fmt.Errorf("%s: over_budget: %w", r.Label(), err)
		}
		if len(r.OverBudget) > 0 && len(over) == 0 {
			continue
		}
		if r.cond != nil {
			if err := r.setVars(f, &sp); err != nil {
				return nil, fmt.Errorf("%s: if: %w", r.Label(), err)
			}
			if !decoded {
				var err error
				if doc, err = jq.Decode(payload); err != nil {
					return nil, fmt.Errorf("decoding the payload: %w", err)
				}
				decoded = true
			}
			cctx, stop := CondBudget.Watch(ctx)
			ok, err := truthy(cctx, r.cond, doc)
			stop()
			if err != nil {
				return nil, fmt.Errorf("%s: if: %w", r.Label(), err)
			}
			if !ok {
				continue
			}
		}
		reason := withFigures(r.Reason, over)
		skipped := r.Unless != "" && f.SkipUnless
		if r.Unless != "" && !skipped {
			passed, out, err := runUnless(ctx, r.Unless, payload)
			if err != nil {
				return nil, fmt.Errorf("%s: unless: %w", r.Label(), err)
			}
			if passed {
				continue
			}
			if out != "" && reason != "" {
				reason += "\n\n" + out
			}
		}
		reply, err := r.reply(ev.EventName(), reason)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.Label(), err)
		}
		return &Match{Rule: r, Reply: reply, Reason: reason, UnlessSkipped: skipped}, nil
	}
	return nil, nil
}

// spendOnce asks File.Spend at most once an Eval.
type spendOnce struct {
	f     *File
	asked bool
	spend usage.Spend
	err   error
}

func (s *spendOnce) get() (usage.Spend, error) {
	if !s.asked {
		s.asked = true
		if s.f.Spend == nil {
			s.err = errors.New("the spend is not known here (cc-hook run reads it; backtest and test do not)")
		} else {
			s.spend, s.err = s.f.Spend()
		}
	}
	return s.spend, s.err
}

// over is the states of the rule's over_budget periods that are over.
func (r *Rule) over(f *File, sp *spendOnce) ([]usage.BudgetState, error) {
	if len(r.OverBudget) == 0 {
		return nil, nil
	}
	spend, err := sp.get()
	if err != nil {
		return nil, err
	}
	var out []usage.BudgetState
	for _, s := range f.Budgets.Check(spend) {
		if s.State == usage.BudgetOver && (slices.Contains(r.OverBudget, s.Period) || slices.Contains(r.OverBudget, "any")) {
			out = append(out, s)
		}
	}
	return out, nil
}

// setVars gives the condition $spend (when it reads it) and $budgets.
func (r *Rule) setVars(f *File, sp *spendOnce) error {
	var spend, budgets any
	if r.spend {
		s, err := sp.get()
		if err != nil {
			return err
		}
		spend = map[string]any{"day": s.Today, "week": s.Week, "month": s.Month, "block": s.Block,
			"session": s.Session, "unpriced": s.Unpriced}
	}
	if f.HasBudgets {
		b := f.Budgets
		budgets = map[string]any{"day": b.Day, "week": b.Week, "month": b.Month, "block": b.Block, "warn": b.Warn}
	}
	r.cond.SetVars(spend, budgets)
	return nil
}

// withFigures adds the figures of the budgets passed to a reason.
func withFigures(reason string, over []usage.BudgetState) string {
	if len(over) == 0 {
		return reason
	}
	figs := make([]string, len(over))
	for i, s := range over {
		figs[i] = s.String()
	}
	add := "(spent: " + strings.Join(figs, ", ") + ")"
	if reason == "" {
		return "Over budget " + add
	}
	return reason + " " + add
}

// truthy reports whether the condition's first result is neither false
// nor null; no result at all is false.
func truthy(ctx context.Context, f *jq.Filter, doc any) (bool, error) {
	stop := errors.New("stop")
	result := false
	err := f.RunContext(ctx, doc, func(v any) error {
		result = v != nil && v != false
		return stop
	})
	if err != nil && !errors.Is(err, stop) && !errors.Is(err, jq.ErrHalt) {
		return false, err
	}
	return result, nil
}

// outputTail bounds how much of a failing unless command's output is
// appended to the reason.
const outputTail = 2000

// CondBudget bounds each rule's jq condition: a condition tests a
// payload in microseconds, and one that loops or grows without end is a
// broken rule (an error, so the failure policy applies), never the Go
// runtime's out-of-memory exit 2, which Claude Code would read as a block.
var CondBudget = jq.Budget{Timeout: 5 * time.Second, MaxHeap: 256 << 20}

// UnlessTimeout bounds an unless command: it is killed (with everything
// it started) and the rule file fails, before Claude Code's own 600 s
// hook timeout kills cc-hook without a word.
var UnlessTimeout = 9 * time.Minute

// unlessOutputCap bounds what is kept of an unless command's output (its
// tail): a command printing without end costs no memory.
const unlessOutputCap = 64 << 10

// runUnless runs cmd with sh -c, the payload on stdin. It reports whether
// the command succeeded and the tail of its combined output.
func runUnless(ctx context.Context, cmd string, payload []byte) (bool, string, error) {
	ctx, cancel := context.WithTimeout(ctx, UnlessTimeout)
	defer cancel()
	c := exec.CommandContext(ctx, "sh", "-c", cmd)
	c.Stdin = bytes.NewReader(payload)
	out := &tailBuffer{max: unlessOutputCap}
	c.Stdout = out
	c.Stderr = out
	killGroup(c)
	// A grandchild that keeps the output pipe open must not hold Wait.
	c.WaitDelay = time.Second
	err := c.Run()
	if ctx.Err() == context.DeadlineExceeded {
		return false, "", fmt.Errorf("still running after %v: killed", UnlessTimeout)
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return false, "", err
	}
	tail := strings.TrimSpace(string(out.bytes()))
	if len(tail) > outputTail {
		tail = "..." + tail[len(tail)-outputTail:]
	}
	return err == nil, tail, nil
}

// tailBuffer keeps the last max bytes written to it (at most 2*max held).
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
	cut bool
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	if len(p) > t.max {
		p, t.cut = p[len(p)-t.max:], true
	}
	t.b = append(t.b, p...)
	if len(t.b) > 2*t.max {
		t.b, t.cut = append(t.b[:0], t.b[len(t.b)-t.max:]...), true
	}
	return n, nil
}

func (t *tailBuffer) bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.b) > t.max {
		return t.b[len(t.b)-t.max:]
	}
	return t.b
}
