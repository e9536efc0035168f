package proxy

import "regexp"

// VolatileRules are the rewrites replay applies to every string of a
// model_input (recorded and actual alike) before comparing them: text
// Claude Code writes into its system prompt and reminders that changes
// between two runs of the same task. They are the only place this is
// decided; --ignore JQPATH removes more. Each rule keeps the words around
// the value, so a prompt that says something else still differs.
var VolatileRules = []VolatileRule{
	{"date", regexp.MustCompile(`(Today's date is )\d{4}-\d{2}-\d{2}`), "${1}<date>"},
	{"working directory", regexp.MustCompile(`((?:Primary working directory|Working directory|cwd): )[^\n]*`), "${1}<cwd>"},
	{"git repository flag", regexp.MustCompile(`(Is a git repository: )(?:true|false|Yes|No)`), "${1}<git>"},
	{"os version", regexp.MustCompile(`(OS Version: )[^\n]*`), "${1}<os>"},
	{"git status", regexp.MustCompile(`(?s)(# gitStatus\n).*?(\n</system-reminder>|\z)`), "${1}<git status>${2}"},
	{"memory dir", regexp.MustCompile("(persistent file-based memory at `)[^`]*(`)"), "${1}<memory dir>${2}"},
	{"billing header", regexp.MustCompile(`(x-anthropic-billing-header: )[^\n]*`), "${1}<billing>"},
	// The Agent tool's results and task notifications name a random agent
	// id, a transcript path, the time taken and the tokens used.
	{"agent id", regexp.MustCompile(`\ba[0-9a-f]{16}\b`), "<agent id>"},
	{"agent output file", regexp.MustCompile(`(output_file: |<output-file>)[^\n<]*`), "${1}<path>"},
	{"agent usage", regexp.MustCompile(`\b(duration_ms|subagent_tokens|total_tokens)(: ?|>)\d+`), "${1}${2}<n>"},
}

// VolatileRule is one rewrite: matches of Pattern become Replace.
type VolatileRule struct {
	Name    string
	Pattern *regexp.Regexp
	Replace string
}

// Normalize returns a copy of v with the volatile rules applied to every string.
func Normalize(v any) any {
	switch x := v.(type) {
	case string:
		for _, r := range VolatileRules {
			x = r.Pattern.ReplaceAllString(x, r.Replace)
		}
		return x
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = Normalize(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = Normalize(e)
		}
		return out
	}
	return v
}
