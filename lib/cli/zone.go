package cli

import "time"

// ZoneFlag is the zone a --tz value names (an IANA name such as
// Europe/Berlin, UTC, or Local), as ccusage's --timezone; "" is the
// System's zone, else the TZ of its environment, else UTC.
func ZoneFlag(sys System, tz string) (*time.Location, error) {
	switch {
	case tz == "" && sys.Zone != nil:
		return sys.Zone, nil
	case tz == "":
		// As time.Local: TZ names the zone, and a bad one is UTC.
		loc, err := time.LoadLocation(sys.Env("TZ"))
		if err != nil {
			return time.UTC, nil
		}
		return loc, nil
	case tz == "Local" && sys.Zone != nil:
		return sys.Zone, nil
	}
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return nil, Usagef("--tz %q: not a time zone (want an IANA name such as Europe/Berlin, or UTC)", tz)
	}
	return loc, nil
}
