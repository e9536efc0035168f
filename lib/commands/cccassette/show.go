package cccassette

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/ccpipe/ccpipe/lib/cassette"
	"github.com/ccpipe/ccpipe/lib/cli"
)

const showHelp = `usage: cc-cassette show [flags] [CASSETTE... | -]

Shows cassettes as Blackbox's inspect and replay summary do. The chain is
checked first; a broken chain is an error. On a terminal the output is
text: the cassette (path, id, version, parent and fork step when set,
creation time, steps), its status (success with the result, error with
the reason, or incomplete) and one block per step: index, type, the
first 8 hex of the hash (80 columns or more) and a summary ("Model →
tool_calls: Read, Bash (with text)", "Tool result: Bash → ERROR: ...",
"Run completed: ..."). A summary's lines (a tool's output, an answer)
stay in the step's block: indented under the first, cut to the
terminal's width, control characters shown as escapes, the third and
later counted ("… 5 more lines: show --step 3").
Piped, or with --jq, the output is NDJSON:
  default     one record per step: id (the cassette's), index, type,
              timestamp, time (ISO 8601 UTC), hash, summary
  --summary   one record per cassette: path, id, version, parent_id,
              forked_from_step_id, created_at (ISO), steps, status,
              result (success) or reason (error), tools
  --step N    step N whole, as stored (on a terminal: type, summary, hash,
              time, then the payload indented)

Examples:
  $ cc-cassette show run.ndjson
  $ cc-cassette show run.ndjson --step 3 --jq .payload.result
  $ cc-cassette show --summary traces/*.json --jq 'select(.status=="error")'

Memory is bounded by the largest step, whatever the cassette's length
(records and --summary stream; a broken chain is reported after the step
records already written), except the terminal's step list, which reads
the cassette whole.

Exit status: 0 ok, 1 a cassette could not be read, failed the chain
check or has no step N, 2 usage error.`

type stepRecord struct {
	ID        string  `json:"id"`
	Index     int     `json:"index"`
	Type      string  `json:"type"`
	Timestamp float64 `json:"timestamp"`
	Time      string  `json:"time"`
	Hash      string  `json:"hash"`
	Summary   string  `json:"summary"`
}

type summaryRecord struct {
	Path             string          `json:"path"`
	ID               string          `json:"id"`
	Version          any             `json:"version"`
	ParentID         *string         `json:"parent_id"`
	ForkedFromStepID *string         `json:"forked_from_step_id"`
	CreatedAt        string          `json:"created_at"`
	Steps            int             `json:"steps"`
	Status           string          `json:"status"`
	Result           *cassette.Value `json:"result,omitempty"`
	Reason           *cassette.Value `json:"reason,omitempty"`
	Tools            []string        `json:"tools"`
}

func showCommand() *cli.Command {
	var step int
	var summary bool
	return &cli.Command{
		Name:     "show",
		Short:    "one line per step, or one step whole",
		Synopsis: "cc-cassette show [--summary | --step N] [CASSETTE... | -]",
		Help:     showHelp,
		SetFlags: func(f *cli.Flags) {
			f.IntVar(&step, "step", -1, "show step `N` whole")
			f.BoolVar(&summary, "summary", false, "one record per cassette instead of one per step")
			f.Exclusive("step", "summary").Says("--step takes a step number (0, 1, ...) and cannot go with --summary")
		},
		Run: func(env *cli.Env, args []string) error {
			if f := env.Flags; f.Visited("step") && step < 0 {
				return cli.Usagef("--step takes a step number (0, 1, ...)")
			}
			names, err := inputs(env, args, "cassette")
			if err != nil {
				return err
			}
			width, term := env.Terminal()
			human := term && !env.Out.Filtering()
			w := bufio.NewWriter(env.Stdout)
			defer w.Flush()
			for _, name := range names {
				if !human || summary || step >= 0 {
					if err := showStreamed(env, w, human, width, name, step, summary); err != nil {
						return err
					}
					continue
				}
				r, err := open(env, name)
				if err != nil {
					return err
				}
				cs, err := cassette.ReadAll(r)
				r.Close()
				if errors.Is(err, cassette.ErrEmpty) && name == "-" {
					continue // an empty pipe is no input
				}
				if err != nil {
					return fmt.Errorf("%s: %v", displayName(name), err)
				}
				for _, c := range cs {
					if err := checkChain(name, c); err != nil {
						return err
					}
					if err := showOne(w, width, displayName(name), c); err != nil {
						return err
					}
				}
			}
			return nil
		},
	}
}

// showStreamed is show reading one step at a time: everything but the
// human step list, which needs the outcome before the steps.
func showStreamed(env *cli.Env, w *bufio.Writer, human bool, width int, name string, step int, summary bool) error {
	path := displayName(name)
	var at *cassette.Value // --step: the step asked for
	each := func(c *streamed, i int, s cassette.Value) error {
		switch {
		case step >= 0:
			if i == step {
				at = &s
			}
			return nil
		case summary:
			return nil
		}
		typ, _ := s.GetString("type")
		h, _ := s.GetString("hash")
		ts, _ := s.Get("timestamp")
		n, _ := ts.Number()
		return env.Out.Write(stepRecord{ID: c.ID(), Index: i, Type: typ, Timestamp: n, Time: isoTime(ts), Hash: h, Summary: cassette.Summary(s)})
	}
	return eachStreamed(env, name, each, func(c *streamed) error {
		if err := c.chain(name); err != nil {
			return err
		}
		switch {
		case step >= 0:
			if at == nil {
				return fmt.Errorf("%s: --step %d is past the end of the cassette (%s: 0–%d)", path, step, plural(c.Steps, "step"), c.Steps-1)
			}
			return showStep(env, w, human, width, path, step, *at)
		case !summary:
			return nil
		case human:
			return writeHumanSummary(w, width, path, c.ID(), c.Header, c.Steps, c.Outcome())
		}
		out := c.Outcome()
		rec := summaryRecord{Path: path, ID: c.ID(), Steps: c.Steps, Status: out.Status, Result: out.Result, Reason: out.Reason, Tools: c.Tools}
		if v, ok := c.Header.Get("version"); ok {
			rec.Version = cassette.ToAny(v)
		}
		if s, ok := c.Header.GetString("parentId"); ok {
			rec.ParentID = &s
		}
		if s, ok := c.Header.GetString("forkedFromStepId"); ok {
			rec.ForkedFromStepID = &s
		}
		at, _ := c.Header.Get("createdAt")
		rec.CreatedAt = isoTime(at)
		return env.Out.Write(rec)
	})
}

// showStep shows one step whole.
func showStep(env *cli.Env, w *bufio.Writer, human bool, width int, path string, step int, s cassette.Value) error {
	if !human {
		return writeValue(env, s)
	}
	h, _ := s.GetString("hash")
	ts, _ := s.Get("timestamp")
	typ, _ := s.GetString("type")
	p, _ := s.Get("payload")
	body, err := cassette.AppendIndent(nil, p)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "◼ cc-cassette · show  %s · step %d\n\n", cli.Fit(path, 0), step)
	for _, row := range [][2]string{{"Type", typ}, {"Summary", cassette.Summary(s)}, {"Hash", h}, {"Time", isoTime(ts)}} {
		fmt.Fprintf(w, "  %-20s", row[0]+":")
		writeBlock(w, 22, width, row[1], 0, "")
	}
	// The payload whole, each line as a terminal may print it (JSON
	// escapes control characters, not bidi overrides).
	fmt.Fprintln(w)
	for _, l := range strings.Split(string(body), "\n") {
		fmt.Fprintln(w, cli.Fit(l, 0))
	}
	return nil
}

// isoTime renders ms since the epoch as JavaScript's toISOString.
func isoTime(v cassette.Value) string {
	ms, ok := v.Number()
	if !ok || math.IsNaN(ms) || math.Abs(ms) > 8.64e15 {
		return "Invalid Date"
	}
	return time.UnixMilli(int64(ms)).UTC().Format("2006-01-02T15:04:05.000Z")
}

// showOne is the human listing of one cassette's steps (a terminal
// view: the outcome comes before the steps, so the cassette is read whole).
func showOne(w *bufio.Writer, width int, path string, c cassette.Cassette) error {
	return writeHuman(w, width, path, c, cassette.OutcomeOfCassette(c))
}

// stepLines is how many lines of a step's summary the listing shows (a
// tool's output, an answer): the rest is counted, and show --step shows
// it whole.
const stepLines = 3

// narrowShow is the terminal width under which the step list leaves the
// hash out (show --step N shows it).
const narrowShow = 80

// writeHuman is the terminal view of a cassette: its header, its status,
// then one block per step: index, type, hash prefix (on a terminal of 80
// columns or more) and the summary's first lines, each kept to the
// terminal's width and indented under the summary's column.
func writeHuman(w io.Writer, width int, path string, c cassette.Cassette, out cassette.Outcome) error {
	writeHumanSummary(w, width, path, c.ID(), c.Header, len(c.Steps), out)
	fmt.Fprintf(w, "\nsteps\n")
	iw := max(2, len(strconv.Itoa(len(c.Steps)-1)))
	for i, s := range c.Steps {
		typ, _ := s.GetString("type")
		h, _ := s.GetString("hash")
		if len(h) > 8 {
			h = h[:8]
		}
		prefix := fmt.Sprintf("  %*d  %-14s  %-8s  ", iw, i, cli.Fit(typ, 14), cli.Fit(h, 8))
		if width > 0 && width < narrowShow {
			prefix = fmt.Sprintf("  %*d  %-14s  ", iw, i, cli.Fit(typ, 14)) // the hash gives way to the text
		}
		fmt.Fprint(w, prefix)
		writeBlock(w, len(prefix), width, cassette.Summary(s), stepLines, fmt.Sprintf("show --step %d", i))
	}
	return nil
}

// writeBlock writes a text after a label already written (indent
// columns wide): each non-blank line of it on a line of its own,
// indented to the label's width, with control characters made visible
// and cut to the terminal's width (0: not cut). With limit > 0 only the
// first limit lines show; a last line counts the others and names the
// command (rest) that shows them whole.
func writeBlock(w io.Writer, indent, width int, text string, limit int, rest string) {
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimRight(l, " \t\r"); strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		lines = []string{""}
	}
	room := 0
	if width > 0 {
		room = max(8, width-indent)
	}
	pad := strings.Repeat(" ", indent)
	for n, l := range lines {
		if n > 0 {
			fmt.Fprint(w, pad)
		}
		if limit > 0 && n == limit-1 && len(lines) > limit {
			fmt.Fprintln(w, cli.Fit(fmt.Sprintf("… %d more lines: %s", len(lines)-n, rest), room))
			return
		}
		fmt.Fprintln(w, cli.Fit(l, room))
	}
}

// resultLines is how many lines of a result or reason the status shows.
const resultLines = 6

// writeHumanSummary writes the trace and status sections, each value
// kept to the terminal's width.
func writeHumanSummary(w io.Writer, width int, path, id string, header cassette.Value, steps int, out cassette.Outcome) error {
	row := func(label, value string) {
		fmt.Fprintf(w, "  %-20s", label+":")
		writeBlock(w, 22, width, value, resultLines, "show --step "+strconv.Itoa(steps-1))
	}
	fmt.Fprintf(w, "◼ cc-cassette · show\n\ntrace\n")
	// A path cut keeps its end: the file name tells cassettes apart.
	fmt.Fprintf(w, "  %-20s%s\n", "Path:", cli.FitPath(path, width-22))
	row("Trace ID", id)
	if v, ok := header.Get("version"); ok {
		b, _ := cassette.AppendJS(nil, v)
		row("Version", string(b))
	}
	if s, ok := header.GetString("parentId"); ok {
		row("Parent ID", s)
	}
	if s, ok := header.GetString("forkedFromStepId"); ok {
		row("Forked from", s)
	}
	at, _ := header.Get("createdAt")
	row("Created", isoTime(at))
	row("Steps", strconv.Itoa(steps))
	fmt.Fprintf(w, "\nstatus\n")
	row("Status", out.Status)
	if a, ok := out.Answer(); ok {
		if out.Status == cassette.StatusSuccess {
			row("Result", a)
		} else {
			row("Reason", a)
		}
	}
	return nil
}
