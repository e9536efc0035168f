package sessions

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ccpipe/ccpipe/lib/cache"
	"github.com/ccpipe/ccpipe/lib/layout"
	"github.com/ccpipe/ccpipe/lib/profiles"
	"github.com/ccpipe/ccpipe/lib/quote"
	"github.com/ccpipe/ccpipe/lib/registry"
)

// NotFoundError means no session matches the query.
type NotFoundError struct {
	Query string
	// ByName is set when the query could only have been a name, a title
	// or an id prefix: the message says what was tried.
	ByName bool
}

func (e *NotFoundError) Error() string {
	if e.ByName {
		return fmt.Sprintf("no session matches %s (by name, title, id or id prefix)", quote.Q(e.Query))
	}
	return fmt.Sprintf("no session matches %s", quote.Q(e.Query))
}

// AmbiguousError means several sessions match the query (names are not
// unique); Candidates lists them.
type AmbiguousError struct {
	Query      string
	Candidates []Session
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("%q matches %d sessions", e.Query, len(e.Candidates))
}

// FindOptions tunes Find and Current.
type FindOptions struct {
	// Cwd: the dir the session most likely ran in; its project dirs are
	// checked first when looking a transcript up by id.
	Cwd string
	// Active, when not nil, is used instead of reading the registries.
	Active []Active
	// Host, Getenv: as in ActiveOptions.
	Host   *registry.Host
	Getenv func(string) string
	// Warn, when set, is told of what the user should know of the session
	// found: its archive copy read instead of its live file
	// (*CopyKeptError).
	Warn func(error)
	// Cache, when set, is the listing's summary cache (ListOptions.Cache):
	// a title lookup reads only the transcripts that changed since the
	// last listing, not the head and tail of every one.
	Cache *cache.Store
}

// warn passes the notes of session id on to Warn.
func (o FindOptions) warn(id string, notes []error) {
	for _, n := range notes {
		var ck *CopyKeptError
		if o.Warn != nil && errors.As(n, &ck) && ck.SessionID == id {
			o.Warn(n)
		}
	}
}

// Find finds one session of the profiles. The query is, in this order:
// pid:<n>; an address <profile>/<name>; a session id; a running session's
// name; a unique prefix of a session id; a title (custom or AI, as the
// session record gives it), running sessions first, then ended ones.
// Running sessions are matched by their registry records, sessions that
// ended by their transcripts. The session
// comes back with its transcript summary and its Active record when it
// runs. Errors: *NotFoundError, *AmbiguousError (with candidates).
func Find(ctx context.Context, query string, profs []profiles.Profile, opt FindOptions) (Session, error) {
	if query == "" {
		return Session{}, &NotFoundError{Query: query}
	}
	actives := opt.Active
	if actives == nil {
		var errs []error
		actives, errs = ActiveSessions(ctx, profs, ActiveOptions{Host: opt.Host, Getenv: opt.Getenv})
		_ = errs // a torn record is not a reason to fail a lookup
		if actives == nil {
			actives = []Active{}
		}
		opt.Active = actives
	}
	var hits []Active
	switch {
	case strings.HasPrefix(query, "pid:"):
		pid, err := strconv.Atoi(strings.TrimPrefix(query, "pid:"))
		if err != nil || pid <= 0 {
			return Session{}, fmt.Errorf("invalid query %q: pid:<n> needs a positive number", query)
		}
		for _, a := range actives {
			if a.Pid == pid {
				hits = append(hits, a)
			}
		}
		return pick(ctx, query, hits, profs, opt)
	case layout.IsUUID(query):
		id := strings.ToLower(query)
		for _, a := range actives {
			if a.SessionID == id {
				hits = append(hits, a)
			}
		}
		if len(hits) > 0 {
			return pick(ctx, query, hits[:1], profs, opt)
		}
		path, notes := findTranscript2(id, profs, opt.Cwd)
		if path == "" {
			return Session{}, &NotFoundError{Query: query}
		}
		opt.warn(id, notes)
		return sessionAt(ctx, path, profs, nil, opt)
	}
	if prof, name, ok := strings.Cut(query, "/"); ok && name != "" {
		// (an empty name is no address: unnamed sessions have Name "")
		for _, a := range actives {
			if a.Profile == prof && a.Name == name {
				hits = append(hits, a)
			}
		}
		if len(hits) > 0 {
			return pick(ctx, query, hits, profs, opt)
		}
	}
	for _, a := range actives {
		if a.Name != "" && a.Name == query {
			hits = append(hits, a)
		}
	}
	if len(hits) > 0 {
		return pick(ctx, query, hits, profs, opt)
	}
	s, err := findPrefix(ctx, query, actives, profs, opt)
	var nf *NotFoundError
	if errors.As(err, &nf) {
		return findTitle(ctx, query, actives, profs, opt.Cache)
	}
	return s, err
}

// pick turns matching running sessions into the result or an ambiguity.
func pick(ctx context.Context, query string, hits []Active, profs []profiles.Profile, opt FindOptions) (Session, error) {
	switch len(hits) {
	case 0:
		return Session{}, &NotFoundError{Query: query}
	case 1:
		return withTranscript(ctx, hits[0], profs, opt), nil
	}
	cands := make([]Session, len(hits))
	for i, a := range hits {
		cands[i] = withTranscript(ctx, a, profs, opt)
	}
	return Session{}, &AmbiguousError{Query: query, Candidates: cands}
}

// withTranscript is the session record of a running session: its
// transcript summary when there is one, else what the registry knows.
func withTranscript(ctx context.Context, a Active, profs []profiles.Profile, opt FindOptions) Session {
	if a.TranscriptPath != "" {
		if s, err := sessionAt(ctx, a.TranscriptPath, profs, &a, opt); err == nil {
			return s
		}
	}
	return FromActive(a)
}

// findPrefix matches a unique prefix of a session id, among running
// sessions and every transcript of the profiles.
func findPrefix(ctx context.Context, query string, actives []Active, profs []profiles.Profile, opt FindOptions) (Session, error) {
	q := strings.ToLower(query)
	if !isIDPrefix(q) {
		return Session{}, &NotFoundError{Query: query, ByName: true}
	}
	ids := map[string]bool{}
	var order []string
	add := func(id string) {
		if !ids[id] {
			ids[id] = true
			order = append(order, id)
		}
	}
	byID := map[string]*Active{}
	for i, a := range actives {
		if strings.HasPrefix(a.SessionID, q) {
			add(a.SessionID)
			byID[a.SessionID] = &actives[i]
		}
	}
	files, notes := Files(ctx, ProjectsDirs(profs), nil)
	paths := map[string]string{}
	for _, f := range files {
		if strings.HasPrefix(f.SessionID, q) {
			add(f.SessionID)
			if paths[f.SessionID] == "" || !f.Compressed {
				paths[f.SessionID] = f.TranscriptPath
			}
		}
	}
	resolveID := func(id string) Session {
		if a := byID[id]; a != nil {
			return withTranscript(ctx, *a, profs, opt)
		}
		s, err := sessionAt(ctx, paths[id], profs, nil, opt)
		if err != nil {
			return Session{SessionID: id, TranscriptPath: paths[id]}
		}
		return s
	}
	switch len(order) {
	case 0:
		return Session{}, &NotFoundError{Query: query, ByName: true}
	case 1:
		opt.warn(order[0], notes)
		return resolveID(order[0]), nil
	}
	cands := make([]Session, len(order))
	for i, id := range order {
		cands[i] = resolveID(id)
	}
	SortNewestFirst(cands)
	return Session{}, &AmbiguousError{Query: query, Candidates: cands}
}

func isIDPrefix(s string) bool {
	if s == "" || len(s) > 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c == '-') {
			return false
		}
	}
	return true
}

// FindTranscript returns the path of a session's main transcript: the
// project dirs of cwd first (when given), then every project dir of every
// profile (which also finds CLAUDE_CODE_PROJECT_DIR_NAME-named dirs). A
// plain transcript wins over an archive of the same session. "" when none.
func FindTranscript(id string, profs []profiles.Profile, cwd string) string {
	p, _ := findTranscript2(id, profs, cwd)
	return p
}

// findTranscript2 is FindTranscript with ReadOnce's note when the archive
// copy is kept over the live file.
func findTranscript2(id string, profs []profiles.Profile, cwd string) (string, []error) {
	dirs := ProjectsDirs(profs)
	if cwd != "" {
		for _, pd := range dirs {
			for _, slug := range ProjectDirsFor(cwd) {
				if p := transcriptIn(filepath.Join(pd.Path, slug), id); p != "" {
					return p, nil
				}
			}
		}
	}
	var live, copy string
	for _, pd := range dirs {
		if pd.Archive {
			if copy == "" {
				copy = findTranscript(pd.Path, id, "")
			}
		} else if live == "" {
			live = findTranscript(pd.Path, id, "")
		}
	}
	if live != "" && copy != "" {
		if kept, notes := ReadOnce([]Session{fileSession(live, SourceLive), fileSession(copy, SourceArchive)}); len(kept) == 1 {
			return kept[0].TranscriptPath, notes
		}
	}
	if live != "" {
		return live, nil
	}
	return copy, nil
}

// fileSession is the file fields ReadOnce compares of one transcript.
func fileSession(path, source string) Session {
	id, compressed, _ := layout.Transcript(filepath.Base(path))
	s := Session{SessionID: id, TranscriptPath: path, Compressed: compressed, Source: source}
	if fi, err := os.Stat(path); err == nil {
		s.SizeBytes = fi.Size()
	}
	return s
}

// sessionAt summarises the transcript at path, naming the profiles that
// share its projects dir.
func sessionAt(ctx context.Context, path string, profs []profiles.Profile, a *Active, opt FindOptions) (Session, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return Session{}, err
	}
	id, compressed, _ := layout.Transcript(filepath.Base(path))
	projectDir := filepath.Dir(path)
	s := Session{
		SessionID: id, TranscriptPath: path, ProjectDir: projectDir, SizeBytes: fi.Size(),
		Compressed: compressed, Mtime: fi.ModTime(), Active: a,
	}
	projectsDir := profiles.Resolve(filepath.Dir(projectDir))
	s.Source = SourceLive
	for _, pd := range ProjectsDirs(profs) {
		if pd.Path == projectsDir {
			s.Profiles = append(s.Profiles, pd.Profiles...)
			if pd.Archive {
				s.Source = SourceArchive
			}
		}
	}
	if a != nil && len(s.Profiles) == 0 {
		s.Profiles = []string{a.Profile}
	}
	list := []Session{s}
	if errs := Summarize(ctx, list, ListOptions{Cache: opt.Cache}); len(errs) > 0 {
		return Session{}, errors.Join(errs...)
	}
	s = list[0]
	if s.Active == nil && opt.Active != nil {
		for i := range opt.Active {
			if opt.Active[i].SessionID == s.SessionID {
				s.Active = &opt.Active[i]
			}
		}
	}
	return s, nil
}
