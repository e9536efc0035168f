package cache

import (
	"errors"
	"runtime/debug"
	"unsafe"
)

// A mapped store (OpenMapped) is read where the page cache holds it: its
// entries' Data are slices of the map. Touching a page past the end of a
// file cut shorter meanwhile (by another program: ccpipe replaces a store
// by rename and only appends to one) faults; debug.SetPanicOnFault turns
// that into a panic, recovered by the readers of the map: the load, Data
// and Save, and a caller's reads under Guard. Data hands out copies, for
// what a caller keeps or hands to other goroutines; under Guard a caller
// reads e.Data in place (a warm run's facts, written out as they are
// read).

// Data is e's Data for the caller to keep: for a mapped store a copy
// taken from the map, ok false when the store file was cut shorter
// meanwhile (take the entry as a miss); for any other store e.Data.
func (s *Store) Data(e *Entry) (b []byte, ok bool) {
	s.wait()
	if s.mem == nil || !s.holds(e.Data) {
		return e.Data, true
	}
	defer s.guarded(debug.SetPanicOnFault(true), func() { b, ok = nil, false })
	return append([]byte(nil), e.Data...), true
}

// ErrCut is Guard's error when the store file was cut shorter while fn
// read its map.
var ErrCut = errors.New("the cache's store file was cut shorter while it was read: run again")

// Guard calls fn, which may read the Data of s's entries in place (and
// must keep none of it past its return), and returns its error, or ErrCut
// when a read faulted on the map.
func (s *Store) Guard(fn func() error) (err error) {
	s.wait()
	if s.mem == nil {
		return fn()
	}
	defer s.guarded(debug.SetPanicOnFault(true), func() { err = ErrCut })
	return fn()
}

// holds reports whether b lies in the store's map.
func (s *Store) holds(b []byte) bool {
	return len(b) > 0 && s.inMap(uintptr(unsafe.Pointer(&b[0])))
}

func (s *Store) inMap(addr uintptr) bool {
	if len(s.mem) == 0 {
		return false
	}
	base := uintptr(unsafe.Pointer(&s.mem[0]))
	return addr >= base && addr < base+uintptr(len(s.mem))
}

// guarded is deferred by a reader of the map as
// `defer s.guarded(debug.SetPanicOnFault(true), cut)`: the argument has
// the goroutine panic on a fault from there on; guarded puts the old
// setting back and makes a fault on the map a call of cut (any other
// panic goes on).
func (s *Store) guarded(old bool, cut func()) {
	debug.SetPanicOnFault(old)
	if p := recover(); p != nil {
		f, ok := p.(interface{ Addr() uintptr })
		if !ok || !s.inMap(f.Addr()) {
			panic(p)
		}
		cut()
	}
}
