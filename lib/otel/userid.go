package otel

import (
	"encoding/json"
	"path/filepath"
	"sync"

	"github.com/ccpipe/ccpipe/lib/regular"
	"github.com/ccpipe/ccpipe/lib/transcript"
)

// maxClaudeJSON bounds the .claude.json read for its userID.
const maxClaudeJSON = 64 << 20

// UserIDs returns the user.id Claude Code puts on its telemetry for the
// session at a transcript path: the userID of the .claude.json of the
// transcript's config dir (<config>/.claude.json, or home/.claude.json
// for ~/.claude), read once per config dir; "" when there is none.
func UserIDs(home string) func(transcriptPath string) string {
	var mu sync.Mutex
	known := map[string]string{}
	return func(path string) string {
		dir := transcript.ConfigDirOf(path)
		if dir == "" {
			return ""
		}
		mu.Lock()
		defer mu.Unlock()
		if id, ok := known[dir]; ok {
			return id
		}
		files := []string{filepath.Join(dir, ".claude.json")}
		if home != "" && filepath.Clean(dir) == filepath.Join(home, ".claude") {
			files = append(files, filepath.Join(home, ".claude.json"))
		}
		id := ""
		for _, f := range files {
			b, err := regular.ReadFile(f, maxClaudeJSON)
			if err != nil {
				continue
			}
			var cfg struct {
				UserID string `json:"userID"`
			}
			if json.Unmarshal(b, &cfg) == nil && cfg.UserID != "" {
				id = cfg.UserID
				break
			}
		}
		known[dir] = id
		return id
	}
}
