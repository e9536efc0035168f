// Package cli holds the plumbing every cc-* command shares: flag parsing
// that lets flags follow positional arguments, the common output flags
// (--jq, --raw-output, --arg), the stdin rule, exit codes and the single
// place that prints an error.
//
// Only the command packages under lib/commands import it; domain packages
// never do.
package cli
