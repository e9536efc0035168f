package regular

import (
	"os"
	"path/filepath"
	"testing"
)

func TestPasswdHome(t *testing.T) {
	p := filepath.Join(t.TempDir(), "passwd")
	data := "root:x:0:0:root:/root:/bin/bash\n#comment\nbad line\ndev:x:1000:1000::/home/dev:/bin/sh\nrel:x:1001:1001::relative:/bin/sh\n"
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	for uid, want := range map[int]string{0: "/root", 1000: "/home/dev", 1001: "", 4242: ""} {
		if got := PasswdHome(p, uid); got != want {
			t.Errorf("PasswdHome(%d) = %q, want %q", uid, got, want)
		}
	}
	if got := PasswdHome(filepath.Join(t.TempDir(), "none"), 0); got != "" {
		t.Errorf("missing file: %q", got)
	}
}
