package transcript

import (
	"context"
	"errors"
	"fmt"
	"github.com/ccpipe/ccpipe/lib/layout"
	"github.com/ccpipe/ccpipe/lib/profiles"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ArchiveResult reports one file of an Archive run.
type ArchiveResult struct {
	Path        string `json:"path"`
	ArchivePath string `json:"archive_path"`
	// Status is "written" (a whole new copy), "appended" (the source
	// grew: a zstd frame of only the new bytes was added to the copy) or
	// "up_to_date" (the copy's sidecar names the source's size, mtime,
	// ctime and inode as they are now; a .json copy is equal byte for
	// byte).
	Status       string `json:"status"`
	Bytes        int64  `json:"bytes"`         // size of the source file
	ArchiveBytes int64  `json:"archive_bytes"` // size of the copy
}

// ErrArchiveInConfigDir is wrapped by Archive's error when the archive
// dir lies inside a config dir or a projects tree (see CheckArchiveDir):
// ccpipe never writes there, and the refusal holds for every session
// alike.
var ErrArchiveInConfigDir = errors.New("refusing to archive into a config dir")

// Archive writes zstd copies of a session's files into dir, so they
// outlive Claude Code's cleanup: the transcript as
// dir/<project dir name>/<session id>.jsonl.zst, and everything under the
// session dir (subagents, tool-results) alongside, under
// dir/<project dir name>/<session id>/, each file compressed with ".zst"
// added, except .json files (metadata, kept readable) which are copied.
// A gzip source is recompressed; a zstd source is copied. Originals are
// only ever opened for reading. A copy made from the source as it is now
// (its sidecar's stamp of the source, not the mtime alone) is up to date
// and skipped. The archive's files are ccpipe's own: a symlink or a FIFO
// planted where a copy or sidecar goes is replaced, never followed. fn
// gets a result per file.
func Archive(ctx context.Context, transcriptPath, dir string, fn func(ArchiveResult) error) error {
	src, err := filepath.Abs(transcriptPath)
	if err != nil {
		return err
	}
	dst, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	var own []string
	if cfg := ConfigDirOf(profiles.Resolve(src)); cfg != "" {
		own = append(own, cfg)
	}
	if cfg := ConfigDirOf(src); cfg != "" {
		own = append(own, cfg)
	}
	if err := CheckArchiveDir(dir, own); err != nil {
		return err
	}
	if within(profiles.Resolve(src), profiles.Resolve(dst)) {
		// A session read from this archive (CCPIPE_ARCHIVE, after the
		// sweep): the copy is its own source, nothing to write.
		fi, err := os.Stat(src)
		if err != nil {
			return err
		}
		return fn(ArchiveResult{Path: src, ArchivePath: src, Status: "up_to_date", Bytes: fi.Size(), ArchiveBytes: fi.Size()})
	}
	project := filepath.Base(filepath.Dir(src))
	base, _ := TrimSuffix(filepath.Base(src))
	out := filepath.Join(dst, project)
	res, err := archiveFile(ctx, src, filepath.Join(out, base+".jsonl.zst"))
	if err != nil {
		return err
	}
	if err := fn(res); err != nil {
		return err
	}
	sdir := SessionDir(src)
	if fi, err := os.Stat(sdir); err != nil || !fi.IsDir() {
		return nil
	}
	return filepath.WalkDir(sdir, func(p string, de fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !de.Type().IsRegular() || strings.HasSuffix(p, IndexSuffix) {
			return nil // a sidecar is written with its copy, never copied
		}
		rel, err := filepath.Rel(filepath.Dir(sdir), p)
		if err != nil {
			return err
		}
		target := filepath.Join(out, rel)
		switch {
		case strings.HasSuffix(p, ".json"), strings.HasSuffix(p, ".zst"):
		case strings.HasSuffix(p, ".gz"):
			target = strings.TrimSuffix(target, ".gz") + ".zst"
		default:
			target += ".zst"
		}
		res, err := archiveFile(ctx, p, target)
		if err != nil {
			return err
		}
		return fn(res)
	})
}

// ConfigDirOf returns the config dir of a file under
// <config dir>/projects/, or "".
func ConfigDirOf(path string) string {
	for d := filepath.Dir(path); d != filepath.Dir(d); d = filepath.Dir(d) {
		if filepath.Base(d) == layout.ProjectsName {
			return filepath.Dir(d)
		}
	}
	return ""
}

// CheckArchiveDir returns an error wrapping ErrArchiveInConfigDir when
// dir, with every symlink resolved (dir need not exist yet), lies inside
// one of configDirs (resolved too) or inside a Claude Code projects tree
// (a dir named projects that holds project dirs, "-home-..."): a copy
// there is a second transcript to Claude Code and to cc-sessions.
func CheckArchiveDir(dir string, configDirs []string) error {
	dst := profiles.Resolve(dir)
	for _, cfg := range configDirs {
		if cfg == "" {
			continue
		}
		if within(dst, profiles.Resolve(cfg)) {
			return fmt.Errorf("%w: %s is inside the config dir %s", ErrArchiveInConfigDir, dir, cfg)
		}
	}
	for d := dst; d != filepath.Dir(d); d = filepath.Dir(d) {
		if filepath.Base(d) == layout.ProjectsName && holdsProjectDirs(d) {
			return fmt.Errorf("%w: %s is inside the projects dir %s", ErrArchiveInConfigDir, dir, d)
		}
	}
	return nil
}

// holdsProjectDirs reports whether dir looks like a config dir's
// projects/: a project dir is named after its cwd, "/" turned to "-", or
// the dir sits beside a sessions dir or a .claude.json.
func holdsProjectDirs(dir string) bool {
	if layout.HasConfigMarks(filepath.Dir(dir), false) {
		return true
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if e.IsDir() && strings.HasPrefix(e.Name(), "-") {
			return true
		}
	}
	return false
}

func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// ctxWriter fails its writes once ctx is done.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}
