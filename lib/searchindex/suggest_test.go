package searchindex

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ccpipe/ccpipe/lib/search"
)

// TestSuggest: a term in no session gets the nearest terms that occur,
// each verified; a term that occurs gets none.
func TestSuggest(t *testing.T) {
	smallDocs(t)
	r := rand.New(rand.NewPCG(11, 12))
	cache := t.TempDir()
	paths := corpus(t, r, t.TempDir(), 20)
	checkSame(t, cache, paths, search.Options{Terms: []string{"flakytest"}})
	s, _ := search.New(search.Options{Terms: []string{"x"}})
	ix := Open(cache, s)
	defer ix.Close()
	for _, tt := range []struct{ term, want string }{
		{"flakytast", "flakytest"}, {"timeoute", "timeout"}, {"segfualt", "segfault"}, {"straßx", "strasse"},
	} {
		if len(searchWith(t, "", paths, search.Options{Terms: []string{tt.term}})) != 0 {
			t.Fatalf("%q occurs", tt.term)
		}
		got := ix.Suggest(tt.term, 3)
		if !slices.Contains(got, tt.want) {
			t.Errorf("Suggest(%q) = %q, want %q among them", tt.term, got, tt.want)
		}
		for _, g := range got {
			if len(searchWith(t, "", paths, search.Options{Terms: []string{g}})) == 0 {
				t.Errorf("Suggest(%q) gave %q, which the scan finds nowhere", tt.term, g)
			}
		}
	}
	if got := ix.Suggest("flakytest", 3); got != nil {
		t.Errorf("a term that occurs got suggestions %q", got)
	}
}
