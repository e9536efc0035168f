package usage

import "time"

// Spend is what was spent, in USD, over the periods a budget names.
type Spend struct {
	Today, Week, Month float64
	// Block is the cost of the running 5-hour block (0 when none runs).
	Block float64
	// Session is the cost of SpendOptions.Session's own messages (a
	// fork's copies of another session's count in that one).
	Session float64
	// Unpriced counts the messages of the month, the block or the session
	// that could not be priced: their cost is in no figure.
	Unpriced int
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
	week := WeekOf(day, ws)
	month := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, loc)
	kept := countOnce(msgs)
	var sp Spend
	b := latestOf(kept)
	for i, m := range kept {
		t := time.UnixMilli(m.TS)
		inBlock := b.Active(o.Now) && i >= b.from
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
