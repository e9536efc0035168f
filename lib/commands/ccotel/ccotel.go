// Package ccotel is the cc-otel command: send a session history as Claude
// Code's own OpenTelemetry, to any OTLP collector, once.
package ccotel

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/ccpipe/ccpipe/lib/cache"
	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/commands/internal/load"
	"github.com/ccpipe/ccpipe/lib/extract"
	"github.com/ccpipe/ccpipe/lib/ndjson"
	"github.com/ccpipe/ccpipe/lib/otel"
	"github.com/ccpipe/ccpipe/lib/pricing"
	"github.com/ccpipe/ccpipe/lib/records"
	"github.com/ccpipe/ccpipe/lib/secrets"
	"github.com/ccpipe/ccpipe/lib/transcript"
)

const help = `usage: cc-otel [flags] [TRANSCRIPT|DIR...]

Sends what Claude Code transcripts hold as Claude Code's own OpenTelemetry
(the names, units, temporality and attributes Claude Code 2.1.328 sends with
CLAUDE_CODE_ENABLE_TELEMETRY=1), timestamped when it happened, to an OTLP
collector: metrics claude_code.session.count, claude_code.token.usage and
claude_code.cost.usage (delta sums), and log events claude_code.user_prompt,
claude_code.api_request, claude_code.tool_decision and claude_code.tool_result.
Each API request's tokens and cost are ccpipe's (cc-extract usage --cost:
Claude Code's own cost, to the bit). The resource carries service.name
claude-code, service.version (the session's Claude Code), host.arch, os.type,
ccpipe.provenance=transcript (a backfill, not live telemetry) and
OTEL_RESOURCE_ATTRIBUTES.

Input is read like cc-extract's: session records (cc-sessions output),
transcript entries (cc-entries output) or transcript files and directories
as arguments; with nothing piped, every session of every profile. A
session's subagent transcripts are read with it.

Exactly once per destination: a ledger under the cache dir
($XDG_CACHE_HOME/ccpipe/otel, one per signal endpoint) records each event
after the collector acknowledged the request that carried it. A run sends
only what the ledger lacks, so a cron job can pipe overlapping windows; an
event a collector refused or never acknowledged (down, killed mid-export)
is sent by the next run. When some wait, cc-otel exits 1 naming how many.

The collector is set with the standard environment, read as Claude Code
reads it: OTEL_EXPORTER_OTLP_ENDPOINT (default http://localhost:4318, or
:4317 for grpc), OTEL_EXPORTER_OTLP_{LOGS,METRICS}_ENDPOINT (used as
given), OTEL_EXPORTER_OTLP_PROTOCOL and its per-signal twins (http/protobuf
by default, http/json, grpc), OTEL_EXPORTER_OTLP_HEADERS and per-signal
headers (never printed), OTEL_EXPORTER_OTLP_TIMEOUT (ms, default 10000),
OTEL_EXPORTER_OTLP_COMPRESSION (gzip), OTEL_RESOURCE_ATTRIBUTES, and
OTEL_LOGS_EXPORTER / OTEL_METRICS_EXPORTER (a value without otlp turns the
signal off). Prompts are sent as <REDACTED>, as Claude Code does, unless
OTEL_LOG_USER_PROMPTS=1; then with every credential masked (lib/secrets).
Tool inputs and outputs are never sent; their sizes are.

Writes one record per signal: signal, endpoint (without user info or
query), protocol, sent, already (acknowledged by earlier runs), waiting,
rejected (acknowledged, but the collector said it dropped them). --dry-run
sends nothing and writes the OTLP JSON requests it would send instead, one
per line (the collector file exporter's format).

Examples:
  # every session, to a local collector
  $ cc-otel

  # cron, every 10 minutes: the sessions of the last day, once each
  */10 * * * * cc-sessions --since 1d | cc-otel

  # what would be sent, as OTLP JSON
  $ cc-sessions --limit 1 | cc-otel --dry-run |
      jq -c '.resourceLogs[]?.scopeLogs[].logRecords[].body'

Exit status: 0 all sent (or already sent), 1 records wait (the collector
refused or could not be reached: run again) or another failure, 2 usage
error (also a bad OTEL_* setting).`

// batchSize is the events per export request (tests make it small).
var batchSize = otel.BatchSize

type options struct {
	sys        cli.System
	dryRun     bool
	prices     string
	noCache    bool
	cacheStats bool
}

// Run runs cc-otel in the OS's System.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return RunWith(cli.OS(), args, stdin, stdout, stderr)
}

// RunWith runs cc-otel in sys.
func RunWith(sys cli.System, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	o := &options{sys: sys}
	c := &cli.Command{
		Sys:      &sys,
		Name:     "cc-otel",
		Short:    "send session history as Claude Code's own OpenTelemetry to an OTLP collector, once",
		Synopsis: "cc-otel [flags] [TRANSCRIPT|DIR...]",
		Help:     help,
		SetFlags: func(f *cli.Flags) {
			f.BoolVar(&o.dryRun, "dry-run", false, "send nothing; write the OTLP JSON requests that would be sent")
			f.StringVar(&o.prices, "prices", "", "price the models named in `FILE` (JSON or YAML) at its rates, as cc-extract --prices")
			f.BoolVar(&o.noCache, "no-cache", false, "read every session whole, neither using nor updating the event cache")
			f.BoolVar(&o.cacheStats, "cache-stats", false, "report the event cache's size and this run's use of it on stderr")
		},
		Run: o.run,
	}
	return c.Main(args, stdin, stdout, stderr)
}

// summary is the record written per signal.
type summary struct {
	Signal   string `json:"signal"`
	Endpoint string `json:"endpoint"`
	Protocol string `json:"protocol"`
	Sent     int    `json:"sent"`
	Already  int    `json:"already"`
	Waiting  int    `json:"waiting"`
	Rejected int64  `json:"rejected"`
}

func (o *options) run(env *cli.Env, paths []string) error {
	cfg, err := otel.ConfigFromEnv(o.sys.Getenv)
	if err != nil {
		return cli.Usagef("%v", err)
	}
	prices, pricesKey := pricing.Embedded(), ""
	if o.prices != "" {
		var data []byte
		if prices, data, err = load.Prices(o.prices); err != nil {
			return err
		}
		h := sha256.Sum256(data)
		pricesKey = hex.EncodeToString(h[:8])
	}
	ropts := otel.ReadOptions{Prices: prices, UserID: otel.UserIDs(o.sys.Home), Warn: func(m string) { env.Warnf("%s", m) }}
	// The cache keeps events as they are sent: not the prompts asked for
	// by OTEL_LOG_USER_PROMPTS=1 (masked by rules that may change).
	if dir := o.sys.CacheDir(); dir != "" && !o.noCache && !cfg.LogUserPrompts {
		ropts.Cache = cache.Open(dir, otel.EventCacheName, otel.EventCacheVersion+"/"+pricesKey)
		defer ropts.Cache.SaveReport(o.cacheStats, env.Warnf)
	} else if o.cacheStats {
		env.Warnf("cache: off")
	}
	if cfg.LogUserPrompts {
		set, err := secrets.DefaultWith()
		if err != nil {
			return err
		}
		ropts.Prompt = func(s string) string { out, _ := set.ReplaceString(s); return out }
	}
	x := &otel.Exporter{BatchSize: batchSize, Resource: otel.Resource{HostArch: runtime.GOARCH, OSType: runtime.GOOS, Extra: cfg.Resource}}
	if o.dryRun {
		x.DryRun = env.Stdout
	}
	chans := []*otel.Channel{}
	targets := []otel.Target{}
	for _, t := range []otel.Target{cfg.Logs, cfg.Metrics} {
		if t.Off {
			continue
		}
		ch, err := o.channel(t)
		if err != nil {
			for _, c := range chans {
				closeChannel(c)
			}
			return err
		}
		defer closeChannel(ch)
		if t.Signal == otel.Logs {
			x.Logs = ch
		} else {
			x.Metrics = ch
		}
		chans, targets = append(chans, ch), append(targets, t)
	}
	if len(chans) == 0 {
		return cli.Usagef("OTEL_LOGS_EXPORTER and OTEL_METRICS_EXPORTER turn both signals off: nothing to send")
	}
	// An http/protobuf or grpc export sends each session's events from pieces
	// the event cache keeps marshalled. Their segment is synced (Close)
	// before the store that names it is saved (the deferred SaveReport).
	if ropts.Cache != nil && !o.dryRun && ((x.Logs != nil && cfg.Logs.Protocol != "http/json") ||
		(x.Metrics != nil && cfg.Metrics.Protocol != "http/json")) {
		ropts.Pieces = otel.NewPieces(otel.PiecesDir(o.sys.CacheDir()), x.Resource, otel.ChunkFor(batchSize))
		x.Pieces = ropts.Pieces
		defer func() {
			if err := ropts.Pieces.Close(ropts.Cache); err != nil && o.cacheStats {
				env.Warnf("cache: pieces: %v", err)
			}
		}()
	}
	r, err := otel.NewReader(ropts, func(s *otel.SessionEvents) error { return x.AddSession(env.Ctx, s) })
	if err != nil {
		return err
	}
	err = o.read(env, r, paths)
	err = errors.Join(err, r.Close(), x.Close(env.Ctx))
	if ropts.Pieces != nil {
		// Chunks damaged on disk are sent built with pdata; their
		// sessions' pieces are built again, once, for the next run.
		if bad := ropts.Pieces.Bad(); bad > 0 {
			n := r.RepairPieces()
			if o.cacheStats {
				env.Warnf("cache: pieces: %d chunks did not read back (sent built again); the pieces of %d sessions built anew", bad, n)
			}
		}
	}
	if err != nil {
		return err
	}
	return o.report(env, chans, targets)
}

func closeChannel(c *otel.Channel) {
	if c.Sender != nil {
		_ = c.Sender.Close()
	}
	if c.Ledger != nil {
		c.Ledger.Close()
	}
}

// channel opens a signal's sender and ledger (read-only when dry).
func (o *options) channel(t otel.Target) (*otel.Channel, error) {
	dir := o.sys.CacheDir()
	if dir == "" {
		return nil, errors.New("no cache dir for the ledger (CCPIPE_CACHE=off, or no home): cc-otel cannot tell what was sent")
	}
	l, err := otel.OpenLedger(filepath.Join(dir, "otel", otel.DestinationID(t)), o.dryRun, 10*time.Second)
	if err != nil {
		return nil, err
	}
	ch := &otel.Channel{Signal: t.Signal, Ledger: l}
	if !o.dryRun {
		if ch.Sender, err = otel.NewSender(t); err != nil {
			l.Close()
			return nil, err
		}
	}
	return ch, nil
}

func (o *options) report(env *cli.Env, chans []*otel.Channel, targets []otel.Target) error {
	waiting := 0
	var why []string
	for i, c := range chans {
		t := targets[i]
		if !o.dryRun {
			s := summary{Signal: string(c.Signal), Endpoint: otel.Redact(t.URL), Protocol: t.Protocol,
				Sent: c.Stats.Sent, Already: c.Stats.Already, Waiting: c.Stats.Waiting, Rejected: c.Stats.Rejected}
			if err := env.Out.Write(s); err != nil {
				return err
			}
		}
		if c.Stats.Rejected > 0 {
			env.Warnf("%s: the collector dropped %d of what it acknowledged (see its logs)", c.Signal, c.Stats.Rejected)
		}
		if c.Stats.Waiting > 0 {
			waiting += c.Stats.Waiting
			why = append(why, fmt.Sprintf("%s %d to %s (%v)", c.Signal, c.Stats.Waiting, otel.Redact(t.URL), c.Down()))
		}
	}
	if waiting > 0 {
		return fmt.Errorf("%d records wait, not acknowledged: %s; the next run sends them", waiting, strings.Join(why, "; "))
	}
	return nil
}

// read hands the input's sessions or entries to r.
func (o *options) read(env *cli.Env, r *otel.Reader, paths []string) error {
	session := func(p string) error {
		err := r.Session(env.Ctx, p)
		if err != nil && env.Ctx.Err() == nil {
			env.Warnf("%v: skipped", err)
			return nil
		}
		return err
	}
	switch {
	case len(paths) > 0:
		return load.Transcripts(paths, session, func(err error) { env.Warnf("%v: skipped", err) })
	case env.HasInput():
		return o.readStdin(env, r, session)
	}
	return load.EveryTranscript(env, o.sys, time.Time{}, session)
}

// readStdin reads session records (or hook payloads) by their transcripts
// and anything else as transcript entries, as the first record says
// (load.FirstRecord), as cc-extract does.
func (o *options) readStdin(env *cli.Env, r *otel.Reader, session func(string) error) error {
	if first, found := load.FirstRecord(env); found && (first.Kind == records.Session || first.Kind == records.Hook) {
		return load.SessionRecords(env, session)
	}
	return readEntries(env, r)
}

// readEntries hands r each transcript entry on stdin (records.Classify
// says which lines are: one without a session, a file-history-snapshot,
// is one too); any other record is skipped and counted.
func readEntries(env *cli.Env, r *otel.Reader) error {
	entries := 0
	_, err := env.ReadInput(ndjson.NewReaderSize(env.Stdin, 1<<20), func(line []byte, n int, _ bool) error {
		e, err := transcript.Decode(line)
		if err != nil {
			return ndjson.ErrMalformed
		}
		rec, err := records.Classify(line)
		if err != nil {
			return ndjson.ErrMalformed
		}
		if rec.Kind != records.Entry {
			env.SkipInput(n, `not a transcript entry, skipped`)
			return nil
		}
		entries++
		var o extract.Origin
		if s := rec.Source; s != nil {
			o = extract.Origin{Path: s.Path, SessionID: s.SessionID, AgentID: s.AgentID}
		}
		return r.Entry(o, e)
	})
	if err == nil && entries == 0 && env.SkippedInput() > 0 {
		return &cli.ExitError{Code: cli.ExitFail, Err: errors.New("no transcript entry in the input")}
	}
	return err
}
