package usage

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/ccpipe/ccpipe/lib/cache"
	"github.com/ccpipe/ccpipe/lib/layout"
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
	Block   Block              `json:"block"`
	Own     map[string]ownStat `json:"own"`
	// Periods are the day, week and month each Own's spend was summed
	// over: past one of them the spend is summed again.
	Periods Periods `json:"periods"`
}

type stamp struct {
	Path    string `json:"p"`
	MtimeNS int64  `json:"m"`
}

// Block is the latest 5-hour block of the messages read: all a status
// line needs of it, whatever now is.
type Block struct {
	Has      bool    `json:"has"`
	Start    int64   `json:"start"` // unix ms
	First    int64   `json:"first"` // unix ms, its first message
	Last     int64   `json:"last"`  // unix ms, its latest message
	USD      float64 `json:"usd"`
	Tokens   int64   `json:"tokens"`
	Messages int     `json:"messages"`
	Unpriced int     `json:"unpriced"` // messages that could not be priced
	// Future counts the messages dated after the now the block was
	// computed at (FutureNote), Until the first of them (unix ms): from
	// then on the block is computed again.
	Future int   `json:"future"`
	Until  int64 `json:"until"`
}

// Active says the block is still running at now (Active).
func (b *Block) Active(now time.Time) bool {
	return b.Has && Active(time.UnixMilli(b.Start), time.UnixMilli(b.First), time.UnixMilli(b.Last), now)
}

// Forecast is the block's forecast at now (ForecastOf); false when it
// is not running or gives no rate.
func (b *Block) Forecast(now time.Time) (Forecast, bool) {
	if !b.Active(now) {
		return Forecast{}, false
	}
	_, end := b.Bounds()
	return ForecastOf(time.UnixMilli(b.First), time.UnixMilli(b.Last), end, now, b.Messages, b.Tokens, b.USD)
}

// Bounds are the block's start and end.
func (b *Block) Bounds() (start, end time.Time) {
	start = time.UnixMilli(b.Start).UTC()
	return start, start.Add(BlockDuration)
}

type ownStat struct {
	// Stamp is the transcript's when its ledger was read (cache.Judge).
	Stamp        cache.Stamp `json:"stamp"`
	Context      int64       `json:"context"`
	ContextModel string      `json:"context_model"`
	Used         int64       `json:"used"` // unix ns, to keep the recent ones
	// Session and Spend: the spend figures as the session asked them.
	Session string `json:"session"`
	Spend   Spend  `json:"spend"`
}

// maxOwn bounds the transcripts a summary remembers.
const maxOwn = 32

// summaryPath names the summary of a projects dir; mainOnly: the one
// without subagents (another set of figures).
func summaryPath(cacheDir, projects string, mainOnly bool) string {
	name := cacheName(projects)
	if mainOnly {
		name += ".main"
	}
	return cache.File(cacheDir, name, ".sum")
}

// maxSummary bounds the summary file read (a few kilobytes when real).
const maxSummary = 16 << 20

// readSummary reads the summary through cache.ReadFile: a link planted
// there is not followed, a FIFO not opened for good.
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

// countOnce sorts msgs by time and returns each message once (Counter),
// in a new slice.
func countOnce(msgs []Priced) []Priced {
	sort.SliceStable(msgs, func(i, j int) bool {
		if msgs[i].TS != msgs[j].TS {
			return msgs[i].TS < msgs[j].TS
		}
		return msgs[i].Key < msgs[j].Key // the ledgers come in no set order
	})
	var c Counter
	kept := msgs[:0:0]
	for _, m := range msgs {
		if c.Count(m.Key, m.Copied, m.Session) {
			kept = append(kept, m)
		}
	}
	return kept
}

// CurrentBlock is the current block at now (Current: the block of the
// latest message not after now). A message in several transcripts (a
// fork's copies of the original's) counts once (Counter), and only when
// the transcript of the session that made it was read, as cc-extract
// counts it. msgs is sorted in place.
func CurrentBlock(msgs []Priced, now time.Time) Block { return currentOf(countOnce(msgs), now).Block }

// current is the current block of messages counted once, and where its
// messages are among them.
type current struct {
	Block
	from, to int
}

func currentOf(kept []Priced, now time.Time) current {
	if len(kept) == 0 {
		return current{}
	}
	times := make([]time.Time, len(kept))
	for i, m := range kept {
		times[i] = time.UnixMilli(m.TS)
	}
	spans := BlockSpans(times)
	i, future := Current(spans, times, now)
	var b current
	if future > 0 {
		b.Future, b.Until = future, kept[len(kept)-future].TS
	}
	if i < 0 {
		return b
	}
	sp := spans[i]
	b.Has, b.Start, b.First, b.Last, b.Messages = true, sp.Start.UnixMilli(), kept[sp.From].TS, kept[sp.To-1].TS, sp.To-sp.From
	b.from, b.to = sp.From, sp.To
	for _, m := range kept[sp.From:sp.To] {
		if m.Unpriced {
			b.Unpriced++
		}
		b.USD += m.USD
		b.Tokens += m.Tokens
	}
	return b
}

// RecentOptions say which recent transcripts ReadRecent reads and how.
type RecentOptions struct {
	// Transcript is the asking transcript (the session's); its config
	// dir's projects dir is the one read.
	Transcript string
	// CacheDir keeps the ledgers and the summary; "" is no cache.
	CacheDir string
	Now      time.Time
	// Prices prices the messages (nil: the built-in table); PricesKey
	// names them in the cache ("" for the built-in table): other prices
	// start the cache over.
	Prices    *pricing.Catalog
	PricesKey string
	// Recheck is how long the summary holds before every transcript is
	// listed again (a message appended to another session's transcript
	// is only seen then).
	Recheck time.Duration
	// Deadline is when reading stops: what was read counts (Partial) and
	// the next call reads on.
	Deadline time.Time
	// ExcludeSubagents leaves the subagents' transcripts out (they are
	// read by default: their calls are paid for too).
	ExcludeSubagents bool
	// Location and WeekStart place the spend's day, week and month, and
	// Session names the session whose spend is Spend.Session
	// (SpendOptions).
	Location  *time.Location
	WeekStart *time.Weekday
	Session   string
}

func (o *RecentOptions) spendOptions() SpendOptions {
	return SpendOptions{Now: o.Now, Location: o.Location, WeekStart: o.WeekStart, Session: o.Session}
}

// Recent is what ReadRecent found.
type Recent struct {
	// Block is the latest block of every recent transcript's messages.
	Block Block
	// Spend is what was spent today, this week, this month, in the
	// running block and in the session (SpendOf over the same messages).
	Spend Spend
	// Partial: the deadline came before every transcript was read; the
	// block counts what was read.
	Partial bool
	// Context is the prompt of the asking transcript's last main-thread
	// response (input + cache read + cache write tokens), 0 when none;
	// ContextModel the model it was asked of.
	Context      int64
	ContextModel string
	// Warnings say what could not be read of the asking transcript, and
	// how many messages are from the future.
	Warnings []string
}

// ContextWindow is the window a prompt of tokens ran in, asked of models,
// when Claude Code does not say: 200k tokens, or 1M for a [1m] model or a
// prompt over 200k tokens, which ran in the 1M window whatever the
// model's name says (the beta header, not the name, enables it).
func ContextWindow(tokens int64, models ...string) int64 {
	for _, m := range models {
		if strings.HasSuffix(m, "[1m]") {
			return 1_000_000
		}
	}
	if tokens > 200_000 {
		return 1_000_000
	}
	return 200_000
}

// ReadRecent reads the priced messages of the recent transcripts of the
// asking transcript's config dir (every transcript, subagents' included,
// changed since SpendWindow: enough for the month's spend and the current
// 5-hour block), from
// the summary when it holds, else from the ledgers: when only the asking
// transcript changed, its tail is read and the other ledgers are taken as
// they are; past Recheck or when a directory changed, every transcript is
// listed again. The summary is the fast path; RecentOptions.CacheDir ""
// (a full read of every recent transcript) its slow twin.
func ReadRecent(o RecentOptions) Recent {
	var out Recent
	path, cacheDir, now := o.Transcript, o.CacheDir, o.Now
	projects := filepath.Dir(filepath.Dir(path))
	version := cache.Version(ledgerVersion + "/" + o.PricesKey)
	sp := summaryPath(cacheDir, projects, o.ExcludeSubagents)
	var sum *summary
	if cacheDir != "" {
		sum = readSummary(sp, version)
	}
	var ownStamp cache.Stamp
	st, err := os.Stat(path)
	ownOK := err == nil
	if ownOK {
		ownStamp = cache.StampOf(st)
	}
	fresh := false
	periods := PeriodsOf(o.spendOptions())
	if sum != nil {
		age := now.Sub(time.Unix(0, sum.Checked))
		fresh = age >= 0 && age < o.Recheck && sum.dirsUnchanged()
	}
	if own, ok := sum.own(path); fresh && ownOK && ok && cache.Judge(own.Stamp, own.Stamp.Size, ownStamp) == cache.Fresh &&
		own.Session == o.Session && sum.Periods == periods && (sum.Block.Future == 0 || now.UnixMilli() < sum.Block.Until) {
		out.Block, out.Context, out.ContextModel, out.Spend = sum.Block, own.Context, own.ContextModel, own.Spend
		if out.Block.Future > 0 {
			out.Warnings = append(out.Warnings, FutureNote(out.Block.Future))
		}
		return out
	}
	ls := openLedgers(cacheDir, projects, o.Prices, o.PricesKey)
	var files []fileInfo
	var dirs []stamp
	checked := now.UnixNano()
	if fresh {
		if ownOK {
			files = append(files, fileInfo{path, ownStamp})
		}
		for p, l := range ls.Files {
			if p != path && (!o.ExcludeSubagents || !isSubagent(p)) {
				files = append(files, fileInfo{p, l.Stamp})
			}
		}
		dirs, checked = sum.Dirs, sum.Checked
	} else {
		files, dirs = recentTranscripts(path, now, !o.ExcludeSubagents)
	}
	var ownL *ledger
	seen := make(map[string]bool, len(files))
	loaded := false
	var msgs []Priced
	for _, f := range files {
		seen[f.path] = true
		old := ls.Files[f.path]
		stale := old == nil || cache.Judge(old.Stamp, old.Offset, f.stamp) != cache.Fresh
		if stale && loaded && time.Now().After(o.Deadline) {
			// Out of time: what was read of it so far counts; the
			// next call reads on.
			out.Partial = true
			if old != nil {
				msgs = append(msgs, old.messages()...)
			}
			continue
		}
		l, partial, err := ls.load(f, now, o.Deadline)
		loaded = loaded || stale // at least one file read a call: the reading moves on
		out.Partial = out.Partial || partial
		if err != nil {
			if f.path == path && !errors.Is(err, os.ErrNotExist) {
				out.Warnings = append(out.Warnings, err.Error())
			}
			continue
		}
		if f.path == path {
			ownL = l
		}
		msgs = append(msgs, l.messages()...)
	}
	if o.ExcludeSubagents {
		// The subagents' ledgers are kept for the calls that read them.
		for p := range ls.Files {
			seen[p] = seen[p] || isSubagent(p)
		}
	}
	ls.save(seen)
	kept := countOnce(msgs)
	out.Block = currentOf(kept, now).Block
	if out.Block.Future > 0 {
		out.Warnings = append(out.Warnings, FutureNote(out.Block.Future))
	}
	out.Spend = spendOf(kept, o.spendOptions())
	own := ownOf(ownL, now)
	if own != nil {
		out.Context, out.ContextModel = own.Context, own.ContextModel
		own.Session, own.Spend = o.Session, out.Spend
	}
	if out.Partial {
		return out // the summary waits for a whole read
	}
	if sum == nil {
		sum = &summary{}
	}
	if sum.Own == nil {
		sum.Own = map[string]ownStat{}
	}
	sum.V, sum.Checked, sum.Dirs, sum.Block, sum.Periods = version, checked, dirs, out.Block, periods
	if own != nil {
		sum.Own[path] = *own
	} else {
		delete(sum.Own, path)
	}
	if cacheDir != "" {
		sum.write(sp)
	}
	return out
}

func ownOf(l *ledger, now time.Time) *ownStat {
	if l == nil {
		return nil
	}
	return &ownStat{Stamp: l.Stamp, Context: l.Context, ContextModel: l.ContextModel, Used: now.UnixNano()}
}

func (s *summary) own(path string) (ownStat, bool) {
	if s == nil {
		return ownStat{}, false
	}
	o, ok := s.Own[path]
	return o, ok
}

// isSubagent says a transcript's path is a subagent's.
func isSubagent(path string) bool { return filepath.Base(filepath.Dir(path)) == layout.SubagentsDir }

// recentTranscripts lists the transcript itself and every other transcript
// of its config dir (subagents' included) changed since SpendWindow:
// enough for the month's spend and the current 5-hour block. The directory listing gives each
// file's stamp (a link's target's, stat'ed), so no file is opened or stat'ed twice.
//
// It also stamps each directory it reads (the mtime taken before reading,
// so that a change while reading shows next time): the summary's check
// for new transcripts.
func recentTranscripts(path string, now time.Time, subagents bool) (out []fileInfo, stamps []stamp) {
	if st, err := os.Stat(path); err == nil {
		out = append(out, fileInfo{path, cache.StampOf(st)})
	}
	stampDir := func(d string) bool {
		st, err := os.Stat(d)
		if err != nil {
			return false
		}
		stamps = append(stamps, stamp{d, st.ModTime().UnixNano()})
		return true
	}
	projects := filepath.Dir(filepath.Dir(path))
	if !stampDir(projects) {
		return out, stamps
	}
	dirs, err := os.ReadDir(projects)
	if err != nil {
		return out, stamps
	}
	cut := SpendWindow(now)
	add := func(dir string, e os.DirEntry) bool {
		f := filepath.Join(dir, e.Name())
		info, err := e.Info()
		if err == nil && e.Type()&fs.ModeSymlink != 0 {
			info, err = os.Stat(f) // the ledger stamps the file it reads
		}
		if err != nil || info.ModTime().Before(cut) {
			return false
		}
		if f != path {
			out = append(out, fileInfo{f, cache.StampOf(info)})
		}
		return true
	}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		pdir := filepath.Join(projects, d.Name())
		if !stampDir(pdir) {
			continue
		}
		ents, err := os.ReadDir(pdir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if _, _, ok := layout.Transcript(e.Name()); !ok || e.IsDir() || !add(pdir, e) || !subagents {
				continue
			}
			sub := layout.SubagentsDirOf(filepath.Join(pdir, e.Name()))
			if !stampDir(sub) {
				continue
			}
			subs, _ := os.ReadDir(sub)
			for _, se := range subs {
				// A ledger reads a file's bytes as they are: a
				// compressed subagent transcript is left out.
				if _, compressed, ok := layout.SubagentTranscript(se.Name()); ok && !compressed && !se.IsDir() {
					add(sub, se)
				}
			}
		}
	}
	return out, stamps
}

// fileInfo is a transcript with the stamp a ledger is judged by.
type fileInfo struct {
	path  string
	stamp cache.Stamp
}
