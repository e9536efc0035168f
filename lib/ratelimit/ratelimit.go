// Package ratelimit is the rate-limit ledger: the rate_limits windows of
// Claude Code's status-line payload (a subscription's five-hour and
// seven-day use), kept one NDJSON line per change in a file of the cache
// dir with the spend at that moment, and read back as windows: when each
// reset, whether before its announced resets_at, the spend per percent.
// cc-statusline writes it and prints it (--rate-limits).
package ratelimit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/ccpipe/ccpipe/lib/atomicfile"
	"github.com/ccpipe/ccpipe/lib/regular"
	"github.com/ccpipe/ccpipe/lib/usage"
)

// LedgerName is the ledger's file in the cache dir: one NDJSON line per
// rate_limits sample that differs from the last one kept.
const LedgerName = "ratelimits.ndjson"

// Names are the windows a payload may give, in the order they are printed.
var Names = []string{"five_hour", "seven_day"}

// Limit is one window of a rate_limits sample: resets_at in Unix seconds
// (Claude Code's own unit; an RFC 3339 string is read too).
type Limit struct {
	UsedPercentage float64 `json:"used_percentage"`
	ResetsAt       int64   `json:"resets_at"`
}

// Sample is one ledger line: the payload's windows, when they were seen,
// and the spend at that moment (null without a transcript).
type Sample struct {
	Time           string   `json:"time"`
	FiveHour       *Limit   `json:"five_hour,omitempty"`
	SevenDay       *Limit   `json:"seven_day,omitempty"`
	SessionCostUSD *float64 `json:"session_cost_usd"`
	BlockUSD       *float64 `json:"block_usd"`
	DayUSD         *float64 `json:"day_usd"`
	MonthUSD       *float64 `json:"month_usd"`
}

// Reading is one window of the payload's rate_limits as read: its used
// percentage (nil when absent) and when it resets (zero when resets_at is
// absent or unreadable; Unix seconds or RFC 3339, read to the
// nanosecond).
type Reading struct {
	Used   *float64
	Resets time.Time
}

// WindowOf is the one reader of the payload's rate_limits: the window
// name (five_hour, seven_day), ok false without it. Each window is read on
// its own, so a malformed one does not cost the other.
func WindowOf(raw json.RawMessage, name string) (w Reading, ok bool) {
	var rl map[string]json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &rl) != nil || rl[name] == nil {
		return w, false
	}
	var v struct {
		UsedPercentage *float64 `json:"used_percentage"`
		ResetsAt       any      `json:"resets_at"`
	}
	if json.Unmarshal(rl[name], &v) != nil || string(rl[name]) == "null" {
		return w, false
	}
	w.Used = v.UsedPercentage
	switch r := v.ResetsAt.(type) {
	case float64: // Unix seconds, Claude Code's unit
		w.Resets = time.Unix(int64(r), 0)
	case string:
		w.Resets, _ = time.Parse(time.RFC3339Nano, r)
	}
	return w, true
}

// SampleOf reads the payload's rate_limits (WindowOf) as a ledger sample,
// a window's reset in Unix seconds; a window without a used percentage is
// left out. ok is false without a window.
func SampleOf(raw json.RawMessage) (Sample, bool) {
	var s Sample
	get := func(name string) *Limit {
		w, ok := WindowOf(raw, name)
		if !ok || w.Used == nil {
			return nil
		}
		l := &Limit{UsedPercentage: *w.Used}
		if !w.Resets.IsZero() {
			l.ResetsAt = w.Resets.Unix()
		}
		return l
	}
	s.FiveHour, s.SevenDay = get("five_hour"), get("seven_day")
	return s, s.FiveHour != nil || s.SevenDay != nil
}

func sameLimit(a, b *Limit) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

// Keep appends s (its Time and spend set) to the ledger in cacheDir,
// unless the ledger's last line has the same windows.
func Keep(cacheDir string, s Sample) error {
	path := filepath.Join(cacheDir, LedgerName)
	if last, ok := lastSample(path); ok && sameLimit(last.FiveHour, s.FiveHour) && sameLimit(last.SevenDay, s.SevenDay) {
		return nil
	}
	line, _ := json.Marshal(s)
	if err := os.MkdirAll(cacheDir, 0o700); err != nil {
		return err
	}
	return atomicfile.AppendLineOwned(path, append(line, '\n'))
}

// lastSample reads the ledger's last whole line (from its last 4 KiB).
func lastSample(path string) (Sample, bool) {
	var s Sample
	f, err := regular.OpenOwned(path)
	if err != nil {
		return s, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return s, false
	}
	off := max(fi.Size()-4096, 0)
	buf := make([]byte, fi.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil && err != io.EOF {
		return s, false
	}
	buf = bytes.TrimRight(buf, "\n")
	if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
		buf = buf[i+1:]
	}
	return s, json.Unmarshal(buf, &s) == nil
}

// Read reads the ledger at path: its samples, and how many lines were not
// one. A ledger that cannot be opened is the error (fs.ErrNotExist: none
// kept yet).
func Read(path string) (samples []Sample, bad int, err error) {
	f, err := regular.OpenOwned(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		var s Sample
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		if json.Unmarshal(sc.Bytes(), &s) != nil || s.Time == "" {
			bad++
			continue
		}
		samples = append(samples, s)
	}
	if err := sc.Err(); err != nil {
		return nil, bad, fmt.Errorf("%s: %v", path, err)
	}
	return samples, bad, nil
}

// Window is one rate-limit window as the ledger saw it (cc-statusline --rate-limits).
type Window struct {
	Window          string   `json:"window"`
	FirstSeen       string   `json:"first_seen"`
	LastSeen        string   `json:"last_seen"`
	ResetsAt        string   `json:"resets_at"`
	FirstUsed       float64  `json:"first_used_percent"`
	MaxUsedPercent  float64  `json:"max_used_percent"`
	ResetAtObserved *string  `json:"reset_at_observed"`
	Early           bool     `json:"early"`
	SpendUSD        *float64 `json:"spend_usd"`
	USDPerPercent   *float64 `json:"usd_per_percent"`
}

// lengths are the windows' lengths: a sample whose resets_at is half a
// window past the current one's starts a new window.
var lengths = map[string]time.Duration{"five_hour": 5 * time.Hour, "seven_day": 7 * 24 * time.Hour}

// earlySlack is the clock skew forgiven before a reset counts as early.
const earlySlack = time.Minute

// Windows groups the samples of one window kind: a new window starts when
// the used percentage drops, when a sample comes at or after the current
// window's resets_at, or when resets_at moves half a window later; a
// smaller move is the same window's drift (resets_at is then the last
// announced). spend_usd is the month spend's growth from the window's
// first sample to its last (a month's turn counted from the new month's
// start); usd_per_percent divides it by the percent used meanwhile.
func Windows(samples []Sample, name string) []Window {
	pick := func(s *Sample) *Limit {
		if name == "five_hour" {
			return s.FiveHour
		}
		return s.SevenDay
	}
	stamp := func(sec int64) string { return time.Unix(sec, 0).UTC().Format(usage.BlockTimeLayout) }
	var out []Window
	var cur *Window
	var curReset int64
	var prevUsed float64
	var spend float64
	spendKnown := false
	var prevMonth *float64
	closeWin := func() {
		if cur == nil {
			return
		}
		if spendKnown {
			v := math.Round(spend*1e6) / 1e6
			cur.SpendUSD = &v
			if d := cur.MaxUsedPercent - cur.FirstUsed; d > 0 {
				p := math.Round(v/d*1e6) / 1e6
				cur.USDPerPercent = &p
			}
		}
		out = append(out, *cur)
	}
	for i := range samples {
		s := &samples[i]
		l := pick(s)
		if l == nil {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, s.Time)
		if err != nil {
			continue
		}
		newWin := cur == nil || l.UsedPercentage < prevUsed ||
			curReset > 0 && t.Unix() >= curReset ||
			time.Duration(l.ResetsAt-curReset)*time.Second >= lengths[name]/2
		if newWin {
			if cur != nil {
				seen := s.Time
				cur.ResetAtObserved = &seen
				cur.Early = curReset > 0 && t.Add(earlySlack).Unix() < curReset
			}
			closeWin()
			cur = &Window{Window: name, FirstSeen: s.Time, FirstUsed: l.UsedPercentage, MaxUsedPercent: l.UsedPercentage}
			spend, spendKnown, prevMonth = 0, false, nil
		}
		cur.LastSeen = s.Time
		prevUsed = l.UsedPercentage
		cur.MaxUsedPercent = max(cur.MaxUsedPercent, l.UsedPercentage)
		curReset = l.ResetsAt
		cur.ResetsAt = stamp(l.ResetsAt)
		if s.MonthUSD != nil {
			if prevMonth != nil {
				d := *s.MonthUSD - *prevMonth
				if d < 0 {
					d = *s.MonthUSD
				}
				spend += d
			}
			spendKnown, prevMonth = true, s.MonthUSD
		}
	}
	closeWin()
	return out
}

// FiveHourOf is the payload's five-hour window (WindowOf), the account's
// real one, better than the block estimate: its used percentage and when
// it resets. ok is false without the window.
func FiveHourOf(raw json.RawMessage) (used *float64, resets time.Time, ok bool) {
	w, ok := WindowOf(raw, "five_hour")
	return w.Used, w.Resets, ok
}

// KeepPayload appends the payload's rate_limits sample (raw), seen at now,
// with the session's cost and the spend then (nil without a transcript),
// to the ledger in cacheDir; nothing without a window. An error is for a
// note: the status line is printed the same.
func KeepPayload(cacheDir string, raw json.RawMessage, now time.Time, sessionCost *float64, sp *usage.Spend) error {
	s, ok := SampleOf(raw)
	if !ok {
		return nil
	}
	s.Time = now.UTC().Format(usage.BlockTimeLayout)
	s.SessionCostUSD = sessionCost
	if sp != nil {
		s.BlockUSD, s.DayUSD, s.MonthUSD = &sp.Block, &sp.Today, &sp.Month
	}
	return Keep(cacheDir, s)
}
