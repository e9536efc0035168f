package usage

import "time"

// Spend is what was spent, in USD, over the periods a budget names.
type Spend struct {
	Today float64 `json:"day"`
	Week  float64 `json:"week"`
	Month float64 `json:"month"`
	// Block is the cost of the running 5-hour block (0 when none runs).
	Block float64 `json:"block"`
	// Session is the cost of SpendOptions.Session's own messages (a
	// fork's copies of another session's count in that one).
	Session float64 `json:"session"`
	// Unpriced counts the messages of the month, the block or the session
	// that could not be priced: their cost is in no figure.
	Unpriced int `json:"unpriced"`
}

// SpendOptions place the periods: the day, week and month of Now in
// Location (UTC when nil), a week starting on WeekStart (Monday, as ISO
// 8601 and cc-extract usage --sum week, when nil).
type SpendOptions struct {
	Now       time.Time
	Location  *time.Location
	WeekStart *time.Weekday
	Session   string
}

// SpendOf sums priced messages into the spend figures, each message
// counted once (Counter), in the period of its timestamp. msgs is sorted
// in place. A figure covers only what msgs holds: ReadRecent's ledgers
// keep a day, so a month needs the messages of a month.
func SpendOf(msgs []Priced, o SpendOptions) Spend {
	return spendOf(countOnce(msgs), o)
}

// Periods are the starts of the day, week and month a spend is summed
// over.
type Periods struct {
	Day, Week, Month int64 // unix ms
}

// PeriodsOf places the day, week and month of o.Now.
func PeriodsOf(o SpendOptions) Periods {
	loc := o.Location
	if loc == nil {
		loc = time.UTC
	}
	ws := time.Monday
	if o.WeekStart != nil {
		ws = *o.WeekStart
	}
	now := o.Now.In(loc)
	day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, loc)
	month := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, loc)
	return Periods{Day: day.UnixMilli(), Week: WeekOf(day, ws).UnixMilli(), Month: month.UnixMilli()}
}

// SpendWindow is how far back the spend figures of any zone and week
// start can reach at now: the start of the UTC month or 7 days back,
// whichever is earlier, less a day for the zone. ReadRecent keeps and
// reads the messages from there, whatever its caller's zone.
func SpendWindow(now time.Time) time.Time {
	u := now.UTC()
	from := time.Date(u.Year(), u.Month(), 1, 0, 0, 0, 0, time.UTC)
	if w := u.AddDate(0, 0, -7); w.Before(from) {
		from = w
	}
	return from.AddDate(0, 0, -1)
}

// spendOf is SpendOf over messages counted once, sorted.
func spendOf(kept []Priced, o SpendOptions) Spend {
	ps := PeriodsOf(o)
	day, week, month := time.UnixMilli(ps.Day), time.UnixMilli(ps.Week), time.UnixMilli(ps.Month)
	var sp Spend
	b := currentOf(kept, o.Now)
	for i, m := range kept {
		t := time.UnixMilli(m.TS)
		inBlock := b.Active(o.Now) && i >= b.from && i < b.to
		inSession := o.Session != "" && m.Session == o.Session
		if m.Unpriced {
			if !t.Before(month) || inBlock || inSession {
				sp.Unpriced++
			}
			continue
		}
		if !t.Before(day) {
			sp.Today += m.USD
		}
		if !t.Before(week) {
			sp.Week += m.USD
		}
		if !t.Before(month) {
			sp.Month += m.USD
		}
		if inBlock {
			sp.Block += m.USD
		}
		if inSession {
			sp.Session += m.USD
		}
	}
	return sp
}

// WeekOf is the first day of day's week, weeks starting on start (the
// one week rule: cc-extract usage --sum week and SpendOf).
func WeekOf(day time.Time, start time.Weekday) time.Time {
	return day.AddDate(0, 0, -((int(day.Weekday()) - int(start) + 7) % 7))
}
