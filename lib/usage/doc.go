// Package usage is ccpipe's one usage library: the API messages a
// transcript bills (lib/pricing's billing rule applied), merged once,
// counted once across transcripts, priced, cut into 5-hour blocks and
// summed into spend figures. cc-extract usage, cc-render's cost and
// cc-statusline ask here; the commands keep only their flags and output.
//
// The pieces, from the bottom:
//   - Tokens and its Total: the one token total.
//   - Message: one billed API message (session, agent, model, timestamp,
//     ids, every token field, the raw usage that prices it), and Price,
//     its cost as Claude Code computes it (lib/pricing).
//   - ParseLine: the one line reader of billed records (lib/jsonscan, no
//     decode), which the Scanner and the Ledgers read with.
//   - Scanner: cc-extract usage's fast path, a transcript's billed
//     messages with what the read skipped (ScanStats), cached per file
//     (lib/cache) and read on from where the last scan stopped; Facts
//     takes an unchanged file's messages from the cache's bytes.
//   - Merger: the one merge of the records of one message (one record per
//     content block, each repeating the usage) into one Message.
//   - Counter: each message counted once across transcripts, a fork's
//     copies with the original's own record.
//   - BlockSpans and Active: ccusage's 5-hour blocks and the one rule of
//     which block is still running.
//   - Ledgers and ReadRecent: the priced messages of a config dir's recent
//     transcripts, cached per transcript (lib/cache) and read on from
//     where the last call stopped, with a summary file as the warm path:
//     the status line's block and a session's context.
//   - SpendOf: spend figures (today, this week, this month, the running
//     block, a session) over priced messages; ReadRecent's Spend is the
//     same over the messages since SpendWindow, from the warm cache.
//   - Budgets: spend limits (a YAML "budgets:" section) and their states
//     (ok, warn, over); ForecastOf: the running block's burn rate and
//     projection; Recent.Outlook: both for the status line, with the
//     time to a budget at the block's pace; Recent.ContextUse: how full
//     the session's context window is.
//
// It does not import lib/transcript (nor lib/extract): a status line and
// a hook's budget check link it without the transcript readers and their
// archive codecs. A reader that must open a compressed transcript is
// given an opener.
//
// Named usage, not billing: the billing rule itself (which records are
// paid for, which are one message, which session paid) is lib/pricing's;
// this package holds what is built on it, the usage facts, the word
// Claude Code's message.usage and the cc-extract kind use for them.
package usage
