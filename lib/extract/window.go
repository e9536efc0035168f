package extract

import "time"

// inWindow reports whether a fact stamped ts is in [Since, Until]; with
// no window, every fact is.
func (x *Extractor) inWindow(ts string) bool {
	if x.opts.Since.IsZero() && x.opts.Until.IsZero() {
		return true
	}
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return false
	}
	return (x.opts.Since.IsZero() || !t.Before(x.opts.Since)) && (x.opts.Until.IsZero() || !t.After(x.opts.Until))
}

// windowed wraps emit to drop the facts stamped outside the window
// (usage messages are dropped before they are summed, in take; a files
// --unique summary is of in-window files only, see summarize).
func (x *Extractor) windowed(emit func(any) error) func(any) error {
	if x.opts.Since.IsZero() && x.opts.Until.IsZero() {
		return emit
	}
	return func(v any) error {
		if s, ok := v.(stamped); ok && !x.inWindow(deref(s.stamp())) {
			return nil
		}
		return emit(v)
	}
}

// stamped is a fact with a Base: its entry's timestamp.
type stamped interface{ stamp() *string }

func (b Base) stamp() *string { return b.Timestamp }
