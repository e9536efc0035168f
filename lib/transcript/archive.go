package transcript

import (
	"context"
	"errors"
	"fmt"
	"github.com/ccpipe/ccpipe/lib/regular"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// ArchiveResult reports one file of an Archive run.
type ArchiveResult struct {
	Path        string `json:"path"`
	ArchivePath string `json:"archive_path"`
	// Status is "written" or "up_to_date" (the copy has the source's
	// modification time, so it was written from this version).
	Status       string `json:"status"`
	Bytes        int64  `json:"bytes"`         // size of the source file
	ArchiveBytes int64  `json:"archive_bytes"` // size of the copy
}

// ErrArchiveInConfigDir is wrapped by Archive's error when the archive
// dir lies inside the source's config dir: ccpipe never writes there, and
// the refusal holds for every session of that config dir alike.
var ErrArchiveInConfigDir = errors.New("refusing to archive into a config dir")

// Archive writes zstd copies of a session's files into dir, so they
// outlive Claude Code's cleanup: the transcript as
// dir/<project dir name>/<session id>.jsonl.zst, and everything under the
// session dir (subagents, tool-results) alongside, under
// dir/<project dir name>/<session id>/, each file compressed with ".zst"
// added, except .json files (metadata, kept readable) which are copied.
// A gzip source is recompressed; a zstd source is copied. Originals are
// only ever opened for reading. A copy whose modification time equals its
// source's is up to date and skipped. fn gets a result per file.
func Archive(ctx context.Context, transcriptPath, dir string, fn func(ArchiveResult) error) error {
	src, err := filepath.Abs(transcriptPath)
	if err != nil {
		return err
	}
	dst, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if cfg := ConfigDirOf(src); cfg != "" && within(dst, cfg) {
		return fmt.Errorf("%w: %s is inside the config dir %s", ErrArchiveInConfigDir, dir, cfg)
	}
	project := filepath.Base(filepath.Dir(src))
	base, _ := TrimSuffix(filepath.Base(src))
	out := filepath.Join(dst, project)
	res, err := archiveFile(src, filepath.Join(out, base+".jsonl.zst"))
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
		if !de.Type().IsRegular() {
			return nil
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
		res, err := archiveFile(p, target)
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
		if filepath.Base(d) == "projects" {
			return filepath.Dir(d)
		}
	}
	return ""
}

func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// archiveFile writes one copy through a temporary file and a rename, so a
// reader never sees half a copy.
func archiveFile(src, dst string) (ArchiveResult, error) {
	res := ArchiveResult{Path: src, ArchivePath: dst}
	sfi, err := os.Stat(src)
	if err != nil {
		return res, err
	}
	res.Bytes = sfi.Size()
	if dfi, err := os.Stat(dst); err == nil && dfi.ModTime().Equal(sfi.ModTime()) {
		res.Status, res.ArchiveBytes = "up_to_date", dfi.Size()
		return res, nil
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return res, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".tmp*")
	if err != nil {
		return res, err
	}
	defer os.Remove(tmp.Name()) // a no-op after the rename
	if err := writeCopy(src, dst, tmp); err != nil {
		tmp.Close()
		return res, fmt.Errorf("archiving %s: %w", src, err)
	}
	if err := tmp.Close(); err != nil {
		return res, err
	}
	if err := os.Chtimes(tmp.Name(), sfi.ModTime(), sfi.ModTime()); err != nil {
		return res, err
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return res, err
	}
	if dfi, err := os.Stat(dst); err == nil {
		res.ArchiveBytes = dfi.Size()
	}
	res.Status = "written"
	return res, nil
}

func writeCopy(src, dst string, w io.Writer) error {
	if !strings.HasSuffix(dst, ".zst") || CompressionOf(src) == Zstd {
		f, err := regular.Open(src)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(w, f)
		return err
	}
	r, err := Open(src)
	if err != nil {
		return err
	}
	defer r.Close()
	zw, err := zstd.NewWriter(w, zstd.WithEncoderConcurrency(1))
	if err != nil {
		return err
	}
	if _, err := io.Copy(zw, r); err != nil {
		zw.Close()
		return err
	}
	return zw.Close()
}
