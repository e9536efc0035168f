package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/internal/claudetest"
	"github.com/ccpipe/ccpipe/lib/internal/fakeapi"
	"github.com/ccpipe/ccpipe/lib/pricing"
)

// The pricing oracle: real Claude Code sessions whose responses carry
// every usage shape the pricing rules read, one session per catalog model
// plus the naming cases; cc-extract usage --cost --sum session must equal
// the totalCostUSD Claude Code itself wrote into the transcript's last
// cost-state record, to the bit.

// oracleTurns are the three responses of every oracle session: (1) cache
// writes without a split, (2) a 5m/1h split with fast speed, geo "us", web
// searches and fetches, (3) a long prompt split into message iterations
// plus an advisor iteration under another model.
func oracleTurns(responseModel string) []fakeapi.Turn {
	return []fakeapi.Turn{
		{Model: responseModel, Blocks: []fakeapi.Block{fakeapi.Text("First."), fakeapi.ToolUse("Bash", map[string]any{"command": "echo oracle-one"})},
			Usage: &fakeapi.Usage{InputTokens: 1200, OutputTokens: 150, CacheCreationInputTokens: 2000, CacheReadInputTokens: 30000}},
		{Match: "oracle-one", Blocks: []fakeapi.Block{fakeapi.ToolUse("Bash", map[string]any{"command": "echo oracle-two"})},
			Usage: &fakeapi.Usage{InputTokens: 800, OutputTokens: 60, CacheCreationInputTokens: 500, CacheReadInputTokens: 32000,
				CacheCreation: &fakeapi.CacheCreation{Ephemeral5m: 100, Ephemeral1h: 400}, Speed: "fast", InferenceGeo: "us",
				ServerToolUse: map[string]int{"web_search_requests": 2, "web_fetch_requests": 1}}},
		{Match: "oracle-two", Blocks: []fakeapi.Block{fakeapi.Text("Done.")},
			Usage: &fakeapi.Usage{InputTokens: 120000, OutputTokens: 200, CacheCreationInputTokens: 700, CacheReadInputTokens: 0,
				CacheCreation: &fakeapi.CacheCreation{Ephemeral5m: 300, Ephemeral1h: 400},
				Iterations: []map[string]any{
					{"type": "message", "input_tokens": 60000, "output_tokens": 100, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 300},
					{"type": "message", "input_tokens": 60000, "output_tokens": 100, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 400},
					{"type": "advisor_message", "model": "claude-haiku-4-5", "input_tokens": 3000, "output_tokens": 200, "cache_read_input_tokens": 500, "cache_creation_input_tokens": 0},
				}}},
	}
}

type oracleCase struct {
	name, model   string
	env           []string
	responseModel string
	wantBasis     pricing.Basis
	// turns replaces oracleTurns: the edge cases of the rules.
	turns []fakeapi.Turn
}

// edgeTurns are the rules' edge cases, three responses chained by tool
// calls: 1h split above the total (clamped); a split with a zero total
// (Claude Code fills the total in); a prompt of exactly the long-prompt
// threshold (not long) with geo "global" and service_tier "priority" (no
// multiplier) and only web fetches (free); message iterations that do
// not add up to the top level (ignored).
// subagentTurns: a foreground subagent on haiku while the session runs
// opus-5-5; its messages are in its own transcript, and Claude Code's
// total includes them.
func subagentTurns() []fakeapi.Turn {
	return []fakeapi.Turn{
		{Blocks: []fakeapi.Block{fakeapi.ToolUse("Agent", map[string]any{"description": "Priced check", "subagent_type": "general-purpose",
			"run_in_background": false, "model": "haiku", "prompt": "SUB-PRICE-TASK: report."})},
			Usage: &fakeapi.Usage{InputTokens: 2000, OutputTokens: 150, CacheReadInputTokens: 10000, CacheCreationInputTokens: 3000}},
		{Match: "SUB-PRICE-TASK", Model: "claude-haiku-5-5", Blocks: []fakeapi.Block{fakeapi.Text("Sub price report.")},
			Usage: &fakeapi.Usage{InputTokens: 1500, OutputTokens: 80, CacheReadInputTokens: 15000, CacheCreationInputTokens: 1200,
				CacheCreation: &fakeapi.CacheCreation{Ephemeral1h: 1200}}},
		{Match: "Sub price report", Blocks: []fakeapi.Block{fakeapi.Text("All priced.")},
			Usage: &fakeapi.Usage{InputTokens: 600, OutputTokens: 40, CacheReadInputTokens: 13000}},
	}
}

func edgeTurns() []fakeapi.Turn {
	return []fakeapi.Turn{
		{Blocks: []fakeapi.Block{fakeapi.ToolUse("Bash", map[string]any{"command": "echo edge-one"})},
			Usage: &fakeapi.Usage{InputTokens: 1000, OutputTokens: 50, CacheCreationInputTokens: 500,
				CacheCreation: &fakeapi.CacheCreation{Ephemeral1h: 800}}},
		{Match: "edge-one", Blocks: []fakeapi.Block{fakeapi.ToolUse("Bash", map[string]any{"command": "echo edge-two"})},
			Usage: &fakeapi.Usage{InputTokens: 1000, OutputTokens: 50, CacheCreation: &fakeapi.CacheCreation{Ephemeral5m: 400, Ephemeral1h: 600}}},
		{Match: "edge-two", Blocks: []fakeapi.Block{fakeapi.ToolUse("Bash", map[string]any{"command": "echo edge-three"})},
			Usage: &fakeapi.Usage{InputTokens: 40000, OutputTokens: 500, CacheReadInputTokens: 50000, CacheCreationInputTokens: 10000,
				CacheCreation: &fakeapi.CacheCreation{Ephemeral5m: 5000, Ephemeral1h: 5000}, InferenceGeo: "global", ServiceTier: "priority",
				ServerToolUse: map[string]int{"web_fetch_requests": 3}}},
		{Match: "edge-three", Blocks: []fakeapi.Block{fakeapi.Text("Edges done.")},
			Usage: &fakeapi.Usage{InputTokens: 120000, OutputTokens: 1000, Speed: "fast", InferenceGeo: "eu",
				Iterations: []map[string]any{{"type": "message", "input_tokens": 60000, "output_tokens": 500, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}}}},
	}
}

func oracleCases() []oracleCase {
	var cs []oracleCase
	for _, m := range pricing.Embedded().Models {
		c := oracleCase{name: "model-" + m.ID, model: m.ID, wantBasis: pricing.BasisCatalog}
		if m.ID == "claude-opus-4-0" || m.ID == "claude-opus-4-1" {
			c.env = []string{"CLAUDE_CODE_DISABLE_LEGACY_MODEL_REMAP=1"}
		}
		cs = append(cs, c)
	}
	return append(cs,
		oracleCase{name: "unknown-model", model: "claude-nonesuch-9", wantBasis: pricing.BasisAssumed},
		oracleCase{name: "suffix-1m", model: "claude-opus-4-6[1m]", wantBasis: pricing.BasisCatalog},
		oracleCase{name: "dated-id", model: "claude-haiku-4-5-20251001", wantBasis: pricing.BasisCatalog},
		oracleCase{name: "alias-haiku", model: "haiku", wantBasis: pricing.BasisCatalog},
		oracleCase{name: "legacy-remap-opus-4-0", model: "claude-opus-4-0", wantBasis: pricing.BasisCatalog},
		oracleCase{name: "response-model-differs", model: "claude-opus-5-5", responseModel: "claude-haiku-5-5", wantBasis: pricing.BasisCatalog},
		oracleCase{name: "two-models-subagent", model: "claude-opus-5-5", wantBasis: pricing.BasisCatalog, turns: subagentTurns()},
		oracleCase{name: "edges-haiku-5-5", model: "claude-haiku-5-5", wantBasis: pricing.BasisCatalog, turns: edgeTurns()},
		oracleCase{name: "edges-sonnet-5-5", model: "claude-sonnet-5-5", wantBasis: pricing.BasisCatalog, turns: edgeTurns()},
	)
}

// oracleQuick are the sessions the contract suite runs by default, one per
// rule family; CCPIPE_PRICING_ORACLE=all runs every case (and with
// CCPIPE_PRICING_CORPUS_OUT=testdata/corpus-pricing rewrites the corpus
// whose sessions lib/extract's TestPricingCorpus checks without the CLI).
var oracleQuick = map[string]bool{
	"model-claude-haiku-5-5": true, "model-claude-opus-5-5": true, "unknown-model": true,
	"suffix-1m": true, "response-model-differs": true, "model-claude-opus-4-0": true, "edges-haiku-5-5": true,
	"two-models-subagent": true,
}

func TestPricingOracle(t *testing.T) {
	Require(t)
	t.Parallel()
	out := os.Getenv("CCPIPE_PRICING_CORPUS_OUT")
	all := os.Getenv("CCPIPE_PRICING_ORACLE") == "all"
	for _, c := range oracleCases() {
		if !all && !oracleQuick[c.name] {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			turns := c.turns
			if turns == nil {
				turns = oracleTurns(c.responseModel)
			}
			e := claudetest.New(t, claudetest.Config{Script: &fakeapi.Script{Model: c.model, Turns: turns}})
			dir := e.Project("pricing")
			res := e.Headless(claudetest.Cmd{Dir: dir, Prompt: "price me", AllowedTools: []string{"Bash", "Agent"},
				Args: []string{"--model", c.model}, Env: c.env})
			if res.ExitCode != 0 {
				t.Fatalf("claude exit %d: %s", res.ExitCode, res.Stderr)
			}
			paths := e.Transcripts()
			if len(paths) != 1 {
				t.Fatalf("transcripts: %v", paths)
			}
			want, unknown := claudetest.CostState(t, paths[0])
			sums := ccExtract(t, "usage", "--cost", "--sum", "session", "--subagents", paths[0])
			if len(sums) != 1 {
				t.Fatalf("sums: %v", sums)
			}
			got, _ := sums[0]["cost_usd"].(float64)
			if got != want || math.IsNaN(got) {
				t.Errorf("cc-extract cost_usd %v (%b), Claude Code totalCostUSD %v (%b)", got, math.Float64bits(got), want, math.Float64bits(want))
			}
			assumed, _ := sums[0]["assumed_models"].([]any)
			if unknown != (c.wantBasis == pricing.BasisAssumed) || (len(assumed) > 0) != unknown {
				t.Errorf("hasUnknownModelCost %v, assumed_models %v, want basis %s", unknown, assumed, c.wantBasis)
			}
			if out != "" {
				writePricingCorpus(t, paths[0], filepath.Join(out, c.name+".jsonl"), e.Root)
			}
		})
	}
}

// writePricingCorpus keeps what pricing reads (assistant and cost-state
// records: the rest is megabytes of request shapes) with the test's temp
// root rewritten to /home/dev.
func writePricingCorpus(t *testing.T, src, dst, root string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var keep bytes.Buffer
	for _, l := range bytes.SplitAfter(data, []byte("\n")) {
		var r struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(l, &r) == nil && (r.Type == "assistant" || r.Type == "cost-state") {
			keep.Write(bytes.ReplaceAll(l, []byte(root), []byte("/home/dev")))
		}
	}
	if err := os.WriteFile(dst, keep.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	subs, _ := filepath.Glob(filepath.Join(strings.TrimSuffix(src, ".jsonl"), "subagents", "agent-*.jsonl"))
	for _, sub := range subs {
		d := filepath.Join(strings.TrimSuffix(dst, ".jsonl"), "subagents")
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		writePricingCorpus(t, sub, filepath.Join(d, filepath.Base(sub)), root)
	}
}

// TestPricingCatalogDrift reads the model catalog and the fast-mode tables
// out of the installed Claude Code binary and fails when they differ from
// the table ccpipe embeds: the next Claude Code release tells us.
func TestPricingCatalogDrift(t *testing.T) {
	Require(t)
	t.Parallel()
	bin, err := claudetest.Binary()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	got, err := binaryCatalog(data)
	if err != nil {
		t.Fatalf("reading the catalog out of %s: %v", bin, err)
	}
	c := pricing.Embedded()
	wantTiers := map[string]pricing.Tier(c.Tiers)
	if !reflect.DeepEqual(got.Tiers, wantTiers) {
		t.Errorf("pricing_tiers differ:\nbinary:   %s\nembedded: %s", jsonOf(got.Tiers), jsonOf(wantTiers))
	}
	var wantModels []pricing.Model
	for _, m := range c.Models {
		m.Fast = "" // compared below, by table
		wantModels = append(wantModels, m)
	}
	if !reflect.DeepEqual(got.Models, wantModels) {
		t.Errorf("models differ:\nbinary:   %s\nembedded: %s", jsonOf(got.Models), jsonOf(wantModels))
	}
	if !reflect.DeepEqual(got.Aliases, c.Aliases) {
		t.Errorf("aliases differ: binary %v, embedded %v", got.Aliases, c.Aliases)
	}
	wantFast := map[string]pricing.Rates{}
	for _, m := range c.Models {
		if m.Fast != "" {
			wantFast[m.ID] = c.FastTiers[m.Fast]
		}
	}
	if !reflect.DeepEqual(got.Fast, wantFast) {
		t.Errorf("fast tables differ:\nbinary:   %s\nembedded: %s", jsonOf(got.Fast), jsonOf(wantFast))
	}
	if got.GeoUS != c.GeoUSMultiplier {
		t.Errorf("inference_geo us multiplier: binary %v, embedded %v", got.GeoUS, c.GeoUSMultiplier)
	}
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

type binCatalog struct {
	Tiers   map[string]pricing.Tier
	Models  []pricing.Model
	Aliases map[string]string
	Fast    map[string]pricing.Rates
	GeoUS   float64
}

var catalogMarker = []byte(`={"//":"Hand-maintained baked-in model catalog`)

// binaryCatalog cuts the catalog object literal out of the binary and has
// node evaluate it (it is JavaScript, not JSON), then reads the fast-mode
// table function jv and the geo multiplier by pattern.
func binaryCatalog(bin []byte) (*binCatalog, error) {
	i := bytes.Index(bin, catalogMarker)
	if i < 0 {
		return nil, fmt.Errorf("no catalog object (marker %q)", catalogMarker)
	}
	obj, err := balanced(bin[i+1:])
	if err != nil {
		return nil, err
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, err
	}
	script := `let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const o=eval("("+s+")");` +
		`console.log(JSON.stringify({tiers:o.pricing_tiers,models:o.models.map(m=>({id:m.id,first_party:m.provider_ids.first_party,pricing:m.pricing})),` +
		`aliases:Object.fromEntries(Object.entries(o.aliases).map(([k,v])=>[k,v.default]))}))})`
	cmd := exec.Command(node, "-e", script)
	cmd.Stdin = bytes.NewReader(obj)
	js, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("node: %v", err)
	}
	var raw struct {
		Tiers   map[string]pricing.Tier `json:"tiers"`
		Models  []pricing.Model         `json:"models"`
		Aliases map[string]string       `json:"aliases"`
	}
	if err := json.Unmarshal(js, &raw); err != nil {
		return nil, err
	}
	bc := &binCatalog{Tiers: raw.Tiers, Models: raw.Models, Aliases: raw.Aliases, Fast: map[string]pricing.Rates{}}
	// function jv(e){if(e==="a"||e==="b")return eK;if(e==="c")return ZG;...return}
	jv := regexp.MustCompile(`^function jv\(e\)\{((?:if\([^)]*\)return [A-Za-z_$][\w$]*;)+)return\}`).FindSubmatch(window(bin, "function jv(e){", 0))
	if jv == nil {
		return nil, fmt.Errorf("no fast-mode table function (function jv) found")
	}
	for _, br := range regexp.MustCompile(`if\(([^)]*)\)return ([A-Za-z_$][\w$]*);`).FindAllSubmatch(jv[1], -1) {
		name := regexp.QuoteMeta(string(br[2]))
		def := regexp.MustCompile(`^[,; ]` + name + `=\{inputTokens:([\d.]+),outputTokens:([\d.]+),promptCacheWriteTokens:([\d.]+),promptCacheWrite1hTokens:([\d.]+),promptCacheReadTokens:([\d.]+),webSearchRequests:[\d.]+\}`).FindSubmatch(window(bin, string(br[2])+"={inputTokens:", 1))
		if def == nil {
			return nil, fmt.Errorf("fast table %s not found", br[2])
		}
		var f [5]float64
		for k := range f {
			fmt.Sscan(string(def[k+1]), &f[k])
		}
		w1h := f[3]
		r := pricing.Rates{Input: f[0], Output: f[1], CacheWrite5m: f[2], CacheWrite1h: &w1h, CacheRead: f[4]}
		for _, id := range regexp.MustCompile(`e==="([^"]+)"`).FindAllSubmatch(br[1], -1) {
			bc.Fast[string(id[1])] = r
		}
	}
	geo := regexp.MustCompile(`^function (\w+)\(e\)\{return e\.inference_geo==="us"\?(\w+):1\}`).FindSubmatch(window(bin, `(e){return e.inference_geo==="us"?`, 40))
	if geo == nil {
		return nil, fmt.Errorf("no inference_geo multiplier function found")
	}
	m := regexp.MustCompile(`^var ` + regexp.QuoteMeta(string(geo[2])) + `=([\d.]+);`).FindSubmatch(window(bin, "var "+string(geo[2])+"=", 0))
	if m == nil {
		return nil, fmt.Errorf("inference_geo multiplier %s not found", geo[2])
	}
	fmt.Sscan(string(m[1]), &bc.GeoUS)
	return bc, nil
}

// window returns the 4 KB of bin from back bytes before the first
// occurrence of lit (regexps over the whole 370 MB binary take minutes).
// For back > 0 the start is the last function keyword or separator
// before lit, so that anchored patterns can match.
func window(bin []byte, lit string, back int) []byte {
	i := bytes.Index(bin, []byte(lit))
	if i < 0 {
		return nil
	}
	start := i - back
	if back >= 40 {
		start = bytes.LastIndex(bin[max(0, i-back):i], []byte("function ")) + max(0, i-back)
	}
	return bin[max(0, start):min(len(bin), i+4096)]
}

// balanced returns the object literal at the start of b, braces matched
// outside strings.
func balanced(b []byte) ([]byte, error) {
	depth := 0
	var quote byte
	for i := 0; i < len(b) && i < 1<<20; i++ {
		c := b[i]
		if quote != 0 {
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
			continue
		}
		switch c {
		case '"', '\'', '`':
			quote = c
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return b[:i+1], nil
			}
		}
	}
	return nil, fmt.Errorf("catalog object does not end within 1 MB")
}
