package cassette

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// nodeScript prints, for each input line, JSON.stringify(v), the
// canonical text (keys sorted by JavaScript's default sort) and
// JSON.stringify(v, null, 2) with newlines escaped, tab separated.
const nodeScript = `
const fs = require('fs');
const lines = fs.readFileSync(process.argv[2], 'utf8').split('\n');
lines.pop();
function canon(v) {
  if (typeof v === 'number' && !isFinite(v)) throw new Error('nonfinite');
  if (Array.isArray(v)) return '[' + v.map(canon).join(',') + ']';
  if (v !== null && typeof v === 'object')
    return '{' + Object.keys(v).sort().map(k => JSON.stringify(k) + ':' + canon(v[k])).join(',') + '}';
  return JSON.stringify(v);
}
const out = [];
for (const line of lines) {
  const v = JSON.parse(line);
  let c;
  try { c = canon(v); } catch (e) { c = 'NONFINITE'; }
  out.push(JSON.stringify(v) + '\t' + c + '\t' + JSON.stringify(v, null, 2).replace(/\n/g, '\\n'));
}
process.stdout.write(out.join('\n') + '\n');
`

// TestAgainstNode checks the encoders against Node's JSON.stringify on
// random values: numbers of every shape, strings with escapes, lone
// surrogates, astral characters and invalid UTF-8, keys that sort
// differently by UTF-16 units and by code points, array-index keys.
func TestAgainstNode(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed")
	}
	n := 3000
	if testing.Short() {
		n = 300
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var in bytes.Buffer
	for i := 0; i < n; i++ {
		in.WriteString(randJSON(rng, 0))
		in.WriteByte('\n')
	}
	// Numbers alone, many of them, where the formatting rules live.
	for i := 0; i < 20*n; i++ {
		in.WriteString(randNumber(rng))
		in.WriteByte('\n')
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "in.ndjson")
	if err := os.WriteFile(path, in.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "canon.js")
	os.WriteFile(script, []byte(nodeScript), 0o644)
	cmd := exec.Command(node, script, path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v: %s", err, stderr.Bytes())
	}
	want := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	lines := bytes.Split(bytes.TrimSuffix(in.Bytes(), []byte("\n")), []byte("\n"))
	if len(want) != len(lines) {
		t.Fatalf("node printed %d lines for %d inputs", len(want), len(lines))
	}
	fails := 0
	for i, line := range lines {
		v, err := Parse(line)
		if err != nil {
			t.Fatalf("Parse(%q): %v (node accepted it)", line, err)
		}
		js, err1 := AppendJS(nil, v)
		c, err2 := AppendCanonical(nil, v)
		ind, _ := AppendIndent(nil, v)
		cs := string(c)
		if err2 != nil {
			cs = "NONFINITE"
		}
		if err1 != nil {
			js = []byte("null") // JSON.stringify writes non-finite numbers as null
		}
		got := string(js) + "\t" + cs + "\t" + strings.ReplaceAll(string(ind), "\n", `\n`)
		if err1 == nil && got != want[i] {
			fails++
			if fails < 10 {
				t.Errorf("input %q\n got %q\nnode %q", line, got, want[i])
			}
		}
	}
	if fails > 0 {
		t.Errorf("%d of %d values differ from node", fails, len(lines))
	}
}

var keyPool = []string{"a", "b", "B", "10", "9", "0", "01", "1", "4294967294", "4294967295", "\U0001F600", "\uFF01", "\uE000", "é", "", "key", `\ud800`, `\udbff\udfff`, "\u2028", `q\"`}

var strPieces = []string{"a", "Z", " ", `\"`, `\\`, "/", `\/`, `\b`, `\f`, `\n`, `\r`, `\t`, `\u0000`, `\u001F`, `\u001f`, "\x7f", `\u007F`,
	"\u2028", "\u2029", "\uFEFF", `\u2028`, "é", `\u00E9`, "\U0001F600", `\uD83D\uDE00`, `\ud83d`, `\ude00`, `\uDBFF`, `\uD800\u0041`, `\uDC00\uD800`,
	"\xff", "\xe2\x82", "\xed\xa0\x80", "\xf0\x9f\x98", "\xc0\xaf", "<", ">", "&", "\uE000", "\uFFFF", "\U0010FFFF", "한", "\ud7ff"}

func randString(rng *rand.Rand) string {
	var b strings.Builder
	b.WriteByte('"')
	for n := rng.IntN(8); n > 0; n-- {
		b.WriteString(strPieces[rng.IntN(len(strPieces))])
	}
	b.WriteByte('"')
	return b.String()
}

func randNumber(rng *rand.Rand) string {
	switch rng.IntN(10) {
	case 0:
		return strconv.FormatInt(rng.Int64N(1<<62)-1<<61, 10)
	case 1:
		return strconv.Itoa(rng.IntN(2000) - 1000)
	case 2: // any finite double, written with Go's 'g'
		for {
			f := math.Float64frombits(rng.Uint64())
			if !math.IsNaN(f) && !math.IsInf(f, 0) {
				return strconv.FormatFloat(f, 'g', -1, 64)
			}
		}
	case 3: // short decimals
		return strconv.FormatFloat(float64(rng.IntN(100000))/math.Pow(10, float64(rng.IntN(12))), 'f', -1, 64)
	case 4: // powers of ten and their neighbours
		e := rng.IntN(660) - 330
		return []string{"1", "9.999999999999999", "1.0000000000000002", "5", "2.5"}[rng.IntN(5)] + "e" + strconv.Itoa(e)
	case 5: // long digit strings, odd spellings
		var b strings.Builder
		if rng.IntN(2) == 0 {
			b.WriteByte('-')
		}
		b.WriteByte(byte('1' + rng.IntN(9)))
		for n := rng.IntN(30); n > 0; n-- {
			b.WriteByte(byte('0' + rng.IntN(10)))
		}
		if rng.IntN(2) == 0 {
			b.WriteString(".")
			for n := 1 + rng.IntN(25); n > 0; n-- {
				b.WriteByte(byte('0' + rng.IntN(10)))
			}
		}
		if rng.IntN(2) == 0 {
			b.WriteString([]string{"e", "E", "e+", "e-", "E-"}[rng.IntN(5)])
			b.WriteString(strconv.Itoa(rng.IntN(400)))
		}
		return b.String()
	case 6:
		return []string{"-0", "0", "-0.0", "0e10", "1e400", "-1e400", "1e-400", "2.2250738585072014e-308", "4.9e-324", "1.7976931348623157e308", "9007199254740993", "1e21", "1e-7", "123e-20", "0.1", "0.000001", "0.0000001"}[rng.IntN(17)]
	case 7: // a double with few significant digits at any exponent
		return strconv.FormatFloat(float64(rng.IntN(1000))*math.Pow(10, float64(rng.IntN(60)-30)), 'g', -1, 64)
	default:
		f := rng.NormFloat64() * math.Pow(10, float64(rng.IntN(40)-20))
		return strconv.FormatFloat(f, []byte("efg")[rng.IntN(3)], -1, 64)
	}
}

func randJSON(rng *rand.Rand, depth int) string {
	k := rng.IntN(8)
	if depth > 4 {
		k = rng.IntN(4)
	}
	switch k {
	case 0:
		return []string{"null", "true", "false"}[rng.IntN(3)]
	case 1, 2:
		return randNumber(rng)
	case 3:
		return randString(rng)
	case 4, 5:
		var parts []string
		for n := rng.IntN(5); n > 0; n-- {
			parts = append(parts, randJSON(rng, depth+1))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	default:
		var parts []string
		for n := rng.IntN(6); n > 0; n-- {
			key := `"` + keyPool[rng.IntN(len(keyPool))] + `"`
			if rng.IntN(4) == 0 {
				key = randString(rng)
			}
			parts = append(parts, key+":"+randJSON(rng, depth+1))
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
}
