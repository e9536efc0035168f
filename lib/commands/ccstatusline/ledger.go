package ccstatusline

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/ccpipe/ccpipe/lib/pricing"
)

// A ledger is what cc-statusline remembers of one transcript: the priced
// messages of the last keepWindow, and how far the file was read. It is
// cached per transcript, keyed by the file's size and mtime: an unchanged
// file is not opened, a grown one is read from where the last call
// stopped, so a call costs the new tail only.

// keepWindow bounds the messages a ledger keeps: enough to find the
// current 5-hour block's start.
const keepWindow = 24 * time.Hour

// ledgerVersion changes when the cache format or the pricing changes.
const ledgerVersion = "1/" + "claude-code-2.1.328"

type ledger struct {
	Version string `json:"v"`
	Path    string `json:"path"`
	Size    int64  `json:"size"`
	MtimeNS int64  `json:"mtime_ns"`
	// Offset is the end of the last whole line read.
	Offset int64 `json:"offset"`
	Msgs   []msg `json:"msgs"`
	// Context is the prompt size of the last main-thread response.
	Context      int64  `json:"context"`
	ContextModel string `json:"context_model"`
}

type msg struct {
	Key string  `json:"k"`
	TS  int64   `json:"t"` // unix ms
	USD float64 `json:"usd"`
	// Unpriced: the usage could not be priced (USD is 0 and must not be
	// shown as a cost).
	Unpriced bool `json:"unpriced,omitempty"`
}

func cachePath(dir, transcript string) string {
	h := sha256.Sum256([]byte(transcript))
	return filepath.Join(dir, hex.EncodeToString(h[:12])+".json")
}

// load returns the ledger of a transcript, brought up to date. A cache
// that cannot be read or written only costs a full read.
func load(cacheDir, path string, now time.Time) (*ledger, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	cp := cachePath(cacheDir, path)
	l := &ledger{}
	if b, err := os.ReadFile(cp); err != nil || json.Unmarshal(b, l) != nil || l.Version != ledgerVersion || l.Path != path {
		l = &ledger{}
	}
	if l.Size == st.Size() && l.MtimeNS == st.ModTime().UnixNano() {
		return l, nil
	}
	if st.Size() < l.Offset {
		l = &ledger{} // rewritten or truncated: start over
	}
	l.Version, l.Path = ledgerVersion, path
	if err := l.readFrom(path); err != nil {
		return nil, err
	}
	l.Size, l.MtimeNS = st.Size(), st.ModTime().UnixNano()
	l.prune(now)
	if b, err := json.Marshal(l); err == nil && os.MkdirAll(cacheDir, 0o700) == nil {
		tmp := cp + ".tmp" + randSuffix()
		if os.WriteFile(tmp, b, 0o600) == nil {
			_ = os.Rename(tmp, cp)
		}
	}
	return l, nil
}

func randSuffix() string {
	return hex.EncodeToString([]byte(time.Now().Format("150405.000000000")))[:16]
}

var assistantNeedle = []byte(`"assistant"`)

// maxLine bounds the line a ledger holds in memory; a longer one (tool
// output, never a usage-bearing record in practice) is skipped.
const maxLine = 64 << 20

// line is the part of an assistant record a ledger reads.
type line struct {
	Type           string `json:"type"`
	Timestamp      string `json:"timestamp"`
	RequestID      string `json:"requestId"`
	RequestedModel string `json:"requestedModel"`
	IsSidechain    bool   `json:"isSidechain"`
	IsAPIError     bool   `json:"isApiErrorMessage"`
	Message        *struct {
		ID    string          `json:"id"`
		Model string          `json:"model"`
		Usage json.RawMessage `json:"usage"`
	} `json:"message"`
}

// readFrom reads the whole lines after Offset. A response's records
// repeat its usage; the last one read wins, under one key.
func (l *ledger) readFrom(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.Seek(l.Offset, io.SeekStart); err != nil {
		return err
	}
	index := map[string]int{}
	for i, m := range l.Msgs {
		index[m.Key] = i
	}
	br := bufio.NewReaderSize(f, 256<<10)
	cat := pricing.Embedded()
	var long []byte   // a line longer than the buffer, so far
	var pending int64 // its bytes read so far
	skipping := false // it passed maxLine: skipped
	for {
		b, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			pending += int64(len(b))
			if !skipping {
				long = append(long, b...)
				if len(long) > maxLine {
					long, skipping = nil, true
				}
			}
			continue
		}
		if err != nil {
			if err == io.EOF {
				return nil // a partial last line is read next time
			}
			return err
		}
		l.Offset += pending + int64(len(b))
		pending = 0
		if skipping {
			skipping = false
			continue
		}
		if long != nil {
			b, long = append(long, b...), nil
		}
		if !bytes.Contains(b, assistantNeedle) {
			continue
		}
		var r line
		if json.Unmarshal(b, &r) != nil || r.Type != "assistant" || r.Message == nil || len(r.Message.Usage) == 0 ||
			r.IsAPIError || r.Message.Model == "<synthetic>" {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, r.Timestamp)
		if err != nil {
			continue
		}
		model := r.RequestedModel
		if model == "" {
			model = r.Message.Model
		}
		m := msg{Key: r.Message.ID + "\x00" + r.RequestID, TS: t.UnixMilli()}
		u, perr := pricing.ParseUsage(r.Message.Usage)
		if perr != nil {
			m.Unpriced = true
		} else {
			m.USD = cat.Cost(model, &u).USD
			if !r.IsSidechain {
				l.Context = int64(u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens)
				l.ContextModel = model
			}
		}
		if i, ok := index[m.Key]; ok {
			l.Msgs[i] = m
		} else {
			index[m.Key] = len(l.Msgs)
			l.Msgs = append(l.Msgs, m)
		}
	}
}

// prune drops messages older than keepWindow.
func (l *ledger) prune(now time.Time) {
	cut := now.Add(-keepWindow).UnixMilli()
	k := 0
	for _, m := range l.Msgs {
		if m.TS >= cut {
			l.Msgs[k] = m
			k++
		}
	}
	l.Msgs = l.Msgs[:k]
}
