package render

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/ccpipe/ccpipe/lib/extract"
	"github.com/ccpipe/ccpipe/lib/transcript"
)

// call is a tool call as a page shows it.
type call struct {
	extract.Tool
	// Kind picks the layout: shell, edit, write, quiet (Read, Grep, Glob:
	// folded) or other.
	Kind string
	// Summary is the one line shown folded: a command, a path, a pattern.
	Summary string
	// Body is what the call did, as a reader wants it: the command, the
	// diff, the file written; Lang is its fence's info string.
	Body, Lang string
	Shell      *extract.Shell
	// Stdout and Stderr are a successful shell call's streams, apart.
	Stdout, Stderr *string
	Images         []Image
	// Report is a subagent's report, cleaned of the hand-back frame.
	Report *string
	// Nested renders the subagent the call started, when there is one.
	Nested func() error
}

// Status words for the head of a call.
func (c *call) failed() bool {
	return c.IsError || c.Denied != nil || c.Interrupted ||
		(c.Shell != nil && c.Shell.ExitCode != nil && *c.Shell.ExitCode != 0)
}

// input fields the layouts read.
type toolInput struct {
	Command     string `json:"command"`
	Description string `json:"description"`
	FilePath    string `json:"file_path"`
	Path        string `json:"path"`
	Pattern     string `json:"pattern"`
	Content     string `json:"content"`
	OldString   string `json:"old_string"`
	NewString   string `json:"new_string"`
	Edits       []struct {
		OldString string `json:"old_string"`
		NewString string `json:"new_string"`
	} `json:"edits"`
	URL          string `json:"url"`
	Query        string `json:"query"`
	Prompt       string `json:"prompt"`
	SubagentType string `json:"subagent_type"`
	Skill        string `json:"skill"`
}

func newCall(t extract.Tool) *call {
	c := &call{Tool: t, Kind: "other"}
	var in toolInput
	_ = json.Unmarshal(t.Input, &in) // a field of another type reads empty
	switch t.Name {
	case "Bash", "PowerShell":
		c.Kind, c.Summary, c.Body, c.Lang = "shell", in.Command, in.Command, "sh"
		if t.Name == "PowerShell" {
			c.Lang = "powershell"
		}
	case "Edit", "MultiEdit":
		c.Kind, c.Summary, c.Lang = "edit", in.FilePath, "diff"
		edits := in.Edits
		if t.Name == "Edit" {
			edits = edits[:0]
			edits = append(edits, struct {
				OldString string `json:"old_string"`
				NewString string `json:"new_string"`
			}{in.OldString, in.NewString})
		}
		var b strings.Builder
		for _, e := range edits {
			b.WriteString(unifiedDiff(in.FilePath, e.OldString, e.NewString))
		}
		c.Body = b.String()
	case "Write":
		c.Kind, c.Summary, c.Body, c.Lang = "write", in.FilePath, in.Content, langOf(in.FilePath)
	case "Read", "Grep", "Glob", "LS", "NotebookRead", "ToolSearch":
		c.Kind = "quiet"
		c.Summary = in.FilePath
		if c.Summary == "" {
			c.Summary = in.Pattern
			if in.Path != "" {
				c.Summary += " in " + in.Path
			}
		}
	case "Agent", "Task":
		c.Summary = in.Description
		if in.SubagentType != "" {
			c.Summary += " (" + in.SubagentType + ")"
		}
		c.Body, c.Lang = in.Prompt, "text"
	default:
		for _, s := range []string{in.Command, in.FilePath, in.URL, in.Query, in.Pattern, in.Skill, in.Description} {
			if s != "" {
				c.Summary = s
				break
			}
		}
	}
	if c.Body == "" && c.Kind == "other" || c.Kind == "quiet" {
		c.Body, c.Lang = prettyJSON(t.Input), "json"
	}
	c.Summary = excerpt(c.Summary, 120)
	return c
}

func (c *call) shell(s extract.Shell) { c.Shell = &s }

// streams reads a successful shell call's stdout and stderr apart from
// its toolUseResult.
func (c *call) streams(tur json.RawMessage) {
	if c.Shell.ExitCode == nil || *c.Shell.ExitCode != 0 {
		return
	}
	var r struct {
		Stdout *string `json:"stdout"`
		Stderr *string `json:"stderr"`
	}
	if json.Unmarshal(tur, &r) != nil || r.Stdout == nil {
		return
	}
	c.Stdout, c.Stderr = r.Stdout, r.Stderr
}

// prettyJSON indents a tool input for reading; one that is not JSON is
// shown as it is.
func prettyJSON(raw json.RawMessage) string {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return string(raw)
	}
	return string(b)
}

var langs = map[string]string{
	".go": "go", ".py": "python", ".js": "javascript", ".ts": "typescript", ".sh": "sh", ".md": "markdown",
	".json": "json", ".yaml": "yaml", ".yml": "yaml", ".rs": "rust", ".c": "c", ".h": "c", ".java": "java",
	".rb": "ruby", ".html": "html", ".css": "css", ".sql": "sql", ".toml": "toml",
}

func langOf(path string) string {
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		if l, ok := langs[strings.ToLower(path[i:])]; ok {
			return l
		}
	}
	return "text"
}

// Image is an image block: shown only from the transcript's own base64
// data, as a data: URI, and only for the raster types browsers show
// safely (no SVG: it can hold script).
type Image struct {
	MediaType string
	Data      string
	// File holds the base64 data instead, for an image too large to keep
	// in memory (see spiller).
	File string
}

var imageTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// writeURI writes the image as a data: URI.
func (i Image) writeURI(w *bufio.Writer) {
	w.WriteString("data:" + i.MediaType + ";base64,")
	if i.File == "" {
		w.WriteString(i.Data)
		return
	}
	f, err := os.Open(i.File)
	if err != nil {
		return // a broken image: the file was checked when it was written
	}
	defer f.Close()
	w.ReadFrom(f)
}

// imagesOf returns the valid images among blocks.
func imagesOf(blocks []transcript.Block, sp *spiller) []Image {
	var out []Image
	for _, b := range blocks {
		if b.Type != transcript.BlockImage {
			continue
		}
		var src struct {
			Type      string `json:"type"`
			MediaType string `json:"media_type"`
			Data      string `json:"data"`
		}
		if json.Unmarshal(b.Source, &src) != nil || src.Type != "base64" || !imageTypes[src.MediaType] {
			continue
		}
		if path, ok := sp.lookup(src.Data); path != "" {
			if ok {
				out = append(out, Image{MediaType: src.MediaType, File: path})
			}
			continue
		}
		if _, err := base64.StdEncoding.DecodeString(src.Data); err != nil {
			continue // only the base64 alphabet reaches the page
		}
		out = append(out, Image{MediaType: src.MediaType, Data: src.Data})
	}
	return out
}

// unifiedDiff is a unified diff of one replacement in path: the old text's
// lines against the new text's, with the common lines as context.
func unifiedDiff(path, old, new string) string {
	a, b := splitLines(old), splitLines(new)
	ops := diffLines(a, b)
	var sb strings.Builder
	sb.WriteString("--- " + path + "\n+++ " + path + "\n")
	sb.WriteString("@@ -1," + strconv.Itoa(len(a)) + " +1," + strconv.Itoa(len(b)) + " @@\n")
	for _, op := range ops {
		sb.WriteByte(op.kind)
		sb.WriteString(op.line)
		sb.WriteByte('\n')
	}
	return sb.String()
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

type diffOp struct {
	kind byte // ' ', '-', '+'
	line string
}

// maxDiffCells bounds the LCS table; bigger edits are shown as all old
// lines then all new ones.
const maxDiffCells = 4 << 20

// diffLines is a line diff by longest common subsequence.
func diffLines(a, b []string) []diffOp {
	var ops []diffOp
	// Common head and tail first: most edits touch a few lines.
	for len(a) > 0 && len(b) > 0 && a[0] == b[0] {
		ops = append(ops, diffOp{' ', a[0]})
		a, b = a[1:], b[1:]
	}
	var tail []diffOp
	for len(a) > 0 && len(b) > 0 && a[len(a)-1] == b[len(b)-1] {
		tail = append(tail, diffOp{' ', a[len(a)-1]})
		a, b = a[:len(a)-1], b[:len(b)-1]
	}
	if (len(a)+1)*(len(b)+1) > maxDiffCells {
		for _, l := range a {
			ops = append(ops, diffOp{'-', l})
		}
		for _, l := range b {
			ops = append(ops, diffOp{'+', l})
		}
	} else {
		n, m := len(a), len(b)
		lcs := make([][]int32, n+1)
		for i := range lcs {
			lcs[i] = make([]int32, m+1)
		}
		for i := n - 1; i >= 0; i-- {
			for j := m - 1; j >= 0; j-- {
				if a[i] == b[j] {
					lcs[i][j] = lcs[i+1][j+1] + 1
				} else {
					lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
				}
			}
		}
		i, j := 0, 0
		for i < n || j < m {
			switch {
			case i < n && j < m && a[i] == b[j]:
				ops = append(ops, diffOp{' ', a[i]})
				i, j = i+1, j+1
			case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
				ops = append(ops, diffOp{'-', a[i]})
				i++
			default:
				ops = append(ops, diffOp{'+', b[j]})
				j++
			}
		}
	}
	for k := len(tail) - 1; k >= 0; k-- {
		ops = append(ops, tail[k])
	}
	return ops
}

// part is one piece of what a call gave back: a label and a text, shown
// preformatted, or as Markdown prose (a subagent's report), or a path
// shown as code.
type part struct {
	label, text string
	prose, bad  bool
	path        string
}

// results lists what a page shows of a call's result, in order.
// foldAt splits a tool output after its first n lines: head holds them
// (its last newline included), rest the more lines after it. With n <= 0,
// or no more than n lines, head is t.
func foldAt(t string, n int) (head, rest string, more int) {
	if n <= 0 {
		return t, "", 0
	}
	i, seen := 0, 0
	for seen < n {
		j := strings.IndexByte(t[i:], '\n')
		if j < 0 {
			return t, "", 0
		}
		i += j + 1
		seen++
	}
	rest = t[i:]
	if rest == "" {
		return t, "", 0
	}
	more = strings.Count(rest, "\n")
	if !strings.HasSuffix(rest, "\n") {
		more++
	}
	return t[:i], rest, more
}

// moreLines is the summary of a folded output's rest.
func moreLines(n int, rest string) string {
	return fmt.Sprintf("%s (%s)", plural(n, "more line"), size(len(rest)))
}

func results(c *call) []part {
	if d := c.Denied; d != nil {
		return []part{{label: "denied by " + d.By, text: d.Reason, bad: true}}
	}
	if c.Result == nil {
		return []part{{label: "no result in the transcript"}}
	}
	var out []part
	if p := c.PersistedOutputPath; p != nil {
		out = append(out, part{label: "full output saved to", path: *p})
	}
	switch {
	case c.Stdout != nil:
		if *c.Stdout != "" || c.Stderr == nil || *c.Stderr == "" {
			out = append(out, part{label: "stdout", text: *c.Stdout})
		}
		if c.Stderr != nil && *c.Stderr != "" {
			out = append(out, part{label: "stderr", text: *c.Stderr})
		}
	case c.Shell != nil && c.Shell.Output != nil:
		if *c.Shell.Output != "" {
			out = append(out, part{label: "output (stdout and stderr)", text: *c.Shell.Output})
		}
	case c.Report != nil:
		out = append(out, part{label: "report", text: *c.Report, prose: true})
	default:
		out = append(out, part{label: "result", text: *c.Result})
	}
	return out
}
