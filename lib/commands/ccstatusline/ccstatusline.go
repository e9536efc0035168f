// Package ccstatusline is the cc-statusline command: the program Claude
// Code runs for its status line, printing model, cost, the 5-hour block and
// the context use in one line.
package ccstatusline

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"text/template"
	"time"

	"github.com/ccpipe/ccpipe/lib/atomicfile"
	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/commands/internal/load"
	"github.com/ccpipe/ccpipe/lib/commands/internal/warm"
	"github.com/ccpipe/ccpipe/lib/hooks"
	"github.com/ccpipe/ccpipe/lib/numfmt"
	"github.com/ccpipe/ccpipe/lib/ratelimit"
	"github.com/ccpipe/ccpipe/lib/records"
	"github.com/ccpipe/ccpipe/lib/usage"
)

const help = `usage: cc-statusline [flags]

The command Claude Code runs for its status line. Claude Code writes a JSON
payload on its stdin on every refresh (session_id, transcript_path, model,
cost, workspace, and rate_limits when the account has them); cc-statusline
prints one line. Set it up in settings.json:

  "statusLine": {"type": "command", "command": "cc-statusline"}

or let --print-settings print that object with this binary's absolute path
(and the --template, --color, --prices, --budgets and --log given), and
name the settings file.

The default line is

  Opus 5.5 | $0.42 session | $3.10 block, 2h14m left | ctx 37%

model is the payload's model.display_name; the session cost is the
payload's cost.total_cost_usd (Claude Code's own figure: for a resumed or
forked session its running total starts from the cost of the session it
resumed, so a fork's includes the original's calls). The block is
ccusage's 5-hour billing window (see cc-extract usage --sum block) over
every transcript of the config dir changed this month, priced as
cc-extract usage --cost does and equal to its --sum block: each API call
once (a fork's copies of the original's calls count with the original's
transcript, when it is among those read); when the payload
has rate_limits.five_hour,
its used_percentage and resets_at are shown instead ("5h 42%, 2h14m left");
with neither, the block part is left out.
ctx is the prompt of the session's last main-thread response (input + cache
read + cache write tokens) over the payload's context_window_size (else
200k, 1M for a [1m] model or a prompt over 200k tokens), unless the payload
gives context_window.used_percentage (Claude Code 2.1.328 does). rate_limits
is read as Claude Code builds it: five_hour {used_percentage, resets_at in
Unix seconds}; it is absent with an API key, so the contract suite could not
capture it.

Only what changed is read: each transcript's priced messages are cached
(--cache-dir; --no-cache or CCPIPE_CACHE=off: none), and a first call on a
big config dir prints what it read within --budget and reads on next time.

Template and --jq data: one record (cc-statusline --jq . prints it) with
model, session and block cost, block times, context use, rate_limits, spend,
budget and forecast; each field is in man cc-statusline.
Template functions: usd (a number as $1.23, $0.0042 under a cent, as
tables show money), duration (minutes as 2h14m), pct (a number rounded, no
decimals), paint (paint STATE TEXT: TEXT in yellow for warn, red for over,
when colour is on).

Rate limits: each new rate_limits sample (and the spend then) is appended to
ratelimits.ndjson in the cache dir; --rate-limits prints the windows it saw:
when each reset, whether before its resets_at, the spend per percent.

Budgets: --budgets FILE reads the "budgets:" section of a YAML file (a
cc-hook rule file or a file of its own: day, week, month, block limits in
USD, warn fraction, default 0.8; see docs/cc-hook.md). Past a budget's warn
fraction the line ends with "warn day $4.10 of $5.00, over in 35m" (the
time at the block's pace), past the limit with "OVER day $5.12 of $5.00";
--color always paints them (Claude Code shows ANSI colours in the status
line, but pipes it: auto colours only on a terminal).

A whole payload, as Claude Code 2.1.328 pipes it, is in docs/cc-statusline.md;
try one by hand with cc-statusline < payload.json. A part of the line whose
field the payload lacks is left out.

Examples:
  # the default line
  "statusLine": {"type": "command", "command": "cc-statusline"}

  # the same, with the absolute path, to paste into settings.json
  cc-statusline --print-settings

  # a line of your own
  cc-statusline --template '{{.model}} {{usd .session_cost_usd}}'

  # with jq
  cc-statusline --jq '"\(.model) \(.context_percent)%"' -r

  # the block at your gateway's prices (cc-extract usage --prices rows)
  cc-statusline --prices ~/.config/ccpipe/prices.yaml

  # warn and over states of the budgets in a cc-hook rule file, coloured
  cc-statusline --budgets ~/.config/ccpipe/rules.yaml --color always

  # keep every payload Claude Code sent, for later
  cc-statusline --log ~/.cache/statusline.ndjson

Exit status: 0 ok, 1 the payload cannot be read (the line then says why), 2
usage error (also a bad --prices file: file, line and field named).`

// samplePayload is a small payload of the shape Claude Code 2.1.328 pipes,
// for trying the command by hand (the help shows a whole one).
const samplePayload = `{"model":{"display_name":"Opus"},"cost":{"total_cost_usd":0.42},"context_window":{"used_percentage":12}}`

// DefaultTemplate is the line printed without --template or --jq.
// A part the payload does not give is left out (no " | $? session").
const DefaultTemplate = `{{.model}}{{if and .model (known .session_cost_usd)}} | {{end}}` +
	`{{if known .session_cost_usd}}{{usd .session_cost_usd}} session{{end}}` +
	`{{if .five_hour_used_percent}} | 5h {{pct .five_hour_used_percent}}%{{if .block_active}}, {{duration .block_minutes_left}} left{{end}}` +
	`{{else if .block_active}} | {{usd .block_cost_usd}}{{if .block_partial}}+{{end}} block, {{duration .block_minutes_left}} left{{end}}` +
	`{{if .context_percent}} | ctx {{pct .context_percent}}%{{end}}` +
	`{{if .budget}}{{if ne .budget.state "ok"}} | {{paint .budget.state .budget.text}}{{end}}{{end}}`

type options struct {
	sys      cli.System
	settings bool
	tmpl     string
	recheck  time.Duration
	budget   time.Duration
	log      string
	cacheDir string
	noCache  bool
	prices   string
	budgets  string
	color    string
	limits   bool
}

// Run runs cc-statusline with the process environment.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return RunWith(cli.OS(), args, stdin, stdout, stderr)
}

// RunWith runs cc-statusline in the given System: its clock (the block's
// now) and cache dir, and for --print-settings the binary's path and the
// user's settings file; the payload says the rest.
func RunWith(sys cli.System, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	o := &options{sys: sys}
	c := &cli.Command{
		Sys:      &sys,
		Name:     "cc-statusline",
		Short:    "Claude Code's status line: model, session cost, the 5-hour block, context use",
		Synopsis: "cc-statusline [--template TEXT | --jq EXPR] [--log FILE]",
		Help:     help,
		SetFlags: func(f *cli.Flags) {
			f.StringVar(&o.tmpl, "template", "", "print the line from Go template `TEXT` (default: model, session cost, block, context)")
			f.DurationVar(&o.recheck, "recheck", 5*time.Second, "list every transcript again after `DURATION`; in between, only the asking transcript and the directories are checked")
			f.DurationVar(&o.budget, "budget", 300*time.Millisecond, "stop reading transcripts after `DURATION` and print what was read (the block then shows a +); the next call reads on")
			f.StringVar(&o.log, "log", "", "append each payload to `FILE` as one NDJSON line")
			f.StringVar(&o.cacheDir, "cache-dir", "", "keep the per-transcript cache in `DIR` (default: $XDG_CACHE_HOME/ccpipe/statusline, else the user cache dir's)")
			f.BoolVar(&o.noCache, "no-cache", false, "read every recent transcript whole, neither using nor updating the cache (also CCPIPE_CACHE=off)")
			f.StringVar(&o.prices, "prices", "", "price the block with the override rows in `FILE`, as cc-extract usage --prices does")
			f.StringVar(&o.budgets, "budgets", "", "show warn and over states of the budgets section of `FILE` (a cc-hook rule file or its own)")
			f.Enum(&o.color, "color", "auto", "colour the budget states: `WHEN` (auto: on a terminal, unless NO_COLOR)", []string{"auto", "always", "never"})
			f.BoolVar(&o.limits, "rate-limits", false, "print the rate-limit windows the ledger in the cache dir kept, one record each, and exit")
			f.RecordFormats(records.IDField)
			f.BoolVar(&o.settings, "print-settings", false, "print the settings.json object that runs this binary (absolute path) for the status line")
			f.Exclusive("template", "jq").Says("--template and --jq: give one")
		},
		Run: o.run,
	}
	return c.Main(args, stdin, stdout, stderr)
}

var funcs = template.FuncMap{
	"known": func(v any) bool { _, ok := v.(float64); return ok },
	"usd": func(v any) string {
		f, ok := v.(float64)
		if !ok {
			return "$?"
		}
		return numfmt.Dollars(f)
	},
	"duration": func(v any) string {
		f, _ := v.(float64)
		return numfmt.Minutes(int64(f))
	},
	"pct": func(v any) string {
		f, _ := v.(float64)
		return fmt.Sprintf("%.0f", f)
	},
}

func (o *options) run(env *cli.Env, args []string) error {
	start := time.Now()
	if len(args) > 0 {
		return cli.Usagef("no arguments expected; the payload comes on stdin")
	}
	if o.settings {
		return o.printSettings(env)
	}
	text := o.tmpl
	if text == "" {
		text = DefaultTemplate
	}
	_, term := env.Terminal()
	color := o.color == "always" || o.color == "auto" && term && o.sys.Env("NO_COLOR") == "" && o.sys.Env("TERM") != "dumb"
	tm, err := template.New("line").Funcs(funcs).Funcs(template.FuncMap{"paint": painter(color)}).Option("missingkey=zero").Parse(text)
	if err != nil {
		return cli.Usagef("--template: %v", err)
	}
	// (Prices nil: the built-in table, loaded only if a line is priced.)
	ro := usage.RecentOptions{Now: o.sys.Clock(), Recheck: o.recheck, Deadline: start.Add(o.budget)}
	// --budget covers --jq too: a line that hangs is no status line.
	env.Out.SetJQTimeout(max(o.budget, 50*time.Millisecond))
	// --cache-dir given beats CCPIPE_CACHE=off: a flag beats the environment.
	switch {
	case o.noCache || (o.cacheDir == "" && o.sys.Env("CCPIPE_CACHE") == "off"):
		o.cacheDir = "" // no cache
	case o.cacheDir == "":
		// (HOME unset, env -i, a service: the line is still printed, with
		// a cache in the temp dir.)
		o.cacheDir = warm.CacheDir(o.sys)
	}
	if o.limits {
		return printWindows(env, o.cacheDir)
	}
	if o.prices != "" {
		var data []byte
		if ro.Prices, data, err = load.Prices(o.prices); err != nil {
			return err
		}
		h := sha256.Sum256(data)
		ro.PricesKey = hex.EncodeToString(h[:8])
	}
	var budgets *usage.Budgets
	if o.budgets != "" {
		b, err := usage.ReadBudgets(o.budgets)
		if err != nil {
			return cli.Usagef("--budgets: %v", err)
		}
		budgets = &b
	}
	if !env.HasInput() {
		return cli.Usagef(`no payload on stdin (Claude Code pipes it; try: echo '%s' | cc-statusline)`, samplePayload)
	}
	raw, err := io.ReadAll(io.LimitReader(env.Stdin, 16<<20))
	if err != nil {
		return err
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return cli.Usagef("no payload on stdin: an empty pipe (Claude Code pipes a JSON object)")
	}
	if o.log != "" {
		if err := appendLog(o.log, raw); err != nil {
			env.Warnf("--log: %v", err)
		}
	}
	p, bad, err := hooks.ParseStatusLine(raw)
	if err != nil {
		fmt.Fprintln(env.Stdout, "cc-statusline: unreadable payload")
		return fmt.Errorf("payload: %v", err)
	}
	if bad != nil {
		env.Warnf("payload: fields of an unexpected type read as empty: %s", strings.Join(bad, ", "))
	}
	ro.CacheDir = o.cacheDir
	ro.Location, ro.Session = o.sys.Location(), p.SessionID
	rec, warn := status(&p, raw, ro, budgets)
	if warn != "" {
		env.Warnf("%s", warn)
	}
	if o.cacheDir != "" {
		if err := ratelimit.KeepPayload(o.cacheDir, rec.RateLimits, o.sys.Clock(), rec.SessionCostUSD, rec.Spend); err != nil {
			env.Warnf("rate-limit ledger: %v", err)
		}
	}
	if env.Out.Filtering() {
		return env.Out.Write(rec)
	}
	// The template sees the record as JSON data, the same as --jq.
	var data map[string]any
	b, _ := json.Marshal(rec)
	_ = json.Unmarshal(b, &data)
	var out bytes.Buffer
	if err := tm.Execute(&out, data); err != nil {
		return fmt.Errorf("--template: %v", err)
	}
	line := strings.ReplaceAll(out.String(), "\n", " ")
	env.Out.Printed()
	_, err = fmt.Fprintln(env.Stdout, line)
	return err
}

func appendLog(path string, raw []byte) error {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return fmt.Errorf("payload is not JSON, not logged: %v", err)
	}
	buf.WriteByte('\n')
	return atomicfile.AppendLine(path, buf.Bytes())
}

// Status is the record a template or --jq sees.
type Status struct {
	Model               string          `json:"model"`
	ModelID             string          `json:"model_id"`
	SessionID           string          `json:"session_id"`
	SessionCostUSD      *float64        `json:"session_cost_usd"`
	BlockCostUSD        *float64        `json:"block_cost_usd"`
	BlockStart          *string         `json:"block_start"`
	BlockEnd            *string         `json:"block_end"`
	BlockMinutesLeft    *float64        `json:"block_minutes_left"`
	BlockActive         bool            `json:"block_active"`
	BlockUnpriced       int             `json:"block_unpriced"`
	BlockPartial        bool            `json:"block_partial"`
	FiveHourUsedPercent *float64        `json:"five_hour_used_percent"`
	ContextTokens       *int64          `json:"context_tokens"`
	ContextWindow       *int64          `json:"context_window"`
	ContextPercent      *float64        `json:"context_percent"`
	RateLimits          json.RawMessage `json:"rate_limits"`
	// Spend is what was spent today, this week, this month, in the block
	// and in the session (cc-hook's $spend); null without a transcript.
	Spend *usage.Spend `json:"spend"`
	// Budget is the spend against --budgets (null without).
	Budget *usage.BudgetReport `json:"budget"`
	// Forecast is the active block's pace (null without a rate).
	Forecast *usage.BlockForecast `json:"forecast"`
	Payload  json.RawMessage      `json:"payload"`
}

// status builds the record of a payload (ro: all but its transcript).
func status(p *hooks.StatusLine, raw []byte, ro usage.RecentOptions, budgets *usage.Budgets) (*Status, string) {
	s := &Status{Model: p.Model.DisplayName, ModelID: p.Model.ID, SessionID: p.SessionID,
		SessionCostUSD: p.Cost.TotalCostUSD, RateLimits: p.RateLimits, Payload: raw}
	if s.Model == "" {
		s.Model = p.Model.ID
	}
	if len(s.RateLimits) == 0 {
		s.RateLimits = json.RawMessage("null")
	}
	var r usage.Recent
	if p.TranscriptPath != "" {
		ro.Transcript = p.TranscriptPath
		r = usage.ReadRecent(ro)
		blockOf(s, &r.Block, ro.Now)
		s.BlockPartial = r.Partial
		s.Spend = &r.Spend
		s.Forecast, s.Budget = r.Outlook(ro.Now, budgets)
	}
	if used, reset, ok := ratelimit.FiveHourOf(p.RateLimits); ok {
		s.FiveHourUsedPercent = used
		if !reset.IsZero() && reset.After(ro.Now) {
			left := math.Floor(reset.Sub(ro.Now).Minutes())
			e := reset.UTC().Format(usage.BlockTimeLayout)
			s.BlockMinutesLeft, s.BlockEnd, s.BlockActive = &left, &e, true
		}
	}
	var used, size *float64
	if cw := p.ContextWindow; cw != nil {
		used, size = cw.UsedPercentage, cw.ContextWindowSize
	}
	c := r.ContextUse(p.Model.ID, used, size)
	s.ContextTokens, s.ContextWindow, s.ContextPercent = c.Tokens, c.Window, c.Percent
	return s, strings.Join(r.Warnings, "; ")
}

// blockOf shows the latest block, if it is still running at now.
func blockOf(s *Status, b *usage.Block, now time.Time) {
	if !b.Has {
		return
	}
	start, end := b.Bounds()
	if s.BlockActive = b.Active(now); !s.BlockActive {
		s.BlockCostUSD = new(float64) // $0: no block running
		return
	}
	s.BlockUnpriced = b.Unpriced
	startS, endS := start.Format(usage.BlockTimeLayout), end.Format(usage.BlockTimeLayout)
	left := math.Floor(end.Sub(now).Minutes())
	s.BlockCostUSD, s.BlockStart, s.BlockEnd, s.BlockMinutesLeft = &b.USD, &startS, &endS, &left
}

// painter colours a budget state's text: yellow for warn, red for over,
// when color; else the text alone (it says the state itself).
func painter(color bool) func(state, text string) string {
	return func(state, text string) string {
		code := map[string]string{usage.BudgetWarn: "33", usage.BudgetOver: "1;31"}[state]
		if !color || code == "" {
			return text
		}
		return "\x1b[" + code + "m" + text + "\x1b[0m"
	}
}

// printSettings prints the statusLine object that runs this binary with
// the --template, --color, --prices, --budgets and --log given (files by
// absolute path).
func (o *options) printSettings(env *cli.Env) error {
	var args []string
	if o.tmpl != "" {
		args = append(args, "--template", o.tmpl)
	}
	if o.color != "auto" {
		args = append(args, "--color", o.color)
	}
	for _, f := range []struct{ flag, path string }{{"--prices", o.prices}, {"--budgets", o.budgets}, {"--log", o.log}} {
		if f.path == "" {
			continue
		}
		abs, err := filepath.Abs(f.path)
		if err != nil {
			return fmt.Errorf("resolving %s: %w", f.path, err)
		}
		args = append(args, f.flag, abs)
	}
	cmd, err := o.sys.SelfCommand(args...)
	if err != nil {
		return err
	}
	type statusLine struct {
		Type    string `json:"type"`
		Command string `json:"command"`
	}
	return cli.PrintSettings(env, o.sys, map[string]any{"statusLine": statusLine{"command", cmd}})
}
