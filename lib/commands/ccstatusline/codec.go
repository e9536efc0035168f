package ccstatusline

import (
	"encoding/binary"
	"errors"
	"math"
)

// The ledgers file is written in a small binary form of its own: encoding/gob
// would cost every call its package initialisation (a status line refresh is
// a few milliseconds in all), and it is slower to decode.

const ledgersMagic = "ccsl-ledgers-4\n" // 3: the billing rule's copies (i23); 2: long lines read across calls

func (ls *ledgers) marshal() []byte {
	b := []byte(ledgersMagic)
	b = putStr(b, ls.Version)
	b = binary.AppendUvarint(b, uint64(len(ls.Files)))
	for _, l := range ls.Files {
		b = putStr(b, l.Path)
		b = binary.AppendVarint(b, l.Size)
		b = binary.AppendVarint(b, l.MtimeNS)
		b = binary.AppendVarint(b, l.Offset)
		b = binary.AppendVarint(b, l.Context)
		b = putStr(b, l.ContextModel)
		skip := byte(0)
		if l.Skip {
			skip = 1
		}
		b = append(b, skip)
		b = binary.AppendUvarint(b, uint64(len(l.Msgs)))
		for _, m := range l.Msgs {
			b = putStr(b, m.Key)
			b = binary.AppendVarint(b, m.TS)
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(m.USD))
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(m.Tokens))
			u := byte(0)
			if m.Unpriced {
				u = 1
			}
			if m.Copied {
				u |= 2
			}
			b = append(b, u)
		}
	}
	return b
}

var errCodec = errors.New("ledgers: bad cache file")

// unmarshal reads what marshal wrote; anything else is an error (and the
// cache starts over).
func (ls *ledgers) unmarshal(b []byte) error {
	if len(b) < len(ledgersMagic) || string(b[:len(ledgersMagic)]) != ledgersMagic {
		return errCodec
	}
	d := decoder{b: b[len(ledgersMagic):]}
	ls.Version = d.str()
	n := d.count()
	files := make(map[string]*ledger, n)
	for i := 0; i < n && d.err == nil; i++ {
		l := &ledger{Path: d.str(), Size: d.varint(), MtimeNS: d.varint(), Offset: d.varint(), Context: d.varint(), ContextModel: d.str()}
		l.Skip = d.byte1() == 1
		nm := d.count()
		l.Msgs = make([]msg, 0, nm)
		for j := 0; j < nm && d.err == nil; j++ {
			m := msg{Key: d.str(), TS: d.varint()}
			m.USD = math.Float64frombits(d.u64())
			m.Tokens = math.Float64frombits(d.u64())
			flags := d.byte1()
			m.Unpriced, m.Copied = flags&1 != 0, flags&2 != 0
			l.Msgs = append(l.Msgs, m)
		}
		files[l.Path] = l
	}
	if d.err != nil || len(d.b) != 0 {
		return errCodec
	}
	ls.Files = files
	return nil
}

func putStr(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

type decoder struct {
	b   []byte
	err error
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err, d.b = errCodec, nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.err, d.b = errCodec, nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

// count is a length that must fit in what is left of the file.
func (d *decoder) count() int {
	v := d.uvarint()
	if v > uint64(len(d.b)) {
		d.err, d.b = errCodec, nil
		return 0
	}
	return int(v)
}

func (d *decoder) str() string {
	n := d.count()
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func (d *decoder) u64() uint64 {
	if len(d.b) < 8 {
		d.err, d.b = errCodec, nil
		return 0
	}
	v := binary.LittleEndian.Uint64(d.b)
	d.b = d.b[8:]
	return v
}

func (d *decoder) byte1() byte {
	if len(d.b) < 1 {
		d.err, d.b = errCodec, nil
		return 0
	}
	v := d.b[0]
	d.b = d.b[1:]
	return v
}
