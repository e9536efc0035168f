// Package cli holds the plumbing every cc-* command shares: flag parsing
// that lets flags follow positional arguments, the common output flags
// (--jq, --raw-output, --arg; jq's -c accepted), the stdin rule, exit
// codes and the single place that prints an error.
//
// It is also the commands' vocabulary, after gh's cmdutil: a one-line
// Short per command and subcommand (the first line of -h, the man page's
// NAME); Subcommands, each a Command with its own flags, help and
// completion; Enum flags, whose one list of values drives the check,
// the completion and the help line; Exclusive and Requires rules between
// flags, declared beside them; and DidYouMean for a misspelt flag,
// value, subcommand or any other word from a known list.
//
// Only the command packages under lib/commands import it; domain packages
// never do.
package cli
