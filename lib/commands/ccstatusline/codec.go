package ccstatusline

import "github.com/ccpipe/ccpipe/lib/cache"

// A ledger's cache entry data, in lib/cache's small binary form: encoding/gob
// would cost every call its package initialisation (a status line refresh is
// a few milliseconds in all), and it is slower to decode. The file's stamp and
// offset are the entry's own.

func (l *ledger) encode() []byte {
	skip := uint64(0)
	if l.Skip {
		skip = 1
	}
	b := cache.AppendUvarint(nil, skip)
	b = cache.AppendVarint(b, l.Context)
	b = cache.AppendStr(b, l.ContextModel)
	b = cache.AppendUvarint(b, uint64(len(l.Msgs)))
	for _, m := range l.Msgs {
		b = cache.AppendStr(b, m.Key)
		b = cache.AppendVarint(b, m.TS)
		b = cache.AppendF64(b, m.USD)
		b = cache.AppendF64(b, m.Tokens)
		u := byte(0)
		if m.Unpriced {
			u = 1
		}
		if m.Copied {
			u |= 2
		}
		b = cache.AppendUvarint(b, uint64(u))
	}
	return b
}

// decode reads what encode wrote into l's messages and context; false on
// anything else (the ledger is then read again from the start).
func (l *ledger) decode(b []byte) bool {
	d := cache.NewDecoder(b)
	l.Skip = d.Uvarint() == 1
	l.Context = d.Varint()
	l.ContextModel = d.Str()
	n := d.Count()
	l.Msgs = make([]msg, 0, n)
	for j := 0; j < n && d.Err() == nil; j++ {
		m := msg{Key: d.Str(), TS: d.Varint()}
		m.USD = d.F64()
		m.Tokens = d.F64()
		flags := d.Uvarint()
		m.Unpriced, m.Copied = flags&1 != 0, flags&2 != 0
		l.Msgs = append(l.Msgs, m)
	}
	return d.Done()
}
