package search

import (
	"errors"
	"github.com/ccpipe/ccpipe/lib/layout"
	"github.com/ccpipe/ccpipe/lib/regular"
	"github.com/ccpipe/ccpipe/lib/transcript"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// File kinds, as --matches names them.
const (
	KindTranscript = "transcript"
	KindSubagent   = "subagent"
	KindToolResult = "tool_result"
)

// File is one file of a session.
type File struct {
	Path string
	Kind string
}

// SessionFiles lists what cc-grep searches for one session: the main
// transcript, then <session dir>/subagents/*.jsonl (compressed ones too),
// then every file in <session dir>/tool-results, each group in name order.
// A missing session dir is normal (a session without subagents); another
// error reading it is returned with the files found so far.
func SessionFiles(transcriptPath string) ([]File, error) {
	return SessionFilesFrom(transcriptPath, os.ReadDir)
}

// SessionFilesFrom is SessionFiles with the directories read by readDir
// (os.ReadDir, or a listing kept by an index): the session dir first,
// then each of its subagents and tool-results dirs that it names. When
// the session dir names neither, nothing more is read; when it cannot be
// read for another reason than its absence, both are read as if it named
// them (the dir may be searchable but not readable).
func SessionFilesFrom(transcriptPath string, readDir func(string) ([]fs.DirEntry, error)) ([]File, error) {
	return AppendSessionFiles(nil, transcriptPath, readDir)
}

// AppendSessionFiles is SessionFilesFrom appending to files (a caller's
// slice kept from one session to the next).
func AppendSessionFiles(files []File, transcriptPath string, readDir func(string) ([]fs.DirEntry, error)) ([]File, error) {
	files = append(files, File{Path: transcriptPath, Kind: KindTranscript})
	dir := layout.SessionDir(transcriptPath)
	if dir == transcriptPath {
		return files, nil
	}
	top, err := readDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return files, nil
	}
	named := func(sub string) bool {
		if err != nil {
			return true
		}
		for _, e := range top {
			if e.Name() == sub {
				return true
			}
		}
		return false
	}
	var errs []error
	add := func(sub, kind string, keep func(string) bool) {
		if !named(sub) {
			return
		}
		subdir := filepath.Join(dir, sub)
		entries, err := readDir(subdir)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
			return
		}
		for _, e := range entries {
			if e.IsDir() || !keep(e.Name()) {
				continue
			}
			p := subdir + "/" + e.Name() // filepath.Join's answer: subdir is clean, the name one element
			if e.Type().IsRegular() || e.Type()&fs.ModeSymlink != 0 {
				files = append(files, File{Path: p, Kind: kind}) // a symlink is checked when opened
			} else {
				errs = append(errs, &regular.NotRegularError{Path: p, Mode: e.Type()})
			}
		}
	}
	add(layout.SubagentsDir, KindSubagent, func(name string) bool {
		_, _, ok := layout.SubagentTranscript(name)
		return ok
	})
	add(layout.ToolResultsDir, KindToolResult, func(name string) bool {
		// In an archive, a copy's .idx sidecar is not the session's.
		return !strings.HasSuffix(name, ".zst"+transcript.IndexSuffix)
	})
	return files, errors.Join(errs...)
}
