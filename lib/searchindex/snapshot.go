package searchindex

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"

	"github.com/ccpipe/ccpipe/lib/cache"
	"github.com/ccpipe/ccpipe/lib/layout"
	"github.com/ccpipe/ccpipe/lib/search"
)

// snapsName is the store of the sessions' snapshots: per session (keyed
// by its main transcript, under its stamp), what the manifest and the
// kept listings held of each of its files and dirs when all of them were
// indexed whole and unchanged. A warm search then costs a stat per file
// and dir and one lookup per session, instead of a lookup per file in
// two stores that must first be read whole (thousands of entries). A
// snapshot only narrows the work: any file or dir whose stat differs, a
// segment gone, or a snapshot that does not decode, and the session is
// answered from the manifest as before (the slow twin), which then
// writes its snapshot anew.
const snapsName = Name + "-sessions"

// useSnapshots turns the snapshots on (a test turns them off for the
// slow twin).
var useSnapshots = true

// errStale is what a snapshot's list returns once something it names
// has changed: the session is then answered without it.
var errStale = errors.New("snapshot stale")

// snapshot is one session's snapshot, decoded, as a source of its files'
// parts (answerFrom).
type snapshot struct {
	ix        *Index
	sessDir   string
	st        cache.Stamp // the main transcript's
	archive   bool
	refs      []byte
	noDir     bool
	listed    bool // the listing saw the project dir (ls)
	lsNoDir   bool
	dirs      []snapDir // the session dir first, then those under it
	files     []snapFile
	stale     bool
	confirmed bool // its dirs checked (confirm)
	validated int  // files checked (the main transcript first)
	data      []byte
}

// snapDir is a directory's kept listing as a snapshot holds it.
type snapDir struct {
	rel  string // "" for the session dir, else the name of one in it
	st   cache.Stamp
	data []byte // encodeDir's
}

// snapFile is a file's piece of a snapshot: its path under the session
// dir, its stamp, and where its documents lie.
type snapFile struct {
	rel     string
	kind    string
	st      cache.Stamp
	archive bool
	refs    []byte
}

// snapshot returns the session's snapshot when its main transcript is
// as it was then (its stamp from the listing, or a stat), decoded into
// sp's: nil when there is none.
func (ix *Index) snapshot(transcriptPath string, ls listedSession, listed bool, sp *scratch) *snapshot {
	st := ls.stamp
	if !listed {
		var mode fs.FileMode
		var err error
		if st, mode, err = cache.StatPath(transcriptPath); err != nil || mode != 0 {
			return nil
		}
	}
	e, ok := ix.snaps.Unchanged(transcriptPath, st)
	if !ok {
		return nil
	}
	sn := ix.decodeSnapshot(e.Data, layout.SessionDir(transcriptPath), sp)
	if sn == nil {
		return nil
	}
	sn.st, sn.listed, sn.lsNoDir = st, listed, ls.noDir
	return sn
}

// decodeSnapshot decodes a snapshot into sp's (nil: it does not decode).
func (ix *Index) decodeSnapshot(data []byte, sessDir string, sp *scratch) *snapshot {
	sn := &sp.snap
	*sn = snapshot{ix: ix, sessDir: sessDir, dirs: sn.dirs[:0], files: sn.files[:0], data: data}
	d := cache.NewDecoder(data)
	sn.archive = d.Bool()
	sn.refs = d.Bytes()
	sn.noDir = d.Bool()
	for n := d.Count(); n > 0 && d.Err() == nil; n-- {
		sn.dirs = append(sn.dirs, snapDir{rel: d.StrShared(), st: d.Stamp(), data: d.Bytes()})
	}
	for n := d.Count(); n > 0 && d.Err() == nil; n-- {
		sn.files = append(sn.files, snapFile{rel: d.StrShared(), kind: d.StrShared(), st: d.Stamp(), archive: d.Bool(), refs: d.Bytes()})
	}
	if !d.Done() || (sn.noDir && len(sn.dirs) > 0) {
		return nil
	}
	// What ccpipe wrote names files and dirs inside the session dir,
	// of the kinds a session's files are: anything else is refused.
	for _, sd := range sn.dirs {
		if sd.rel != "" && !filepath.IsLocal(sd.rel) {
			return nil
		}
	}
	for _, sf := range sn.files {
		if !filepath.IsLocal(sf.rel) || (sf.kind != search.KindSubagent && sf.kind != search.KindToolResult) {
			return nil
		}
	}
	return sn
}

// list is the session's files as the snapshot holds them: the main
// transcript as checked, the others as confirm finds them.
func (sn *snapshot) list(sp *scratch, transcriptPath string) ([]search.File, error) {
	files := append(sp.files[:0], search.File{Path: transcriptPath, Kind: search.KindTranscript})
	for _, sf := range sn.files {
		files = append(files, search.File{Kind: sf.kind}) // its path made when read (part.path)
	}
	return files, nil
}

// confirm checks, by a stat of each of the session's dirs, that their
// listings, and so the files search.AppendSessionFiles finds in them,
// are the snapshot's; errStale when one changed. A session its main
// transcript decides needs none of it.
func (sn *snapshot) confirm() error {
	switch {
	case sn.noDir && sn.listed:
		if !sn.lsNoDir {
			return sn.fail()
		}
	case sn.noDir:
		if _, _, err := cache.StatPath(sn.sessDir); !errors.Is(err, fs.ErrNotExist) {
			return sn.fail()
		}
	case sn.listed && sn.lsNoDir:
		return sn.fail()
	}
	for _, sd := range sn.dirs {
		st, mode, err := cache.StatUnder(sn.sessDir, sd.rel)
		if err != nil || mode != fs.ModeDir || cache.Judge(sd.st, sd.st.Size, st) != cache.Fresh {
			return sn.fail()
		}
	}
	sn.confirmed = true
	return nil
}

// underSession is the path of rel under a session dir ("": the dir
// itself), as search.AppendSessionFiles makes it (the dir is clean, rel
// clean and local).
func underSession(sessDir, rel string) string {
	if rel == "" {
		return sessDir
	}
	return sessDir + "/" + rel
}

func (sn *snapshot) fail() error {
	sn.stale = true
	return errStale
}

// prepare is Index.prepare for file i of the session (the main
// transcript first) as the snapshot holds it: checked by a stat, never
// read.
func (sn *snapshot) prepare(i int, f search.File, _ *search.Scanner) (part, bool) {
	if sn.stale {
		return part{}, false
	}
	p := part{f: f, restFrom: -1, fresh: true}
	var refs []byte
	if i == 0 {
		p.archive, p.st, refs = sn.archive, sn.st, sn.refs
	} else {
		sf := &sn.files[i-1]
		st, mode, err := cache.StatUnder(sn.sessDir, sf.rel)
		if err != nil || mode != 0 || cache.Judge(sf.st, sf.st.Size, st) != cache.Fresh {
			sn.stale = true
			return part{}, false
		}
		p.sessDir, p.rel = sn.sessDir, sf.rel
		p.archive, p.st, refs = sf.archive, st, sf.refs
	}
	var ok bool
	if p.refs, ok = sn.ix.live(refs); !ok {
		sn.stale = true
		return part{}, false
	}
	sn.validated = i + 1
	return p, true
}

// live decodes a snapshot's refs and checks that their segments open.
func (ix *Index) live(b []byte) ([]ref, bool) {
	refs, ok := decodeRefs(b)
	if !ok || !ix.segmentsLive(refs) {
		return nil, false
	}
	return refs, true
}

// keepListings hands the listings of a matching session's dirs to
// readDir: the session's record (ReadDir) reads some of them next. Each
// is checked by a stat and decoded only if read (listing.resolve), or
// read as any other dir when the stat finds it changed.
func (sn *snapshot) keepListings() {
	for _, sd := range sn.dirs {
		dir := underSession(sn.sessDir, sd.rel)
		sn.ix.seenDirs.LoadOrStore(dir, &listing{st: sd.st, kept: true, data: sd.data, handed: new(sync.Once)})
	}
}

// checkedSnap is a session answered from its snapshot: what of it was
// checked, for Close to count as looked up in the stores.
type checkedSnap struct {
	transcript string
	data       []byte
	files      int
	dirs       bool // its dirs checked
}

func (ix *Index) noteChecked(transcriptPath string, sn *snapshot) {
	ix.checkedMu.Lock()
	ix.checked = append(ix.checked, checkedSnap{transcriptPath, sn.data, sn.validated, sn.confirmed})
	ix.checkedMu.Unlock()
}

// keepChecked marks the files and dirs the snapshots checked as looked up
// in the manifest and the listings, when either is to be saved: Save
// would otherwise stat each of them to learn whether it is gone.
func (ix *Index) keepChecked() {
	store, dirs := ix.store.Load(), ix.dirs.Load()
	if store != nil && !store.Changed() {
		store = nil
	}
	if dirs != nil && !dirs.Changed() {
		dirs = nil
	}
	if store == nil && dirs == nil {
		return
	}
	var sp scratch
	for _, c := range ix.checked {
		sn := ix.decodeSnapshot(c.data, layout.SessionDir(c.transcript), &sp)
		if sn == nil {
			continue
		}
		if store != nil && c.files > 0 {
			store.Seen(c.transcript)
			for _, f := range sn.files[:max(0, min(c.files-1, len(sn.files)))] {
				store.Seen(underSession(sn.sessDir, f.rel))
			}
		}
		if dirs != nil && c.dirs {
			for _, d := range sn.dirs {
				dirs.Seen(underSession(sn.sessDir, d.rel))
			}
		}
	}
}

// record writes the snapshot of a session the manifest answered for,
// when every one of its files was indexed whole and is unchanged (a
// file's first lookup found it so), and every one of its dirs has its
// listing kept: the next search checks it by stats alone.
func (ix *Index) record(transcriptPath string, src *slowSource, parts []part) {
	if !useSnapshots || len(parts) == 0 || !ix.canWrite() {
		return
	}
	for _, p := range parts {
		if !p.fresh {
			return
		}
	}
	sessDir := layout.SessionDir(transcriptPath)
	b := cache.AppendBool(nil, parts[0].archive)
	b = cache.AppendStr(b, string(encodeRefs(parts[0].refs)))
	noDir := false
	var dirs []byte
	n := 0
	for _, a := range src.asked {
		switch {
		case a.l == nil || (a.dir == sessDir && errors.Is(a.l.err, fs.ErrNotExist)):
			if a.dir != sessDir {
				return
			}
			noDir = true
			continue
		case !a.l.kept:
			return
		}
		rel := ""
		if a.dir != sessDir {
			var ok bool
			if rel, ok = strings.CutPrefix(a.dir, sessDir+"/"); !ok {
				return
			}
		}
		dirs = cache.AppendStr(dirs, rel)
		dirs = cache.AppendStamp(dirs, a.l.st)
		dirs = cache.AppendStr(dirs, string(a.l.data))
		n++
	}
	if noDir && n > 0 {
		return
	}
	b = cache.AppendBool(b, noDir)
	b = cache.AppendUvarint(b, uint64(n))
	b = append(b, dirs...)
	b = cache.AppendUvarint(b, uint64(len(parts)-1))
	for _, p := range parts[1:] {
		rel, ok := strings.CutPrefix(p.f.Path, sessDir+"/")
		if !ok {
			return
		}
		b = cache.AppendStr(b, rel)
		b = cache.AppendStr(b, p.f.Kind)
		b = cache.AppendStamp(b, p.st)
		b = cache.AppendBool(b, p.archive)
		b = cache.AppendStr(b, string(encodeRefs(p.refs)))
	}
	st := parts[0].st
	ix.snaps.Put(transcriptPath, &cache.Entry{Stamp: st, Offset: st.Size, Data: b})
}

// dropSnapshots drops the snapshots that name a segment in drop: the
// files compact dropped from the manifest are to be indexed again.
func (ix *Index) dropSnapshots(drop map[uint64]bool) {
	var gone []string
	var sp scratch
	ix.snaps.Each(func(path string, e *cache.Entry) {
		sn := ix.decodeSnapshot(e.Data, layout.SessionDir(path), &sp)
		if sn == nil {
			gone = append(gone, path)
			return
		}
		refs := [][]byte{sn.refs}
		for _, f := range sn.files {
			refs = append(refs, f.refs)
		}
		for _, b := range refs {
			rs, _ := decodeRefs(b)
			for _, r := range rs {
				if drop[r.seg] {
					gone = append(gone, path)
					return
				}
			}
		}
	})
	for _, p := range gone {
		ix.snaps.Delete(p)
	}
}
