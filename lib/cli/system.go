package cli

import (
	"io"
	"os"
	"time"

	"github.com/ccpipe/ccpipe/lib/regular"
)

// System is the process around a command: its environment, home dir,
// cache dir, clock, zone and place in the process tree. Each command
// package has RunWith(sys, args, in, out, err), and Run is
// RunWith(OS(), ...), so a test points a command anywhere by passing
// another System. Domain packages get the parts they need as plain values
// (profiles.NewEnv, sessions.FindOptions), never the OS themselves; only
// this file reads them (lib/internal/depcheck's TestSeam holds the rest
// of the tree to it).
type System struct {
	Getenv  func(string) string    // nil: an empty environment
	Environ func() []string        // the whole environment, for a child process; nil: empty
	Home    string                 // the user's home dir; "" when unknown
	Cache   func() (string, error) // the user's cache dir (os.UserCacheDir); nil: none known
	Now     func() time.Time       // nil: time.Now
	Zone    *time.Location         // for dates and days; nil: UTC
	Pid     int                    // where --current starts walking up the process tree; 0: no walk
	// Terminal reports whether w is a terminal and how wide (0: unknown),
	// which picks --format's default; nil asks the OS (see IsTerminal).
	Terminal func(w io.Writer) (width int, ok bool)
	// Executable is this program's path, for the settings --print-settings
	// prints; nil: os.Executable.
	Executable func() (string, error)
}

// OS is the real System of this process. With HOME unset (a cron job,
// env -i) the home dir is the passwd entry's, as a shell's ~ would be.
func OS() System {
	home, _ := os.UserHomeDir()
	if home == "" {
		home = regular.PasswdHome("/etc/passwd", os.Getuid())
	}
	return System{Getenv: os.Getenv, Environ: os.Environ, Home: home, Cache: os.UserCacheDir,
		Now: time.Now, Zone: time.Local, Pid: os.Getppid()}
}

// Env returns the environment variable key ("" when unset).
func (s System) Env(key string) string {
	if s.Getenv == nil {
		return ""
	}
	return s.Getenv(key)
}

// Environment returns the whole environment as KEY=VALUE strings.
func (s System) Environment() []string {
	if s.Environ == nil {
		return nil
	}
	return s.Environ()
}

// Clock returns the current time.
func (s System) Clock() time.Time {
	if s.Now == nil {
		return time.Now()
	}
	return s.Now()
}

// Location is the zone for dates and days.
func (s System) Location() *time.Location {
	if s.Zone == nil {
		return time.UTC
	}
	return s.Zone
}
