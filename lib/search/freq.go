package search

// byteFreq estimates how often each byte occurs in transcript-like text
// (JSON records, English prose, Go code), in occurrences per million. It
// was counted once over the ccpipe spec notes and Go sources; only the
// rough order matters: letters, spaces and quotes are common, control and
// non-ASCII bytes rare (those are floored at 1 and 10). A matcher anchors
// its search on the rarest bytes of a term, so that bytes.IndexByte (SIMD)
// skips most of the input.
var byteFreq = [256]uint32{
	1, 1, 1, 1, 1, 1, 1, 1, 1, 42383, 32519, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	109803, 1762, 12887, 311, 80, 1748, 1051, 831, 12603, 12602, 2483, 696, 14479, 3605, 18736, 13958,
	3881, 3349, 4228, 1103, 993, 1048, 995, 468, 711, 387, 7565, 1212, 832, 8049, 414, 157,
	19, 2764, 1995, 7075, 2423, 4028, 2975, 1215, 4299, 2478, 104, 442, 2903, 2074, 2005, 1483,
	3296, 117, 5323, 6169, 7528, 1413, 480, 2144, 113, 109, 61, 1528, 1673, 1530, 13, 3618,
	1545, 34141, 5770, 22460, 21988, 82536, 14763, 9950, 16270, 35631, 499, 4282, 22704, 10961, 45945, 40909,
	14883, 3873, 55917, 38706, 65269, 18700, 5047, 7782, 4212, 6779, 898, 7442, 845, 7433, 21, 1,
	72, 1, 1, 1, 1, 1, 24, 1, 2, 5, 1, 1, 1, 1, 1, 1,
	1, 1, 25, 53, 22, 1, 2, 1, 1, 1, 1, 1, 48, 5, 1, 1,
	1, 1, 22, 1, 3, 2, 4, 4, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 8, 1, 1, 2, 1, 2, 1, 2, 1,
	1, 1, 13, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	7, 5, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 146, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
}

// byteWeight is byteFreq with a floor for non-ASCII bytes, which real
// transcripts hold more of than the sample (dashes, arrows, box drawing).
func byteWeight(b byte) int {
	if b >= 0x80 {
		return max(10, int(byteFreq[b]))
	}
	return int(byteFreq[b])
}
