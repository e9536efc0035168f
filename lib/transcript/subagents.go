package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"syscall"

	"github.com/ccpipe/ccpipe/lib/layout"
	"github.com/ccpipe/ccpipe/lib/regular"
)

// Subagent is one subagent transcript of a session:
// <session dir>/subagents/agent-<id>.jsonl with its .meta.json.
type Subagent struct {
	AgentID  string `json:"agent_id"`
	Path     string `json:"path"`
	MetaPath string `json:"meta_path,omitempty"`
	// Meta is nil when the .meta.json is missing or not an object.
	Meta *SubagentMeta `json:"meta,omitempty"`
	// FirstTimestamp is the timestamp of the file's first record, the
	// order Subagents returns them in.
	FirstTimestamp string `json:"first_timestamp,omitempty"`
}

// SubagentMeta is an agent-<id>.meta.json. ToolUseID links the subagent
// to the parent's Agent tool_use block (Block.ID).
type SubagentMeta struct {
	AgentType             string          `json:"agentType"`
	IsBuiltIn             bool            `json:"isBuiltIn"`
	Description           string          `json:"description"`
	ToolUseID             string          `json:"toolUseId"`
	SpawnDepth            int             `json:"spawnDepth"`
	RequestShape          string          `json:"requestShape"` // foreground | background
	RequestNonInteractive bool            `json:"requestNonInteractive"`
	Model                 string          `json:"model"`
	Finished              bool            `json:"finished"`
	LaunchedWithDefaults  bool            `json:"launchedWithDefaults"`
	TypeMismatches        []string        `json:"-"`
	Raw                   json.RawMessage `json:"-"`
}

// TrimSuffix strips .jsonl, .jsonl.zst or .jsonl.gz from a transcript
// file name or path; ok is false when it has none of them.
// (layout.TrimSuffix: the names are lib/layout's.)
func TrimSuffix(path string) (string, bool) { return layout.TrimSuffix(path) }

// SessionDir is the directory holding a transcript's subagents and
// tool-results (layout.SessionDir).
func SessionDir(transcriptPath string) string { return layout.SessionDir(transcriptPath) }

// SessionID is the session id a transcript file is named after
// (layout.SessionID).
func SessionID(transcriptPath string) string { return layout.SessionID(transcriptPath) }

// Subagents lists the subagent transcripts of the session whose main
// transcript is at transcriptPath, oldest first (by their first record's
// timestamp, then agent id). A session without subagents gives none and
// no error. A plain file wins over a compressed copy of the same agent.
func Subagents(transcriptPath string) ([]Subagent, error) {
	dir := layout.SubagentsDirOf(transcriptPath)
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		// No session dir, or a transcript whose name has no suffix to
		// trim (a file given by hand): no subagents.
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []Subagent
	for _, compressedPass := range []bool{false, true} {
		for _, de := range ents {
			name := de.Name()
			id, compressed, ok := layout.SubagentTranscript(name)
			if de.IsDir() || !ok || compressed != compressedPass || seen[id] {
				continue
			}
			seen[id] = true
			sa := Subagent{AgentID: id, Path: filepath.Join(dir, name)}
			sa.MetaPath, sa.Meta = readMeta(filepath.Join(dir, "agent-"+id+".meta.json"))
			sa.FirstTimestamp = firstTimestamp(sa.Path)
			out = append(out, sa)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].FirstTimestamp != out[j].FirstTimestamp {
			return out[i].FirstTimestamp < out[j].FirstTimestamp
		}
		return out[i].AgentID < out[j].AgentID
	})
	return out, nil
}

// MetaOf reads the .meta.json beside a subagent transcript
// (subagents/agent-<id>.jsonl); nil when there is none or it is not an
// object.
func MetaOf(subagentPath string) *SubagentMeta {
	id, _ := TrimSuffix(filepath.Base(subagentPath))
	_, m := readMeta(filepath.Join(filepath.Dir(subagentPath), id+".meta.json"))
	return m
}

// maxMeta bounds a subagent .meta.json (a few hundred bytes when real).
const maxMeta = 1 << 20

// readMeta reads a .meta.json tolerantly; a missing file gives "", nil.
func readMeta(path string) (string, *SubagentMeta) {
	b, err := regular.ReadFile(path, maxMeta)
	if err != nil {
		return "", nil
	}
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return path, nil
	}
	var m SubagentMeta
	if tolerant(b, &m, "", &m.TypeMismatches) != nil {
		return path, nil
	}
	m.Raw = b
	return path, &m
}

// firstTimestamp returns the timestamp of the first record that has one
// (within the first few lines).
func firstTimestamp(path string) string {
	ts := ""
	stop := errors.New("stop")
	n := 0
	_, _ = ReadFile(path, Options{}, func(l *Line) error {
		n++
		if len(l.Header.Timestamp) > 0 {
			ts = string(l.Header.Timestamp)
			return stop
		}
		if n >= 16 {
			return stop
		}
		return nil
	})
	return ts
}
