package sessions

import (
	"os"

	"github.com/ccpipe/ccpipe/lib/profiles"
	"github.com/ccpipe/ccpipe/lib/registry"
)

// Surroundings is what finding sessions reads from outside the process's
// arguments: where the profiles are, which machine and pid namespace this
// is, the environment (CLAUDE_CODE_SESSION_ID...) and where --current
// starts walking up the process tree. Commands take it so tests can point
// them anywhere.
type Surroundings struct {
	Profiles profiles.Env
	Host     *registry.Host      // nil: this machine
	Getenv   func(string) string // nil: no environment
	Pid      int                 // where Current starts walking up (0: the parent)
}

// SurroundingsFromOS describes this process's real surroundings.
func SurroundingsFromOS() Surroundings {
	return Surroundings{Profiles: profiles.EnvFromOS(), Getenv: os.Getenv}
}
