package transcript

import (
	"slices"

	"github.com/ccpipe/ccpipe/lib/jsonscan"
)

// ActiveBranch returns the uuids on the active branch of a transcript, as
// Claude Code 2.1.328 rebuilds the conversation on resume:
//
//   - the chain: from the newest leaf (the last user, assistant, system or
//     attachment record in file order; Claude Code appends, so after a
//     rewind or fork the last record written is on the branch in use) back
//     through parentUuid, and through logicalParentUuid across a
//     compaction boundary;
//   - the rest of every message the chain touches: Claude Code writes one
//     assistant message's blocks as a chain of records (one per block) and
//     each tool_result record's parentUuid is the record of its own
//     tool_use, so the single-parent walk keeps only the last result of a
//     parallel call. Every assistant record with the message.id of an
//     assistant record on the chain is on the branch, with the tool_result
//     records hanging under them (by parentUuid; a result whose parent does
//     not hold its tool_use also by sourceToolAssistantUUID or the record
//     that holds its tool_use id, when it answers a call nothing on the
//     branch answered yet), and the dangling tails of attachments, system
//     records and meta user records written under any of those.
//
// It reads the file once and keeps a few fields per record (parent,
// message id, tool ids), never the records.
func ActiveBranch(path string, maxLine int) (map[string]bool, error) {
	g := newBranchGraph()
	_, err := ReadFile(path, Options{MaxLine: maxLine}, func(l *Line) error {
		g.add(l)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return g.branch(), nil
}

// branchNode is what the branch rebuild keeps of one record.
type branchNode struct {
	uuid        string
	pos         int // in file order
	parent      string
	typ         string
	subtype     string // system records
	msgID       string // assistant records
	source      string // sourceToolAssistantUUID
	agentID     string
	sidechain   bool
	meta        bool
	virtual     bool
	toolUses    []string // assistant: tool_use ids
	toolResults []string // user: tool_result tool_use_ids
}

type branchGraph struct {
	nodes    map[string]*branchNode
	order    []*branchNode // file order
	children map[string][]*branchNode
	leaf     *branchNode
}

func newBranchGraph() *branchGraph {
	return &branchGraph{nodes: map[string]*branchNode{}, children: map[string][]*branchNode{}}
}

// add notes one line; a line without a uuid (metadata) is not part of the
// conversation.
func (g *branchGraph) add(l *Line) {
	h := &l.Header
	if len(h.UUID) == 0 {
		return
	}
	n := &branchNode{uuid: string(h.UUID), typ: string(h.Type), agentID: string(h.AgentID)}
	p := h.ParentUUID
	if len(p) == 0 {
		p = h.LogicalParentUUID
	}
	n.parent = string(p)
	if conversational[n.typ] {
		scanBranchFields(l.Bytes, n)
		g.leaf = n
	}
	if old, dup := g.nodes[n.uuid]; dup {
		n.pos = old.pos // a uuid written twice: the last copy holds
		g.order[n.pos] = n
	} else {
		n.pos = len(g.order)
		g.order = append(g.order, n)
	}
	g.nodes[n.uuid] = n
	if n.parent != "" {
		g.children[n.parent] = append(g.children[n.parent], n)
	}
}

// scanBranchFields reads the fields the rebuild needs beyond the Header.
// The line was scanned already, so a syntax error cannot happen here; a
// field of an unexpected type reads as absent.
func scanBranchFields(line []byte, n *branchNode) {
	_ = jsonscan.Members(line, func(m *jsonscan.Member) error {
		switch m.Name() {
		case "subtype":
			n.subtype = jsonscan.StringOf(m.Value)
		case "sourceToolAssistantUUID":
			n.source = jsonscan.StringOf(m.Value)
		case "isSidechain":
			n.sidechain = string(m.Value) == "true"
		case "isMeta":
			n.meta = string(m.Value) == "true"
		case "isVirtual":
			n.virtual = string(m.Value) == "true"
		case "message":
			scanBranchMessage(m.Value, n)
		}
		return nil
	})
}

// scanBranchMessage reads message.id and the tool ids of its content.
func scanBranchMessage(v []byte, n *branchNode) {
	_ = jsonscan.Members(v, func(m *jsonscan.Member) error {
		switch m.Name() {
		case "id":
			n.msgID = jsonscan.StringOf(m.Value)
		case "content":
			c := jsonscan.New(m.Value)
			if c.Peek() != '[' || c.EnterArray() != nil {
				return nil
			}
			for {
				ok, err := c.Elem()
				if err != nil || !ok {
					return nil
				}
				b, err := c.Raw()
				if err != nil {
					return nil
				}
				var typ, id, useID string
				_ = jsonscan.Members(b, func(m *jsonscan.Member) error {
					switch m.Name() {
					case "type":
						typ = jsonscan.StringOf(m.Value)
					case "id":
						id = jsonscan.StringOf(m.Value)
					case "tool_use_id":
						useID = jsonscan.StringOf(m.Value)
					}
					return nil
				})
				switch {
				case typ == BlockToolUse && id != "":
					n.toolUses = append(n.toolUses, id)
				case typ == BlockToolResult && useID != "":
					n.toolResults = append(n.toolResults, useID)
				}
			}
		}
		return nil
	})
}

// companion is Claude Code's test for a record that may hang off a
// message without being part of the dialogue: an attachment, a system
// record other than a compaction boundary, a meta user record without a
// tool_result, or a virtual tool record.
func (n *branchNode) companion() bool {
	switch n.typ {
	case "attachment":
		return true
	case "system":
		return n.subtype != "compact_boundary"
	case "user":
		if n.virtual && len(n.toolResults) > 0 {
			return true
		}
		return n.meta && len(n.toolResults) == 0
	case "assistant":
		return n.virtual && len(n.toolUses) > 0
	}
	return false
}

// followsMessage is true of a chain record that still belongs to the
// turn of message msgID: its other block records, tool results, meta
// prompts, attachments and system records.
func (n *branchNode) followsMessage(msgID string) bool {
	switch n.typ {
	case "assistant":
		return n.msgID == msgID
	case "user":
		return n.meta || len(n.toolResults) > 0
	case "attachment":
		return true
	case "system":
		return n.subtype != "compact_boundary"
	}
	return false
}

func sameSide(a, b *branchNode) bool { return a.sidechain == b.sidechain && a.agentID == b.agentID }

// branch walks the chain and adds what the chain walk misses.
func (g *branchGraph) branch() map[string]bool {
	on := map[string]bool{}
	var chain []*branchNode
	for n := g.leaf; n != nil && !on[n.uuid]; {
		on[n.uuid] = true
		chain = append(chain, n)
		if n.parent == "" {
			break
		}
		n = g.nodes[n.parent] // nil when the chain leaves the file (a fork's source)
	}
	slices.Reverse(chain)
	g.recoverParallel(chain, on)
	return on
}

// recoverParallel is Claude Code's recovery of parallel tool calls after
// the chain walk (its tengu_chain_parallel_tr_recovered step).
func (g *branchGraph) recoverParallel(chain []*branchNode, on map[string]bool) {
	groups := map[string][]*branchNode{} // message.id -> its assistant records
	holder := map[string]*branchNode{}   // tool_use id -> the record holding it, nil when two messages do
	for _, n := range g.order {
		if n.typ != "assistant" || n.msgID == "" {
			continue
		}
		groups[n.msgID] = append(groups[n.msgID], n)
		for _, id := range n.toolUses {
			if h, ok := holder[id]; ok && (h == nil || h.msgID != n.msgID) {
				holder[id] = nil
			} else {
				holder[id] = n
			}
		}
	}
	// results[uuid]: the tool_result records hanging under that record.
	results := map[string][]*branchNode{}
	hang := func(under string, r *branchNode) {
		if !slices.Contains(results[under], r) {
			results[under] = append(results[under], r)
		}
	}
	for _, r := range g.order {
		if r.typ != "user" || len(r.toolResults) == 0 {
			continue
		}
		if r.parent != "" {
			hang(r.parent, r)
		}
		if p := g.nodes[r.parent]; p != nil && containsAll(p.toolUses, r.toolResults) {
			continue
		}
		if s := g.nodes[r.source]; s != nil && r.source != r.parent && sameSide(r, s) {
			hang(s.uuid, r)
		}
		for _, id := range r.toolResults {
			if h := holder[id]; h != nil && h.uuid != r.parent && sameSide(r, h) {
				hang(h.uuid, r)
			}
		}
	}
	answered := map[string]bool{}
	for _, n := range chain {
		for _, id := range n.toolResults {
			answered[id] = true
		}
	}
	index := map[string]int{}
	for i, n := range chain {
		index[n.uuid] = i
	}

	done := map[string]bool{}
	for xi, a := range chain {
		if a.typ != "assistant" || a.msgID == "" || done[a.msgID] {
			continue
		}
		done[a.msgID] = true
		sibs := groups[a.msgID]
		isSib := func(uuid string) bool {
			return slices.ContainsFunc(sibs, func(s *branchNode) bool { return s.uuid == uuid })
		}
		var add, byCall []*branchNode
		picked := map[string]bool{}
		for _, s := range sibs {
			if !on[s.uuid] {
				add = append(add, s)
			}
			for _, r := range results[s.uuid] {
				if on[r.uuid] || picked[r.uuid] {
					continue
				}
				picked[r.uuid] = true
				if isSib(r.parent) {
					add = append(add, r)
				} else {
					byCall = append(byCall, r)
				}
			}
		}
		if len(byCall) > 0 {
			known := map[string]bool{}
			for id := range answered {
				known[id] = true
			}
			for _, r := range add {
				for _, id := range r.toolResults {
					known[id] = true
				}
			}
			sortByFile(byCall)
			for _, r := range byCall {
				if !slices.ContainsFunc(r.toolResults, func(id string) bool {
					h := holder[id]
					return !known[id] && h != nil && isSib(h.uuid)
				}) {
					continue
				}
				for _, id := range r.toolResults {
					known[id] = true
				}
				add = append(add, r)
			}
		}
		for _, n := range add {
			on[n.uuid] = true
		}
		if !slices.ContainsFunc(sibs, func(s *branchNode) bool { return len(s.toolUses) > 0 }) {
			continue
		}
		// Dangling tails under the message's records and their results,
		// and under the chain's companions of this turn.
		var roots []*branchNode
		for _, s := range sibs {
			roots = append(roots, s)
			for _, r := range results[s.uuid] {
				if on[r.uuid] {
					roots = append(roots, r)
				}
			}
		}
		end := xi + 1
		for _, s := range sibs {
			if i, ok := index[s.uuid]; ok && i >= end {
				end = i + 1
			}
		}
		for end < len(chain) && chain[end].followsMessage(a.msgID) {
			end++
		}
		for _, n := range chain[xi+1 : end] {
			if n.companion() {
				roots = append(roots, n)
			}
		}
		for _, root := range roots {
			for _, c := range g.children[root.uuid] {
				for _, t := range g.tail(c, root, on) {
					on[t.uuid] = true
				}
			}
		}
	}
}

// tail is the run of companion records from c down, when it hangs off
// from without branching and ends in a leaf; otherwise nothing.
func (g *branchGraph) tail(c, from *branchNode, on map[string]bool) []*branchNode {
	var run []*branchNode
	for n := c; n != nil; {
		if on[n.uuid] || n.sidechain != from.sidechain || !n.companion() {
			return nil
		}
		run = append(run, n)
		var next []*branchNode
		for _, k := range g.children[n.uuid] {
			if !on[k.uuid] {
				next = append(next, k)
			}
		}
		if len(next) > 1 {
			return nil
		}
		n = nil
		if len(next) == 1 {
			n = next[0]
		}
	}
	return run
}

// sortByFile orders records as the file holds them.
func sortByFile(ns []*branchNode) {
	slices.SortStableFunc(ns, func(a, b *branchNode) int { return a.pos - b.pos })
}

func containsAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return len(want) > 0
}
