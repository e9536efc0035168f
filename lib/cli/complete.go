package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

// completeArg is the hidden first argument the completion scripts call a
// command with: `cc-x __complete WORD... CURRENT` prints the words that
// may come at CURRENT, one per line; the shell filters them by prefix.
const completeArg = "__complete"

// Shells lists the shells --completion writes a script for.
var Shells = []string{"bash", "zsh", "fish"}

// completionScript is the script of one shell for the command name; each
// asks the command itself for the words (completeArg), so that session
// names and ids come from the registry at the moment of completion.
func completionScript(shell, name string) (string, bool) {
	fn := "_" + strings.ReplaceAll(name, "-", "_")
	switch shell {
	case "bash":
		return fmt.Sprintf(`# bash completion for %[1]s: source it, or put it in ~/.local/share/bash-completion/completions/%[1]s
%[2]s() {
	local cur="${COMP_WORDS[COMP_CWORD]}" IFS=$'\n'
	local words
	words=$(%[1]s %[3]s "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)
	if [ -n "$words" ]; then
		COMPREPLY=($(compgen -W "$words" -- "$cur"))
	else
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
}
complete -o filenames -F %[2]s %[1]s
`, name, fn, completeArg), true
	case "zsh":
		return fmt.Sprintf(`#compdef %[1]s
# zsh completion for %[1]s: put it as _%[1]s in a directory of $fpath, or source it after compinit
%[2]s() {
	local -a cands
	cands=("${(@f)$(%[1]s %[3]s "${(@)words[2,CURRENT]}" 2>/dev/null)}")
	if (( ${#cands} )) && [[ -n "${cands[1]}" ]]; then
		compadd -a cands
	else
		_files
	fi
}
compdef %[2]s %[1]s
`, name, fn, completeArg), true
	case "fish":
		return fmt.Sprintf(`# fish completion for %[1]s: put it in ~/.config/fish/completions/%[1]s.fish
complete -c %[1]s -a '(%[1]s %[2]s (commandline -opc)[2..-1] (commandline -ct) 2>/dev/null)'
`, name, completeArg), true
	}
	return "", false
}

// complete prints the words that may come at the last of words.
func (c *Command) complete(ctx context.Context, w io.Writer, words []string) {
	f := newFlags(c.Name, c.NoJQ)
	if c.SetFlags != nil {
		c.SetFlags(f)
	}
	if len(words) == 0 {
		words = []string{""}
	}
	cur, before := words[len(words)-1], words[:len(words)-1]
	var pos []string
	valueOf := "" // the flag whose value comes at cur
	for i := 0; i < len(before); i++ {
		wd := before[i]
		switch {
		case wd == "--":
			return // the rest is verbatim (a message, a command)
		case wd == "--arg" || wd == "-arg":
			i += 2
		case len(wd) > 1 && wd[0] == '-':
			name := strings.TrimLeft(wd, "-")
			if strings.Contains(name, "=") {
				continue
			}
			if fl := f.fs.Lookup(name); fl != nil && !isBool(fl) {
				if i == len(before)-1 {
					valueOf = f.long(name)
				}
				i++
			}
		default:
			pos = append(pos, wd)
		}
	}
	var out []string
	switch {
	case f.Values(valueOf) != nil:
		out = f.Values(valueOf)
	case valueOf == "completion":
		out = Shells
	case valueOf == "format":
		out = Formats
	case valueOf != "":
		if c.Complete != nil {
			out = c.Complete(ctx, valueOf, pos)
		}
	case strings.HasPrefix(cur, "-"):
		out = f.names()
	case c.Complete != nil:
		out = c.Complete(ctx, "", pos)
	}
	for _, s := range out {
		if s != "" && !strings.ContainsAny(s, "\n") {
			fmt.Fprintln(w, s)
		}
	}
}

func isBool(fl *flag.Flag) bool {
	b, ok := fl.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// long maps a one-letter alias to its long name.
func (f *Flags) long(name string) string {
	for l, s := range f.aliases {
		if s == name {
			return l
		}
	}
	return name
}

// names lists every flag as --long, sorted, plus --arg.
func (f *Flags) names() []string {
	shorts := map[string]bool{}
	for _, s := range f.aliases {
		shorts[s] = true
	}
	out := []string{"--arg"}
	f.fs.VisitAll(func(fl *flag.Flag) {
		if !shorts[fl.Name] {
			out = append(out, "--"+fl.Name)
		}
	})
	sort.Strings(out)
	return out
}

// docArg is the hidden first argument that prints the command's own
// documentation as one JSON object (Doc), for lib/internal/gendocs.
const docArg = "__doc"

// Doc is a command's documentation as its help and flags define it.
type Doc struct {
	Name     string    `json:"name"`
	Short    string    `json:"short,omitempty"` // the one-line summary
	Synopsis string    `json:"synopsis"`
	Help     string    `json:"help"`
	Flags    []FlagDoc `json:"flags"`
	// Subcommands, for a command that dispatches on its first word to a
	// Command each (see PrintDoc).
	Subcommands []Doc `json:"subcommands,omitempty"`
}

// FlagDoc is one flag of a Doc.
type FlagDoc struct {
	Name    string `json:"name"`
	Short   string `json:"short,omitempty"`
	Arg     string `json:"arg,omitempty"` // the value's name; "" for a boolean flag
	Usage   string `json:"usage"`
	Default string `json:"default,omitempty"`
}

func (c *Command) doc(w io.Writer) { PrintDoc(w, c.Doc()) }

// IsDocArg reports whether args ask for the hidden documentation (a
// dispatching command answers it with PrintDoc of its Doc and its
// subcommands' Docs).
func IsDocArg(args []string) bool { return len(args) == 1 && args[0] == docArg }

// PrintDoc writes d as the hidden documentation request wants it.
func PrintDoc(w io.Writer, d Doc) {
	b, _ := json.MarshalIndent(d, "", "  ")
	fmt.Fprintf(w, "%s\n", b)
}

// Doc is the command's documentation: its help and its flags.
func (c *Command) Doc() Doc {
	f := newFlags(c.Name, c.NoJQ)
	if c.SetFlags != nil {
		c.SetFlags(f)
	}
	d := Doc{Name: c.fullName(), Short: c.Short, Synopsis: c.Synopsis, Help: strings.TrimRight(c.Help, "\n")}
	shorts := map[string]bool{}
	for _, s := range f.aliases {
		shorts[s] = true
	}
	f.fs.VisitAll(func(fl *flag.Flag) {
		if shorts[fl.Name] {
			return
		}
		arg, usage := flag.UnquoteUsage(fl)
		fd := FlagDoc{Name: fl.Name, Short: f.aliases[fl.Name], Arg: arg, Usage: usage}
		if !isBool(fl) && fl.DefValue != "" && fl.DefValue != "0" && fl.DefValue != "0s" && fl.DefValue != "[]" {
			fd.Default = fl.DefValue
		}
		d.Flags = append(d.Flags, fd)
	})
	if c.NoJQ == "" {
		d.Flags = append(d.Flags, FlagDoc{Name: "arg", Arg: "NAME VALUE", Usage: "bind $NAME to the string VALUE in the --jq expression"})
	}
	sort.Slice(d.Flags, func(i, j int) bool { return d.Flags[i].Name < d.Flags[j].Name })
	return d
}
