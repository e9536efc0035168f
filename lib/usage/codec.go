package usage

import "github.com/ccpipe/ccpipe/lib/cache"

// A ledger's cache entry data, in lib/cache's small binary form: encoding/gob
// would cost every call its package initialisation (a status line refresh is
// a few milliseconds in all), and it is slower to decode. The file's stamp and
// offset are the entry's own.

func (l *ledger) encode() []byte {
	b := cache.AppendBool(nil, l.Skip)
	b = cache.AppendVarint(b, l.Context)
	b = cache.AppendStr(b, l.ContextModel)
	b = cache.AppendUvarint(b, uint64(len(l.Msgs)))
	for _, m := range l.Msgs {
		b = appendPriced(b, m)
	}
	b = cache.AppendBool(b, l.HasOpen)
	if l.HasOpen {
		b = AppendMessage(b, &l.Open)
		b = appendPriced(b, l.OpenPriced)
	}
	return b
}

func appendPriced(b []byte, m Priced) []byte {
	b = cache.AppendU64(b, m.Key)
	b = cache.AppendVarint(b, m.TS)
	b = cache.AppendStr(b, m.Session)
	b = cache.AppendF64(b, m.USD)
	b = cache.AppendVarint(b, m.Tokens)
	u := byte(0)
	if m.Unpriced {
		u = 1
	}
	if m.Copied {
		u |= 2
	}
	return cache.AppendUvarint(b, uint64(u))
}

// decode reads what encode wrote into l's messages and context; false on
// anything else (the ledger is then read again from the start).
func (l *ledger) decode(b []byte) bool {
	d := cache.NewDecoder(b)
	l.Skip = d.Bool()
	l.Context = d.Varint()
	l.ContextModel = d.Str()
	n := d.Count()
	l.Msgs = make([]Priced, 0, n)
	for j := 0; j < n && d.Err() == nil; j++ {
		l.Msgs = append(l.Msgs, readPriced(d))
	}
	l.Open, l.HasOpen, l.OpenPriced = Message{}, d.Bool(), Priced{}
	if l.HasOpen {
		ReadMessage(d, &l.Open)
		l.OpenPriced = readPriced(d)
	}
	return d.Done()
}

func readPriced(d *cache.Decoder) Priced {
	m := Priced{Key: d.U64(), TS: d.Varint(), Session: d.Str()}
	m.USD = d.F64()
	m.Tokens = d.Varint()
	flags := d.Uvarint()
	m.Unpriced, m.Copied = flags&1 != 0, flags&2 != 0
	return m
}

// AppendMessage appends a message whole in lib/cache's binary form
// (ReadMessage reads it back).
func AppendMessage(b []byte, m *Message) []byte {
	b = cache.AppendU64(b, m.Key)
	for _, v := range []string{m.SessionID, m.AgentID, m.UUID, m.Timestamp, m.MessageID, m.RequestID, m.RequestRef,
		m.Model, m.RequestedModel, m.Cwd, m.Usage} {
		b = cache.AppendStr(b, v)
	}
	b = cache.AppendBool(b, m.Copied)
	t := &m.Tokens
	for _, v := range []int64{t.InputTokens, t.OutputTokens, t.CacheReadInputTokens, t.CacheCreationInputTokens, t.CacheCreation5m, t.CacheCreation1h} {
		b = cache.AppendVarint(b, v)
	}
	return b
}

// ReadMessage reads what AppendMessage wrote; d's error says whether it
// could.
func ReadMessage(d *cache.Decoder, m *Message) {
	m.Key = d.U64()
	for _, v := range []*string{&m.SessionID, &m.AgentID, &m.UUID, &m.Timestamp, &m.MessageID, &m.RequestID, &m.RequestRef,
		&m.Model, &m.RequestedModel, &m.Cwd, &m.Usage} {
		*v = d.Str()
	}
	m.Copied = d.Bool()
	t := &m.Tokens
	for _, v := range []*int64{&t.InputTokens, &t.OutputTokens, &t.CacheReadInputTokens, &t.CacheCreationInputTokens, &t.CacheCreation5m, &t.CacheCreation1h} {
		*v = d.Varint()
	}
}

// AppendRecorded writes r for a cache entry (cc-extract's usage facts).
func AppendRecorded(b []byte, r *Recorded) []byte {
	b = cache.AppendStr(b, r.SessionID)
	b = cache.AppendVarint(b, int64(r.States))
	b = cache.AppendBool(b, r.UnknownModel)
	b = cache.AppendVarint(b, int64(r.Compactions))
	b = cache.AppendVarint(b, int64(r.Copied))
	b = cache.AppendF64(b, r.baseUSD)
	b = cache.AppendF64(b, r.lastUSD)
	b = cache.AppendVarint(b, r.baseTokens)
	b = cache.AppendVarint(b, r.lastTokens)
	return cache.AppendVarint(b, r.lastStart)
}

// DecodeRecorded reads what AppendRecorded wrote (d fails on anything
// else).
func DecodeRecorded(d *cache.Decoder) Recorded {
	r := Recorded{SessionID: d.Str(), States: int(d.Varint()), UnknownModel: d.Bool(), Compactions: int(d.Varint()), Copied: int(d.Varint())}
	r.baseUSD, r.lastUSD = d.F64(), d.F64()
	r.baseTokens, r.lastTokens, r.lastStart = d.Varint(), d.Varint(), d.Varint()
	return r
}
