package usage

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
)

// Recorded is what Claude Code wrote of its own cost into one session's
// transcripts: its cost-state records (one at the end of each run, with
// the running total so far), and what the transcripts say of calls it
// counted that no transcript holds (its compactions) and of a figure that
// started from another session's (a fork's copied records). cc-extract
// usage --sum session sets it beside ccpipe's own total (Reasons).
//
// A run resumed (--resume) or forked (--fork-session) starts from the
// running total it resumes, with the same startTime: the last cost-state
// of such a chain is the total of every run in it. A cost-state with
// another startTime, or a lower total, starts a chain from zero, and the
// chains before it add to the figure.
type Recorded struct {
	// SessionID is the session the first cost-state names ("" for none):
	// the file's session, whatever the file is called.
	SessionID string
	// States is the number of cost-state records read; 0: no figure.
	States int
	// UnknownModel is set when Claude Code priced a model it did not know
	// (cost-state's hasUnknownModelCost: it charges such a model as its
	// default one).
	UnknownModel bool
	// Compactions counts the compaction boundaries (/compact, and
	// automatic compaction) of the session's transcripts, subagents'
	// included: each is an API call Claude Code counts that no transcript
	// holds.
	Compactions int
	// Copied counts the billed records the session copied from another
	// (a fork): its figure starts from that session's running total.
	Copied int

	// The finished chains' totals and the last chain's.
	baseUSD, lastUSD       float64
	baseTokens, lastTokens int64
	lastStart              int64
}

// costState is what Recorded reads of a cost-state record.
type costState struct {
	Type                string  `json:"type"`
	SessionID           string  `json:"sessionId"`
	TotalCostUSD        float64 `json:"totalCostUSD"`
	StartTime           int64   `json:"startTime"`
	HasUnknownModelCost bool    `json:"hasUnknownModelCost"`
	ModelUsage          map[string]struct {
		InputTokens              int64 `json:"inputTokens"`
		OutputTokens             int64 `json:"outputTokens"`
		CacheReadInputTokens     int64 `json:"cacheReadInputTokens"`
		CacheCreationInputTokens int64 `json:"cacheCreationInputTokens"`
	} `json:"modelUsage"`
}

var (
	costStateType    = []byte(`"cost-state"`)
	compactBoundary  = []byte(`"compact_boundary"`)
	systemRecordType = []byte(`"system"`)
)

// recordedHead is how far into a line AddLine looks for the two types:
// Claude Code writes them within the first few hundred bytes.
const recordedHead = 1024

// AddLine reads one transcript line of the session in file order: a
// cost-state record or a compaction boundary counts, any other line is
// passed over (a byte test of its head first: most lines are neither,
// and a long tool output is not searched). It reports whether the line
// was one of them.
func (r *Recorded) AddLine(line []byte) bool {
	head := line[:min(len(line), recordedHead)]
	switch {
	case bytes.Contains(head, costStateType):
		var c costState
		if json.Unmarshal(line, &c) != nil || c.Type != "cost-state" || !Finite(c.TotalCostUSD) {
			return false
		}
		r.addState(&c)
		return true
	case bytes.Contains(head, compactBoundary) && bytes.Contains(head, systemRecordType):
		var s struct {
			Type    string `json:"type"`
			Subtype string `json:"subtype"`
		}
		if json.Unmarshal(line, &s) != nil || s.Type != "system" || s.Subtype != "compact_boundary" {
			return false
		}
		r.Compactions++
		return true
	}
	return false
}

func (r *Recorded) addState(c *costState) {
	var tokens int64
	for _, m := range c.ModelUsage {
		for _, n := range []int64{m.InputTokens, m.OutputTokens, m.CacheReadInputTokens, m.CacheCreationInputTokens} {
			Add(&tokens, n)
		}
	}
	if r.States > 0 && (c.StartTime != r.lastStart || c.TotalCostUSD < r.lastUSD) {
		// A chain from zero: the one before it is done.
		r.baseUSD += r.lastUSD
		Add(&r.baseTokens, r.lastTokens)
	}
	if r.SessionID == "" {
		r.SessionID = c.SessionID
	}
	r.States++
	r.lastUSD, r.lastTokens, r.lastStart = c.TotalCostUSD, tokens, c.StartTime
	r.UnknownModel = r.UnknownModel || c.HasUnknownModelCost
}

// USD is Claude Code's figure: the last total of each chain of runs,
// added. Meaningless when States is 0.
func (r *Recorded) USD() float64 { return r.baseUSD + r.lastUSD }

// Tokens is the tokens of every model Claude Code's figure counts (its
// modelUsage, the same chains).
func (r *Recorded) Tokens() int64 {
	t := r.baseTokens
	Add(&t, r.lastTokens)
	return t
}

// Merge adds what another transcript of the session says: a subagent's
// compactions, or a second copy of the session (an archive beside the
// live file), whose figure is the one kept when it counts more runs.
func (r *Recorded) Merge(o *Recorded) {
	comp, copied, unknown := r.Compactions+o.Compactions, r.Copied+o.Copied, r.UnknownModel || o.UnknownModel
	if o.States > r.States {
		*r = *o
	}
	r.Compactions, r.Copied, r.UnknownModel = comp, copied, unknown
}

// The reasons a session's recorded figure and ccpipe's can differ by
// (Reasons), as cc-extract writes them in difference_reasons.
const (
	// ReasonForkBase: a fork's figure starts from its original's running
	// total; ccpipe counts the copied calls once, in the original.
	ReasonForkBase = "fork_base"
	// ReasonCompaction: each compaction is an API call Claude Code counts
	// and no transcript holds.
	ReasonCompaction = "compaction"
	// ReasonCallsInNoTranscript: Claude Code's figure counts more tokens
	// than the session's transcripts hold, with no fork or compaction to
	// account for them.
	ReasonCallsInNoTranscript = "calls_in_no_transcript"
	// ReasonUnknownModel: a model without a known price (Claude Code
	// charged it as its default model; ccpipe assumed or left it out).
	ReasonUnknownModel = "unknown_model_price"
	// ReasonPrices: --prices replaced the price table Claude Code used.
	ReasonPrices = "prices_overridden"
	// ReasonPartial: only part of the session was summed (--since,
	// --until, --no-subagents).
	ReasonPartial = "partial_session"
)

// Reconcile is what Reasons weighs besides the Recorded figure: ccpipe's
// side of the session.
type Reconcile struct {
	// USD and Tokens are ccpipe's total of the session.
	USD    float64
	Tokens int64
	// Unpriced is set when ccpipe left a message unpriced or priced a
	// model as the default one.
	Unpriced bool
	// Prices is set when the price table was replaced (--prices).
	Prices bool
	// Partial is set when part of the session was left out on purpose
	// (a time window, --no-subagents).
	Partial bool
}

// Reasons lists what can be known of why the recorded figure and ccpipe's
// differ (the Reason* names, in that order); nil when they are equal. A
// difference with no reason found is a difference no transcript explains.
func (r *Recorded) Reasons(c Reconcile) []string {
	if r.States == 0 || r.USD() == c.USD {
		return nil
	}
	var why []string
	if r.Copied > 0 {
		why = append(why, ReasonForkBase)
	}
	if r.Compactions > 0 {
		why = append(why, ReasonCompaction)
	}
	if r.Copied == 0 && r.Compactions == 0 && !c.Partial && r.Tokens() > c.Tokens {
		why = append(why, ReasonCallsInNoTranscript)
	}
	if r.UnknownModel || c.Unpriced {
		why = append(why, ReasonUnknownModel)
	}
	if c.Prices {
		why = append(why, ReasonPrices)
	}
	if c.Partial {
		why = append(why, ReasonPartial)
	}
	return slices.Clip(why)
}

// Difference is the recorded figure less ccpipe's, exactly as the floats
// subtract (0 when they are equal to the bit).
func (r *Recorded) Difference(ours float64) float64 {
	d := r.USD() - ours
	if math.Abs(d) == 0 {
		return 0
	}
	return d
}
