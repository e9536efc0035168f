package searchindex

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/ccpipe/ccpipe/lib/cache"
)

// dirsName is the store of the directory listings the index keeps: a
// session dir's, and its subagents and tool-results dirs', each under
// the directory's stamp (device, inode, size, mtime and ctime), so that
// an unchanged directory costs a stat instead of open, getdents, close.
// A directory's mtime and ctime move when an entry is added, removed or
// renamed in it; a listing is kept only when both are older than
// racyDir before it was read, so that a change made in the same clock
// tick as the one the stamp holds (coarse timestamps) is never hidden.
const dirsName = Name + "-dirs"

// racyDir is how old a directory's mtime and ctime must be, when it is
// read, for its listing to be kept.
var racyDir = 2 * time.Second

// osReadDir reads a directory the listings do not hold (a test counts).
var osReadDir = os.ReadDir

// dirent is a kept listing's entry: what search.SessionFilesFrom asks of
// one (its name and type bits).
type dirent struct {
	dir, name string
	typ       fs.FileMode
}

func (d dirent) Name() string               { return d.name }
func (d dirent) IsDir() bool                { return d.typ.IsDir() }
func (d dirent) Type() fs.FileMode          { return d.typ }
func (d dirent) Info() (fs.FileInfo, error) { return os.Lstat(filepath.Join(d.dir, d.name)) }

// ReadDir is readDir, for a reader of the same dirs in the same run (the
// session records cc-grep prints: sessions.ListOptions.ReadDir).
func (ix *Index) ReadDir(dir string) ([]fs.DirEntry, error) { return ix.readDir(dir) }

// readDir is os.ReadDir through the kept listings: an unchanged
// directory is not read. Errors are os.ReadDir's (a missing directory:
// a stat's ENOENT, which SessionFilesFrom takes as os.ReadDir's).
func (ix *Index) readDir(dir string) ([]fs.DirEntry, error) {
	l := ix.listDir(dir)
	return l.ents, l.err
}

// listDir is readDir with what a snapshot keeps of the listing.
func (ix *Index) listDir(dir string) *listing {
	if m, ok := ix.seenDirs.Load(dir); ok {
		l := m.(*listing)
		if l.handed != nil {
			l.resolve(ix, dir)
		}
		return l
	}
	l := ix.readDirOnce(dir)
	if l.err == nil || errors.Is(l.err, fs.ErrNotExist) {
		ix.seenDirs.Store(dir, l)
	}
	return l
}

// listing is what readDir found of a directory in this run; with kept,
// the listing is the one kept (data, encoded) under the directory's
// stamp st.
type listing struct {
	ents []fs.DirEntry
	err  error
	st   cache.Stamp
	kept bool
	data []byte
	// handed: a listing a snapshot handed on unchecked (keepListings),
	// checked by a stat and decoded when first asked for (resolve).
	handed *sync.Once
}

// resolve makes a handed listing the dir's: its kept one when a stat
// finds the dir as the snapshot saw it, else what readDirOnce finds.
func (l *listing) resolve(ix *Index, dir string) {
	l.handed.Do(func() {
		if st, mode, err := cache.StatPath(dir); err == nil && mode == fs.ModeDir && cache.Judge(l.st, l.st.Size, st) == cache.Fresh {
			if ents, ok := decodeDir(dir, l.data); ok {
				l.ents = ents
				return
			}
		}
		r := ix.readDirOnce(dir)
		l.ents, l.err, l.st, l.kept, l.data = r.ents, r.err, r.st, r.kept, r.data
	})
}

// readDirOnce is readDir the first time a run asks for a directory; a
// later ask (a matching session's record, after its search) takes what
// it found, as Listed does the listing's stats.
func (ix *Index) readDirOnce(dir string) *listing {
	st, mode, err := cache.StatPath(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return &listing{err: err} // all SessionFilesFrom asks of a missing dir
	}
	if err != nil || mode != fs.ModeDir {
		ents, err := os.ReadDir(dir) // os.ReadDir's own error
		return &listing{ents: ents, err: err}
	}
	if e, ok := ix.listings().Unchanged(dir, st); ok {
		if ents, ok := decodeDir(dir, e.Data); ok {
			return &listing{ents: ents, st: st, kept: true, data: e.Data}
		}
	}
	start := time.Now()
	ents, err := osReadDir(dir)
	if err != nil || !ix.canWrite() {
		return &listing{ents: ents, err: err}
	}
	l := &listing{ents: ents}
	old := start.Add(-racyDir).UnixNano()
	if !st.Racy() && st.MtimeNS < old && st.CtimeNS < old {
		l.st, l.kept, l.data = st, true, encodeDir(ents)
		ix.listings().Put(dir, &cache.Entry{Stamp: st, Offset: st.Size, Data: l.data})
	}
	return l
}

// noSessionDir is readDir for a session whose project dir the listing
// saw hold nothing of its session dir's name (Index.Listed): as missing
// as a stat would find it.
func noSessionDir(dir string) ([]fs.DirEntry, error) {
	return nil, &fs.PathError{Op: "stat", Path: dir, Err: fs.ErrNotExist}
}

func encodeDir(ents []fs.DirEntry) []byte {
	b := cache.AppendUvarint(nil, uint64(len(ents)))
	for _, e := range ents {
		b = cache.AppendStr(b, e.Name())
		b = cache.AppendUvarint(b, uint64(e.Type()))
	}
	return b
}

// decodeDir decodes a kept listing: the names share the entry's bytes
// (an Entry's Data never changes), and the entries one array.
func decodeDir(dir string, b []byte) ([]fs.DirEntry, bool) {
	d := cache.NewDecoder(b)
	n := d.Count()
	ds := make([]dirent, n)
	ents := make([]fs.DirEntry, n)
	for i := range ds {
		name := d.StrShared()
		typ := fs.FileMode(d.Uvarint())
		if name == "" || name == "." || name == ".." || filepath.Base(name) != name || typ&^fs.ModeType != 0 {
			d.Fail()
		}
		ds[i] = dirent{dir: dir, name: name, typ: typ}
		ents[i] = &ds[i]
	}
	return ents, d.Done()
}
