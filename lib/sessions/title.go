package sessions

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ccpipe/ccpipe/lib/cache"
	"github.com/ccpipe/ccpipe/lib/layout"
	"github.com/ccpipe/ccpipe/lib/profiles"
)

// title is the one rule for a session's title, the one Claude Code's own
// session list follows: the newest custom-title of the tail (a user-set
// title: -n, /rename, a hook's sessionTitle), else the session dir's
// custom-title.json, else the newest custom-title of the head, else the
// newest ai-title (generated).
func (sum *summary) title(sessDir string, noDir bool) string {
	t := sum.customTitle
	if t == "" && !noDir {
		t = customTitleFile(sessDir)
	}
	if t == "" {
		t = sum.headCustom
	}
	if t == "" {
		t = sum.aiTitle
	}
	return t
}

// titleListed is title for a session whose dir exists, its listing from
// readDir: custom-title.json is read only when the listing names it.
func (sum *summary) titleListed(sessDir string, readDir func(string) ([]fs.DirEntry, error)) string {
	if sum.customTitle != "" {
		return sum.title(sessDir, true)
	}
	ents, err := readDir(sessDir)
	named := err != nil // unlisted: look
	for _, e := range ents {
		named = named || e.Name() == customTitleName
	}
	return sum.title(sessDir, !named)
}

// Title is the title of the session whose main transcript is at path, as
// its session record (cc-sessions' title) gives it; "" when it has none.
// It reads the transcript's head and tail as listing does, not the whole
// file, so a page can be headed by the title before the transcript is
// read.
func Title(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	id, compressed, ok := layout.Transcript(filepath.Base(path))
	sum, err := readSummary(path, fi.Size(), compressed, 0, 0)
	// Only a file named as a session's transcript has a session dir (a
	// spool of cc-entries lines does not).
	return sum.title(filepath.Join(filepath.Dir(path), id), !ok), err
}

// findTitle matches the query against the titles of every transcript of
// the profiles (read as listing reads them, through c when set): the
// running sessions among them first, else the ended ones. Several of
// either are an ambiguity.
func findTitle(ctx context.Context, query string, actives []Active, profs []profiles.Profile, c *cache.Store) (Session, error) {
	files, _ := files(ctx, ProjectsDirs(profs), nil, c)
	_ = Summarize(ctx, files, ListOptions{Cache: c}) // an unreadable transcript just has no title
	byID := map[string]*Active{}
	for i, a := range actives {
		if byID[a.SessionID] == nil {
			byID[a.SessionID] = &actives[i]
		}
	}
	var running, ended []Session
	seen := map[string]int{} // session id -> index in running or ended
	for _, f := range files {
		if f.SizeBytes < 0 || f.Title != query {
			continue
		}
		f.Active = byID[f.SessionID]
		list := &ended
		if f.Active != nil {
			list = &running
		}
		if i, ok := seen[f.SessionID]; ok {
			// A plain transcript and its archive: the plain one stands.
			if (*list)[i].Compressed && !f.Compressed {
				(*list)[i] = f
			}
			continue
		}
		seen[f.SessionID] = len(*list)
		*list = append(*list, f)
	}
	hits := running
	if len(hits) == 0 {
		hits = ended
	}
	switch len(hits) {
	case 0:
		return Session{}, &NotFoundError{Query: query, ByName: true}
	case 1:
		return hits[0], nil
	}
	SortNewestFirst(hits)
	return Session{}, &AmbiguousError{Query: query, Candidates: hits}
}
