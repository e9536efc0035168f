// Command mcpvault is a stdio MCP server with one tool, get, whose result
// is the text in $MCPVAULT_TEXT: the contract suite's MCP tool whose
// output cc-redact --hook masks.
package main

import (
	"bufio"
	"encoding/json"
	"os"
)

type request struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		ProtocolVersion string `json:"protocolVersion"`
	} `json:"params"`
}

func main() {
	in := bufio.NewReader(os.Stdin)
	out := json.NewEncoder(os.Stdout)
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			return
		}
		var r request
		if json.Unmarshal(line, &r) != nil || r.ID == nil {
			continue // a notification
		}
		var result any
		switch r.Method {
		case "initialize":
			v := r.Params.ProtocolVersion
			if v == "" {
				v = "2025-06-18"
			}
			result = map[string]any{"protocolVersion": v, "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "vault", "version": "1.0.0"}}
		case "tools/list":
			result = map[string]any{"tools": []any{map[string]any{"name": "get", "description": "Get the vault's text.",
				"inputSchema": map[string]any{"type": "object", "properties": map[string]any{}}}}}
		case "tools/call":
			result = map[string]any{"content": []any{map[string]any{"type": "text", "text": os.Getenv("MCPVAULT_TEXT")}}}
		default:
			result = map[string]any{}
		}
		_ = out.Encode(map[string]any{"jsonrpc": "2.0", "id": r.ID, "result": result})
	}
}
