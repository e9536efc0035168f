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
		tz = sys.Env("TZ")
		if tz == "" {
			return time.UTC, nil
		}
	case tz == "Local" && sys.Zone != nil:
		return sys.Zone, nil
	}
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return nil, Usagef("--tz %q: not a time zone (want an IANA name such as Europe/Berlin, or UTC)", tz)
	}
	return loc, nil
}
