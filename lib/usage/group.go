package usage

import (
	"slices"
	"strings"
	"time"
)

// groupKeys is the state of a --sum of keys: the calendar of day, week
// and month, and each session's first message (the order of its groups).
type groupKeys struct {
	keys      []string
	weekStart time.Weekday
	// weeks caches a date's week (the date of its first day).
	weeks map[string]string
	// sessionFirst is each session's earliest timestamp.
	sessionFirst map[string]string
	// calendar is the first of day, week and month in keys, if any.
	calendar string
}

func newGroupKeys(sum string, weekStart *time.Weekday) groupKeys {
	keys, _ := ParseSum(sum) // NewSummer's caller checked it
	g := groupKeys{keys: keys, weekStart: time.Monday, weeks: map[string]string{}, sessionFirst: map[string]string{}}
	if weekStart != nil {
		g.weekStart = *weekStart
	}
	for _, k := range keys {
		if k == "day" || k == "week" || k == "month" {
			g.calendar = k
			break
		}
	}
	return g
}

func (g *groupKeys) has(k string) bool { return slices.Contains(g.keys, k) }

// group is the key of r's group: its parts joined by NUL.
func (u *Summer) group(r *Message) string {
	g := &u.groups
	if len(g.keys) == 1 {
		return u.part(g.keys[0], r) // most often: no slice, no join
	}
	parts := make([]string, len(g.keys))
	for i, k := range g.keys {
		parts[i] = u.part(k, r)
	}
	return strings.Join(parts, "\x00")
}

// part is r's part of a group key for --sum key k.
func (u *Summer) part(k string, r *Message) string {
	g := &u.groups
	switch k {
	case "day", "week", "month":
		d := u.day(r.Timestamp)
		if d == "" {
			if k == g.calendar {
				// Once a message, under the first of its calendar keys.
				u.badTime(r, "summed under no "+k)
			}
			return ""
		}
		switch k {
		case "week":
			return g.week(d)
		case "month":
			return d[:7]
		}
		return d
	case "session":
		if f, ok := g.sessionFirst[r.SessionID]; r.Timestamp != "" && (!ok || r.Timestamp < f) {
			g.sessionFirst[r.SessionID] = r.Timestamp
		}
		return r.SessionID
	case "model":
		return r.Model
	case "project":
		return r.Cwd
	}
	return ""
}

// name fills a new group's key fields from its key. A session group also
// names its project (the cwd of its first message).
func (g *groupKeys) name(s *Sum, group, cwd string) {
	parts := strings.Split(group, "\x00")
	for i, k := range g.keys {
		p := str(parts[i])
		switch k {
		case "day":
			s.Date = p
		case "week":
			s.Week = p
		case "month":
			s.Month = p
		case "session":
			s.SessionID = p
			if !g.has("project") {
				s.Project = str(cwd)
			}
		case "model":
			s.Model = p
		case "project":
			s.Project = p
		}
	}
}

// week is the date of the first day (SumOptions.WeekStart, Monday by
// default, as ISO 8601) of the week of date; "" for no date.
func (g *groupKeys) week(date string) string {
	if w, ok := g.weeks[date]; ok {
		return w
	}
	d, err := time.Parse(time.DateOnly, date)
	if err != nil {
		return ""
	}
	w := WeekOf(d, g.weekStart).Format(time.DateOnly)
	g.weeks[date] = w
	return w
}

// less orders the groups by their keys in the order given; a session
// sorts by its first message (sessions in the order they started).
func (g *groupKeys) less(a, b string) bool {
	pa, pb := strings.Split(a, "\x00"), strings.Split(b, "\x00")
	for i, k := range g.keys {
		x, y := pa[i], pb[i]
		if x == y {
			continue
		}
		if k == "session" {
			fx, okx := g.sessionFirst[x]
			fy, oky := g.sessionFirst[y]
			if okx != oky {
				return okx // a session without a message comes after those with one
			}
			if fx != fy {
				return fx < fy
			}
		}
		return x < y
	}
	return false
}

// display names a group in a message: its parts joined by commas.
func display(group string) string { return strings.ReplaceAll(group, "\x00", ",") }
