package ccprofiles

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/internal/golden"
	"github.com/ccpipe/ccpipe/lib/profiles"
)

// TestGolden keeps cc-profiles' records in testdata/*.golden: every kind
// of profile (default, auth-switch, legacy auth-switch, leftover, env),
// with the home dir written $HOME.
func TestGolden(t *testing.T) {
	env, home := machine(t)
	// auth-switch.yaml wins over the legacy file; its profiles dir is set.
	yaml := "profiles_dir: " + filepath.Join(home, "switch") + "\nprofiles:\n  client:\n    description: the client's account\n"
	if err := os.MkdirAll(filepath.Join(home, "switch", "client", "sessions"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		args  []string
		setup func(t *testing.T)
	}{
		{name: "list_legacy"},
		{name: "one_profile", args: []string{"--profile", "work"}},
		{name: "no_profile", args: []string{"--profile", "nope"}},
		{name: "list_auth_switch", setup: func(t *testing.T) {
			if err := os.WriteFile(filepath.Join(home, ".claude", "auth-switch.yaml"), []byte(yaml), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.setup != nil {
				tt.setup(t)
			}
			var out, errb strings.Builder
			code := RunWith(system(env), tt.args, nil, &out, &errb)
			got := golden.Output(code, errb.String(), out.String())
			// The clash name hashes the temp dir's path.
			got = strings.ReplaceAll(got, profiles.ClashName(filepath.Join(home, "ci/work")), "cfg-$HASH")
			got = strings.ReplaceAll(got, home, "$HOME")
			golden.Check(t, filepath.Join("testdata", tt.name+".golden"), got)
		})
	}
}
