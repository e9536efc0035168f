// Package contract holds the contract suite: tests that run the real
// Claude Code CLI (through lib/internal/claudetest) and check that what it writes
// still has the shape ccpipe reads. The tests run only with
// CCPIPE_CONTRACT=1; see Require.
//
// This file is the record-shape checker: the fields ccpipe depends on, with
// their JSON types, per record type. A drift in the CLI makes Check name
// the record type and the field.
package contract

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/internal/claudetest"
)

// Require skips the test unless CCPIPE_CONTRACT=1, and fails it when the
// CLI cannot be found or installed.
func Require(t testing.TB) {
	t.Helper()
	if os.Getenv("CCPIPE_CONTRACT") != "1" {
		t.Skip("contract suite skipped: it runs the real Claude Code CLI; run it with CCPIPE_CONTRACT=1 go test ./lib/internal/contract/")
	}
	if _, err := claudetest.Binary(); err != nil {
		t.Fatalf("contract suite: %v", err)
	}
}

// Field is one expected field: a dotted path (array elements by index, as
// in message.content.0.type) and the JSON types it may have, separated by
// "|": string, number, bool, object, array, null.
type Field struct {
	Path     string
	Types    string
	Optional bool // may be missing, but if present must have one of Types
}

// Shape is the expected fields of one record type.
type Shape struct {
	Name   string // as in messages: "assistant record"
	Fields []Field
}

func req(path, types string) Field { return Field{Path: path, Types: types} }
func opt(path, types string) Field { return Field{Path: path, Types: types, Optional: true} }

// envelope is what every conversation record (user, assistant, system,
// attachment) carries.
var envelope = []Field{
	req("type", "string"), req("uuid", "string"), req("parentUuid", "string|null"),
	req("isSidechain", "bool"), req("timestamp", "string"), req("sessionId", "string"),
	req("cwd", "string"), req("version", "string"), req("gitBranch", "string"),
	req("userType", "string"), req("entrypoint", "string"),
	opt("agentId", "string"), opt("promptId", "string"), opt("slug", "string"),
}

func withEnvelope(name string, fields ...Field) Shape {
	return Shape{Name: name, Fields: append(append([]Field(nil), envelope...), fields...)}
}

// Shapes are the checked record types, keyed by ShapeKey.
var Shapes = map[string]Shape{
	"user": withEnvelope("user record",
		req("message", "object"), req("message.role", "string"), req("message.content", "string|array"),
		opt("isMeta", "bool"), opt("permissionMode", "string"), opt("promptSource", "string"),
		opt("turnOrigin", "string"), opt("origin", "object"), opt("isCompactSummary", "bool")),
	"user/tool_result": withEnvelope("user tool_result record",
		req("message.role", "string"), req("message.content", "array"),
		req("message.content.0.type", "string"), req("message.content.0.tool_use_id", "string"),
		req("message.content.0.content", "string|array"), opt("message.content.0.is_error", "bool"),
		// Subagent transcripts (2.1.328) write tool results without toolUseResult.
		opt("toolUseResult", "string|object|array"), req("sourceToolAssistantUUID", "string"),
		opt("permissionDecision", "object"), opt("toolDenialKind", "string")),
	"assistant": withEnvelope("assistant record",
		req("message", "object"), req("message.id", "string"), req("message.model", "string"),
		req("message.role", "string"), req("message.content", "array"),
		req("message.content.0.type", "string"),
		req("message.stop_reason", "string|null"), req("message.usage", "object"),
		req("message.usage.input_tokens", "number"), req("message.usage.output_tokens", "number"),
		req("message.usage.cache_creation_input_tokens", "number"),
		req("message.usage.cache_read_input_tokens", "number"),
		opt("apiBlockIndex", "number"), opt("requestRef", "string"), opt("requestId", "string"),
		opt("isApiErrorMessage", "bool")),
	"system": withEnvelope("system record", req("subtype", "string"), opt("level", "string"), opt("content", "string")),
	"system/api_error": withEnvelope("system/api_error record", req("subtype", "string"),
		req("error", "object"), req("retryInMs", "number"), req("retryAttempt", "number"), req("maxRetries", "number")),
	"system/compact_boundary": withEnvelope("system/compact_boundary record", req("subtype", "string"),
		req("content", "string"), req("logicalParentUuid", "string|null"), req("compactMetadata", "object"),
		req("compactMetadata.trigger", "string"), req("compactMetadata.preTokens", "number")),
	"system/stop_hook_summary": withEnvelope("system/stop_hook_summary record", req("subtype", "string"),
		req("hookCount", "number"), req("hookInfos", "array")),
	"system/turn_duration": withEnvelope("system/turn_duration record", req("subtype", "string"),
		req("durationMs", "number")),
	"attachment": withEnvelope("attachment record", req("attachment", "object"), req("attachment.type", "string")),
	"queue-operation": {Name: "queue-operation record", Fields: []Field{
		req("type", "string"), req("operation", "string"), req("timestamp", "string"), req("sessionId", "string")}},
	"last-prompt": {Name: "last-prompt record", Fields: []Field{req("type", "string"), req("sessionId", "string")}},
	"custom-title": {Name: "custom-title record", Fields: []Field{
		req("type", "string"), req("customTitle", "string"), req("sessionId", "string")}},
	"ai-title": {Name: "ai-title record", Fields: []Field{
		req("type", "string"), req("aiTitle", "string"), req("sessionId", "string")}},
	"agent-name": {Name: "agent-name record", Fields: []Field{
		req("type", "string"), req("agentName", "string"), req("sessionId", "string")}},
	"cost-state": {Name: "cost-state record", Fields: []Field{
		req("type", "string"), req("totalCostUSD", "number"), req("modelUsage", "object")}},
	"registry": {Name: "registry record", Fields: []Field{
		req("pid", "number"), req("sessionId", "string"), req("cwd", "string"), req("startedAt", "number"),
		req("procStart", "string"), req("version", "string"), req("peerProtocol", "number"),
		req("peerFeatures", "array"), req("kind", "string"), req("entrypoint", "string"),
		req("pidDomain", "string"), req("messagingSocketPath", "string"), req("name", "string"),
		// The first write of a record has no status/updatedAt/statusUpdatedAt
		// (2.1.328 adds them about 100 ms later), so they are optional here.
		opt("status", "string"), opt("updatedAt", "number"),
		opt("nameSource", "string"), opt("waitingFor", "string"), opt("tmux", "string"),
		opt("statusUpdatedAt", "number"), opt("formerNames", "array")}},
}

// ShapeKey picks the shapes a transcript record is checked against: its
// type, plus type/subtype for system records and user/tool_result for tool
// results. Unknown types give nothing (readers skip them).
func ShapeKey(rec map[string]any) []string {
	t, _ := rec["type"].(string)
	var keys []string
	if _, ok := Shapes[t]; ok && t != "registry" {
		keys = append(keys, t)
	}
	switch t {
	case "system":
		if st, _ := rec["subtype"].(string); st != "" {
			if _, ok := Shapes["system/"+st]; ok {
				keys = append(keys, "system/"+st)
			}
		}
	case "user":
		if c, ok := lookup(rec, "message.content.0.type"); ok && c == "tool_result" {
			keys = append(keys, "user/tool_result")
		}
	}
	return keys
}

// Check checks a transcript record against its shapes.
func Check(rec map[string]any) []error {
	var errs []error
	for _, k := range ShapeKey(rec) {
		errs = append(errs, CheckShape(Shapes[k], rec)...)
	}
	return errs
}

// CheckShape checks rec against one shape; each error reads
// "<record type>: field <path>: want <types>, got <type|missing>".
func CheckShape(s Shape, rec map[string]any) []error {
	var errs []error
	for _, f := range s.Fields {
		v, ok := lookup(rec, f.Path)
		if !ok {
			if !f.Optional {
				errs = append(errs, fmt.Errorf("%s: field %s: want %s, got missing", s.Name, f.Path, f.Types))
			}
			continue
		}
		got := jsonType(v)
		if !typeIn(got, f.Types) {
			errs = append(errs, fmt.Errorf("%s: field %s: want %s, got %s", s.Name, f.Path, f.Types, got))
		}
	}
	return errs
}

func typeIn(t, types string) bool {
	for _, want := range strings.Split(types, "|") {
		if want == t {
			return true
		}
	}
	return false
}

// lookup follows a dotted path through objects and (by index) arrays.
func lookup(v any, path string) (any, bool) {
	for _, part := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[part]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case float64, int, int64:
		return "number"
	case bool:
		return "bool"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	}
	return fmt.Sprintf("%T", v)
}
