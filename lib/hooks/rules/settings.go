package rules

import (
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/ccpipe/ccpipe/lib/hooks"
)

// Handler is one command hook entry of settings.json.
type Handler struct {
	Type      string `json:"type"`
	Command   string `json:"command"`
	OnFailure string `json:"onFailure,omitempty"`
}

// Entry is one matcher group of settings.json.
type Entry struct {
	Matcher string    `json:"matcher,omitempty"`
	Hooks   []Handler `json:"hooks"`
}

// Settings is the settings.json fragment that registers a rule file.
type Settings struct {
	Hooks map[string][]Entry `json:"hooks"`
}

// Settings returns the fragment registering command for every event the
// rules name, with one matcher per event that covers every rule's matcher
// (no matcher when a rule of the event has none). failClosed adds
// "onFailure": "block", so that a hook that cannot even start blocks.
func (f *File) Settings(command string, failClosed bool) Settings {
	matchers := map[string][]string{}
	all := map[string]bool{}
	for _, r := range f.Rules {
		for _, e := range r.Events {
			if r.Matcher == "" || r.Matcher == "*" || !hooks.TakesMatcher(e) {
				all[e] = true
			}
			if !slices.Contains(matchers[e], r.Matcher) {
				matchers[e] = append(matchers[e], r.Matcher)
			}
		}
	}
	h := Handler{Type: "command", Command: command}
	if failClosed {
		h.OnFailure = "block"
	}
	s := Settings{Hooks: map[string][]Entry{}}
	for e, ms := range matchers {
		entry := Entry{Hooks: []Handler{h}}
		if !all[e] {
			entry.Matcher = unionMatcher(ms)
		}
		s.Hooks[e] = []Entry{entry}
	}
	return s
}

// unionMatcher joins matchers into one that matches whatever any of them
// matches, under Claude Code's rule: a matcher of plain names is an exact
// list, anything else a regex.
func unionMatcher(ms []string) string {
	var names, res []string
	for _, m := range ms {
		if simpleMatcher().MatchString(m) {
			for _, n := range strings.Split(m, "|") {
				if n != "" && !slices.Contains(names, n) {
					names = append(names, n)
				}
			}
		} else {
			res = append(res, m)
		}
	}
	sort.Strings(names)
	if len(res) == 0 {
		return strings.Join(names, "|")
	}
	var parts []string
	if len(names) > 0 {
		quoted := make([]string, len(names))
		for i, n := range names {
			quoted[i] = regexp.QuoteMeta(n)
		}
		parts = append(parts, "^(?:"+strings.Join(quoted, "|")+")$")
	}
	for _, r := range res {
		parts = append(parts, "(?:"+r+")")
	}
	return strings.Join(parts, "|")
}
