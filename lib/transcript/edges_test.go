package transcript

import (
	"slices"
	"testing"
)

// TestEdges: where transcript.Edges ends a transcript in a stream of
// lines, each given as its path, session and agent.
func TestEdges(t *testing.T) {
	type line struct{ path, session, agent string }
	for _, tt := range []struct {
		name  string
		lines []line
		edges []int // the lines that start a new transcript
	}{
		{"paths", []line{{"/a", "s1", ""}, {"/a", "s1", ""}, {"/b", "s1", "x"}, {"/c", "s2", ""}}, []int{2, 3}},
		{"a path's session is not looked at", []line{{"/a", "s1", ""}, {"/a", "s2", ""}}, nil},
		{"sessions", []line{{"", "s1", ""}, {"", "s1", ""}, {"", "s2", ""}, {"", "s1", ""}}, []int{2, 3}},
		{"agents", []line{{"", "s1", ""}, {"", "s1", "x"}, {"", "s1", "x"}, {"", "s1", "y"}, {"", "s1", ""}}, []int{1, 3, 4}},
		{"a line without a session goes on", []line{{"", "", ""}, {"", "s1", ""}, {"", "", ""}, {"", "s1", ""}, {"", "", ""}, {"", "s2", ""}}, []int{5}},
		{"a line without a path among paths goes on", []line{{"/a", "s1", ""}, {"", "s2", ""}, {"/a", "s1", ""}, {"", "s2", ""}, {"/b", "s2", ""}}, []int{4}},
		{"null paths go by session", []line{{"", "s1", ""}, {"", "s2", ""}, {"/a", "s2", ""}}, []int{1, 2}},
	} {
		var d Edges
		var got []int
		for i, l := range tt.lines {
			if d.Next(l.path, l.session, l.agent) {
				got = append(got, i)
			}
		}
		if !slices.Equal(got, tt.edges) {
			t.Errorf("%s: edges at %v, want %v", tt.name, got, tt.edges)
		}
	}
	var d Edges
	d.Next("", "s1", "")
	var resumed Edges
	resumed.SetKey(d.Key())
	if resumed.Next("", "s1", "") || !resumed.Next("", "s2", "") {
		t.Error("SetKey(Key()) does not go on where it left off")
	}
}
