package extract

import "github.com/ccpipe/ccpipe/lib/cache"

// A kind's cache reads a grown transcript on from a checkpoint: the end of
// the last whole line after which its handler was quiet, nothing waiting
// for a later line (a tool_use for its result, a failure's hook, a held
// prompt, an open compaction or subagent run). What is left of its state
// there is small and is kept with the facts (saveState): a fork's prefix
// seen to its end, a Stop block's unmatched half, the subagent listing
// read, the call ids seen (the line filter's). A read on from there with
// that state is the read of the whole file from there on: the facts and
// warnings after the checkpoint are made again, those before are the
// cache's. A handler that is never quiet to the end of a file (a call
// whose result never comes) has its file read from the last quiet line.

// tailState is a handler the cache can read on from a checkpoint.
type tailState interface {
	// quiet reports whether nothing waits for a later line.
	quiet() bool
	// saveState appends what a read on from a quiet line needs; it runs
	// at every quiet line, so it must be cheap (the call ids seen are
	// the joiner's log: seenLog).
	saveState(b []byte) []byte
	// loadState takes back what saveState wrote.
	loadState(d *cache.Decoder)
	// joined is the handler's joiner, nil when none.
	joined() *joiner
}

func (h *texts) quiet() bool                     { return true }
func (h *texts) saveState(b []byte) []byte       { return b }
func (h *texts) loadState(*cache.Decoder)        {}
func (h *texts) joined() *joiner                 { return nil }
func (h *compactions) quiet() bool               { return h.pending == nil }
func (h *compactions) saveState(b []byte) []byte { return b }
func (h *compactions) loadState(*cache.Decoder)  {}
func (h *compactions) joined() *joiner           { return nil }
func (h *toolsKind) quiet() bool                 { return h.j.quiet() }
func (h *toolsKind) saveState(b []byte) []byte   { return b }
func (h *toolsKind) loadState(*cache.Decoder)    {}
func (h *toolsKind) joined() *joiner             { return h.j }
func (h *prompts) quiet() bool                   { return h.pre.quiet() }
func (h *prompts) saveState(b []byte) []byte     { return h.pre.save(b) }
func (h *prompts) loadState(d *cache.Decoder)    { h.pre.load(d) }
func (h *prompts) joined() *joiner               { return nil }
func (h *conversation) quiet() bool              { return h.pre.quiet() }
func (h *conversation) saveState(b []byte) []byte {
	return h.pre.save(b)
}
func (h *conversation) loadState(d *cache.Decoder) { h.pre.load(d) }
func (h *conversation) joined() *joiner            { return nil }

func (p *forkPrefix) quiet() bool { return len(p.held) == 0 }
func (p *forkPrefix) save(b []byte) []byte {
	return cache.AppendStr(cache.AppendBool(b, p.own), p.sid)
}
func (p *forkPrefix) load(d *cache.Decoder) { p.own, p.sid = d.Bool(), d.Str() }

func (h *failures) quiet() bool {
	return len(h.names) == 0 && len(h.copied) == 0 && len(h.hookErrs) == 0
}
func (h *failures) saveState(b []byte) []byte {
	return appendCounts(appendCounts(b, h.stopMetas), h.stopAtts)
}
func (h *failures) loadState(d *cache.Decoder) {
	h.stopMetas, h.stopAtts = readCounts(d), readCounts(d)
}
func (h *failures) joined() *joiner { return nil }

func (h *subagents) quiet() bool {
	return h.j.quiet() && len(h.queue) == 0 && len(h.notes) == 0
}

// saveState: the session whose subagent listing was read (its dir is one
// of the record's dependencies, so it is the same listing when read on).
func (h *subagents) saveState(b []byte) []byte { return cache.AppendStr(b, h.metaDir) }
func (h *subagents) loadState(d *cache.Decoder) {
	if dir := d.Str(); dir != "" && d.Err() == nil {
		h.list(dir, false)
	}
}
func (h *subagents) joined() *joiner { return h.j }

// quiet reports whether no call waits for its result, nor a result for
// its call.
func (j *joiner) quiet() bool {
	return len(j.queue) == 0 && len(j.byID) == 0 && len(j.early) == 0 && len(j.ignored) == 0
}

// noteSeen adds id to the ids seen (up to maxSeen), and to seenLog when
// it is kept.
func (j *joiner) noteSeen(id string) {
	if len(j.seen) >= maxSeen {
		return
	}
	if _, ok := j.seen[id]; ok {
		return
	}
	j.seen[id] = struct{}{}
	if j.logSeen {
		j.seenLog = append(j.seenLog, id)
	}
}

func appendCounts(b []byte, m map[string]int) []byte {
	b = cache.AppendUvarint(b, uint64(len(m)))
	for k, n := range m {
		b = cache.AppendUvarint(cache.AppendStr(b, k), uint64(n))
	}
	return b
}

func readCounts(d *cache.Decoder) map[string]int {
	n := d.Count()
	if n == 0 {
		return nil
	}
	m := make(map[string]int, n)
	for ; n > 0 && d.Err() == nil; n-- {
		k := d.Str()
		m[k] = int(d.Uvarint())
	}
	return m
}

// tailOf is the handler's tailState, nil for a handler without one (the
// usage kind has a cache of its own).
func tailOf(h handler) tailState {
	t, _ := h.(tailState)
	return t
}
