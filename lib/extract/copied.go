package extract

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/ccpipe/ccpipe/lib/transcript"
)

// A fork (claude --resume X --fork-session) copies X's records into its
// own transcript. What those records did (a prompt, a text, a tool call
// and its result, a failure, a subagent run) happened once, in the
// session that made it: lib/pricing's ownership rule (BillRecord's Owner
// and Copied, the rule usage bills by) says which one. Every kind leaves
// a copied record's facts to its owner: they are the owner's, emitted
// when the owner's transcript is read, never again under the fork (a fork
// read alone leaves them out and says how many). Only assistant records
// name their maker (requestSessionId); a user or attachment record of a
// fork's copied prefix is the maker's of the assistant record that comes
// next (forkPrefix). cc-render's page of a fork still shows the whole
// conversation the fork holds: it reads the transcript, not these facts.

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
	gen  int    // changes with every count (the cache's checkpoints copy them then)
}

// leave counts one call of owner left out.
func (c *copies) leave(owner string) {
	if c.left == nil {
		c.left = map[string]int{}
	}
	c.left[owner]++
	c.gen++
}

// sawSession marks a session as read.
func (c *copies) sawSession(id string) {
	if id == "" || id == c.last {
		return
	}
	if c.read == nil {
		c.read = map[string]struct{}{}
	}
	if _, ok := c.read[id]; !ok {
		c.gen++
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

// copiedNoun names what a kind leaves to a copy's owner.
var copiedNoun = map[string]string{"prompts": "prompts", "texts": "texts", "conversation": "turns"}

// report warns once of the facts whose owner was not read.
func (c *copies) report(kind string, warn func(string)) {
	left := map[string]int{}
	for owner, k := range c.left {
		if _, ok := c.read[owner]; !ok {
			left[owner] += k
		}
	}
	if len(left) > 0 {
		warn(ForkNote(kind, left))
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

// forkPrefix applies the rule to the records that do not name their
// maker: a fork's copies come first in its transcript, so the facts of a
// user or attachment record are held until the next assistant record
// says whose they are: a copied one's owner's (left out), else the
// file's own, and so is everything after it. A session that is no fork
// holds at most the facts before its first answer.
type forkPrefix struct {
	held []any
	own  bool   // an assistant record of the file's own came
	sid  string // the session of the last record
}

// see starts a transcript where a wanted record's session changes. The
// reader ends a transcript where transcript.Edges says (EndFile); this is
// the extractor's own check, for a file read whole too, and deliberately
// not that rule: a record without a session is a change here (Edges lets
// it go on), which the prefilters rely on: they skip a file's assistant
// records once its own have begun, and on records that name no session
// the rule's edges would fall on those skipped records
// (TestPrefiltersGenerated). Claude Code's records of the kinds that see
// all name their session: the two agree on them.
func (p *forkPrefix) see(x *Extractor, o *Origin, e *transcript.Entry) error {
	sid := cmp.Or(e.SessionID, o.SessionID)
	if sid == p.sid {
		return nil
	}
	p.sid = sid
	return p.endFile(x)
}

// fact takes the fact of a user or attachment record.
func (p *forkPrefix) fact(x *Extractor, v any) error {
	if p.own || x.opts.KeepCopies {
		return x.emit(v)
	}
	p.held = append(p.held, v)
	return nil
}

// assistant reads an assistant record: copied reports that it (and the
// facts held) are another session's, counted as left to owner.
func (p *forkPrefix) assistant(x *Extractor, o *Origin, e *transcript.Entry) (owner string, copied bool, err error) {
	if x.opts.KeepCopies {
		p.own = true // (no more assistant records wanted)
		return "", false, nil
	}
	if owner, copied = copiedFrom(o, e); copied {
		for range p.held {
			x.copies.leave(owner)
		}
		clear(p.held)
		p.held = p.held[:0]
		return owner, true, nil
	}
	p.own = true
	return "", false, p.flush(x)
}

// flush emits the facts held: the file's own.
func (p *forkPrefix) flush(x *Extractor) error {
	for i, v := range p.held {
		if err := x.emit(v); err != nil {
			return err
		}
		p.held[i] = nil
	}
	p.held = p.held[:0]
	return nil
}

// endFile ends a transcript: what is held is its own.
func (p *forkPrefix) endFile(x *Extractor) error {
	p.own = false
	return p.flush(x)
}

// LeftCopies returns the tool calls or prompts x left out so far as a
// fork's copies, by the session that owns them, and forgets them: the
// counts of the fork note before Close leaves out the owners it read. For
// a reader that reads each session with extractors of its own (cc-otel)
// and says once, at the end, which owners it did not read (ForkNote).
func (x *Extractor) LeftCopies() map[string]int {
	left := x.copies.left
	x.copies.left = nil
	return left
}

// CopiedMessages is LeftCopies of the usage kind: the messages read only
// as a fork's copies so far, each with the session that owns it (the
// note leaves out those counted by the end: lib/usage's Counter).
func (x *Extractor) CopiedMessages() map[uint64]string {
	if x.usage == nil {
		return nil
	}
	return x.usage.counted.Copies()
}

// ForkNote is the fork note Close gives for kind: left counts what was
// left out by owner, each an owner not read.
func ForkNote(kind string, left map[string]int) string {
	noun := copiedNoun[kind]
	switch {
	case kind == "usage":
		noun = "messages"
	case noun == "":
		noun = "tool calls"
	}
	return forkNote(kind, noun, left)
}
