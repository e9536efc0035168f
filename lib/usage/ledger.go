package usage

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"time"

	"github.com/ccpipe/ccpipe/lib/cache"
	"github.com/ccpipe/ccpipe/lib/pricing"
	"github.com/ccpipe/ccpipe/lib/regular"
)

// A ledger is what ReadRecent remembers of one transcript: the priced
// messages since SpendWindow, the message still open at the end of
// what was read, and how far the file was read. It is cached per
// transcript, keyed by the file's identity as lib/cache judges it
// (cache.Judge: device, inode, size, mtime and ctime): an unchanged file
// is not opened, a grown one is read from where the last call stopped, so
// a call costs the new tail only; a rewrite is read again whole.

// ledgerVersion changes when the cache format or the pricing changes.
const ledgerVersion = "8/" + "claude-code-2.1.328"

type ledger struct {
	Path string `json:"path"`
	// Stamp is the file as it was opened (its size -1 when it was read
	// partly: the next call reads on).
	Stamp cache.Stamp `json:"stamp"`
	// Offset is the end of the last whole line read, or, with Skip, how
	// far a long line being skipped was read.
	Offset int64 `json:"offset"`
	// Skip: Offset is inside a line too long to read within one call's
	// budget (a huge tool output): the next call reads on to its end and
	// goes on from there, never restarting it.
	Skip bool     `json:"skip"`
	Msgs []Priced `json:"msgs"`
	// Open is the last message read, still open: its next record may
	// come in what was not written yet (Merger).
	Open    Message `json:"open"`
	HasOpen bool    `json:"has_open"`
	// OpenPriced is Open priced when it was read: a call that only
	// takes the ledger prices nothing (and loads no price table).
	OpenPriced Priced `json:"open_priced"`
	// Context is the prompt size of the last main-thread response.
	Context      int64  `json:"context"`
	ContextModel string `json:"context_model"`
	// tail is lib/cache's hash of the bytes before Offset: a file
	// rewritten before the offset is read again from the start.
	tail uint64
}

// Priced is what the spend figures need of a message: its key, time,
// cost and tokens.
type Priced struct {
	Key uint64
	TS  int64 // unix ms
	// Session is the session that paid for it (Message.SessionID).
	Session string
	USD     float64
	// Unpriced: the usage could not be priced (USD is 0 and must not be
	// shown as a cost).
	Unpriced bool
	// Tokens is the message's token total.
	Tokens int64
	// Copied: a fork's copy of another session's message, which counts
	// with the original's own record (Counter).
	Copied bool
}

// Priced is a merged message with its cost, at the prices of cat: what
// the spend figures need of it (ReadRecent's ledgers, cc-extract usage
// --budgets).
func (m *Message) Priced(cat *pricing.Catalog) Priced {
	p := Priced{Key: m.Key, Session: m.SessionID, Copied: m.Copied}
	if t, err := time.Parse(time.RFC3339Nano, m.Timestamp); err == nil {
		p.TS = t.UnixMilli()
	}
	p.Tokens, _ = m.Tokens.Total()
	ch, _, err := m.Price(cat)
	if err != nil {
		p.Unpriced = true
	} else {
		p.USD = ch.USD
	}
	return p
}

// messages are the ledger's priced messages, the open one priced too.
func (l *ledger) messages() []Priced {
	if !l.HasOpen {
		return l.Msgs
	}
	return append(l.Msgs[:len(l.Msgs):len(l.Msgs)], l.OpenPriced)
}

// ledgers are the cached ledgers of one config dir's transcripts, kept in
// one lib/cache store (one entry per transcript, its data the ledger's
// messages: codec.go) so that a call reads one file and lists the
// transcripts.
type ledgers struct {
	Files map[string]*ledger
	store *cache.Store // nil: no cache (--no-cache, CCPIPE_CACHE=off)
	dirty bool
	cat   *pricing.Catalog
}

// openLedgers reads the cache of a projects dir. pricesKey names the
// prices the cached costs were computed with ("" for the built-in table):
// other prices start the cache over. cacheDir "" is no cache.
func openLedgers(cacheDir, projects string, cat *pricing.Catalog, pricesKey string) *ledgers {
	ls := &ledgers{Files: map[string]*ledger{}, cat: cat}
	if cacheDir == "" {
		return ls
	}
	ls.store = cache.Open(cacheDir, cacheName(projects)+".ledgers", ledgerVersion+"/"+pricesKey)
	ls.store.Each(func(p string, e *cache.Entry) {
		l := &ledger{Path: p, Stamp: e.Stamp, Offset: e.Offset, tail: e.Tail}
		if l.decode(e.Data) {
			ls.Files[p] = l
		}
	})
	return ls
}

// load returns the ledger of a transcript, brought up to date, or as far
// as it could be read by deadline (partial): then it is kept with no size,
// so that the next call reads on from where this one stopped.
func (ls *ledgers) load(f fileInfo, now, deadline time.Time) (l *ledger, partial bool, err error) {
	path := f.path
	l = ls.Files[path]
	if l != nil && cache.Judge(l.Stamp, l.Offset, f.stamp) == cache.Fresh {
		return l, false, nil
	}
	if l == nil {
		l = &ledger{Path: path} // readFrom judges an old one against the file opened
	}
	done, err := l.readFrom(path, ls.cat, deadline)
	if err != nil {
		return nil, false, err
	}
	l.prune(now)
	ls.Files[path], ls.dirty = l, true
	return l, !done, nil
}

// save writes the cache back when it changed, dropping the transcripts not
// seen in this call (older than the window, or gone). A cache that cannot
// be written only costs a full read next time.
func (ls *ledgers) save(seen map[string]bool) {
	for p := range ls.Files {
		if !seen[p] {
			delete(ls.Files, p)
			ls.dirty = true
		}
	}
	if !ls.dirty || ls.store == nil {
		return
	}
	var gone []string
	ls.store.Each(func(p string, _ *cache.Entry) {
		if ls.Files[p] == nil {
			gone = append(gone, p)
		}
	})
	for _, p := range gone {
		ls.store.Delete(p)
	}
	for p, l := range ls.Files {
		ls.store.Put(p, &cache.Entry{Stamp: l.Stamp, Offset: l.Offset, Tail: l.tail, Data: l.encode()})
	}
	_ = ls.store.Save()
}

// cacheName names a projects dir's cache files (lib/cache.File adds the
// rest): the ledgers store and the summary, shared by the commands of one
// build (cc-statusline and cc-hook).
func cacheName(projects string) string {
	h := sha256.Sum256([]byte(projects))
	return hex.EncodeToString(h[:12])
}

// assistantNeedle marks a line that may be an assistant record: the
// quoted type alone, so that a record re-encoded with a space after the
// colon is still read (ParseLine confirms the type).
var assistantNeedle = []byte(`"assistant"`)

// assistantType marks a line that may carry usage: such a long line is
// read whole, never skipped for time.
var assistantType = []byte(`"type":"assistant"`)

// deadlineEvery is how many buffer reads go between deadline checks.
var deadlineEvery = 64

// maxLine bounds the line a ledger holds in memory; a longer one (tool
// output, never a usage-bearing record in practice) is skipped.
const maxLine = 64 << 20

// readFrom reads the whole lines after Offset, until the end the file had
// when it was opened, or the deadline (done false); the ledger's stamp is
// then the file's as opened, its size -1 when not done. A ledger taken
// of another file, or of this one rewritten (cache.Judge, then the bytes
// before Offset), starts over. The records of one response are one
// message, merged as lib/pricing's billing rule says.
func (l *ledger) readFrom(path string, cat *pricing.Catalog, deadline time.Time) (done bool, err error) {
	if cat == nil {
		cat = pricing.Embedded()
	}
	// A FIFO or device named like a transcript would block the statusline
	// forever: only a regular file is read.
	f, err := regular.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false, err
	}
	st := cache.StampOf(fi)
	switch cache.Judge(l.Stamp, l.Offset, st) {
	case cache.Fresh:
		return true, nil
	case cache.Miss:
		*l = ledger{Path: l.Path} // another file, or this one rewritten: from the start
	default:
		if !tailHolds(f, l.Offset, l.tail) {
			*l = ledger{Path: l.Path}
		}
	}
	defer func() {
		l.Stamp = st
		if !done {
			l.Stamp.Size = -1
		}
	}()
	defer func() {
		if h, herr := cache.TailHash(f, l.Offset); herr == nil {
			l.tail = h
		}
	}()
	if _, err := f.Seek(l.Offset, io.SeekStart); err != nil {
		return false, err
	}
	g := Merger{Out: func(m *Message) error {
		l.Msgs = append(l.Msgs, m.Priced(cat))
		return nil
	}}
	if l.HasOpen {
		g.Resume(l.Open)
	}
	defer func() {
		if l.Open, l.HasOpen = g.Open(); l.HasOpen {
			l.OpenPriced = l.Open.Priced(cat)
		}
	}()
	// Read up to the size stamped: what is appended meanwhile is the next
	// call's (the stamp then differs: grown).
	br := bufio.NewReaderSize(io.LimitReader(f, st.Size-l.Offset), 256<<10)
	var ln Line
	var long []byte    // a line longer than the buffer, so far
	var pending int64  // its bytes read so far
	skipping := l.Skip // it passed maxLine, or a call ran out inside it: skipped
	// stop ends a call: the deadline inside a long line that is no
	// usage-bearing record skips the rest of it from here next time, so a
	// line longer than a call can read still ends.
	stop := func() {
		if pending > 0 && (skipping || !bytes.Contains(long[:min(len(long), 64<<10)], assistantType)) {
			l.Offset += pending
			l.Skip = true
		}
	}
	for n := 0; ; n++ {
		if n%deadlineEvery == deadlineEvery-1 && time.Now().After(deadline) {
			stop()
			return false, nil
		}
		b, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			pending += int64(len(b))
			if !skipping {
				long = append(long, b...)
				if len(long) > maxLine {
					long, skipping = nil, true
				}
			}
			continue
		}
		if err != nil {
			if err == io.EOF {
				pending += int64(len(b))
				if skipping {
					stop() // a line still being written, being skipped
				}
				return true, nil // a partial last line is read next time
			}
			return false, err
		}
		l.Offset += pending + int64(len(b))
		pending = 0
		if skipping {
			skipping, l.Skip = false, false
			continue
		}
		if long != nil {
			b, long = append(long, b...), nil
		}
		if !bytes.Contains(b, assistantNeedle) {
			continue
		}
		if ParseLine(b, &ln) != nil {
			continue
		}
		m, ok := ln.message(ReadOptions{})
		if !ok {
			continue
		}
		if _, err := time.Parse(time.RFC3339Nano, m.Timestamp); err != nil {
			continue
		}
		// The merge weighs a usage by what prices it: one that cannot be
		// priced weighs 0.
		m.Tokens = Tokens{}
		if u, perr := pricing.ParseUsage(ln.Usage); perr == nil {
			m.Tokens = Tokens{InputTokens: int64(u.InputTokens), OutputTokens: int64(u.OutputTokens),
				CacheReadInputTokens: int64(u.CacheReadInputTokens), CacheCreationInputTokens: int64(u.CacheCreationInputTokens),
				CacheCreation5m: int64(u.Ephemeral5m), CacheCreation1h: int64(u.Ephemeral1h)}
			if !ln.Sidechain {
				l.Context = m.Tokens.InputTokens + m.Tokens.CacheReadInputTokens + m.Tokens.CacheCreationInputTokens
				l.ContextModel = m.RequestedModel
				if l.ContextModel == "" {
					l.ContextModel = m.Model
				}
			}
		}
		_ = g.Add(&m) // (Out never fails)
	}
}

// tailHolds says the bytes before off are those hashed as tail.
func tailHolds(r io.ReaderAt, off int64, tail uint64) bool {
	h, err := cache.TailHash(r, off)
	return err == nil && h == tail
}

// prune drops messages from before SpendWindow, the open one too.
func (l *ledger) prune(now time.Time) {
	cut := SpendWindow(now).UnixMilli()
	k := 0
	for _, m := range l.Msgs {
		if m.TS >= cut {
			l.Msgs[k] = m
			k++
		}
	}
	l.Msgs = l.Msgs[:k]
	if l.HasOpen && l.OpenPriced.TS < cut {
		// (Its next record, were it ever written, is days late.)
		l.Open, l.HasOpen, l.OpenPriced = Message{}, false, Priced{}
	}
}
