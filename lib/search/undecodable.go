package search

import (
	"bufio"
	"bytes"
	"io"

	"github.com/ccpipe/ccpipe/lib/transcript"
)

// A line whose raw bytes may hold a term but which does not decode (not
// a JSON record: cut short, damaged) cannot be searched: it is skipped,
// never silently. The scan and the index's verification (RegionHolds
// after At) count such lines alike, each once, and name the first.

// LineAt is a line of a file: its path and the byte offset of its start
// (in the decompressed bytes of an archive).
type LineAt struct {
	Path   string
	Offset int64
}

// Number is the line's 1-based number in its file, counted when asked
// (a warning names one line a run); 0 when the file cannot be read.
func (l LineAt) Number() int {
	rc, err := transcript.Open(l.Path)
	if err != nil {
		return 0
	}
	defer rc.Close()
	n := 1
	br := bufio.NewReaderSize(io.LimitReader(rc, l.Offset), 64<<10)
	for {
		b, err := br.ReadSlice('\n')
		if len(b) > 0 && b[len(b)-1] == '\n' {
			n++
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			return n
		}
	}
}

// badLines is what a Scanner saw of undecodable lines in one session.
type badLines struct {
	n     int
	first LineAt
	seen  map[LineAt]bool // (several terms visit one line)
	// at is the region being read: its file and the offset of its start.
	at LineAt
}

// At tells the scanner which file the next regions given to RegionHolds
// come from, and at which offset the first starts: an undecodable line
// there is then named by its place.
func (sc *Scanner) At(path string, offset int64) { sc.bad.at = LineAt{path, offset} }

// undecodable counts line, a line of region that does not decode: not a
// blank one, nor the region's last when no newline ends it (a line still
// being written).
func (sc *Scanner) undecodable(region, line []byte) {
	start := cap(region) - cap(line) // line is a piece of region
	end := start + len(line)
	if end >= len(region) && (len(region) == 0 || region[len(region)-1] != '\n') {
		return
	}
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	at := LineAt{sc.bad.at.Path, sc.bad.at.Offset + int64(start)}
	if sc.bad.seen[at] {
		return
	}
	if sc.bad.seen == nil {
		sc.bad.seen = map[LineAt]bool{}
	}
	sc.bad.seen[at] = true
	if sc.bad.n == 0 {
		sc.bad.first = at
	}
	sc.bad.n++
}

// startBad forgets the last session's undecodable lines.
func (sc *Scanner) startBad() { sc.bad = badLines{} }

// takeBad puts this session's undecodable lines in res.
func (sc *Scanner) takeBad(res *Result) {
	res.Undecodable, res.UndecodableAt = sc.bad.n, sc.bad.first
}
