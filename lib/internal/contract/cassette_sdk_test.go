package contract

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/lib/internal/claudetest"
	"github.com/ccpipe/ccpipe/lib/internal/fakeapi"
)

// The official JavaScript SDKs, pinned, installed like the CLI: once per
// machine into $CCPIPE_JS_CACHE (default ~/.cache/ccpipe/js-sdks).
var jsSDKs = []string{"@anthropic-ai/sdk@1.15.0", "openai@7.59.0"}

var installSDKs = sync.OnceValues(func() (string, error) {
	dir := os.Getenv("CCPIPE_JS_CACHE")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(home, ".cache", "ccpipe", "js-sdks")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	lock, err := os.OpenFile(filepath.Join(dir, ".install.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", err
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN) //nolint:errcheck
	installed := true
	for _, p := range jsSDKs {
		name, ver, _ := strings.Cut(p[1:], "@")
		b, err := os.ReadFile(filepath.Join(dir, "node_modules", "@"+name, "package.json"))
		if p[0] != '@' {
			name, ver, _ = strings.Cut(p, "@")
			b, err = os.ReadFile(filepath.Join(dir, "node_modules", name, "package.json"))
		}
		var pkg struct{ Version string }
		if err != nil || json.Unmarshal(b, &pkg) != nil || pkg.Version != ver {
			installed = false
		}
	}
	if installed {
		return dir, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	args := append([]string{"install", "--prefix", dir, "--save-exact", "--no-audit", "--no-fund"}, jsSDKs...)
	if out, err := exec.CommandContext(ctx, "npm", args...).CombinedOutput(); err != nil {
		return "", fmt.Errorf("npm install %v: %v\n%s", jsSDKs, err, out)
	}
	return dir, nil
})

// A tool loop with @anthropic-ai/sdk, streaming (messages.stream).
const anthropicScript = `const Anthropic = require(process.env.SDK_DIR + "/node_modules/@anthropic-ai/sdk");
const client = new Anthropic.default({ maxRetries: 0 });
const tools = [{ name: "get_weather", description: "Weather of a city", input_schema: { type: "object", properties: { city: { type: "string" } } } }];
(async () => {
  const messages = [{ role: "user", content: "What is the weather in Paris?" }];
  for (let turn = 0; turn < 5; turn++) {
    const msg = await client.messages.stream({ model: "claude-sonnet-4-5", max_tokens: 256, tools, messages }).finalMessage();
    messages.push({ role: "assistant", content: msg.content });
    const calls = msg.content.filter((b) => b.type === "tool_use");
    if (calls.length === 0) { console.log(msg.content.map((b) => b.text).join("")); return; }
    messages.push({ role: "user", content: calls.map((c) => ({ type: "tool_result", tool_use_id: c.id, content: "sunny in " + c.input.city })) });
  }
})().catch((e) => { console.error("sdk error:", e.message); process.exit(3); });
`

// A tool loop with openai: plain JSON for the call, streaming for the answer.
const openaiScript = `const OpenAI = require(process.env.SDK_DIR + "/node_modules/openai");
const client = new OpenAI.default({ maxRetries: 0 });
const tools = [{ type: "function", function: { name: "get_weather", description: "Weather of a city", parameters: { type: "object", properties: { city: { type: "string" } } } } }];
(async () => {
  const messages = [{ role: "system", content: "Be brief." }, { role: "user", content: "What is the weather in Paris?" }];
  const first = await client.chat.completions.create({ model: "gpt-5", messages, tools });
  const m = first.choices[0].message;
  messages.push(m);
  for (const c of m.tool_calls) messages.push({ role: "tool", tool_call_id: c.id, content: "sunny in " + JSON.parse(c.function.arguments).city });
  const stream = await client.chat.completions.create({ model: "gpt-5", messages, tools, stream: true });
  let text = "";
  for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? "";
  console.log(text);
})().catch((e) => { console.error("sdk error:", e.message); process.exit(3); });
`

// fakeOpenAI answers /v1/chat/completions: a get_weather call first, then
// the answer built from the tool message, streamed when asked.
func fakeOpenAI(t *testing.T) (*httptest.Server, *int) {
	var mu sync.Mutex
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		mu.Unlock()
		var req struct {
			Stream   bool
			Messages []map[string]any
		}
		b, _ := io.ReadAll(r.Body)
		if r.URL.Path != "/v1/chat/completions" || json.Unmarshal(b, &req) != nil {
			http.Error(w, "fake openai: bad request", 400)
			return
		}
		last := req.Messages[len(req.Messages)-1]
		if last["role"] != "tool" {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"id":"chatcmpl-fake0001","object":"chat.completion","created":1,"model":"gpt-5","choices":[{"index":0,"finish_reason":"tool_calls","logprobs":null,"message":{"role":"assistant","content":null,"refusal":null,"tool_calls":[{"id":"call_fake0123456789abcdefghij","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"Paris\"}"}}]}}],"usage":{"prompt_tokens":5,"completion_tokens":5,"total_tokens":10}}`)
			return
		}
		text := "The weather: " + fmt.Sprint(last["content"]) + "."
		if !req.Stream {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"id":"chatcmpl-fake0002","object":"chat.completion","created":1,"model":"gpt-5","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":%q}}]}`, text)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for _, part := range []string{text[:5], text[5:]} {
			fmt.Fprintf(w, "data: {\"id\":\"chatcmpl-fake0002\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-5\",\"choices\":[{\"index\":0,\"delta\":{\"content\":%q},\"finish_reason\":null}]}\n\n", part)
		}
		fmt.Fprint(w, "data: {\"id\":\"chatcmpl-fake0002\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-5\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// Proof 6: the official JavaScript SDKs as clients, each a small tool
// loop, recorded through the proxy and replayed with the fake APIs gone.
func TestCassetteJavaScriptSDKs(t *testing.T) {
	Require(t)
	t.Parallel()
	sdk, err := installSDKs()
	if err != nil {
		t.Fatal(err)
	}
	e := claudetest.New(t, claudetest.Config{Script: &fakeapi.Script{Turns: []fakeapi.Turn{
		{Blocks: []fakeapi.Block{fakeapi.ToolUse("get_weather", map[string]any{"city": "Paris"})}},
		{Match: "sunny in Paris", Blocks: []fakeapi.Block{fakeapi.Text("It is sunny in Paris.")}},
	}}})
	oa, oaCount := fakeOpenAI(t)
	dir := e.Project("sdk")
	for _, c := range []struct{ name, script, want string }{
		{"anthropic", anthropicScript, "It is sunny in Paris."},
		{"openai", openaiScript, "The weather: sunny in Paris."},
	} {
		script := e.WriteFile(c.name+".cjs", c.script, 0o644)
		run := filepath.Join(e.Root, c.name+".ndjson")
		env := []string{"SDK_DIR=" + sdk, "OPENAI_BASE_URL=" + oa.URL + "/v1", "OPENAI_API_KEY=sk-test-openai-0123456789abcdefghijklmnop"}
		code, out, errs := ccCassetteEnv(t, e, dir, env, "record", "--out", run, "--", "node", script)
		if code != 0 || strings.TrimSpace(out) != c.want {
			t.Fatalf("%s record: exit %d\nstdout: %s\nstderr: %s", c.name, code, out, errs)
		}
		if code, out, errs := ccCassetteEnv(t, e, dir, nil, "verify", run); code != 0 {
			t.Fatalf("%s verify: exit %d\n%s%s", c.name, code, out, errs)
		}
		_, steps := readCassette(t, run)
		var types []string
		for _, s := range steps {
			types = append(types, s.Type)
		}
		if got := strings.Join(types, ","); got != "model_input,model_output,tool_call,tool_result,model_input,model_output,metadata" {
			t.Errorf("%s steps %s", c.name, got)
		}
		// Replay with both upstreams unreachable.
		before, beforeOA := len(e.API.Requests()), *oaCount
		dead := []string{"SDK_DIR=" + sdk, "ANTHROPIC_BASE_URL=http://127.0.0.1:1", "OPENAI_BASE_URL=http://127.0.0.1:1/v1"}
		code, out2, errs := ccCassetteEnv(t, e, dir, dead, "replay", run, "--", "node", script)
		if code != 0 || out2 != out {
			t.Errorf("%s replay: exit %d\nstdout: %q, recorded %q\nstderr: %s", c.name, code, out2, out, errs)
		}
		if len(e.API.Requests()) != before || *oaCount != beforeOA {
			t.Errorf("%s replay reached an upstream", c.name)
		}
	}
}
