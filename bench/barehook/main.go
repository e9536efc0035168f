// Command barehook is the floor of a Go command hook, bench/run's peer for
// cc-redact --hook: it reads the payload on stdin, decodes it and exits 0
// without a reply.
package main

import (
	"encoding/json"
	"io"
	"os"
)

func main() {
	b, err := io.ReadAll(os.Stdin)
	if err != nil {
		os.Exit(1)
	}
	var v map[string]json.RawMessage
	if json.Unmarshal(b, &v) != nil {
		os.Exit(1)
	}
}
