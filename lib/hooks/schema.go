package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Problem is one reason Claude Code 2.1.328 would reject or ignore (part
// of) a reply.
type Problem struct {
	// Path names the field: "decision", "hookSpecificOutput.updatedInput".
	Path string `json:"path"`
	// Kind is "rejected" (Claude Code reports "Hook JSON output validation
	// failed" and uses nothing of the reply), "ignored" (the field is
	// dropped or never read) or "incomplete" (accepted, but the model gets
	// a generic text: a deny or block without a reason).
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

func (p Problem) String() string {
	if p.Path == "" {
		return p.Kind + ": " + p.Message
	}
	return p.Path + ": " + p.Kind + ": " + p.Message
}

// Problem kinds.
const (
	Rejected   = "rejected"
	Ignored    = "ignored"
	Incomplete = "incomplete"
)

type jtype int

const (
	jString jtype = iota
	jBool
	jNumber
	jObject
	jArray
	jStrings
	jAny
)

func (t jtype) String() string {
	return [...]string{"a string", "a boolean", "a number", "an object", "an array", "an array of strings", "any value"}[t]
}

type fieldSpec struct {
	typ  jtype
	enum []string
}

// topFields is the sync reply's top level (FROM-CODE zod schema).
var topFields = map[string]fieldSpec{
	"continue":           {typ: jBool},
	"suppressOutput":     {typ: jBool},
	"stopReason":         {typ: jString},
	"decision":           {typ: jString, enum: []string{"approve", "block"}},
	"systemMessage":      {typ: jString},
	"terminalSequence":   {typ: jString},
	"reason":             {typ: jString},
	"hookSpecificOutput": {typ: jObject},
}

var topOrder = []string{"continue", "stopReason", "suppressOutput", "systemMessage", "decision", "reason", "terminalSequence", "hookSpecificOutput"}

var (
	ctxField   = fieldSpec{typ: jString}
	watchPaths = fieldSpec{typ: jStrings}
)

// specificFields is hookSpecificOutput per event; an event missing here
// has no hookSpecificOutput in the schema's union, so naming it is a
// validation failure.
var specificFields = map[string]map[string]fieldSpec{
	PreToolUse: {
		"permissionDecision":       {typ: jString, enum: []string{"allow", "deny", "ask", "defer"}},
		"permissionDecisionReason": {typ: jString},
		"updatedInput":             {typ: jObject},
		"additionalContext":        ctxField,
		"permissionDisplay":        {typ: jObject}, // @internal, desktop hosts
	},
	UserPromptSubmit: {
		"additionalContext":      ctxField,
		"sessionTitle":           {typ: jString},
		"suppressOriginalPrompt": {typ: jBool},
	},
	UserPromptExpansion: {
		"additionalContext":      ctxField,
		"suppressOriginalPrompt": {typ: jBool},
	},
	SessionStart: {
		"additionalContext":  ctxField,
		"initialUserMessage": {typ: jString},
		"sessionTitle":       {typ: jString},
		"watchPaths":         watchPaths,
		"reloadSkills":       {typ: jBool},
	},
	Setup: {"additionalContext": ctxField},
	PreModelSwitch: {
		"permissionDecision":       {typ: jString, enum: []string{"allow", "deny", "ask"}},
		"permissionDecisionReason": {typ: jString},
	},
	PostModelSwitch:    {"additionalContext": ctxField},
	SubagentStart:      {"additionalContext": ctxField},
	PostToolUseFailure: {"additionalContext": ctxField},
	PostToolBatch:      {"additionalContext": ctxField},
	Stop:               {"additionalContext": ctxField},
	SubagentStop:       {"additionalContext": ctxField},
	Notification:       {"additionalContext": ctxField},
	PostToolUse: {
		"additionalContext":    ctxField,
		"classifierContext":    {typ: jString},
		"updatedToolOutput":    {typ: jAny},
		"updatedMCPToolOutput": {typ: jAny},
	},
	PermissionDenied:  {"retry": {typ: jBool}},
	PermissionRequest: {"decision": {typ: jObject}},
	Elicitation: {
		"action":  {typ: jString, enum: []string{"accept", "decline", "cancel"}},
		"content": {typ: jObject},
	},
	ElicitationResult: {
		"action":  {typ: jString, enum: []string{"accept", "decline", "cancel"}},
		"content": {typ: jObject},
	},
	CwdChanged:     {"watchPaths": watchPaths},
	FileChanged:    {"watchPaths": watchPaths},
	WorktreeCreate: {"worktreePath": {typ: jString}},
	MessageDisplay: {"displayContent": {typ: jString}},
}

// cannotBlock are the events whose JSON `decision` nobody reads: the
// /hooks text gives them no blocking meaning.
var cannotBlock = []string{
	Notification, SessionStart, SessionEnd, StopFailure, SubagentStart, PostCompact,
	PostModelSwitch, PermissionDenied, Setup, WorktreeCreate, WorktreeRemove,
	InstructionsLoaded, CwdChanged, FileChanged, DirectoryAdded, MessageDisplay, PreCompact,
}

// plainTextEvents read a command hook's plain (non-JSON) stdout.
var plainTextEvents = []string{UserPromptSubmit, SessionStart, WorktreeCreate, PreCompact, PostModelSwitch}

// Check validates what a hook prints on stdout with exit 0 against the
// reply schema of Claude Code 2.1.328, for event (or, when event is "",
// for the event its hookSpecificOutput names). No problems means Claude
// Code uses every part of it. Empty output is valid: it means no opinion.
func Check(event string, stdout []byte) []Problem {
	s := bytes.TrimSpace(stdout)
	if len(s) == 0 {
		return nil
	}
	if s[0] != '{' {
		if event == "" || slices.Contains(plainTextEvents, event) {
			return nil
		}
		return []Problem{{Kind: Ignored, Message: fmt.Sprintf("plain text (not JSON) is not read on %s; only %s read it", event, strings.Join(plainTextEvents, ", "))}}
	}
	d := json.NewDecoder(bytes.NewReader(s))
	d.UseNumber()
	var obj map[string]any
	if err := d.Decode(&obj); err != nil {
		return []Problem{{Kind: Rejected, Message: "invalid JSON: " + err.Error()}}
	}
	if d.More() {
		return []Problem{{Kind: Rejected, Message: "invalid JSON: more than one value"}}
	}
	if event != "" && !IsEvent(event) {
		return []Problem{{Kind: Rejected, Message: fmt.Sprintf("unknown event %q", event)}}
	}
	return checkObject(event, obj)
}

func checkObject(event string, obj map[string]any) []Problem {
	var ps []Problem
	add := func(path, kind, format string, a ...any) {
		ps = append(ps, Problem{Path: path, Kind: kind, Message: fmt.Sprintf(format, a...)})
	}
	if a, ok := obj["async"]; ok && a == true {
		if t, ok := obj["asyncTimeout"]; ok && !hasType(t, jNumber) {
			add("asyncTimeout", Rejected, "must be a number")
		}
		for _, k := range sortedKeys(obj) {
			if k != "async" && k != "asyncTimeout" {
				add(k, Ignored, "an async reply reads only async and asyncTimeout")
			}
		}
		return ps
	}
	for _, k := range sortedKeys(obj) {
		if _, ok := topFields[k]; !ok {
			add(k, Ignored, "not a field of the reply schema")
		}
	}
	for _, k := range topOrder {
		v, ok := obj[k]
		if !ok {
			continue
		}
		if p, bad := typeProblem(k, v, topFields[k]); bad {
			ps = append(ps, p)
		}
	}
	// From here on, each check assumes the types it reads are right.
	if anyRejected(ps) {
		return ps
	}
	hso, _ := obj["hookSpecificOutput"].(map[string]any)
	if hso != nil {
		name, ok := hso["hookEventName"].(string)
		switch {
		case !ok:
			add("hookSpecificOutput.hookEventName", Rejected, "missing: hookSpecificOutput needs hookEventName")
			return ps
		case specificFields[name] == nil:
			add("hookSpecificOutput.hookEventName", Rejected, "%s has no hookSpecificOutput in the reply schema", name)
			return ps
		case event != "" && name != event:
			add("hookSpecificOutput.hookEventName", Rejected, "names %s, but the hook runs for %s", name, event)
			return ps
		}
		event = name
	}
	if event == StopFailure {
		add("", Ignored, "StopFailure is fire-and-forget: its output is ignored")
		return ps
	}
	decision, _ := obj["decision"].(string)
	_, hasReason := obj["reason"]
	if _, ok := obj["stopReason"]; ok && obj["continue"] != false {
		add("stopReason", Ignored, "read only with \"continue\": false")
	}
	if decision != "" && event != "" {
		if decision == "approve" && event != PreToolUse {
			add("decision", Ignored, "\"approve\" is read only on PreToolUse")
		}
		if decision == "block" && slices.Contains(cannotBlock, event) {
			add("decision", Ignored, "%s cannot be blocked", event)
		}
	}
	if decision == "block" && !hasReason {
		add("reason", Incomplete, "a block needs a reason: without one the model sees only \"Blocked by hook\"")
	}
	if hso != nil {
		ps = append(ps, checkSpecific(event, hso, decision, hasReason)...)
	}
	if hasReason && decision == "" && !readsReason(event, hso) {
		add("reason", Ignored, "read only with a decision")
	}
	return ps
}

// readsReason reports whether a reply without a top-level decision still
// reads the top-level reason (as the deny or decline text).
func readsReason(event string, hso map[string]any) bool {
	switch event {
	case PreToolUse, PreModelSwitch:
		return hso != nil && hso["permissionDecision"] != nil
	case Elicitation, ElicitationResult:
		return hso != nil && hso["action"] == "decline"
	}
	return false
}

func checkSpecific(event string, hso map[string]any, decision string, hasReason bool) []Problem {
	var ps []Problem
	add := func(field, kind, format string, a ...any) {
		ps = append(ps, Problem{Path: "hookSpecificOutput." + field, Kind: kind, Message: fmt.Sprintf(format, a...)})
	}
	spec := specificFields[event]
	for _, k := range sortedKeys(hso) {
		if k == "hookEventName" {
			continue
		}
		fs, ok := spec[k]
		if !ok {
			add(k, Ignored, "not read on %s%s", event, readOn(k))
			continue
		}
		if p, bad := typeProblem("hookSpecificOutput."+k, hso[k], fs); bad {
			ps = append(ps, p)
		}
	}
	if anyRejected(ps) {
		return ps
	}
	switch event {
	case PreToolUse, PreModelSwitch:
		pd, _ := hso["permissionDecision"].(string)
		_, hasPDR := hso["permissionDecisionReason"]
		if pd == "" {
			if hasPDR {
				add("permissionDecisionReason", Ignored, "read only with a permissionDecision")
			}
			if _, ok := hso["updatedInput"]; ok && decision != "approve" {
				add("updatedInput", Ignored, "applied only with permissionDecision allow or ask")
			}
			break
		}
		if pd == "deny" && !hasPDR && !hasReason {
			add("permissionDecisionReason", Incomplete, "a deny needs a reason: without one the model sees only \"Blocked by hook\"")
		}
		if _, ok := hso["updatedInput"]; ok && pd != "allow" && pd != "ask" {
			add("updatedInput", Ignored, "applied only with permissionDecision allow or ask, not %s", pd)
		}
	case PermissionRequest:
		d, ok := hso["decision"].(map[string]any)
		if !ok {
			add("decision", Rejected, "missing: PermissionRequest's hookSpecificOutput needs decision {behavior: allow|deny}")
			break
		}
		ps = append(ps, checkPermissionDecision(d)...)
	case WorktreeCreate:
		if _, ok := hso["worktreePath"]; !ok {
			add("worktreePath", Rejected, "missing: WorktreeCreate's hookSpecificOutput needs worktreePath")
		}
	case Elicitation, ElicitationResult:
		if _, ok := hso["content"]; ok && hso["action"] != "accept" {
			add("content", Ignored, "sent only with action accept")
		}
	}
	return ps
}

func checkPermissionDecision(d map[string]any) []Problem {
	var ps []Problem
	add := func(field, kind, format string, a ...any) {
		ps = append(ps, Problem{Path: "hookSpecificOutput.decision." + field, Kind: kind, Message: fmt.Sprintf(format, a...)})
	}
	fields := map[string]map[string]fieldSpec{
		"allow": {"updatedInput": {typ: jObject}, "updatedPermissions": {typ: jArray}},
		"deny":  {"message": {typ: jString}, "interrupt": {typ: jBool}},
	}
	b, _ := d["behavior"].(string)
	spec, ok := fields[b]
	if !ok {
		add("behavior", Rejected, "must be \"allow\" or \"deny\"")
		return ps
	}
	for _, k := range sortedKeys(d) {
		if k == "behavior" {
			continue
		}
		fs, ok := spec[k]
		if !ok {
			add(k, Ignored, "not read with behavior %s", b)
			continue
		}
		if p, bad := typeProblem("hookSpecificOutput.decision."+k, d[k], fs); bad {
			ps = append(ps, p)
		}
	}
	if _, ok := d["message"]; b == "deny" && !ok {
		add("message", Incomplete, "a deny needs a message: it is what the model is told")
	}
	return ps
}

// readOn names the events that do read a field, for a field put on the
// wrong event.
func readOn(field string) string {
	var evs []string
	for _, e := range Events {
		if _, ok := specificFields[e][field]; ok {
			evs = append(evs, e)
		}
	}
	if len(evs) == 0 {
		return ""
	}
	return " (read on " + strings.Join(evs, ", ") + ")"
}

func typeProblem(path string, v any, fs fieldSpec) (Problem, bool) {
	if !hasType(v, fs.typ) {
		return Problem{Path: path, Kind: Rejected, Message: "must be " + fs.typ.String()}, true
	}
	if fs.enum != nil {
		if s, _ := v.(string); !slices.Contains(fs.enum, s) {
			return Problem{Path: path, Kind: Rejected, Message: fmt.Sprintf("must be one of %s", strings.Join(fs.enum, ", "))}, true
		}
	}
	return Problem{}, false
}

func hasType(v any, t jtype) bool {
	switch t {
	case jString:
		_, ok := v.(string)
		return ok
	case jBool:
		_, ok := v.(bool)
		return ok
	case jNumber:
		_, ok := v.(json.Number)
		return ok
	case jObject:
		_, ok := v.(map[string]any)
		return ok
	case jArray:
		_, ok := v.([]any)
		return ok
	case jStrings:
		a, ok := v.([]any)
		for _, e := range a {
			if _, s := e.(string); !s {
				return false
			}
		}
		return ok
	}
	return true
}

func anyRejected(ps []Problem) bool {
	return slices.ContainsFunc(ps, func(p Problem) bool { return p.Kind == Rejected })
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
