package search

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// Issue 35: a compaction summary is searched without Claude Code's fixed
// wrapping. The texts are Claude Code 2.1.328's, as its binary builds the
// summary record (the preamble gqe, the tools-used reminder, the
// transcript paragraph o6n, the follow-up paragraph n6n ... MEt, the
// head-truncated note, the preserved-messages paragraph K4n, and the text
// written when Remote Control withheld the summary).
func TestCompactSummaryBody(t *testing.T) {
	const (
		pre      = "This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\n"
		tools    = "<system-reminder>\n<tools-used-before-summary>Bash, Read</tools-used-before-summary>\n</system-reminder>\n"
		path     = "\n\nIf you need specific details from before compaction (like exact code snippets, error messages, or content you generated), read the full transcript at: /home/dev/.claude/projects/-p/s.jsonl"
		followUp = "\nContinue the conversation from where it left off without asking the user any further questions. Resume directly \u2014 do not acknowledge the summary, do not recap what was happening, do not preface with \"I'll continue\" or similar. Pick up the last task as if the break never happened."
		head     = "\n\nNote: part of the earlier conversation was too large to include and is NOT covered by this summary (the full transcript mentioned above still has it). If the task turns out to depend on something from that part, say so plainly rather than guessing at it."
		kept     = "\n\nThe messages after this summary are the most recent messages from before compaction, kept verbatim. The summary was written without seeing them, so something it says has not happened yet may already have happened in them."
		withheld = "This session is being continued from a previous conversation that ran out of context. The summary of that conversation is not included here: it was withheld from Remote Control because it may include account memory, and can be read only in the terminal session where it was written. If you need details from the earlier conversation, ask the user."
	)
	tests := []struct{ text, want string }{
		{pre + tools + "Summary:\nThe build error was fixed." + path + followUp + kept, "The build error was fixed."},
		{pre + tools + "Summary:\nTwo paragraphs.\n\nThe second." + path + head + followUp, "Two paragraphs.\n\nThe second."},
		{pre + tools + "no summary tags in the reply" + path, "no summary tags in the reply"},
		{pre + tools + "Summary:\nwithout a transcript path" + followUp, "without a transcript path"},
		{withheld, ""},
		{"a prompt that only quotes: This session is being continued", "a prompt that only quotes: This session is being continued"},
	}
	for _, tt := range tests {
		if got := string(compactSummaryBody([]byte(tt.text))); got != tt.want {
			t.Errorf("%.60q: got %q, want %q", tt.text, got, tt.want)
		}
	}
}

// TestCompactSummaryCorpus: in the real-CLI corpus's compaction summary
// (c0a1f003, a /compact), only the summary the model wrote is content:
// "error" (of "exact code snippets, error messages") and the preamble are
// not found, the summary's own words are.
func TestCompactSummaryCorpus(t *testing.T) {
	f, err := os.Open("../../testdata/corpus/claude/projects/-home-dev-projects-beta/c0a1f003-0000-4000-8000-000000000003.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	n := 0
	for sc.Scan() {
		var r struct {
			IsCompactSummary bool `json:"isCompactSummary"`
		}
		if json.Unmarshal(sc.Bytes(), &r) != nil || !r.IsCompactSummary {
			continue
		}
		n++
		if !strings.Contains(sc.Text(), "error messages") {
			t.Fatal("the corpus summary lost Claude Code's transcript paragraph: the test checks nothing")
		}
		var got []string
		if _, err := walkContent(sc.Bytes(), nil, func(p *Place, text []byte) bool {
			got = append(got, p.Where+"="+string(text))
			return true
		}); err != nil {
			t.Fatal(err)
		}
		if want := []string{"prompt=The user asked to remember PERIWINKLE and then asked for it back."}; strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("content %q, want %q", got, want)
		}
	}
	if n != 1 {
		t.Errorf("%d compaction summaries in c0a1f003, want 1", n)
	}
}
