// Package ccprofiles is the cc-profiles command: every Claude Code config
// dir on the machine, one NDJSON record each.
package ccprofiles

import (
	"context"
	"errors"
	"io"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/profiles"
	"github.com/ccpipe/ccpipe/lib/records"
)

const help = `usage: cc-profiles [flags]

Lists every Claude Code config dir on this machine as one NDJSON record
each: ~/.claude (named default), the profiles of claude-code-auth-switch
(~/.claude/auth-switch.yaml, else ~/.claude-profiles/config.yaml), config
dirs left behind in the profiles dir, and $CLAUDE_CONFIG_DIR. A dir reached
twice (a symlink, the env var naming a listed dir) is listed once. Names are
unique and stable; a name that would clash becomes cfg-<8 hex>.

Archive dirs (written by cc-entries --archive) named in $CCPIPE_ARCHIVE
(DIR[:DIR...]) or by --archive are listed last, as profiles of source
archive named archive-<dir name>, whose projects_dir is the archive dir
itself. Every command that lists sessions (cc-sessions, cc-grep,
cc-redact) reads their copies as it reads live transcripts, and cc-extract,
cc-render, cc-entries and cc-cassette read them through cc-sessions
records. A session both live and archived is read once: the live file
while it is at least as long as the copy, else the copy.

Record fields: name, source (default | auth-switch | auth-switch-legacy |
leftover | env | archive), config_dir (symlinks resolved), config_dir_given,
exists, projects_dir, sessions_dir, description, config_file.

Examples:
  # every profile's name
  $ cc-profiles --jq .name -r

  # the sessions of one profile
  $ cc-profiles --profile work | cc-sessions

  # every session, live or archived, read once
  $ cc-profiles --archive ~/cc-archive | cc-sessions

Exit status: 0 ok, 1 no such profile or a failure, 2 usage error.`

type options struct {
	profile string
	env     profiles.Env
}

// Run runs cc-profiles with the process environment.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return RunWith(cli.OS(), args, stdin, stdout, stderr)
}

// RunWith runs cc-profiles in the given System.
func RunWith(sys cli.System, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	o := options{env: profiles.NewEnv(sys.Home, sys.Getenv)}
	c := &cli.Command{
		Sys:      &sys,
		Name:     "cc-profiles",
		Short:    "every Claude Code config dir on the machine, uniquely named",
		Synopsis: "cc-profiles [--profile NAME] [--archive DIR]... [--jq EXPR]",
		Help:     help,
		SetFlags: func(f *cli.Flags) {
			f.StringVar(&o.profile, "profile", "", "list only the profile named `NAME`")
			f.RecordFormats(records.IDField)
			f.Func("archive", "add the archive `DIR` as a profile (repeatable; after $CCPIPE_ARCHIVE)", func(v string) error {
				if v == "" {
					return errors.New("an archive dir is needed")
				}
				o.env.Archives = append(o.env.Archives, v)
				return nil
			})
		},
		Run: o.run,
		Complete: func(_ context.Context, flag string, _ []string) []string {
			if flag == "profile" {
				profs, _ := profiles.Discover(o.env)
				return profiles.Names(profs)
			}
			return nil
		},
	}
	return c.Main(args, stdin, stdout, stderr)
}

func (o *options) run(env *cli.Env, args []string) error {
	if len(args) > 0 {
		return cli.Usagef("unexpected argument %q", args[0])
	}
	list, warnings := profiles.Discover(o.env)
	if err := profiles.NoHome(warnings); err != nil {
		return err
	}
	for _, w := range warnings {
		env.Warnf("%v", w)
	}
	found := false
	for _, p := range list {
		if o.profile != "" && p.Name != o.profile {
			continue
		}
		found = true
		if err := env.Out.Write(p); err != nil {
			return err
		}
	}
	if o.profile != "" && !found {
		return cli.Usagef("%s", profiles.UnknownName(o.profile, list))
	}
	return nil
}
