package load

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/cli"
)

func TestPrices(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(good, []byte("- {name: claude-sonnet-5-5, inputPerMtok: 2, outputPerMtok: 10, cacheReadPerMtok: 0.2, cacheWritePerMtok: 2.5}\n"), 0o644)
	os.WriteFile(bad, []byte(`[{"name": "x"}]`), 0o644)
	cat, data, err := Prices(good)
	if err != nil || cat == nil || len(data) == 0 {
		t.Fatalf("good file: %v %v %d", cat, err, len(data))
	}
	for _, path := range []string{bad, filepath.Join(dir, "missing.json")} {
		_, _, err := Prices(path)
		var ue *cli.UsageError
		if !errors.As(err, &ue) || !strings.HasPrefix(ue.Msg, "--prices") || !strings.Contains(ue.Msg, filepath.Base(path)) {
			t.Errorf("%s: %v, want a usage error naming --prices and the file", path, err)
		}
	}
}

func TestProfiles(t *testing.T) {
	cfg := t.TempDir()
	sys := cli.System{Getenv: func(k string) string {
		if k == "CLAUDE_CONFIG_DIR" {
			return cfg
		}
		return ""
	}}
	if profs := Profiles(sys); len(profs) != 1 {
		t.Fatalf("Profiles: %v", profs)
	}
	if _, err := NamedProfiles(Profiles(sys), []string{"nope"}); err == nil {
		t.Fatal("an unknown --profile name is no error")
	} else if ue := (*cli.UsageError)(nil); !errors.As(err, &ue) {
		t.Errorf("unknown name: %v, want a usage error", err)
	}
	var errb strings.Builder
	c := &cli.Command{Sys: &cli.System{}, Name: "cc-test", Run: func(env *cli.Env, _ []string) error {
		_, err := DiscoverProfiles(env, cli.System{})
		return err
	}}
	if code := c.Main(nil, nil, &strings.Builder{}, &errb); code != 1 || !strings.Contains(errb.String(), "no home directory") {
		t.Errorf("no home: exit %d, %q", code, errb.String())
	}
}
