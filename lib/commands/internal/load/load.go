// Package load is what the commands load from the machine before they
// do their work, written once: the Claude Code profiles (config dirs) of
// the System, and the --prices override file of cc-extract and
// cc-statusline.
package load

import (
	"errors"
	"os"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/pricing"
	"github.com/ccpipe/ccpipe/lib/profiles"
)

// Profiles are the System's profiles, problems ignored: for completion
// and for checks that only need the dirs there are.
func Profiles(sys cli.System) []profiles.Profile {
	profs, _ := profiles.Discover(profiles.NewEnv(sys.Home, sys.Getenv))
	return profs
}

// DiscoverProfiles are the System's profiles, each problem warned on
// stderr; no home dir and no CLAUDE_CONFIG_DIR is an error (nowhere to
// look), not an empty answer.
func DiscoverProfiles(env *cli.Env, sys cli.System) ([]profiles.Profile, error) {
	profs, warnings := profiles.Discover(profiles.NewEnv(sys.Home, sys.Getenv))
	if err := profiles.NoHome(warnings); err != nil {
		return nil, err
	}
	for _, w := range warnings {
		env.Warnf("%v", w)
	}
	return profs, nil
}

// NamedProfiles keeps the profiles --profile names (all when none); a
// name no profile has is a usage error, as in cc-profiles.
func NamedProfiles(profs []profiles.Profile, names []string) ([]profiles.Profile, error) {
	named, err := profiles.Named(profs, names)
	var upe *profiles.UnknownProfileError
	if errors.As(err, &upe) {
		return nil, cli.Usagef("%s", upe.Usage())
	}
	return named, err
}

// Prices is the built-in price table with the override rows of the
// --prices file at path, and the file's bytes (a cache key). A file that
// cannot be read or parsed is a usage error naming the file, line and
// field.
func Prices(path string) (*pricing.Catalog, []byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, cli.Usagef("--prices: %v", err)
	}
	rows, err := pricing.ParseOverrides(path, data)
	if err != nil {
		return nil, nil, cli.Usagef("--prices %v", err)
	}
	return pricing.Embedded().WithOverrides(rows), data, nil
}
