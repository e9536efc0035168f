package usage

import "github.com/ccpipe/ccpipe/lib/pricing"

// Merger is the one merge of a transcript's billed records into messages:
// the records of one message (one per content block, each repeating the
// usage, which an earlier block's record can hold as a partial streaming
// count) come one after the other among the billed records, and fold into
// one as pricing.Replaces says, keeping the first record's uuid and
// timestamp. It holds the message still open: the next record may be
// another of its blocks.
type Merger struct {
	open Message
	has  bool
	// Out is given each message as it closes (a record of another
	// message came, or Flush).
	Out func(*Message) error
}

// Add takes the next billed record, as a Message of one record.
func (g *Merger) Add(m *Message) error {
	if g.has && m.Key == g.open.Key {
		next, _ := m.Tokens.Total()
		kept, _ := g.open.Tokens.Total()
		if pricing.Replaces(float64(next), float64(kept)) {
			uuid, ts := g.open.UUID, g.open.Timestamp
			g.open = *m
			g.open.UUID, g.open.Timestamp = uuid, ts
		}
		return nil
	}
	if err := g.Flush(); err != nil {
		return err
	}
	g.open, g.has = *m, true
	return nil
}

// Flush closes the open message, if any.
func (g *Merger) Flush() error {
	if !g.has {
		return nil
	}
	g.has = false
	return g.Out(&g.open)
}

// Open is the message still open, for a reader that stops at the end of
// what was written and goes on later (Resume).
func (g *Merger) Open() (Message, bool) { return g.open, g.has }

// Resume goes on from a message left open by an earlier read.
func (g *Merger) Resume(m Message) { g.open, g.has = m, true }

// Counter counts each message once across transcripts, as the billing
// rule says: a message is counted the first time its key comes, and a
// fork's copy of another session's message counts with the original's own
// record, whenever it comes (left out if it never does: Uncounted).
type Counter struct {
	seen keySet
	// copies holds the keys of the messages read only as a fork's copies
	// so far, each with the session that owns it.
	copies map[uint64]string
}

// maxCopies bounds the copied messages remembered for Uncounted.
const maxCopies = 1 << 20

// Count says whether to count the message with key now: false when it
// was counted already or it is a copy. owner is the session that owns
// the message (Message.SessionID), named when a fork's copy is left out.
func (c *Counter) Count(key uint64, copied bool, owner string) bool {
	if c.seen.has(key) {
		return false
	}
	if copied {
		if c.copies == nil {
			c.copies = map[uint64]string{}
		}
		if len(c.copies) < maxCopies {
			c.copies[key] = owner
		}
		return false
	}
	c.seen.add(key)
	delete(c.copies, key)
	return true
}

// Counted says the message with key was counted.
func (c *Counter) Counted(key uint64) bool { return c.seen.has(key) }

// Copies returns the messages read only as a fork's copies so far, each
// with the session that owns it, and forgets them: for a reader that
// counts across several Counters (cc-otel's, one per session).
func (c *Counter) Copies() map[uint64]string {
	m := c.copies
	c.copies = nil
	return m
}

// Uncounted is how many messages were read only as a fork's copies, of a
// session not read (they count in that session), by that session; it
// forgets them.
func (c *Counter) Uncounted() map[string]int {
	if len(c.copies) == 0 {
		return nil
	}
	by := map[string]int{}
	for _, owner := range c.copies {
		by[owner]++
	}
	clear(c.copies)
	return by
}
