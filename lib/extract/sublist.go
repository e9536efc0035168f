package extract

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ccpipe/ccpipe/lib/cache"
	"github.com/ccpipe/ccpipe/lib/layout"
	"github.com/ccpipe/ccpipe/lib/transcript"
)

// subagents lists a session's subagent transcripts as transcript.Subagents
// does; for usage with a cache, the list (ids and paths, in order) is kept
// for the subagents dir as it was, with each file's stamp: while the dir and
// every file are unchanged it is taken on stats alone, without opening each
// file for its first timestamp. A list with a file not timed yet (its
// order could still change) is not kept.
// stamps, when not nil, are the files' stats (they were checked).
func (x *Extractor) subagents(path string, pre *statResult) (subs []transcript.Subagent, stamps []cache.Stamp, err error) {
	c := x.opts.Cache
	if c == nil {
		subs, err = transcript.Subagents(path)
		return subs, nil, err
	}
	dir := layout.SubagentsDirOf(path)
	if pre == nil {
		st := statOf(dir)
		pre = &st
	}
	stamp, mode, err := pre.stamp, pre.mode, pre.err
	if errors.Is(err, fs.ErrNotExist) {
		// Most sessions have none: no second look (transcript.Subagents
		// would open the dir to find it missing).
		return nil, nil, nil
	}
	if err != nil || mode != fs.ModeDir {
		subs, err = transcript.Subagents(path)
		return subs, nil, err
	}
	key := dir + string(filepath.Separator) // never a transcript's path
	if e, ok := c.Unchanged(key, stamp); ok {
		if data, ok := c.Data(e); ok {
			if subs, stamps, ok := decodeSubagents(data); ok {
				return subs, stamps, nil
			}
		}
	}
	subs, err = transcript.Subagents(path)
	if err != nil {
		return subs, nil, err
	}
	b := cache.AppendUvarint(nil, uint64(len(subs)))
	for _, s := range subs {
		sfi, err := os.Stat(s.Path)
		if err != nil || s.FirstTimestamp == "" {
			return subs, nil, nil
		}
		st := cache.StampOf(sfi)
		b = cache.AppendStr(b, s.AgentID)
		b = cache.AppendStr(b, s.Path)
		b = cache.AppendStamp(b, st)
	}
	if after, err := os.Stat(dir); err == nil && cache.StampOf(after).Same(stamp) {
		c.Put(key, &cache.Entry{Stamp: stamp, Offset: stamp.Size, Data: b})
	}
	return subs, nil, nil
}

// decodeSubagents reads a kept list, false when it is not what was
// written or a file changed since.
func decodeSubagents(b []byte) ([]transcript.Subagent, []cache.Stamp, bool) {
	d := cache.NewDecoder(b)
	n := d.Count()
	subs := make([]transcript.Subagent, 0, n)
	stamps := make([]cache.Stamp, 0, n)
	for i := 0; i < n && d.Err() == nil; i++ {
		s := transcript.Subagent{AgentID: d.StrShared(), Path: d.StrShared()}
		st := d.Stamp()
		if d.Err() != nil {
			return nil, nil, false
		}
		if now, _, err := cache.StatPath(s.Path); err != nil || cache.Judge(st, st.Size, now) != cache.Fresh {
			return nil, nil, false
		}
		subs = append(subs, s)
		stamps = append(stamps, st)
	}
	return subs, stamps, d.Done()
}
