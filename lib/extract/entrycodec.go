package extract

import (
	"encoding/json"
	"time"

	"github.com/ccpipe/ccpipe/lib/cache"
	"github.com/ccpipe/ccpipe/lib/transcript"
)

// The entry codec: a transcript.Entry as a kind's reader decoded it, in
// the kinds' cache (kindcache.go), read back field for field so that the
// kind's handler, given it, does what it did given the decoded line.
// Every field of Entry and what it points to is written (TestEntryCodec
// fails when one is added and not here) but Entry.Raw, which only the
// kinds that read it keep (keepRaw): it is the whole line.

// appendEntry appends e; raw: with e.Raw.
func appendEntry(b []byte, e *transcript.Entry, raw bool) []byte {
	for _, s := range []string{e.Type, e.UUID, e.ParentUUID, e.LogicalParentUUID, e.SessionID, e.AgentID,
		e.TimestampRaw, e.Cwd, e.Version, e.GitBranch, e.Entrypoint, e.PromptID, e.Slug} {
		b = cache.AppendStr(b, s)
	}
	// The time is parsed again from TimestampRaw, as the decoder did: a
	// flag says whether it did.
	b = appendFlags(b, e.IsSidechain, e.IsMeta, !e.Timestamp.IsZero(), raw,
		e.Message != nil, e.User != nil, e.Assistant != nil, e.System != nil, e.Attachment != nil)
	if raw {
		b = appendRaw(b, e.Raw)
	}
	b = cache.AppendUvarint(b, uint64(len(e.TypeMismatches)))
	for _, s := range e.TypeMismatches {
		b = cache.AppendStr(b, s)
	}
	b = cache.AppendVarint(b, int64(e.UnknownBlocks))
	if m := e.Message; m != nil {
		for _, s := range []string{m.ID, m.Type, m.Role, m.Model, m.StopReason, m.StopSequence} {
			b = cache.AppendStr(b, s)
		}
		b = appendFlags(b, m.ContentIsString, m.Usage != nil)
		b = appendBlocks(b, m.Content)
		if u := m.Usage; u != nil {
			for _, v := range []int64{u.InputTokens, u.OutputTokens, u.CacheCreationInputTokens, u.CacheReadInputTokens} {
				b = cache.AppendVarint(b, v)
			}
			b = cache.AppendStr(b, u.ServiceTier)
		}
	}
	if u := e.User; u != nil {
		for _, s := range []string{u.PromptSource, u.TurnOrigin, u.PermissionMode, u.OriginKind, u.SourceToolAssistantUUID, u.ToolDenialKind} {
			b = cache.AppendStr(b, s)
		}
		for _, r := range []json.RawMessage{u.Origin, u.ToolUseResult, u.PermissionDecision} {
			b = appendRaw(b, r)
		}
		b = appendFlags(b, u.IsCompactSummary, u.IsVisibleInTranscriptOnly)
	}
	if a := e.Assistant; a != nil {
		for _, s := range []string{a.RequestID, a.RequestRef, a.RequestSessionID, a.Error} {
			b = cache.AppendStr(b, s)
		}
		b = cache.AppendVarint(b, int64(a.APIBlockIndex))
		b = appendFlags(b, a.IsAPIErrorMessage)
	}
	if s := e.System; s != nil {
		for _, v := range []string{s.Subtype, s.Content, s.Level} {
			b = cache.AppendStr(b, v)
		}
		b = appendRaw(b, s.CompactMetadata)
		b = appendRaw(b, s.Error)
		b = cache.AppendF64(b, s.RetryInMs)
		b = cache.AppendVarint(b, int64(s.RetryAttempt))
		b = cache.AppendVarint(b, int64(s.MaxRetries))
		b = cache.AppendF64(b, s.DurationMs)
	}
	if a := e.Attachment; a != nil {
		b = cache.AppendStr(b, a.Type)
		b = appendRaw(b, a.Raw)
	}
	return b
}

// appendBlocks writes a block list, nil told from empty.
func appendBlocks(b []byte, blocks []transcript.Block) []byte {
	if blocks == nil {
		return cache.AppendUvarint(b, 0)
	}
	b = cache.AppendUvarint(b, uint64(len(blocks))+1)
	for i := range blocks {
		k := &blocks[i]
		for _, s := range []string{k.Type, k.Text, k.Thinking, k.Signature, k.Data, k.ID, k.Name, k.ToolUseID, k.MediaType, k.ToolName} {
			b = cache.AppendStr(b, s)
		}
		for _, r := range []json.RawMessage{k.Input, k.Source, k.Raw} {
			b = appendRaw(b, r)
		}
		b = appendFlags(b, k.ContentIsString, k.IsError)
		b = appendBlocks(b, k.Content)
	}
	return b
}

// appendRaw writes raw JSON, nil told from empty.
func appendRaw(b []byte, r json.RawMessage) []byte {
	if r == nil {
		return cache.AppendUvarint(b, 0)
	}
	b = cache.AppendUvarint(b, uint64(len(r))+1)
	return append(b, r...)
}

// appendFlags writes up to 16 booleans as bits.
func appendFlags(b []byte, v ...bool) []byte {
	var n uint64
	for i, f := range v {
		if f {
			n |= 1 << i
		}
	}
	return cache.AppendUvarint(b, n)
}

// entryReader reads what appendEntry wrote. Its strings and raw JSON
// share the cached bytes' memory (a store entry's Data never changes).
type entryReader struct {
	d *cache.Decoder
}

// flags reads what appendFlags wrote of n booleans: bit i is the i-th.
func (r entryReader) flags(n int) flagBits {
	v := r.d.Uvarint()
	if v>>n != 0 {
		r.d.Fail()
	}
	return flagBits(v)
}

type flagBits uint64

func (f flagBits) at(i int) bool { return f&(1<<i) != 0 }

func (r entryReader) raw() json.RawMessage {
	n := r.d.Uvarint()
	if n == 0 {
		return nil
	}
	if n == 1 {
		return json.RawMessage{}
	}
	return r.d.Fixed(int(n - 1))
}

func (r entryReader) strs(dst ...*string) {
	for _, p := range dst {
		*p = r.d.StrShared()
	}
}

// entry reads one entry; the decoder's Err says whether it was whole.
func (r entryReader) entry() *transcript.Entry {
	e := &transcript.Entry{}
	r.strs(&e.Type, &e.UUID, &e.ParentUUID, &e.LogicalParentUUID, &e.SessionID, &e.AgentID,
		&e.TimestampRaw, &e.Cwd, &e.Version, &e.GitBranch, &e.Entrypoint, &e.PromptID, &e.Slug)
	f := r.flags(9)
	e.IsSidechain, e.IsMeta = f.at(0), f.at(1)
	if f.at(2) {
		t, err := time.Parse(time.RFC3339Nano, e.TimestampRaw)
		if err != nil {
			r.d.Fail()
		}
		e.Timestamp = t
	}
	if f.at(3) {
		e.Raw = r.raw()
	}
	if n := r.d.Count(); n > 0 {
		e.TypeMismatches = make([]string, n)
		for i := range e.TypeMismatches {
			e.TypeMismatches[i] = r.d.StrShared()
		}
	}
	e.UnknownBlocks = int(r.d.Varint())
	if f.at(4) {
		m := &transcript.Message{}
		r.strs(&m.ID, &m.Type, &m.Role, &m.Model, &m.StopReason, &m.StopSequence)
		mf := r.flags(2)
		m.ContentIsString = mf.at(0)
		m.Content = r.blocks(0)
		if mf.at(1) {
			u := &transcript.Usage{}
			for _, p := range []*int64{&u.InputTokens, &u.OutputTokens, &u.CacheCreationInputTokens, &u.CacheReadInputTokens} {
				*p = r.d.Varint()
			}
			u.ServiceTier = r.d.StrShared()
			m.Usage = u
		}
		e.Message = m
	}
	if f.at(5) {
		u := &transcript.User{}
		r.strs(&u.PromptSource, &u.TurnOrigin, &u.PermissionMode, &u.OriginKind, &u.SourceToolAssistantUUID, &u.ToolDenialKind)
		u.Origin, u.ToolUseResult, u.PermissionDecision = r.raw(), r.raw(), r.raw()
		uf := r.flags(2)
		u.IsCompactSummary, u.IsVisibleInTranscriptOnly = uf.at(0), uf.at(1)
		e.User = u
	}
	if f.at(6) {
		a := &transcript.Assistant{}
		r.strs(&a.RequestID, &a.RequestRef, &a.RequestSessionID, &a.Error)
		a.APIBlockIndex = int(r.d.Varint())
		a.IsAPIErrorMessage = r.flags(1).at(0)
		e.Assistant = a
	}
	if f.at(7) {
		s := &transcript.System{}
		r.strs(&s.Subtype, &s.Content, &s.Level)
		s.CompactMetadata, s.Error = r.raw(), r.raw()
		s.RetryInMs = r.d.F64()
		s.RetryAttempt = int(r.d.Varint())
		s.MaxRetries = int(r.d.Varint())
		s.DurationMs = r.d.F64()
		e.System = s
	}
	if f.at(8) {
		a := &transcript.Attachment{Type: r.d.StrShared()}
		a.Raw = r.raw()
		e.Attachment = a
	}
	return e
}

// maxBlockDepth bounds the nesting read back (a tool result's blocks
// hold blocks; bytes that claim more were not written by appendBlocks).
const maxBlockDepth = 64

func (r entryReader) blocks(depth int) []transcript.Block {
	n := r.d.Uvarint()
	if n == 0 || depth > maxBlockDepth || n-1 > uint64(r.d.Left()) {
		if n != 0 {
			r.d.Fail()
		}
		return nil
	}
	out := make([]transcript.Block, n-1)
	for i := range out {
		k := &out[i]
		r.strs(&k.Type, &k.Text, &k.Thinking, &k.Signature, &k.Data, &k.ID, &k.Name, &k.ToolUseID, &k.MediaType, &k.ToolName)
		k.Input, k.Source, k.Raw = r.raw(), r.raw(), r.raw()
		bf := r.flags(2)
		k.ContentIsString, k.IsError = bf.at(0), bf.at(1)
		k.Content = r.blocks(depth + 1)
		if r.d.Err() != nil {
			return nil
		}
	}
	return out
}
