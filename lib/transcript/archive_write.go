package transcript

import (
	"bytes"
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
	"time"

	"github.com/ccpipe/ccpipe/lib/cache"
	"github.com/ccpipe/ccpipe/lib/regular"
	"github.com/klauspost/compress/zstd"
	"golang.org/x/sys/unix"
)

// IndexSuffix ends the sidecar of a zstd copy: the content length and the
// hash of the source bytes the copy holds, so that a grown source is
// archived by appending a frame of only its new bytes, a rewritten one is
// copied again, and a reader learns the copy's length without
// decompressing it.
const IndexSuffix = ".idx"

// archiveIndex is the sidecar's content. ArchiveBytes ties it to one
// state of the copy: a crash between writing the copy and its sidecar
// leaves a sidecar that no longer matches, and it is then ignored. Source
// is the stamp of the source the copy was made from: the copy is up to
// date only while the source still has it (size, mtime, ctime, inode), so
// a source that grew with its mtime set back, or was rewritten with cp -p,
// is copied again. Sum is the sidecar's own check: a sidecar edited by
// hand, or half written, is not believed.
type archiveIndex struct {
	Length       int64       `json:"length"`        // bytes of source content held; -1: not counted
	SHA256       string      `json:"sha256"`        // of those bytes
	ArchiveBytes int64       `json:"archive_bytes"` // size of the copy it describes
	Frames       int         `json:"frames"`        // zstd frames in the copy
	Source       cache.Stamp `json:"source"`
	Sum          string      `json:"sum"`
}

// sum is the sidecar's check: a hash of every other field.
func (ix archiveIndex) sum() string {
	ix.Sum = ""
	b, _ := json.Marshal(ix)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:8])
}

// maxIndex bounds a sidecar (a few hundred bytes when real).
const maxIndex = 1 << 16

// readIndex returns the sidecar of the copy at dst when it describes the
// copy as it is now. The archive's files are ccpipe's own: neither is
// read through a symlink (lib/regular.OpenOwned).
func readIndex(dst string) (archiveIndex, bool) {
	var ix archiveIndex
	b, err := regular.ReadFileOwned(dst+IndexSuffix, maxIndex)
	if err != nil || json.Unmarshal(b, &ix) != nil || ix.Sum != ix.sum() {
		return ix, false
	}
	fi, err := os.Lstat(dst)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != ix.ArchiveBytes || ix.Length < -1 {
		return ix, false
	}
	return ix, true
}

// upToDate says whether the copy at dst was made from the source as it is
// now (sfi): not by the mtime alone, which a writer can keep. A .zst copy
// has a sidecar naming the source's whole stamp; any other copy (a .json
// metadata file, copied byte for byte) is compared byte for byte.
func upToDate(src, dst string, sfi os.FileInfo) (int64, bool) {
	dfi, err := os.Lstat(dst)
	if err != nil || !dfi.Mode().IsRegular() || !dfi.ModTime().Equal(sfi.ModTime()) {
		return 0, false
	}
	if strings.HasSuffix(dst, ".zst") {
		ix, ok := readIndex(dst)
		return dfi.Size(), ok && cache.Judge(ix.Source, ix.Source.Size, cache.StampOf(sfi)) == cache.Fresh
	}
	if dfi.Size() != sfi.Size() || sfi.Size() > maxCompared {
		return 0, false
	}
	a, err1 := regular.ReadFile(src, maxCompared)
	b, err2 := regular.ReadFileOwned(dst, maxCompared)
	return dfi.Size(), err1 == nil && err2 == nil && bytes.Equal(a, b)
}

// maxCompared bounds the uncompressed copies compared byte for byte
// (metadata files: a few hundred bytes when real); a larger one is copied.
const maxCompared = 4 << 20

// ArchivedLength is the length of the content of a compressed transcript
// (an archive copy): from its sidecar when that matches the copy, else by
// decompressing it; -1 when it cannot be read.
func ArchivedLength(path string) int64 {
	n, _ := ArchivedLengthErr(path)
	return n
}

// ArchivedLengthErr is ArchivedLength with the reason of a -1 (ErrBomb
// wrapped for a copy that decompresses past its bound).
func ArchivedLengthErr(path string) (int64, error) {
	if ix, ok := readIndex(path); ok && ix.Length >= 0 {
		return ix.Length, nil
	}
	r, err := Open(path)
	if err != nil {
		return -1, err
	}
	defer r.Close()
	n, err := io.Copy(io.Discard, r)
	if err != nil {
		return -1, err
	}
	return n, nil
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
	if size, ok := upToDate(src, dst, sfi); ok {
		res.Status, res.ArchiveBytes = "up_to_date", size
		return res, nil
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return res, err
	}
	zst := strings.HasSuffix(dst, ".zst")
	indexed := zst && CompressionOf(src) == Plain && !hasMagic(src)
	ix := archiveIndex{Length: -1}
	var h hash.Hash
	status := "written"
	if indexed {
		h = sha256.New()
		ix.Length = 0
		if old, ok := readIndex(dst); ok && old.Length > 0 && old.Length <= sfi.Size() && prefixMatches(src, old, h) {
			ix, status = old, "appended"
		} else {
			h.Reset()
		}
	}
	if status == "appended" && ix.Length == sfi.Size() {
		// The bytes match the copy whole: the stat said otherwise only
		// because the sidecar's stamp was racy (cache.RacyWindow). The
		// copy stays; the sidecar takes the settled stamp.
		return res, rewriteSidecar(dst, ix, sfi, &res)
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
	dfi, err := os.Lstat(dst)
	if err != nil {
		return res, err
	}
	res.ArchiveBytes, res.Status = dfi.Size(), status
	if zst {
		if indexed {
			ix.SHA256 = hex.EncodeToString(h.Sum(nil))
		}
		ix.ArchiveBytes, ix.Source = dfi.Size(), cache.StampOf(sfi)
		if err := writeSidecar(dst, ix); err != nil {
			return res, err
		}
	}
	return res, nil
}

// rewriteSidecar keeps a copy that is up to date and gives its sidecar the
// source's present stamp.
func rewriteSidecar(dst string, ix archiveIndex, sfi os.FileInfo, res *ArchiveResult) error {
	dfi, err := os.Lstat(dst)
	if err != nil {
		return err
	}
	ix.ArchiveBytes, ix.Source = dfi.Size(), cache.StampOf(sfi)
	res.ArchiveBytes, res.Status = dfi.Size(), "up_to_date"
	return writeSidecar(dst, ix)
}

func writeSidecar(dst string, ix archiveIndex) error {
	ix.Sum = ix.sum()
	b, _ := json.Marshal(ix)
	return writeAtomic(dst+IndexSuffix, func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	}, nil)
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
// mod's modification time (when mod is not nil). A crash between the two
// costs one more copy. The archive's files are ccpipe's own: a symlink or
// a FIFO planted at path is replaced, never followed or written through.
func writeAtomic(path string, fill func(io.Writer) error, mod os.FileInfo) error {
	f, err := atomicfile.CreateOwned(path, 0o644)
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
		return chtimesNoFollow(path, mod.ModTime())
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

// chtimesNoFollow sets path's times without following a symlink: the
// copy was just renamed there, and a link put in its place meanwhile
// must not pass the times to its target.
func chtimesNoFollow(path string, t time.Time) error {
	ts := []unix.Timespec{unix.NsecToTimespec(t.UnixNano()), unix.NsecToTimespec(t.UnixNano())}
	return unix.UtimesNanoAt(unix.AT_FDCWD, path, ts, unix.AT_SYMLINK_NOFOLLOW)
}
