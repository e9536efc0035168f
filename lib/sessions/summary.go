package sessions

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/ccpipe/ccpipe/lib/regular"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/ccpipe/ccpipe/lib/transcript"
)

// Default read bounds per transcript: enough for the first prompt behind
// the startup attachments, and for the title records Claude Code
// re-appends near the end.
const (
	DefaultHeadBytes = 256 << 10
	DefaultTailBytes = 64 << 10
)

// summary is what a transcript's head and tail tell.
type summary struct {
	cwd         string
	firstPrompt string
	started     time.Time
	last        time.Time
	customTitle string // newest custom-title seen in the tail (or whole file)
	headCustom  string // newest custom-title seen in the head only
	aiTitle     string // newest ai-title
	bytesRead   int64
}

// A transcript this small is read whole; a larger one is read in chunks
// that start at firstChunk and double.
const (
	wholeBytes = 16 << 10
	firstChunk = 4 << 10
)

// readSummary reads what listing needs of a plain transcript and stops as
// soon as it is known: the head until the first prompt, the cwd and the
// start time are found (at most head bytes), and the tail backwards until
// the newest last-prompt record and a user-set title (at most tail bytes).
// Claude Code 2.1.328 often re-appends last-prompt followed by the current
// custom-title and ai-title at the end of a turn, but not always: a title
// given with -n on a --resume stays where it was written, and later runs
// do not re-append it (seen with the real CLI). So without a title after
// the last-prompt the whole tail window is read, as Claude Code's own
// session list reads it. A compressed transcript is decompressed as a stream: its head is
// bounded the same way, but its tail can only be reached by reading through.
func readSummary(path string, size int64, compressed bool, head, tail int64) (summary, error) {
	if head <= 0 {
		head = DefaultHeadBytes
	}
	if tail <= 0 {
		tail = DefaultTailBytes
	}
	if compressed {
		return readCompressed(path, head, tail)
	}
	f, err := regular.Open(path)
	if err != nil {
		return summary{}, err
	}
	defer f.Close()
	var s summary
	if size <= wholeBytes {
		// +1 so that a file grown since its stat is still read to a line end.
		buf := make([]byte, size+1)
		n, err := io.ReadFull(f, buf)
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
			return s, fmt.Errorf("reading %s: %w", path, err)
		}
		s.bytesRead = int64(n)
		s.scan(buf[:n], true, n <= int(size), n <= int(size))
		return s, nil
	}
	headEnd, err := s.readHead(f, min(head, size))
	if err != nil {
		return s, fmt.Errorf("reading %s: %w", path, err)
	}
	if err := s.readTail(f, size, max(headEnd, size-tail), headEnd); err != nil {
		return s, fmt.Errorf("reading %s: %w", path, err)
	}
	return s, nil
}

// headKnown reports whether the head has told all it is read for.
func (s *summary) headKnown() bool {
	return s.firstPrompt != "" && s.cwd != "" && !s.started.IsZero()
}

// readHead scans the whole lines of the first limit bytes of f, in chunks,
// until headKnown. It returns the offset just past the last line scanned.
func (s *summary) readHead(f *os.File, limit int64) (int64, error) {
	var buf []byte // the unscanned start of a line, then what was read
	var read, done int64
	for chunk := int64(firstChunk); read < limit && !s.headKnown(); chunk *= 2 {
		c := int(min(chunk, limit-read))
		old := len(buf)
		buf = slices.Grow(buf, c)[:old+c]
		n, err := io.ReadFull(f, buf[old:])
		buf = buf[:old+n]
		read += int64(n)
		s.bytesRead += int64(n)
		if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
			s.scan(buf[:i+1], true, false, false)
			done += int64(i + 1)
			buf = append(buf[:0], buf[i+1:]...)
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			return done, err
		}
	}
	return done, nil
}

// readTail scans the lines of f between lo and size newest first, reading
// backwards in chunks, until it has passed a last-prompt record, a timed
// user or assistant record and a custom-title record. headEnd is where the head's scan stopped: a
// window starting there starts with a whole line, any other with a
// fragment.
func (s *summary) readTail(f *os.File, size, lo, headEnd int64) error {
	var buf []byte // bytes [pos, end of the unscanned part)
	var tailAI string
	seenLast, seenTurn := false, false
	defer func() {
		if tailAI != "" {
			s.aiTitle = tailAI
		}
	}()
	pos := size
	for chunk := int64(firstChunk); pos > lo; chunk *= 2 {
		c := min(chunk, pos-lo)
		nb := make([]byte, int(c)+len(buf))
		n, err := f.ReadAt(nb[:c], pos-c)
		s.bytesRead += int64(n)
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		copy(nb[c:], buf)
		buf, pos = nb, pos-c
		start := 0
		if pos > headEnd {
			// The first line may start before pos: keep it for the next read.
			i := bytes.IndexByte(buf, '\n')
			if i < 0 {
				continue
			}
			start = i + 1
		}
		lines := buf[start:]
		for len(lines) > 0 {
			line := lines
			if i := bytes.LastIndexByte(lines[:len(lines)-1], '\n'); i >= 0 {
				line, lines = lines[i+1:], lines[:i+1]
			} else {
				lines = nil
			}
			line = bytes.TrimSuffix(line, []byte("\n"))
			var t summary
			typ := t.scanLine(line, false, true, false)
			if s.customTitle == "" {
				s.customTitle = t.customTitle
			}
			if tailAI == "" {
				tailAI = t.aiTitle
			}
			if t.last.After(s.last) {
				s.last = t.last
			}
			seenLast = seenLast || typ == "last-prompt"
			// Attachments written after a compaction carry older times
			// than the prompt before them: the last activity is known
			// at a timed user or assistant record.
			seenTurn = seenTurn || (!t.last.IsZero() && (typ == "user" || typ == "assistant"))
			// A title set in the last run is written where it was set
			// (-n on --resume, /rename) and not re-appended after
			// last-prompt: without a user-set title so far, the rest of
			// the tail window is read, as Claude Code's own session list
			// reads its whole tail window.
			if seenLast && seenTurn && s.customTitle != "" {
				return nil
			}
		}
		buf = buf[:start]
	}
	return nil
}

// openCompressed opens a compressed transcript for readCompressed (a
// variable so that a test counts the decompressions).
var openCompressed = transcript.Open

func readCompressed(path string, head, tail int64) (summary, error) {
	var s summary
	rc, err := openCompressed(path)
	if err != nil {
		return s, err
	}
	defer rc.Close()
	if fi, err := os.Stat(path); err == nil {
		s.bytesRead = fi.Size()
	}
	// A damaged or truncated archive still tells what its readable start
	// says: scan what came out before the error, and return both.
	hb, err := io.ReadAll(io.LimitReader(rc, head))
	if err != nil {
		s.scan(hb, true, false, false)
		return s, fmt.Errorf("reading %s: %w", path, err)
	}
	// Keep the last tail bytes of the rest in a buffer of at most 2*tail.
	var rest []byte
	chunk := make([]byte, 32<<10)
	for {
		n, err := rc.Read(chunk)
		rest = append(rest, chunk[:n]...)
		if int64(len(rest)) > 2*tail {
			rest = append(rest[:0], rest[int64(len(rest))-tail:]...)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			s.scan(hb, true, false, false)
			s.scan(rest, false, false, false)
			return s, fmt.Errorf("reading %s: %w", path, err)
		}
	}
	if len(rest) == 0 {
		s.scan(hb, true, true, true)
		return s, nil
	}
	s.scan(hb, true, false, false)
	if int64(len(rest)) > tail {
		rest = rest[int64(len(rest))-tail:]
	}
	s.scan(rest, false, true, false)
	return s, nil
}

// head is the part of a transcript line that listing looks at.
type headLine struct {
	Type             string          `json:"type"`
	Timestamp        string          `json:"timestamp"`
	Cwd              string          `json:"cwd"`
	IsMeta           bool            `json:"isMeta"`
	IsSidechain      bool            `json:"isSidechain"`
	IsCompactSummary bool            `json:"isCompactSummary"`
	PromptSource     string          `json:"promptSource"`
	TurnOrigin       string          `json:"turnOrigin"`
	Origin           json.RawMessage `json:"origin"`
	Message          json.RawMessage `json:"message"`
	ToolUseResult    json.RawMessage `json:"toolUseResult"`
	CustomTitle      *string         `json:"customTitle"`
	AITitle          *string         `json:"aiTitle"`
}

// scan reads the complete lines of buf. isHead: buf starts at the file's
// start; isTail: buf ends at the file's end (so its last line is whole);
// otherwise the first line (tail) or last line (head) may be cut and is
// dropped. whole: buf is the whole file.
func (s *summary) scan(buf []byte, isHead, isTail, whole bool) {
	if !isHead {
		// The first line of a tail window is a fragment.
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			return
		}
		buf = buf[i+1:]
	}
	if !isTail {
		// The head window's last line is cut unless it ends in '\n'.
		i := bytes.LastIndexByte(buf, '\n')
		if i < 0 {
			return
		}
		buf = buf[:i+1]
	}
	// buf is in memory and bounded: lines are split in place.
	for len(buf) > 0 {
		line := buf
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			line, buf = buf[:i], buf[i+1:]
		} else {
			buf = nil
		}
		s.scanLine(line, isHead, isTail, whole)
	}
}

// scanLine reads one line (flags as for scan) and returns its type, "" when
// it is malformed.
func (s *summary) scanLine(line []byte, isHead, isTail, whole bool) string {
	var hd transcript.Header
	line = bytes.TrimSuffix(line, []byte("\r"))
	// A cheap scan finds type and time; only the few lines that can
	// carry a title, the first prompt or the cwd are decoded.
	if len(line) == 0 || transcript.Scan(line, &hd) != nil {
		return "" // malformed: listing skips it
	}
	if t, err := time.Parse(time.RFC3339Nano, string(hd.Timestamp)); err == nil {
		if isHead && s.started.IsZero() {
			s.started = t
		}
		if t.After(s.last) && (isTail || whole) {
			s.last = t
		}
	}
	typ := string(hd.Type)
	needCwd := isHead && s.cwd == ""
	switch {
	case typ == "custom-title", typ == "ai-title":
	case typ == "user" && isHead && (s.firstPrompt == "" || needCwd):
	case needCwd && (typ == "assistant" || typ == "system" || typ == "attachment"):
	default:
		return typ
	}
	var h headLine
	if json.Unmarshal(line, &h) != nil {
		return typ // of an unexpected shape: listing skips it
	}
	if needCwd && h.Cwd != "" && !h.IsSidechain {
		s.cwd = h.Cwd
	}
	switch typ {
	case "custom-title":
		if h.CustomTitle != nil && *h.CustomTitle != "" {
			if isTail {
				s.customTitle = *h.CustomTitle
			} else {
				s.headCustom = *h.CustomTitle
			}
		}
	case "ai-title":
		if h.AITitle != nil && *h.AITitle != "" {
			s.aiTitle = *h.AITitle
		}
	case "user":
		if s.firstPrompt == "" {
			s.firstPrompt = humanPrompt(&h)
		}
	}
	return typ
}

// wrappers start texts that a human did not type as prose: slash-command
// records, local command output, bash mode, injected notifications and
// peer messages.
var wrappers = []string{
	"<command-name>", "<command-message>", "<command-args>", "<local-command-",
	"<bash-input>", "<bash-stdout>", "<bash-stderr>", "<task-notification>",
	"<cross-session-message", "Another Claude session sent a message",
	"[Request interrupted", "Caveat: The messages below were generated",
	"<user-prompt-submit-hook>", "<system-reminder>",
}

// humanPrompt returns the text of a user record when it is a prose prompt
// typed by a human, else "".
func humanPrompt(h *headLine) string {
	if h.IsMeta || h.IsSidechain || h.IsCompactSummary || len(h.ToolUseResult) > 0 {
		return ""
	}
	switch h.PromptSource {
	case "system":
		return ""
	}
	switch h.TurnOrigin {
	case "peer", "task_notification":
		return ""
	}
	if len(h.Origin) > 0 {
		var o struct {
			Kind string `json:"kind"`
		}
		if json.Unmarshal(h.Origin, &o) == nil && o.Kind != "" && o.Kind != "human" {
			return ""
		}
	}
	var msg struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(h.Message, &msg) != nil || (msg.Role != "" && msg.Role != "user") {
		return ""
	}
	text := contentText(msg.Content)
	trimmed := strings.TrimSpace(text)
	if trimmed == "" {
		return ""
	}
	for _, w := range wrappers {
		if strings.HasPrefix(trimmed, w) {
			return ""
		}
	}
	return trimmed
}

// contentText joins the text of a message's content: a string, or the
// text blocks of a block array (none when it holds a tool result).
func contentText(raw json.RawMessage) string {
	text, toolResult := transcript.ContentText(raw)
	if toolResult {
		return ""
	}
	return text
}

// customTitleName is the file of a session dir that holds its user-set
// title.
const customTitleName = "custom-title.json"

// customTitleFile reads <session dir>/custom-title.json, written with
// every user-set title.
func customTitleFile(sessDir string) string {
	data, err := regular.ReadFile(sessDir+"/"+customTitleName, 64<<10)
	if err != nil {
		return ""
	}
	var v struct {
		CustomTitle string `json:"customTitle"`
	}
	if json.Unmarshal(data, &v) != nil {
		return ""
	}
	return v.CustomTitle
}
