package cache

// StrTable numbers the strings a cache entry repeats (session ids,
// models, attribute keys), so that each is written once: Ref appends a
// string's number, Append the table, which the entry writes before what
// refers to it (ReadStrTable, Decoder.Ref).
type StrTable struct {
	tab []string
	idx map[string]uint64
}

// Ref appends the number of v, numbering it if new.
func (t *StrTable) Ref(b []byte, v string) []byte {
	i, ok := t.idx[v]
	if !ok {
		if t.idx == nil {
			t.idx = map[string]uint64{}
		}
		i = uint64(len(t.tab))
		t.idx[v] = i
		t.tab = append(t.tab, v)
	}
	return AppendUvarint(b, i)
}

// Append appends the table: its length, then each string.
func (t *StrTable) Append(b []byte) []byte {
	b = AppendUvarint(b, uint64(len(t.tab)))
	for _, v := range t.tab {
		b = AppendStr(b, v)
	}
	return b
}

// ReadStrTable reads what Append wrote; its strings share d's memory
// (StrShared).
func ReadStrTable(d *Decoder) []string {
	tab := make([]string, d.Count())
	for i := range tab {
		tab[i] = d.StrShared()
	}
	return tab
}

// Ref reads a number Ref wrote, as the string of tab it names; d fails
// on a number out of range.
func (d *Decoder) Ref(tab []string) string {
	i := d.Uvarint()
	if i >= uint64(len(tab)) {
		d.Fail()
		return ""
	}
	return tab[i]
}
