package cli

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// hit is a cell with a hit in it (a search's match in its snippet), each
// part already shown by the tables' one rule (visible, on one line).
type hit struct {
	pre, hit, post string
}

// hitMark is the colour of a hit on a terminal, as grep's default
// (bold red), and the reset after it.
const hitMark, hitEnd = "\x1b[1;31m", "\x1b[0m"

// hitCell is the cell of a column with Hit as its three parts; nil when
// the column has none, or the record no hit inside the text (the cell
// then shows as any other).
func (t *recordTable) hitCell(r record, c Column) *hit {
	if c.Hit[0] == "" || c.Show != nil {
		return nil
	}
	var s string
	for _, k := range c.Keys {
		if v := plain(r.field(k)); v != "" {
			s = v
			break
		}
	}
	start, err1 := strconv.Atoi(plain(r.field(c.Hit[0])))
	end, err2 := strconv.Atoi(plain(r.field(c.Hit[1])))
	if s == "" || err1 != nil || err2 != nil || start < 0 || end < start || end > utf8.RuneCountInString(s) {
		return nil
	}
	a, b := runeOffset(s, start), runeOffset(s, end)
	// The line breaks are oneLine's over the whole text; a NUL marks the
	// hit's ends through it (a text holding NUL itself shows unmarked).
	if strings.ContainsRune(s, 0) {
		return nil
	}
	parts := strings.Split(oneLine(s[:a]+"\x00"+s[a:b]+"\x00"+s[b:]), "\x00")
	if len(parts) != 3 {
		return nil
	}
	return &hit{pre: visible(parts[0]), hit: visible(parts[1]), post: visible(parts[2])}
}

// runeOffset is the byte offset of the n-th character of s.
func runeOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}

// fit is the cell cut to n columns around its hit: the text either side
// shares what the hit leaves (what one side lacks goes to the other), each
// side cut with … away from the hit, so the hit is never cut off while it
// fits; with colour the hit is marked. It returns the text and its width
// without the marks.
func (h *hit) fit(n int, color bool) (string, int) {
	pre, mid, post := h.pre, h.hit, h.post
	wp, wh, wa := textWidth(pre), textWidth(mid), textWidth(post)
	switch {
	case wp+wh+wa <= n:
	case wh+min(wp, 1) > n:
		// The hit alone is wider: its start, after a … for what is before.
		pre, post = cutEnd(pre, min(wp, 1, n-1), true), ""
		mid = cut(mid, n-textWidth(pre))
		wh = textWidth(mid)
	default:
		room := n - wh
		left := room / 2
		right := room - left
		switch {
		case wp <= left:
			right += left - wp
			left = wp
		case wa <= right:
			left += right - wa
			right = wa
		}
		pre, post = cutEnd(pre, left, true), cutEnd(post, right, false)
	}
	w := textWidth(pre) + wh + textWidth(post)
	if color && mid != "" {
		mid = hitMark + mid + hitEnd
	}
	return pre + mid + post, w
}

// cutEnd cuts s to n columns: from the left (keeping its end) when
// keepEnd, else from the right; nothing at all when n is 0.
func cutEnd(s string, n int, keepEnd bool) string {
	switch {
	case textWidth(s) <= n:
		return s
	case n <= 0:
		return ""
	case keepEnd:
		return cutLeft(s, n)
	}
	return cut(s, n)
}
