package transcript

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/ccpipe/ccpipe/lib/atomicfile"
	"hash"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ccpipe/ccpipe/lib/regular"
	"github.com/klauspost/compress/zstd"
)

// IndexSuffix ends the sidecar of a zstd copy: the content length and the
// hash of the source bytes the copy holds, so that a grown source is
// archived by appending a frame of only its new bytes, a rewritten one is
// copied again, and a reader learns the copy's length without
// decompressing it.
const IndexSuffix = ".idx"

// archiveIndex is the sidecar's content. ArchiveBytes ties it to one
// state of the copy: a crash between writing the copy and its sidecar
// leaves a sidecar that no longer matches, and it is then ignored.
type archiveIndex struct {
	Length       int64  `json:"length"`        // bytes of source content held
	SHA256       string `json:"sha256"`        // of those bytes
	ArchiveBytes int64  `json:"archive_bytes"` // size of the copy it describes
	Frames       int    `json:"frames"`        // zstd frames in the copy
}

// maxIndex bounds a sidecar (a hundred bytes when real).
const maxIndex = 1 << 16

// readIndex returns the sidecar of the copy at dst when it describes the
// copy as it is now.
func readIndex(dst string) (archiveIndex, bool) {
	var ix archiveIndex
	b, err := regular.ReadFile(dst+IndexSuffix, maxIndex)
	if err != nil || json.Unmarshal(b, &ix) != nil {
		return ix, false
	}
	fi, err := os.Stat(dst)
	if err != nil || fi.Size() != ix.ArchiveBytes || ix.Length < 0 {
		return ix, false
	}
	return ix, true
}

// ArchivedLength is the length of the content of a compressed transcript
// (an archive copy): from its sidecar when that matches the copy, else by
// decompressing it; -1 when it cannot be read.
func ArchivedLength(path string) int64 {
	if ix, ok := readIndex(path); ok {
		return ix.Length
	}
	r, err := Open(path)
	if err != nil {
		return -1
	}
	defer r.Close()
	n, err := io.Copy(io.Discard, r)
	if err != nil {
		return -1
	}
	return n
}

// archiveFile brings one copy up to date. A plain source archived as
// .zst before is appended to when it only grew (same bytes up to the
// copied length, by the sidecar's hash); otherwise the whole source is
// copied. Every write goes to a temporary file that is synced and renamed
// over the copy, so a crash or a full disk leaves the old copy or the new
// one, never a mix; a cancelled ctx (a signal) removes the temporary file.
func archiveFile(ctx context.Context, src, dst string) (ArchiveResult, error) {
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
	indexed := strings.HasSuffix(dst, ".zst") && CompressionOf(src) == Plain && !hasMagic(src)
	var ix archiveIndex
	var h hash.Hash
	status := "written"
	if indexed {
		h = sha256.New()
		if old, ok := readIndex(dst); ok && old.Length > 0 && old.Length <= sfi.Size() && prefixMatches(src, old, h) {
			ix, status = old, "appended"
		} else {
			h.Reset()
		}
	}
	err = writeAtomic(dst, func(w io.Writer) error {
		w = ctxWriter{ctx, w}
		if !indexed {
			return writeCopy(src, dst, w)
		}
		if status == "appended" {
			if err := copyFile(dst, w); err != nil {
				return err
			}
		}
		n, err := appendFrame(src, ix.Length, sfi.Size(), w, h)
		ix.Length += n
		ix.Frames++
		return err
	}, sfi)
	if err != nil {
		return res, fmt.Errorf("archiving %s: %w", src, err)
	}
	dfi, err := os.Stat(dst)
	if err != nil {
		return res, err
	}
	res.ArchiveBytes, res.Status = dfi.Size(), status
	if indexed {
		ix.SHA256, ix.ArchiveBytes = hex.EncodeToString(h.Sum(nil)), dfi.Size()
		b, _ := json.Marshal(ix)
		err := writeAtomic(dst+IndexSuffix, func(w io.Writer) error {
			_, err := w.Write(append(b, '\n'))
			return err
		}, nil)
		if err != nil {
			return res, err
		}
	}
	return res, nil
}

// hasMagic reports a compressed file without a compressed suffix.
func hasMagic(path string) bool {
	f, err := regular.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 4)
	n, _ := f.ReadAt(head, 0)
	return n == 4 && (string(head) == string(zstdMagic) || string(head[:2]) == string(gzipMagic))
}

// prefixMatches hashes the first ix.Length bytes of src into h and
// reports whether they are the bytes the copy holds.
func prefixMatches(src string, ix archiveIndex, h hash.Hash) bool {
	f, err := regular.Open(src)
	if err != nil {
		return false
	}
	defer f.Close()
	n, err := io.Copy(h, io.LimitReader(f, ix.Length))
	return err == nil && n == ix.Length && hex.EncodeToString(h.Sum(nil)) == ix.SHA256
}

// appendFrame writes src's bytes [from, to) to w as one zstd frame, and
// into h; it returns how many it wrote. A source that shrank meanwhile is
// an error: the copy would end short of what the index says.
func appendFrame(src string, from, to int64, w io.Writer, h hash.Hash) (int64, error) {
	f, err := regular.Open(src)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	zw, err := zstd.NewWriter(w, zstd.WithEncoderConcurrency(1))
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(io.MultiWriter(zw, h), io.NewSectionReader(f, from, to-from))
	if err == nil && n != to-from {
		err = fmt.Errorf("%s shrank while being copied", src)
	}
	if cerr := zw.Close(); err == nil {
		err = cerr
	}
	return n, err
}

func copyFile(path string, w io.Writer) error {
	f, err := regular.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}

// writeAtomic writes path through lib/atomicfile (a temporary file
// beside it, synced, renamed over it), filled by fill, then gives it
// mod's modification time (when mod is not nil): the next run finds the
// copy up to date. A crash between the two costs one more copy.
func writeAtomic(path string, fill func(io.Writer) error, mod os.FileInfo) error {
	f, err := atomicfile.Create(path, 0o644)
	if err != nil {
		return err
	}
	if err := fill(f); err != nil {
		f.Abort()
		return err
	}
	if err := f.Commit(); err != nil {
		return err
	}
	if mod != nil {
		return os.Chtimes(path, mod.ModTime(), mod.ModTime())
	}
	return nil
}

// writeCopy writes the whole of src as dst wants it: a .zst target of a
// compressed source recompressed (gzip) or copied (zstd), any other
// target (a .json meta file) copied byte for byte.
func writeCopy(src, dst string, w io.Writer) error {
	if !strings.HasSuffix(dst, ".zst") || CompressionOf(src) == Zstd {
		return copyFile(src, w)
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
