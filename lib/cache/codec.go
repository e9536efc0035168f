package cache

import (
	"encoding/binary"
	"math"
	"unsafe"
)

// The encoding helpers a caller's facts are written with: varints and
// length-prefixed strings, read back by a Decoder that fails (never
// panics) on bytes it did not write.

func putStr(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// AppendStr appends a length-prefixed string.
func AppendStr(b []byte, s string) []byte { return putStr(b, s) }

// AppendUvarint, AppendVarint and AppendF64 append numbers.
func AppendUvarint(b []byte, v uint64) []byte { return binary.AppendUvarint(b, v) }

// AppendVarint appends a signed varint.
func AppendVarint(b []byte, v int64) []byte { return binary.AppendVarint(b, v) }

// AppendU64 appends v as 8 bytes (Decoder.U64 reads it).
func AppendU64(b []byte, v uint64) []byte { return binary.LittleEndian.AppendUint64(b, v) }

// AppendF64 appends a float's bits.
func AppendF64(b []byte, v float64) []byte {
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
}

// AppendStamp appends a file's stamp (Decoder.Stamp reads it): one
// encoding of a stamp for every caller that keeps stamps in its facts.
func AppendStamp(b []byte, st Stamp) []byte {
	b = binary.AppendUvarint(b, st.Dev)
	b = binary.AppendUvarint(b, st.Ino)
	b = binary.AppendVarint(b, st.Size)
	b = binary.AppendVarint(b, st.MtimeNS)
	return binary.AppendVarint(b, st.CtimeNS)
}

// AppendBool appends a byte 0 or 1.
func AppendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

// Decoder reads what the Append functions wrote. After the first error
// every read returns a zero value and Err reports it.
type Decoder struct {
	b   []byte
	err error
}

// NewDecoder reads b.
func NewDecoder(b []byte) *Decoder { return &Decoder{b: b} }

// Reset makes d read b, as NewDecoder(b) (a decoder kept in a struct of
// the caller's, not one more allocation).
func (d *Decoder) Reset(b []byte) { *d = Decoder{b: b} }

// Err is the first error met.
func (d *Decoder) Err() error { return d.err }

// Done says every byte was read without an error.
func (d *Decoder) Done() bool { return d.err == nil && len(d.b) == 0 }

func (d *Decoder) fail() { d.err, d.b = errCorrupt, nil }

// Fail marks the bytes as not what was written (a value out of range).
func (d *Decoder) Fail() { d.fail() }

// Uvarint reads an unsigned varint.
func (d *Decoder) Uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

// Varint reads a signed varint.
func (d *Decoder) Varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

// Count reads a length that must fit in what is left.
func (d *Decoder) Count() int {
	v := d.Uvarint()
	if v > uint64(len(d.b)) {
		d.fail()
		return 0
	}
	return int(v)
}

// Str reads a length-prefixed string.
func (d *Decoder) Str() string {
	n := d.Count()
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

// StrShared reads a length-prefixed string without a copy: it shares the
// decoded bytes' memory, so it is only for bytes that never change, as an
// Entry's Data. A warm run decodes every cached fact: a copy of each
// string was most of its allocation.
func (d *Decoder) StrShared() string {
	n := d.Count()
	if n == 0 {
		return ""
	}
	s := unsafe.String(&d.b[0], n)
	d.b = d.b[n:]
	return s
}

// Bytes reads a length-prefixed string as a slice of the decoded bytes
// (no copy: it shares their memory).
func (d *Decoder) Bytes() []byte {
	n := d.Count()
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

// U64 reads 8 bytes.
func (d *Decoder) U64() uint64 {
	if len(d.b) < 8 {
		d.fail()
		return 0
	}
	v := binary.LittleEndian.Uint64(d.b)
	d.b = d.b[8:]
	return v
}

// F64 reads what AppendF64 wrote.
func (d *Decoder) F64() float64 { return math.Float64frombits(d.U64()) }

// Stamp reads what AppendStamp wrote.
func (d *Decoder) Stamp() Stamp {
	return Stamp{Dev: d.Uvarint(), Ino: d.Uvarint(), Size: d.Varint(), MtimeNS: d.Varint(), CtimeNS: d.Varint()}
}

// Bool reads what AppendBool wrote.
func (d *Decoder) Bool() bool {
	if len(d.b) < 1 || d.b[0] > 1 {
		d.fail()
		return false
	}
	v := d.b[0] == 1
	d.b = d.b[1:]
	return v
}

// Fixed reads the next n bytes (their length written apart), sharing the
// decoded bytes' memory as Bytes does.
func (d *Decoder) Fixed(n int) []byte {
	if n < 0 || n > len(d.b) {
		d.fail()
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

// Left is how many bytes are not read yet.
func (d *Decoder) Left() int { return len(d.b) }
