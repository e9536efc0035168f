package transcript

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/ccpipe/ccpipe/lib/regular"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// Compression is how a transcript file is stored.
type Compression int

// The storage formats Open understands.
const (
	Plain Compression = iota
	Gzip
	Zstd
)

func (c Compression) String() string {
	switch c {
	case Gzip:
		return "gzip"
	case Zstd:
		return "zstd"
	}
	return "plain"
}

var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// CompressionOf tells the format from the file name alone: .gz or .zst.
func CompressionOf(path string) Compression {
	switch {
	case strings.HasSuffix(path, ".gz"):
		return Gzip
	case strings.HasSuffix(path, ".zst"):
		return Zstd
	}
	return Plain
}

// Open opens a transcript read-only and returns its decompressed bytes.
// The format comes from the suffix (.gz, .zst); a file without one is
// checked for the gzip or zstd magic bytes, so a renamed archive still
// reads. Close releases the decoder and the file.
func Open(path string) (io.ReadCloser, error) {
	f, err := regular.Open(path)
	if err != nil {
		return nil, err
	}
	c := CompressionOf(path)
	if c == Plain {
		// ReadAt leaves the offset alone; a short file simply does not match.
		head := make([]byte, 4)
		n, _ := f.ReadAt(head, 0)
		switch {
		case bytes.HasPrefix(head[:n], zstdMagic):
			c = Zstd
		case bytes.HasPrefix(head[:n], gzipMagic):
			c = Gzip
		default:
			// Plain: the caller's own buffer reads the file directly.
			return f, nil
		}
	}
	rc, err := decompress(f, c)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("opening %s as %s: %w", path, c, err)
	}
	return &file{Reader: &bounded{r: rc, path: path, left: decompressLimit(path, f)}, closeFn: func() error {
		rc.Close()
		return f.Close()
	}}, nil
}

func decompress(r io.Reader, c Compression) (io.ReadCloser, error) {
	switch c {
	case Gzip:
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, err
		}
		return zr, nil
	case Zstd:
		zr, _ := zstdDecoders.Get().(*zstd.Decoder)
		if zr == nil {
			// One goroutine: transcripts are read one line at a time, and
			// the machine is shared with the rest of the pipe.
			var err error
			zr, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
			if err != nil {
				return nil, err
			}
		}
		if err := zr.Reset(r); err != nil {
			zstdDecoders.Put(zr)
			return nil, err
		}
		return pooledDecoder{zr}, nil
	}
	return io.NopCloser(r), nil
}

type file struct {
	io.Reader
	closeFn func() error
	closed  bool
}

func (f *file) Close() error {
	if f.closed {
		return errors.New("already closed")
	}
	f.closed = true
	return f.closeFn()
}

// zstdDecoders keeps decoders between files: a new one allocates its
// window buffers, which cost more than decoding a small transcript (an
// archive is many of them).
var zstdDecoders sync.Pool

// pooledDecoder gives its decoder back on Close instead of ending it.
type pooledDecoder struct{ d *zstd.Decoder }

func (p pooledDecoder) Read(b []byte) (int, error) { return p.d.Read(b) }

func (p pooledDecoder) Close() error {
	if p.d.Reset(nil) == nil {
		zstdDecoders.Put(p.d)
	}
	return nil
}

// ErrBomb is wrapped by the read error of a compressed transcript that
// decompresses past its bound (decompressLimit): a 1 MB file that expands
// to 32 GB is refused after the bound, not read through on every listing.
var ErrBomb = errors.New("decompresses past its bound")

// maxRatio and minBound bound a compressed transcript without a sidecar:
// real transcripts compress 5 to 30 times with zstd; past 256 times (and
// 64 MiB) the file is not a transcript's copy.
const (
	maxRatio = 256
	minBound = 64 << 20
)

// decompressLimit is how many bytes a compressed file may decompress to:
// the length its archive sidecar declares (an archive copy of ccpipe's),
// else maxRatio times its size, at least minBound.
func decompressLimit(path string, f *os.File) int64 {
	if ix, ok := readIndex(path); ok && ix.Length >= 0 {
		return ix.Length
	}
	fi, err := f.Stat()
	if err != nil {
		return minBound
	}
	return max(minBound, fi.Size()*maxRatio)
}

// bounded fails the read past left bytes with ErrBomb.
type bounded struct {
	r    io.Reader
	path string
	left int64
}

func (b *bounded) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One byte more tells a file that ends at its bound from a bomb.
		var one [1]byte
		n, err := b.r.Read(one[:])
		if n > 0 {
			return 0, fmt.Errorf("%s: refused: %w (a compression bomb, or a sidecar that does not describe it)", b.path, ErrBomb)
		}
		if err == nil {
			err = io.ErrNoProgress
		}
		return 0, err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	return n, err
}
