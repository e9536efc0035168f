package cli

import (
	"regexp"
	"sync"
)

// secretPattern matches what must never reach a terminal or a log: API
// keys, bearer tokens, the peer token of a .key file (32 hex), and values
// of JSON fields whose name says token, key or secret. Compiled on first
// use: every command links this package, most never mask anything.
var secretPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`sk-ant-[A-Za-z0-9_\-]{4,}|(?i:bearer\s+)[A-Za-z0-9._\-]{8,}|\b[0-9a-f]{32}\b|("(?i:[a-z_]*(?:token|secret|password|api_?key))"\s*:\s*")[^"]*"`)
})

// Mask replaces secrets in s with a fixed mark.
func Mask(s string) string {
	re := secretPattern()
	return re.ReplaceAllStringFunc(s, func(m string) string {
		if sub := re.FindStringSubmatch(m); sub[1] != "" {
			return sub[1] + `***"`
		}
		return "***"
	})
}
