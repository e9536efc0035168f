package ccstatusline

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/ccpipe/ccpipe/lib/cache"
	"github.com/ccpipe/ccpipe/lib/pricing"
)

// A summary is the small cache file a warm call reads instead of the
// ledgers: the current block as last computed and, per transcript the
// line was asked for, its size, mtime and context. It holds while the
// asking transcript and every watched directory (the projects dir, each
// project dir, the subagents dirs of recent sessions) keep their size and
// mtimes, and the last full listing of the transcripts is younger than
// --recheck: a new transcript changes a directory's mtime, but a message
// appended to another session's transcript is only seen by the next full
// listing.
type summary struct {
	V       string             `json:"v"`
	Checked int64              `json:"checked"` // unix ns of the last full listing
	Dirs    []stamp            `json:"dirs"`
	Block   blockSum           `json:"block"`
	Own     map[string]ownStat `json:"own"`
}

type stamp struct {
	Path    string `json:"p"`
	MtimeNS int64  `json:"m"`
}

// blockSum is the latest block of the messages read: all a line needs of
// it, whatever now is.
type blockSum struct {
	Has      bool    `json:"has"`
	Start    int64   `json:"start"` // unix ms
	Last     int64   `json:"last"`  // unix ms, its latest message
	USD      float64 `json:"usd"`
	Unpriced int     `json:"unpriced"`
}

type ownStat struct {
	Size         int64  `json:"size"`
	MtimeNS      int64  `json:"mtime_ns"`
	Context      int64  `json:"context"`
	ContextModel string `json:"context_model"`
	Used         int64  `json:"used"` // unix ns, to keep the recent ones
}

// maxOwn bounds the transcripts a summary remembers.
const maxOwn = 32

func summaryPath(cacheDir, projects string) string {
	return cachePath(cacheDir, projects) + ".sum"
}

// maxSummary bounds the summary file read (a few kilobytes when real).
const maxSummary = 16 << 20

func readSummary(path, version string) *summary {
	b, err := cache.ReadFile(path, maxSummary)
	if err != nil {
		return nil
	}
	var s summary
	if json.Unmarshal(b, &s) != nil || s.V != version {
		return nil
	}
	return &s
}

// dirsUnchanged stats the watched directories.
func (s *summary) dirsUnchanged() bool {
	for _, d := range s.Dirs {
		st, err := os.Stat(d.Path)
		if err != nil || st.ModTime().UnixNano() != d.MtimeNS {
			return false
		}
	}
	return true
}

// write saves the summary; a summary that cannot be written only costs a
// slower call next time.
func (s *summary) write(path string) {
	if len(s.Own) > maxOwn {
		keys := make([]string, 0, len(s.Own))
		for k := range s.Own {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return s.Own[keys[i]].Used > s.Own[keys[j]].Used })
		for _, k := range keys[maxOwn:] {
			delete(s.Own, k)
		}
	}
	b, err := json.Marshal(s)
	if err != nil || os.MkdirAll(filepath.Dir(path), 0o700) != nil {
		return
	}
	_ = cache.WriteFile(path, b)
}

// latestBlock finds the block holding the latest message. A message in
// several transcripts (a fork's copies of the original's) counts once, as
// lib/pricing's billing rule merges its records, and only when the
// transcript of the session that made it was read, as cc-extract counts
// it.
func latestBlock(msgs []msg) blockSum {
	msgs = dedup(msgs)
	if len(msgs) == 0 {
		return blockSum{}
	}
	sort.SliceStable(msgs, func(i, j int) bool {
		if msgs[i].TS != msgs[j].TS {
			return msgs[i].TS < msgs[j].TS
		}
		return msgs[i].Key < msgs[j].Key // the ledgers come in no set order
	})
	times := make([]time.Time, len(msgs))
	for i, m := range msgs {
		times[i] = time.UnixMilli(m.TS)
	}
	spans := pricing.BlockSpans(times)
	sp := spans[len(spans)-1]
	b := blockSum{Has: true, Start: sp.Start.UnixMilli(), Last: msgs[sp.To-1].TS}
	for _, m := range msgs[sp.From:sp.To] {
		if m.Unpriced {
			b.Unpriced++
		}
		b.USD += m.USD
	}
	return b
}

// dedup keeps one msg per key, in place: the original's own record over a
// fork's copy, else the one pricing.Replaces keeps; a message read only as
// a copy is dropped.
func dedup(msgs []msg) []msg {
	index := make(map[string]int, len(msgs))
	out := msgs[:0]
	for _, m := range msgs {
		i, ok := index[m.Key]
		switch {
		case !ok:
			index[m.Key] = len(out)
			out = append(out, m)
		case out[i].Copied && !m.Copied,
			out[i].Copied == m.Copied && pricing.Replaces(m.Tokens, out[i].Tokens):
			m.TS = min(m.TS, out[i].TS)
			out[i] = m
		}
	}
	k := 0
	for _, m := range out {
		if !m.Copied {
			out[k] = m
			k++
		}
	}
	return out[:k]
}

// blockAndContext fills the block from the summary when it holds, else
// from the ledgers: when only the asking transcript changed, its tail is
// read and the other ledgers are taken as they are; past --recheck or
// when a directory changed, every transcript is listed again.
func blockAndContext(s *Status, path, cacheDir string, now time.Time, cat *pricing.Catalog, pricesKey string, recheck time.Duration, deadline time.Time) (*ownStat, []string) {
	projects := filepath.Dir(filepath.Dir(path))
	version := ledgerVersion + "/" + pricesKey + "/" + cache.Build()
	sp := summaryPath(cacheDir, projects)
	var sum *summary
	if cacheDir != "" {
		sum = readSummary(sp, version)
	}
	var ownSize, ownMtime int64
	st, err := os.Stat(path)
	ownOK := err == nil
	if ownOK {
		ownSize, ownMtime = st.Size(), st.ModTime().UnixNano()
	}
	fresh := false
	if sum != nil {
		age := now.Sub(time.Unix(0, sum.Checked))
		fresh = age >= 0 && age < recheck && sum.dirsUnchanged()
	}
	if o, ok := sum.own(path); fresh && ownOK && ok && o.Size == ownSize && o.MtimeNS == ownMtime {
		blockOf(s, sum.Block, now)
		return &o, nil
	}
	ls := openLedgers(cacheDir, projects, cat, pricesKey)
	var files []fileInfo
	var dirs []stamp
	checked := now.UnixNano()
	if fresh {
		if ownOK {
			files = append(files, fileInfo{path, ownSize, ownMtime})
		}
		for p, l := range ls.Files {
			if p != path {
				files = append(files, fileInfo{p, l.Size, l.MtimeNS})
			}
		}
		dirs, checked = sum.Dirs, sum.Checked
	} else {
		files, dirs = recentTranscripts(path, now)
	}
	var warns []string
	var ownL *ledger
	seen := make(map[string]bool, len(files))
	loaded := false
	var msgs []msg
	for _, f := range files {
		seen[f.path] = true
		old := ls.Files[f.path]
		stale := old == nil || old.Size != f.size || old.MtimeNS != f.mtimeNS
		if stale && loaded && time.Now().After(deadline) {
			// Out of time: what was read of it so far counts; the
			// next call reads on.
			s.BlockPartial = true
			if old != nil {
				msgs = append(msgs, old.Msgs...)
			}
			continue
		}
		l, partial, err := ls.load(f, now, deadline)
		loaded = loaded || stale // at least one file read a call: the reading moves on
		s.BlockPartial = s.BlockPartial || partial
		if err != nil {
			if f.path == path && !errors.Is(err, os.ErrNotExist) {
				warns = append(warns, err.Error())
			}
			continue
		}
		if f.path == path {
			ownL = l
		}
		msgs = append(msgs, l.Msgs...)
	}
	ls.save(seen)
	b := latestBlock(msgs)
	blockOf(s, b, now)
	if sum == nil {
		sum = &summary{}
	}
	if sum.Own == nil {
		sum.Own = map[string]ownStat{}
	}
	if s.BlockPartial {
		return ownOf(ownL, now), warns // the summary waits for a whole read
	}
	sum.V, sum.Checked, sum.Dirs, sum.Block = version, checked, dirs, b
	own := ownOf(ownL, now)
	if own != nil {
		sum.Own[path] = *own
	} else {
		delete(sum.Own, path)
	}
	if cacheDir != "" {
		sum.write(sp)
	}
	return own, warns
}

func ownOf(l *ledger, now time.Time) *ownStat {
	if l == nil {
		return nil
	}
	return &ownStat{Size: l.Size, MtimeNS: l.MtimeNS, Context: l.Context, ContextModel: l.ContextModel, Used: now.UnixNano()}
}

func (s *summary) own(path string) (ownStat, bool) {
	if s == nil {
		return ownStat{}, false
	}
	o, ok := s.Own[path]
	return o, ok
}
