package extract

import (
	"strconv"
	"strings"
)

// ExitCode parses the "Exit code N" first line Claude Code gives a failed
// shell command's result (there is no structured exit-code field). It
// returns N and the output after that line; ok is false when text does
// not start with the prefix.
func ExitCode(text string) (code int, output string, ok bool) {
	rest, found := strings.CutPrefix(text, "Exit code ")
	if !found {
		return 0, "", false
	}
	line, output, _ := strings.Cut(rest, "\n")
	line = strings.TrimRight(line, "\r")
	if line == "" || len(line) > 11 {
		return 0, "", false
	}
	n, err := strconv.Atoi(line)
	if err != nil || strconv.Itoa(n) != line { // only the canonical spelling Claude Code writes
		return 0, "", false
	}
	return n, output, true
}

const (
	persistedTag  = "<persisted-output>"
	persistedSays = "Full output saved to: "
)

// PersistedOutputPath finds the file a too-large tool output was saved to,
// in the "<persisted-output>\nOutput too large (...). Full output saved to:
// PATH\n..." text that replaces such a result.
func PersistedOutputPath(text string) (string, bool) {
	rest, ok := strings.CutPrefix(strings.TrimLeft(text, " \n"), persistedTag)
	if !ok {
		return "", false
	}
	head, _, _ := strings.Cut(rest, "\n\n")
	_, after, ok := strings.Cut(head, persistedSays)
	if !ok {
		return "", false
	}
	path, _, _ := strings.Cut(after, "\n")
	path = strings.TrimSpace(path)
	return path, path != ""
}

// hookReason strips the "PreToolUse:<Tool> hook error: " prefix a hook
// denial's text carries.
func hookReason(text string) string {
	if i := strings.Index(text, " hook error: "); i > 0 && strings.Contains(text[:i], ":") && !strings.ContainsAny(text[:i], " \n") {
		return text[i+len(" hook error: "):]
	}
	return text
}

// tag returns the body of the first <name>...</name> in s.
func tag(s, name string) (string, bool) {
	open, end := "<"+name+">", "</"+name+">"
	i := strings.Index(s, open)
	if i < 0 {
		return "", false
	}
	body := s[i+len(open):]
	j := strings.Index(body, end)
	if j < 0 {
		return "", false
	}
	return body[:j], true
}

// usageField reads a count out of a <usage> block, which comes as tags
// ("<subagent_tokens>120</subagent_tokens><tool_uses>1</tool_uses>", in a
// task notification) or as lines ("subagent_tokens: 120\ntool_uses: 1", in
// a hand-back). The first of keys found wins.
func usageField(block string, keys ...string) *int64 {
	for _, key := range keys {
		if v, ok := tag(block, key); ok {
			if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
				return &n
			}
		}
		for line := range strings.SplitSeq(block, "\n") {
			k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
			if !ok || strings.TrimSpace(k) != key {
				continue
			}
			if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
				return &n
			}
		}
	}
	return nil
}

// trimToolsUsed drops the <tools-used-before-summary> note Claude Code
// puts before a subagent's report.
func trimToolsUsed(s string) string {
	t := strings.TrimLeft(s, " \n")
	if rest, ok := strings.CutPrefix(t, "<tools-used-before-summary>"); ok {
		if _, after, ok := strings.Cut(rest, "</tools-used-before-summary>"); ok {
			return strings.TrimLeft(after, " \n")
		}
	}
	return s
}

// originName maps a prompt record's origin.kind, else its turnOrigin, to
// the names facts use: human, peer, task-notification, coordinator (other
// origin kinds pass through).
func originName(kind, turnOrigin string) string {
	if kind != "" {
		return kind
	}
	switch turnOrigin {
	case "", "sdk", "human":
		return "human"
	case "task_notification":
		return "task-notification"
	}
	return strings.ReplaceAll(turnOrigin, "_", "-")
}

// commandPrefixes start the user records a slash command or a local
// command writes: not prose a person typed.
var commandPrefixes = []string{
	"<command-name>", "<command-message>", "<command-args>", "<local-command-",
	"<bash-input>", "<bash-stdout>", "<bash-stderr>",
}

func isCommandText(s string) bool {
	s = strings.TrimLeft(s, " \n")
	for _, p := range commandPrefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

const interruptPrefix = "[Request interrupted by user"
