package transcript

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Every field decodeSlow reads is read the fast way too: decodeFast gives
// up on none of their names (it would on a name it forgot, taking it for
// another case of one it reads).
func TestDecodeFastReadsEveryField(t *testing.T) {
	var lines []string
	for name := range fieldsOf(reflect.TypeOf(wire{})) {
		lines = append(lines, `{"type":"user",`+strconv.Quote(name)+`:null}`)
	}
	for name := range fieldsOf(reflect.TypeOf(wireMessage{})) {
		lines = append(lines, `{"type":"assistant","message":{`+strconv.Quote(name)+`:null}}`)
	}
	for name := range fieldsOf(reflect.TypeOf(Usage{})) {
		lines = append(lines, `{"type":"assistant","message":{"usage":{`+strconv.Quote(name)+`:null}}}`)
	}
	for name := range fieldsOf(reflect.TypeOf(wireBlock{})) {
		lines = append(lines, `{"type":"assistant","message":{"content":[{`+strconv.Quote(name)+`:null}]}}`)
	}
	for _, l := range lines {
		if _, ok := decodeFast([]byte(l), false); !ok {
			t.Errorf("decodeFast gave up on %s", l)
		}
		checkFast(t, []byte(l))
	}
}

// The fast decode's conversions and refusals, each checked against
// decodeSlow (checkFast); fast says whether it must read the line itself.
var fastEdges = []struct {
	line string
	fast bool
}{
	{`{"type":"assistant","apiBlockIndex":-0,"message":{"usage":{"input_tokens":9223372036854775807,"output_tokens":0}}}`, true},
	{`{"type":"assistant","apiBlockIndex":1.0}`, true},
	{`{"type":"assistant","apiBlockIndex":1e2}`, true},
	{`{"type":"assistant","message":{"usage":{"input_tokens":9223372036854775808}}}`, false},
	{`{"type":"system","retryInMs":1e400}`, true},
	{`{"type":"system","retryInMs":1e-400,"durationMs":-12.5e3,"retryAttempt":null}`, true},
	{`{"type":"user","uuid":"a","uuid":null,"isMeta":true,"isMeta":null,"type":"user"}`, true},
	{`{"type":"user","uuid":"a","uuid":"b","isMeta":true,"isMeta":false}`, true},
	{`{"type":"user","uuid":"a","uuid":7}`, false},
	{`{"type":"user","Uuid":"a"}`, false},
	{`{"type":"assistant","message":{"ID":"m"}}`, false},
	{`{"type":"assistant","message":{"usage":{"Input_Tokens":1}}}`, false},
	{`{"type":"assistant","message":{"usage":{"input_tokens":1},"usage":{"output_tokens":2}}}`, false},
	{`{"type":"assistant","message":{"usage":null,"x":{"y":[1,"\u00e9"]}}}`, true},
	{`{"type":"assistant","message":{"content":[{"Type":"text"}]}}`, false},
	{`{"type":"assistant","message":{"content":[{"type":"text","text":"\ud83d\ude00 \ud83d x\udc00 \u00e9\n\"\\\/"}]}}`, true},
	{"{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"bad \xff\xfe utf8 \xe2\x82\"}]}}", true},
	{`{"type":"user","message":{"content":[{"content":[{"type":"text","text":"late type"}],"type":"tool_result","tool_use_id":"t"}]}}`, true},
	{`{"type":"user","message":{"content":[{"type":"tool_result","content":[{"type":"image","source":{"media_type":"a","\u006dedia_type":"b","data":"x"}}]}]}}`, true},
	{`{"type":"user","message":{"content":[{"type":"tool_result","content":[{"type":"image","source":{"media_type":7}}]}]}}`, false},
	{`{"type":"user","message":{"content":[{"type":"image","source":"s"}]}}`, false},
	{`{"type":"user","message":{"content":[{"type":"text","source":"s","content":{"x":1}}]}}`, true},
	{`{"type":"user","origin":{"kind":"a","k\u0069nd":"peer","x":[{}]}}`, true},
	{`{"type":"user","origin":{"kind":5}}`, true},
	{`{"type":"user","origin":[1]}`, true},
	{`{"type":"attachment","attachment":{"TYPE":"x","type":null}}`, true},
	{`{"type":"attachment","attachment":{"type":"a"},"attachment":{"type":"b"}}`, false},
	{`{"type":"system","content":"c\u0041","error":{"e":1},"compactMetadata":{"trigger":"auto"}}`, true},
	{`{"type":"system","content":{"c":1}}`, true},
	{`{"type":"progress","message":7}`, true},
	{`{"type":"user","me\u0073sage":{}}`, false},
	{`{"type":"user","ſlug":"x"}`, false},
	// Type mismatches of top-level fields are named where they stand.
	{`{"type":"user","uuid":1,"isSidechain":"no","timestamp":5,"message":"x"}`, true},
	{`{"type":7,"uuid":"u"}`, true},
	{`{"type":"cost-state","totalCostUSD":"free","message":5,"uuid":7}`, true},
	{`{"type":"system","subtype":["x"],"content":{"a":1},"retryAttempt":9223372036854775808,"level":{"l":[1,2]}}`, true},
	{`{"type":"user","uuid":7,"userType":"a","userType":"b","message":{"content":"hi"}}`, true},
	{`{"type":"user","uuid":"a","uuid":7}`, false},
	{`{"type":"user","uuid":7,"cwd":"a","cwd":"b"}`, false},
	{`{"type":"user","uuid":7,"message":{"content":5}}`, false},
	{`{"type":"user","uuid":7,"message":{"usage":{"input_tokens":"many"}}}`, false},
	{`{"type":"user","uuid":[1,"\u00e9"]}`, true},
	{`{"type":"assistant","isApiErrorMessage":"yes","error":{"x":1},"message":null}`, true},
}

func TestDecodeFastEdges(t *testing.T) {
	for _, tt := range fastEdges {
		if _, ok := decodeFast([]byte(tt.line), false); ok != tt.fast {
			t.Errorf("decodeFast(%s) ok = %v, want %v", tt.line, ok, tt.fast)
		}
		checkFast(t, []byte(tt.line))
		// The whole decode agrees with encoding/json's either way.
		got, err := Decode([]byte(tt.line))
		if err != nil {
			t.Fatalf("Decode(%s): %v", tt.line, err)
		}
		want, err := decodeWhole(t, []byte(tt.line))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tt.line, got, want)
		}
	}
}

// FuzzDecodeFastEdges is FuzzDecodeFast seeded with the edges above.
func FuzzDecodeFastEdges(f *testing.F) {
	for _, tt := range fastEdges {
		f.Add([]byte(tt.line))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		checkFast(t, line)
		if got, err := Decode(line); err == nil && json.Valid(line) {
			want, _ := decodeWhole(t, line)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%q:\n got %+v\nwant %+v", line, got, want)
			}
		}
	})
}

// The values fastName shares between lines and goroutines are the ones
// each line holds, whatever else hashes to the same slot meanwhile.
func TestFastNameShared(t *testing.T) {
	lines := make([][]byte, 3000)
	for i := range lines {
		lines[i] = []byte(`{"type":"user","cwd":"/w/` + strconv.Itoa(i%1500) + `","version":"2.1.` + strconv.Itoa(i%7) +
			`","gitBranch":"b\u00e9` + strconv.Itoa(i%3) + `","sessionId":"` + strings.Repeat("s", 60+i%10) + `"}`)
	}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range lines {
				l := lines[(i*(g+1))%len(lines)]
				e, ok := decodeFast(l, false)
				want, _ := decodeWhole(t, l)
				if !ok || e.Cwd != want.Cwd || e.Version != want.Version || e.GitBranch != want.GitBranch || e.SessionID != want.SessionID {
					t.Errorf("%s: got %q %q %q %q", l, e.Cwd, e.Version, e.GitBranch, e.SessionID)
					return
				}
			}
		}()
	}
	wg.Wait()
}
