package transcript

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// toolView is what DecodeTools promises to read as Decode does.
func toolView(e *Entry) string {
	var b strings.Builder
	fmt.Fprintf(&b, "type=%q uuid=%q ts=%q sid=%q aid=%q cwd=%q", e.Type, e.UUID, e.TimestampRaw, e.SessionID, e.AgentID, e.Cwd)
	if e.User != nil {
		fmt.Fprintf(&b, " tur=%q denial=%q decision=%q", e.User.ToolUseResult, e.User.ToolDenialKind, e.User.PermissionDecision)
	}
	if e.Message != nil {
		b.WriteString(" message")
		for _, bl := range e.Message.Content {
			switch bl.Type {
			case BlockToolUse:
				fmt.Fprintf(&b, " use(%q,%q,%q)", bl.ID, bl.Name, bl.Input)
			case BlockToolResult:
				fmt.Fprintf(&b, " result(%q,%v,%q)", bl.ToolUseID, bl.IsError, Text(bl.Content))
			}
		}
	}
	return b.String()
}

// checkTools compares DecodeTools with Decode on one line: whenever the
// lazy walk reads a line, it reads what Decode reads; it gives up on
// every line Decode rejects or finds a mismatch in a field it reads.
func checkTools(t *testing.T, line []byte) {
	t.Helper()
	lazy, ok := DecodeTools(line)
	checkOneWalk(t, line)
	full, err := Decode(line)
	if err == nil && Scan(line, new(Header)) != nil {
		err = Scan(line, new(Header)) // Decode leaves syntax to the reader's Scan
	}
	if err != nil {
		if ok {
			t.Fatalf("DecodeTools read a line Decode rejects (%v): %.200q", err, line)
		}
		return
	}
	if !ok {
		return
	}
	if got, want := toolView(lazy), toolView(full); got != want {
		t.Fatalf("DecodeTools:\n%s\nDecode:\n%s\nline %.300q", got, want, line)
	}
	if lazy.User != nil && lazy.User.InfoRead && !sameInfo(lazy.User.Info, slowResultInfo(full.User.ToolUseResult)) {
		t.Fatalf("DecodeTools read toolUseResult as %+v, encoding/json as %+v: %.300q", lazy.User.Info, slowResultInfo(full.User.ToolUseResult), line)
	}
	if owned, ok := (&Line{Bytes: append([]byte(nil), line...), Owned: true}).DecodeTools(); !ok || !reflect.DeepEqual(owned, lazy) {
		t.Fatalf("DecodeTools of an owned line (ok %v):\n%+v\nwant\n%+v", ok, owned, lazy)
	}
	for _, m := range full.TypeMismatches {
		for _, read := range []string{"type", "uuid", "timestamp", "sessionId", "agentId", "toolDenialKind"} {
			if m == read {
				t.Fatalf("DecodeTools read %s, which Decode names as mismatched: %.200q", m, line)
			}
		}
	}
}

// eachCorpusLine calls fn with each line of the transcripts of the
// real-CLI corpus, the hand-made ones and this package's testdata.
func eachCorpusLine(t *testing.T, fn func(line []byte)) {
	t.Helper()
	for _, root := range []string{"../../testdata/corpus/claude/projects", "../../testdata/transcripts", "testdata"} {
		_ = filepath.WalkDir(root, func(p string, de fs.DirEntry, err error) error {
			if err != nil || de.IsDir() || !strings.HasSuffix(p, ".jsonl") {
				return nil
			}
			f, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			sc := bufio.NewScanner(f)
			sc.Buffer(nil, 64<<20)
			for sc.Scan() {
				fn(sc.Bytes())
			}
			return nil
		})
	}
}

func TestDecodeToolsCorpus(t *testing.T) {
	n := 0
	eachCorpusLine(t, func(line []byte) {
		checkTools(t, line)
		n++
	})
	if n < 100 {
		t.Fatalf("only %d lines checked", n)
	}
}

var toolSeeds = []string{
	`{"type":"assistant","uuid":"a","timestamp":"t","sessionId":"s","message":{"content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}},{"type":"text","text":"x"}]}}`,
	`{"type":"user","uuid":"u","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_1","is_error":true,"content":[{"type":"text","text":"Exit code 1\nno"},{"type":"image","source":{}},{"type":"text","text":"b"}]}]},"toolUseResult":{"stdout":"a","stderr":""},"toolDenialKind":"user-rejected","permissionDecision":null}`,
	`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t\u0031","content":"plain \"text\""}]},"toolUseResult":"Error: x"}`,
	`{"type":"user","message":{"content":"a prompt"}}`,
	`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"x","is_error":"yes"}]}}`,
	`{"type":"user","Type":"assistant","message":{"content":[]}}`,
	`{"type":"user","type":"assistant","message":{"content":[]}}`,
	`{"type":"system","message":5}`,
	`{"type":"assistant","message":{"content":[{"type":"tool_use","id":1}]}}`,
	`{"type":"assistant","message":{"content":[{"type":"tool_result","content":[{"type":"tool_result","content":[{"type":"text","text":"deep"}]}]}]}}`,
	`{"type":"assistant","message":{"content":[{"type":"tool_use","input":null,"id":null}]},"x":tru}`,
	`{"type":"user","message":{"content":[{"type":"tool_result","content":[{"type":"text","text":"one"}]}]}}`,
	`{"type":"user","message":{"content":[{"type":"tool_result","content":[{"type":"image"}]}]}}`,
	`{"type":"user","message":{"content":[5]}}`,
	`{"type":"user","message":{"content":[{"type":"tool_result","content":{"a":1}}]}}`,
}

func TestDecodeToolsSeeds(t *testing.T) {
	for _, s := range toolSeeds {
		checkTools(t, []byte(s))
	}
	if _, ok := DecodeTools([]byte(toolSeeds[0])); !ok {
		t.Error("a plain tool_use line was not read lazily")
	}
	if _, ok := DecodeTools([]byte(toolSeeds[4])); ok {
		t.Error(`is_error:"yes" read lazily; Decode names it`)
	}
}

// checkOneWalk: a line the lazy walk reads is one Scan accepts, with the
// same Header, so a reader that walks it once (Options.Tools) hands on
// the same lines with the same headers as one that scans it first.
func checkOneWalk(t *testing.T, line []byte) {
	t.Helper()
	var lh, sh Header
	_, ok := decodeTools(line, false, &lh)
	serr := Scan(line, &sh)
	if !ok {
		if !reflect.DeepEqual(lh, Header{}) {
			t.Fatalf("a walk that gave up left a header: %+v", lh)
		}
		return
	}
	if serr != nil {
		t.Fatalf("DecodeTools read a line Scan rejects (%v): %.200q", serr, line)
	}
	if !reflect.DeepEqual(norm(lh), norm(sh)) {
		t.Fatalf("header of the walk\n%+v\nScan's\n%+v\nline %.300q", lh, sh, line)
	}
}

// norm makes an empty field nil, as the two ways may differ there.
func norm(h Header) Header {
	for _, f := range []*[]byte{&h.Type, &h.UUID, &h.ParentUUID, &h.LogicalParentUUID, &h.Timestamp, &h.SessionID, &h.AgentID} {
		if len(*f) == 0 {
			*f = nil
		}
	}
	return h
}

// FuzzDecodeTools: the lazy read agrees with Decode on any input.
func FuzzDecodeTools(f *testing.F) {
	for _, s := range toolSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) { checkTools(t, line) })
}

// checkFast compares decodeFast with decodeSlow: when the fast way reads
// a line, the entry is the same in every field.
func checkFast(t *testing.T, line []byte) {
	t.Helper()
	if Scan(line, new(Header)) != nil {
		return
	}
	data, err := modelled(line, nil)
	if err != nil {
		return
	}
	fast, ok := decodeFast(line, false)
	slow, serr := decodeSlow(line, data)
	if !ok {
		return
	}
	if serr != nil {
		t.Fatalf("decodeFast read a line decodeSlow rejects (%v): %.200q", serr, line)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("decodeFast:\n%+v\ndecodeSlow:\n%+v\nline %.300q", fast, slow, line)
	}
	// An owned line decodes to the same entry, its raw parts slices of it.
	own := append([]byte(nil), line...)
	if aliased, ok := decodeFast(own, true); !ok || !reflect.DeepEqual(aliased, fast) {
		t.Fatalf("decodeFast of an owned line (ok %v):\n%+v\nwant\n%+v", ok, aliased, fast)
	} else if len(own) > 0 && &aliased.Raw[0] != &own[0] {
		t.Fatal("an owned line's Raw is a copy")
	}
}

func TestDecodeFastCorpus(t *testing.T) {
	n, fast := 0, 0
	eachCorpusLine(t, func(line []byte) {
		checkFast(t, line)
		if _, ok := decodeFast(line, false); ok {
			fast++
		}
		n++
	})
	if n < 100 || fast < n/2 {
		t.Fatalf("%d lines checked, %d read the fast way", n, fast)
	}
}

var fastSeeds = append(toolSeeds,
	`{"type":"assistant","message":{"id":"m","model":"x","content":[{"type":"thinking","thinking":"t","signature":"s"},{"type":"redacted_thinking","data":"d"},{"type":"server_tool_use","id":"s1","input":{}},{"type":"image","source":{"media_type":"image/png"}},{"type":"tool_reference","tool_name":"Bash"}],"usage":{"input_tokens":1}},"requestId":"r","apiBlockIndex":2}`,
	`{"type":"system","subtype":"api_error","content":"c","message":{"content":[{"type":"weird"}]},"retryInMs":1.5}`,
	`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":5}]}}`,
	`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"a","content":5}]},"origin":{"kind":"peer"}}`,
	`{"type":"user","message":{"content":[]},"toolUseResult":null}`,
	`{"type":"assistant","message":{"content":[{"type":"image","source":{"media_type":5}}]}}`,
)

func TestDecodeFastSeeds(t *testing.T) {
	for _, s := range fastSeeds {
		checkFast(t, []byte(s))
	}
}

// FuzzDecodeFast: the fast decode agrees with encoding/json's on any
// input it reads.
func FuzzDecodeFast(f *testing.F) {
	for _, s := range fastSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) { checkFast(t, line) })
}
