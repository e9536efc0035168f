package sessions

import (
	"context"
	"errors"
	"fmt"
	"github.com/ccpipe/ccpipe/lib/cache"
	"github.com/ccpipe/ccpipe/lib/regular"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/ccpipe/ccpipe/lib/layout"
	"github.com/ccpipe/ccpipe/lib/profiles"
	"github.com/ccpipe/ccpipe/lib/registry"
)

// ProjectsDir is one distinct projects dir and the names of every profile
// that uses it (profiles often share one through a symlink).
type ProjectsDir struct {
	Path     string   // symlink-resolved
	Profiles []string // in the order the profiles were given
	Archive  bool     // an archive dir (profiles.SourceArchive): its sessions are copies
}

// ProjectsDirs groups the profiles by their resolved projects dir, so a
// listing reads each dir once.
func ProjectsDirs(profs []profiles.Profile) []ProjectsDir {
	var out []ProjectsDir
	index := map[string]int{}
	for _, p := range profs {
		dir := p.ProjectsDir
		if dir == "" {
			dir = layout.ProjectsDir(p.ConfigDir)
		}
		dir = profiles.Resolve(dir)
		i, ok := index[dir]
		if !ok {
			i = len(out)
			index[dir] = i
			out = append(out, ProjectsDir{Path: dir, Archive: profiles.IsArchive(p)})
		}
		out[i].Profiles = append(out[i].Profiles, p.Name)
	}
	return out
}

// ListOptions tunes a listing.
type ListOptions struct {
	// CwdWithin keeps only sessions launched in one of these dirs or
	// below (given and symlink-resolved spellings both match), and reads
	// only the project dirs whose name can hold such a session.
	CwdWithin []string
	// HeadBytes and TailBytes bound what is read of each transcript
	// (defaults DefaultHeadBytes, DefaultTailBytes).
	HeadBytes, TailBytes int64
	// Workers reads this many transcripts at once (default 4).
	Workers int
	// Host checks the liveness of running sessions (default the local host).
	Host *registry.Host
	// Getenv reads this process's environment, for the scratchpad guess
	// (nil: an empty one).
	Getenv func(string) string
	// NoActive skips the registries: Active stays nil everywhere.
	NoActive bool
	// Cache, when set, keeps each plain transcript's summary, and the
	// refusal of each compressed one that is a bomb (SummaryCacheName):
	// an unchanged transcript is not read again.
	Cache *cache.Store
	// ReadDir, when set, lists a session dir and its subagents dir for
	// the summaries (whether a custom-title.json is there to read, whether
	// a subagent transcript is): a listing kept by an index
	// (searchindex.Index.ReadDir), os.ReadDir's answer for an unchanged
	// dir. Nil: the dirs are read.
	ReadDir func(dir string) ([]fs.DirEntry, error)
	// ModifiedSince, when set, leaves unread each transcript written
	// before it (Session.WrittenBefore): its session has the file's
	// fields only and the mtime as its last activity, which is before
	// ModifiedSince, so a --since of that time drops it either way.
	ModifiedSince time.Time
}

// Files lists the session transcript files of the projects dirs without
// reading them: only <uuid>.jsonl (.gz, .zst) directly in a project dir
// counts. The sessions carry the file fields only (id, path, project dir,
// profiles, size, compressed, mtime). An unreadable dir is reported and
// skipped.
func Files(ctx context.Context, dirs []ProjectsDir, cwdWithin []string) ([]Session, []error) {
	return files(ctx, dirs, cwdWithin, nil)
}

// files is Files, with c (nil: none) remembering the archive copies that
// ReadOnce refused as compression bombs.
func files(ctx context.Context, dirs []ProjectsDir, cwdWithin []string, c *cache.Store) ([]Session, []error) {
	var m *withinMatcher
	if len(cwdWithin) > 0 {
		m = newWithinMatcher(cwdWithin)
	}
	var errs []error
	var projects []project
	for _, pd := range dirs {
		ents, err := os.ReadDir(pd.Path)
		if err != nil {
			if !errors.Is(err, os.ErrNotExist) {
				errs = append(errs, fmt.Errorf("listing %s: %w", pd.Path, err))
			}
			continue
		}
		for _, e := range ents {
			if m != nil && !m.dirName(e.Name()) {
				continue
			}
			projectDir := filepath.Join(pd.Path, e.Name())
			if isDir(e, projectDir) {
				projects = append(projects, project{dir: projectDir, pd: pd})
			}
		}
	}
	listProjects(ctx, projects)
	n := 0
	for _, p := range projects {
		n += len(p.found)
	}
	out := make([]Session, 0, n)
	for _, p := range projects {
		if p.cancelled {
			return out, append(errs, ctx.Err())
		}
		errs = append(errs, p.errs...)
		out = append(out, p.found...)
	}
	kept, notes := readOnce(out, c)
	return kept, append(errs, notes...)
}

// project is one project dir to list, and what its listing found.
type project struct {
	dir       string
	pd        ProjectsDir
	found     []Session
	errs      []error
	cancelled bool // the context was done before it was listed
}

// listProjects lists the project dirs on as many goroutines as there are
// CPUs, each taking the next dir as it becomes free: the listing is what
// a warm search from an index waits for before it starts. The results
// stay in the dirs' order.
func listProjects(ctx context.Context, projects []project) {
	var next atomic.Int64
	work := func() {
		for {
			i := int(next.Add(1) - 1)
			if i >= len(projects) {
				return
			}
			p := &projects[i]
			if ctx.Err() != nil {
				p.cancelled = true
				continue
			}
			p.found, p.errs = projectFiles(p.dir, p.pd.Profiles)
			for j := range p.found {
				p.found[j].Source = SourceLive
				if p.pd.Archive {
					p.found[j].Source = SourceArchive
				}
			}
		}
	}
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(projects)) - 1 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work()
		}()
	}
	work()
	wg.Wait()
}

func isDir(e os.DirEntry, path string) bool {
	if e.IsDir() {
		return true
	}
	if e.Type()&os.ModeSymlink == 0 {
		return false
	}
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// projectFiles lists one project dir's transcripts. A transcript name
// that is not a regular file (a FIFO, a socket, a device, a symlink to
// one) is reported and skipped: reading it would block or never end.
func projectFiles(projectDir string, profs []string) ([]Session, []error) {
	ents, err := os.ReadDir(projectDir)
	if err != nil {
		return nil, []error{fmt.Errorf("listing %s: %w", projectDir, err)}
	}
	var errs []error
	dirs := map[string]bool{} // true: a dir; false: another entry of the name
	for _, e := range ents {
		if layout.IsUUID(e.Name()) {
			dirs[e.Name()] = e.IsDir()
		}
	}
	n := 0
	for _, e := range ents {
		if _, _, ok := layout.Transcript(e.Name()); ok {
			n++
		}
	}
	out := make([]Session, 0, n) // a Session is large: no doubling as it fills
	for _, e := range ents {
		id, compressed, ok := layout.Transcript(e.Name())
		if !ok || e.IsDir() {
			continue
		}
		_, named := dirs[id]
		path := filepath.Join(projectDir, e.Name())
		st, mode, err := cache.StatPath(path) // follows a symlinked transcript
		if err != nil {
			continue // a dangling symlink, or gone since the listing
		}
		if mode != 0 {
			if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
				errs = append(errs, &regular.NotRegularError{Path: path, Mode: fi.Mode()})
			}
			continue
		}
		out = append(out, Session{
			SessionID: id, TranscriptPath: path, ProjectDir: projectDir,
			Profiles: append([]string(nil), profs...), SizeBytes: st.Size,
			Compressed: compressed, Mtime: time.Unix(0, st.MtimeNS), noDir: !dirs[id],
			noEntry: !named, stamp: st, listed: true,
		})
	}
	return out, errs
}

// List lists every session of the profiles: each transcript (head and tail
// read), joined by session id with the running session of any profile's
// registry, plus running sessions that have no transcript yet. The result
// is sorted newest activity first. Problems that did not stop the listing
// come back as errors.
func List(ctx context.Context, profs []profiles.Profile, opt ListOptions) ([]Session, []error) {
	found, errs := files(ctx, ProjectsDirs(profs), opt.CwdWithin, opt.Cache)
	out, cerrs := complete(ctx, profs, found, opt, true)
	return out, append(errs, cerrs...)
}

// complete is List after the file listing; orphans adds the running
// sessions that have no transcript among files.
func complete(ctx context.Context, profs []profiles.Profile, files []Session, opt ListOptions, orphans bool) ([]Session, []error) {
	// The transcripts written before opt.ModifiedSince go to the end,
	// unread, with their mtime as their last activity; join sorts.
	fresh := files
	if !opt.ModifiedSince.IsZero() {
		sort.SliceStable(files, func(i, j int) bool {
			return !files[i].WrittenBefore(opt.ModifiedSince) && files[j].WrittenBefore(opt.ModifiedSince)
		})
		n := 0
		for n < len(files) && !files[n].WrittenBefore(opt.ModifiedSince) {
			n++
		}
		fresh = files[:n]
		for i := n; i < len(files); i++ {
			files[i].LastActivityAt = files[i].Mtime
		}
	}
	errs := Summarize(ctx, fresh, opt)
	var actives []Active
	if !opt.NoActive {
		var aerrs []error
		actives, aerrs = ActiveSessions(ctx, profs, ActiveOptions{Host: opt.Host, Getenv: opt.Getenv})
		errs = append(errs, aerrs...)
	}
	return join(files, actives, opt.CwdWithin, orphans), errs
}

// join drops the vanished sessions and those launched outside cwdWithin,
// gives each the newest running session of its id, adds (with orphans)
// the running sessions that have no transcript, and sorts newest first.
func join(files []Session, actives []Active, cwdWithin []string, orphans bool) []Session {
	var m *withinMatcher
	if len(cwdWithin) > 0 {
		m = newWithinMatcher(cwdWithin)
	}
	out := make([]Session, 0, len(files)) // a Session is large: no doubling as it fills (orphans may add some)
	byID := make(map[string][]int, len(files))
	for _, s := range files {
		if s.SizeBytes < 0 {
			continue // vanished while listing
		}
		if m != nil && !m.cwd(s.Cwd) {
			continue
		}
		byID[s.SessionID] = append(byID[s.SessionID], len(out))
		out = append(out, s)
	}
	for i := range actives {
		a := &actives[i]
		if idx, ok := byID[a.SessionID]; ok && a.SessionID != "" {
			for _, j := range idx {
				if out[j].Active == nil || a.UpdatedAt.After(out[j].Active.UpdatedAt) {
					out[j].Active = a
				}
			}
			continue
		}
		if !orphans {
			continue
		}
		s := FromActive(*a)
		if m != nil && !m.cwd(s.Cwd) {
			continue
		}
		out = append(out, s)
	}
	SortNewestFirst(out)
	return out
}

// Completer makes full session records of some of the transcripts Files
// listed, handed to it one at a time, as List makes them of all:
// summarised, those launched outside opt.CwdWithin or vanished meanwhile
// dropped, joined with their running session, newest activity first;
// running sessions without a transcript are not added. It works while its
// caller goes on: Add queues a session to be summarised by background
// workers, the registries are read meanwhile, and Done has only to join
// and sort. cc-grep adds each session as its search matches it, so that
// only the matches' heads and tails are read, during the search. Add is
// safe for concurrent use.
type Completer struct {
	ctx     context.Context
	opt     ListOptions
	mu      sync.Mutex
	more    *sync.Cond // signalled when files grows or Done starts
	files   []Session
	next    int // the first file no worker has taken yet
	closed  bool
	errs    []error
	wg      sync.WaitGroup
	actives []Active
	aerrs   []error
	read    chan struct{} // closed once actives and aerrs are set
}

// NewCompleter starts the workers and the registry reading.
func NewCompleter(ctx context.Context, profs []profiles.Profile, opt ListOptions) *Completer {
	c := &Completer{ctx: ctx, opt: opt, read: make(chan struct{})}
	c.more = sync.NewCond(&c.mu)
	go func() {
		defer close(c.read)
		if !opt.NoActive {
			c.actives, c.aerrs = ActiveSessions(ctx, profs, ActiveOptions{Host: opt.Host, Getenv: opt.Getenv})
		}
	}()
	workers := opt.Workers
	if workers <= 0 {
		workers = 4
	}
	c.wg.Add(workers)
	for range workers {
		go c.work()
	}
	return c
}

// Add queues a session listed by Files. It never blocks on the work.
func (c *Completer) Add(s Session) {
	c.mu.Lock()
	c.files = append(c.files, s)
	c.mu.Unlock()
	c.more.Signal()
}

func (c *Completer) work() {
	defer c.wg.Done()
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		for c.next == len(c.files) && !c.closed {
			c.more.Wait()
		}
		if c.next == len(c.files) {
			return
		}
		i := c.next
		c.next++
		s := c.files[i] // a copy: Add may move the slice meanwhile
		c.mu.Unlock()
		var err error
		if c.ctx.Err() == nil {
			err = summarizeOne(&s, c.opt)
		}
		c.mu.Lock()
		switch {
		case errors.Is(err, os.ErrNotExist):
			s.SizeBytes = -1
		case err != nil:
			c.errs = append(c.errs, err)
		}
		c.files[i] = s
	}
}

// Done waits for the queued sessions and returns their records, with the
// problems met.
func (c *Completer) Done() ([]Session, []error) {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.more.Broadcast()
	c.wg.Wait()
	<-c.read
	errs := append(c.errs, c.aerrs...)
	if err := c.ctx.Err(); err != nil {
		errs = append(errs, err)
	}
	return join(c.files, c.actives, c.opt.CwdWithin, false), errs
}

// FromActive is the session record of a running session that has no
// transcript (yet): what the registry knows.
func FromActive(a Active) Session {
	s := Session{
		SessionID: a.SessionID, TranscriptPath: a.TranscriptPath, Profiles: []string{a.Profile},
		Cwd: a.Cwd, StartedAt: a.StartedAt, LastActivityAt: a.UpdatedAt, Active: &a,
		Source: SourceLive,
	}
	if a.TranscriptPath != "" {
		s.ProjectDir = filepath.Dir(a.TranscriptPath)
		if fi, err := os.Stat(a.TranscriptPath); err == nil {
			s.SizeBytes = fi.Size()
		}
	}
	if s.LastActivityAt.IsZero() {
		s.LastActivityAt = a.StartedAt
	}
	return s
}

// SortNewestFirst orders sessions by last activity, newest first; ties by
// session id, then path, so the order is stable.
func SortNewestFirst(list []Session) {
	// The indices are sorted, then each session moved once: a Session is
	// big, and a stable sort's merges move each many times (4% of a warm
	// cc-grep matching 1001 sessions). The index breaks the last ties,
	// as a stable sort keeps them.
	idx := make([]int, len(list))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(i, j int) int {
		a, b := &list[i], &list[j]
		if c := b.LastActivityAt.Compare(a.LastActivityAt); c != 0 {
			return c
		}
		if c := strings.Compare(a.SessionID, b.SessionID); c != 0 {
			return c
		}
		if c := strings.Compare(a.TranscriptPath, b.TranscriptPath); c != 0 {
			return c
		}
		return i - j
	})
	sorted := make([]Session, len(list))
	for k, i := range idx {
		sorted[k] = list[i]
	}
	copy(list, sorted)
}

// Summarize fills in what the head and tail of each transcript tell
// (cwd, title, first prompt, times, subagents), reading a bounded number
// of bytes per plain transcript, several at once. A transcript that
// vanished meanwhile gets SizeBytes -1.
func Summarize(ctx context.Context, list []Session, opt ListOptions) []error {
	workers := opt.Workers
	if workers <= 0 {
		workers = 4
	}
	var mu sync.Mutex
	var errs []error
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for i := range list {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			if err := summarizeOne(&list[i], opt); err != nil {
				if errors.Is(err, os.ErrNotExist) {
					list[i].SizeBytes = -1
					return nil
				}
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
			return nil
		})
	}
	_ = g.Wait()
	if ctx.Err() != nil {
		errs = append(errs, ctx.Err())
	}
	return errs
}

func summarizeOne(s *Session, opt ListOptions) error {
	var sum summary
	var err error
	if opt.Cache != nil && opt.HeadBytes == 0 && opt.TailBytes == 0 {
		var listed *cache.Stamp
		if s.listed {
			listed = &s.stamp
		}
		sum, err = cachedSummary(opt.Cache, s.TranscriptPath, listed, s.SizeBytes, s.Compressed, opt.HeadBytes, opt.TailBytes)
	} else {
		sum, err = readSummary(s.TranscriptPath, s.SizeBytes, s.Compressed, opt.HeadBytes, opt.TailBytes)
	}
	if errors.Is(err, os.ErrNotExist) {
		return err
	}
	// Any other error (a damaged archive, an unreadable file) is reported
	// by the caller; the record still gets what was read, and the mtime as
	// its last activity, so that it sorts by time like the others.
	sessDir := filepath.Join(s.ProjectDir, s.SessionID)
	s.Cwd = sum.cwd
	s.FirstPrompt = sum.firstPrompt
	s.StartedAt = sum.started
	s.LastActivityAt = sum.last
	if s.LastActivityAt.IsZero() {
		s.LastActivityAt = s.Mtime
	}
	s.BytesRead = sum.bytesRead
	if opt.ReadDir != nil && !s.noDir {
		s.Title = sum.titleListed(sessDir, opt.ReadDir)
		s.HasSubagents = hasSubagentsListed(sessDir, opt.ReadDir)
		return err
	}
	s.Title = sum.title(sessDir, s.noDir)
	s.HasSubagents = !s.noDir && hasSubagents(sessDir)
	return err
}

// hasSubagentsListed is hasSubagents from ListOptions.ReadDir.
func hasSubagentsListed(sessDir string, readDir func(string) ([]fs.DirEntry, error)) bool {
	ents, err := readDir(filepath.Join(sessDir, layout.SubagentsDir))
	if errors.Is(err, fs.ErrNotExist) {
		return false
	}
	if err != nil {
		return hasSubagents(sessDir) // the plain way says what it can
	}
	for _, e := range ents {
		if _, _, ok := layout.SubagentTranscript(e.Name()); ok {
			return true
		}
	}
	return false
}

// hasSubagents reports whether <session dir>/subagents holds a transcript.
func hasSubagents(sessDir string) bool {
	f, err := os.Open(filepath.Join(sessDir, layout.SubagentsDir))
	if err != nil {
		return false
	}
	defer f.Close()
	for {
		names, err := f.Readdirnames(64)
		for _, n := range names {
			if _, _, ok := layout.SubagentTranscript(n); ok {
				return true
			}
		}
		if err != nil {
			return false
		}
	}
}
