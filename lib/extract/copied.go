package extract

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ccpipe/ccpipe/lib/transcript"
)

// A fork (claude --resume X --fork-session) copies X's records into its
// own transcript. What those records did (a tool call and its result, a
// failure, a subagent run) happened once, in the session that made the
// call: lib/pricing's ownership rule (BillRecord's Owner and Copied, the
// rule usage bills by) says which one. The kinds built on tool calls
// (tools, shell, files, failures, subagents; and so cc-hook backtest)
// leave a copied call to its owner: it is the owner's fact, emitted when
// the owner's transcript is read, never again under the fork. The
// conversation's kinds (prompts, texts, conversation, compactions) show
// what a session holds, and a fork holds its copied conversation (it
// sends it to the model again), as cc-render's page of a fork shows it.

// copiedFrom says e is a record a fork copied, and names the session that
// made it.
func copiedFrom(o *Origin, e *transcript.Entry) (owner string, ok bool) {
	if e.Assistant == nil || e.Assistant.RequestSessionID == "" {
		return "", false // the common case, without building the record
	}
	rec := BillRecord(o, e)
	return rec.Owner(), rec.Copied()
}

// copies counts the tool calls left to their owner, by owner, and the
// sessions read, to say at the end how many were left out because their
// owner's transcript was not read.
type copies struct {
	left map[string]int
	read map[string]struct{}
	last string // the session last marked read (most entries repeat it)
}

// leave counts one call of owner left out.
func (c *copies) leave(owner string) {
	if c.left == nil {
		c.left = map[string]int{}
	}
	c.left[owner]++
}

// sawSession marks a session as read.
func (c *copies) sawSession(id string) {
	if id == "" || id == c.last {
		return
	}
	if c.read == nil {
		c.read = map[string]struct{}{}
	}
	c.read[id], c.last = struct{}{}, id
}

// add takes in what another reader (one file's, on a worker) counted.
func (c *copies) add(o *copies) {
	for k, n := range o.left {
		if c.left == nil {
			c.left = map[string]int{}
		}
		c.left[k] += n
	}
	for k := range o.read {
		c.sawSession(k)
	}
}

// report warns once of the calls whose owner was not read.
func (c *copies) report(kind string, warn func(string)) {
	left := map[string]int{}
	for owner, k := range c.left {
		if _, ok := c.read[owner]; !ok {
			left[owner] += k
		}
	}
	if len(left) > 0 {
		warn(forkNote(kind, "tool calls", left))
	}
}

// forkNote is the one warning of what a fork copied from sessions the run
// did not read (left: how many of what, by owner), which it leaves to
// them: how many, which sessions (whole ids, the first three), and how to
// count them too.
func forkNote(kind, what string, left map[string]int) string {
	n := 0
	owners := make([]string, 0, len(left))
	for owner, k := range left {
		n += k
		owners = append(owners, owner)
	}
	slices.Sort(owners)
	named := owners[:min(len(owners), 3)]
	list := strings.Join(named, ", ")
	if more := len(owners) - len(named); more > 0 {
		list += fmt.Sprintf(" and %d more", more)
	}
	if len(owners) == 1 {
		return fmt.Sprintf("%s: %d %s a fork copied from a session not read are left out: they count in that session (%s); "+
			"to count them here, add it to the input (cc-sessions --find %s prints its record)", kind, n, what, list, owners[0])
	}
	return fmt.Sprintf("%s: %d %s a fork copied from %d sessions not read are left out: they count in those sessions (%s); "+
		"to count them here, add them to the input (cc-sessions --find ID prints a session's record)", kind, n, what, len(owners), list)
}
