package corpus

import (
	"encoding/base64"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
)

// The vocabulary never contains a planted term, and pool slices are cut at
// line ends and joined with separators, so no planted term can appear by chance.
var proseWords = strings.Fields(`the a an of to in for on with and or but not is are was be this that it
we you they can should would could will may must file files function test tests build error errors fix
fixed failing pass passes run running config value values request response handler server client cache
index query parse parser record records line lines stream reader writer output input flag flags option
options command commands session sessions transcript project module package import export type types
struct field fields method methods interface return returns nil null true false update updated change
changes diff patch commit branch merge rebase deploy release version check checks lint format refactor
rename move delete add added remove removed path paths directory dir list map slice string strings byte
bytes buffer size length count total sum usage token tokens model models prompt prompts tool tools result
results hook hooks event events timeout retry retries context deadline cancel goroutine channel mutex lock
unlock race panic recover log logs debug info warn trace metric metrics latency memory cpu disk network
socket port host address endpoint route router middleware auth login user users account database table
column row schema migration transaction rollback select insert upsert join group order limit offset page
look here now next first last then also just only still already again before after while when where why
how what which because since until unless though however therefore instead maybe probably likely seems
let me see check the current implementation uses approach works breaks handles edge case cases
small large huge tiny fast slow faster slower simple complex clean messy good bad better worse ok done`)

var identWords = strings.Fields(`ctx cfg opts buf err req resp conf item node tree list entry line rec doc
key val idx pos off len cap src dst tmp out in res row col msg evt job task peer sess path name kind mode
state count total sum size limit start end next prev head tail left right first last parent child root`)

// shortWords and shortIdents are the second vocabulary (gen -vocab short):
// common short words, which make every byte pair frequent, and German,
// Polish and Albanian words, which bring the bytes that English text
// lacks (q, z, v, j, k, ß and other non-ASCII letters) into the bytes a
// search anchors on. Each starts with an ASCII lowercase letter (the
// generator capitalises the first byte), and no concatenation of them
// makes a planted term (checkVocab).
var shortWords = strings.Fields(`a i o u w z v je na do po od to ja ty on my wy we in an at by go is it of or
so up us be if no ok der die das und ist ein zu im am um es da wo wie was wer so ob ja nie tak czy jak co
ale bo gdy juz się sie przez zawsze wszystko zrobic szybko kwota zakres zadanie zmiana wazne wiadomo
jest byl bylo sa mam masz moze trzeba qeveri qytet qellim zgjedh vazhdo vizatim zvogelo kujdes gjithashtu
ndoshta javore kodi vlera kerko gabim provo quiz jazz fizz buzz zip zoom zero lazy size query queue quota
squad quick equal vivid valve zone zinc zeal jump joke kiwi kayak vex vow wax wiz groß weiß fuß heißt maß
gruß süß draußen größe schließen müssen können wäre für grün
fehler prüfen lösung wichtig schnell langsam zähler eingabe ausgabe`)

var shortIdents = strings.Fields(`zv qa qx jz kz zk vk wz zw vj jv xz zx qi qo qu zi zo vi vo ja jo ko
ki wa wo zed vex jot kit qat qis zag vat jab kop wiz zzz vvv jjj kkk`)

// vocab is the words a corpus's text is made of. With cdf, prose words
// are drawn by it (a Zipf law) instead of uniformly.
type vocab struct {
	prose, ident []string
	cdf          []float64 // cumulative weight of prose[:i+1]
}

// vocabs are the vocabularies gen can write: "code" (English prose and
// code, the default), "short" and "zipf". The Zipf one is made when
// first asked (200k words: 0.2 s and 40 MB, which every program linking
// this package paid at its start, bench/tool's timing of each run too,
// whose peak RSS then floored every child's: exec keeps the vfork
// parent's).
var vocabs = map[string]func() *vocab{
	"code":  func() *vocab { return &vocab{prose: proseWords, ident: identWords} },
	"short": func() *vocab { return &vocab{prose: shortWords, ident: shortIdents} },
	"zipf":  sync.OnceValue(zipfVocab),
}

// word draws a prose word.
func (v *vocab) word(r *rand.Rand) string {
	if v.cdf == nil {
		return pick(r, v.prose)
	}
	x := r.Float64() * v.cdf[len(v.cdf)-1]
	lo, hi := 0, len(v.cdf)-1
	for lo < hi {
		m := (lo + hi) / 2
		if v.cdf[m] < x {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return v.prose[lo]
}

// zipfWords is the size of the Zipf vocabulary, and zipfS its exponent.
const (
	zipfWords = 200000
	zipfS     = 1.07
)

// zipfVocab is the third vocabulary (gen -vocab zipf): zipfWords words,
// the word of rank k drawn with weight 1/k^zipfS, of every kind a
// history holds: identifiers (camelCase, snake_case), paths, error
// codes, versions, plain words and non-ASCII words (German, Greek,
// Cyrillic, Polish). The kinds take turns down the ranks, so each has
// common and rare words. Deterministic; no word holds a q, so no planted
// term (all but straße start with qzv) comes out of it, and none holds
// "stra".
func zipfVocab() *vocab {
	r := rand.New(rand.NewPCG(37, 37))
	syl := strings.Fields(`ba be bi bo bu da de di do du fa fe fi fo fu ga ge gi go gu ha he hi ho hu ka ke ki ko ku
la le li lo lu ma me mi mo mu na ne ni no nu pa pe pi po pu ra re ri ro ru sa se si so su ta te ti to tu va ve vi vo
vu wa we wi wo xa xe xi ya ye yo za ze zi zo zu an en in on un ar er ir or ur al el il ol ul ex ox ax ch sh th tr st`)
	uni := strings.Fields(`ä ö ü ß é è ñ ł ś ż ą ę ć ő α β γ δ λ μ π σ ω ж з и к л м н п р ф ш щ ы ю я`)
	s := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(pick(r, syl))
		}
		return b.String()
	}
	upper := func(w string) string { return strings.ToUpper(w[:1]) + w[1:] }
	v := &vocab{}
	seen := map[string]bool{}
	idents := 0
	for len(v.prose) < zipfWords {
		var w string
		switch len(v.prose) % 8 {
		case 0, 1:
			w = s(1+r.IntN(2)) + upper(s(1+r.IntN(2))) // camelCase
			if r.IntN(2) == 0 {
				w += upper(s(1))
			}
		case 2:
			w = s(1+r.IntN(2)) + "_" + s(1+r.IntN(2)) + "_" + s(1)
		case 3:
			w = "/" + pick(r, []string{"usr", "home/dev", "var/lib", "opt", "src", "etc"}) + "/" + s(2) + "/" + s(1+r.IntN(2)) + pick(r, []string{".go", ".py", ".ts", ".rs", ".json", ".md", ""})
		case 4:
			if r.IntN(2) == 0 {
				w = fmt.Sprintf("E%04d", r.IntN(10000))
			} else {
				w = "ERR_" + strings.ToUpper(s(1+r.IntN(2))) + "_" + strings.ToUpper(s(1+r.IntN(2)))
			}
		case 5:
			w = s(1 + r.IntN(3))
		case 6:
			w = s(1) + pick(r, uni) + s(1+r.IntN(2)) + pick(r, uni)
		case 7:
			if r.IntN(2) == 0 {
				w = fmt.Sprintf("v%d.%d.%d", r.IntN(20), r.IntN(40), r.IntN(100))
			} else {
				w = s(2) + pick(r, uni) + s(1)
			}
		}
		if seen[w] || strings.Contains(w, "stra") {
			continue
		}
		seen[w] = true
		v.prose = append(v.prose, w)
		if len(v.prose)%8 <= 2 && idents < 4000 && !strings.Contains(w, "_") {
			v.ident = append(v.ident, w)
			idents++
		}
	}
	total := 0.0
	v.cdf = make([]float64, len(v.prose))
	for k := range v.prose {
		total += 1 / math.Pow(float64(k+1), zipfS)
		v.cdf[k] = total
	}
	return v
}

// ZipfTop returns the n most frequent words of the Zipf vocabulary that
// are at least 4 bytes long (a bench's common terms).
func ZipfTop(n int) []string {
	var out []string
	for _, w := range vocabs["zipf"]().prose {
		if len(out) == n {
			break
		}
		if len(w) >= 4 && !strings.ContainsAny(w, "/_.") {
			out = append(out, w)
		}
	}
	return out
}

var codeTemplates = []string{
	"func %I(%I context.Context, %I *%T) error {",
	"\tif err := %I.%I(%I); err != nil {",
	"\t\treturn fmt.Errorf(\"%W %W: %w\", err)",
	"\t}",
	"}",
	"\t%I := make([]%T, 0, %N)",
	"\tfor _, %I := range %I.%I {",
	"\t\t%I = append(%I, %I)",
	"// %W %W %W %W %W.",
	"\tdefer %I.Close()",
	"type %T struct {",
	"\t%T %T `json:\"%I\"`",
	"import \"%W/%W\"",
	"\treturn %I, nil",
	"const %T = %N",
	"\tswitch %I.%T {",
	"\tcase \"%W\":",
	"def %I(%I, %I=None):",
	"    return %I.%I(%I)",
	"export function %I(%I: %T): %T {",
	"  const %I = await %I.%I(%I);",
	"<div class=\"%W-%W\">%W & %W</div>",
	"SELECT %I, %I FROM %I WHERE %I = $1;",
	"",
}

var shellOutputs = []string{
	"ok  \tgithub.com/example/%W/%W\t0.%Ns",
	"--- FAIL: Test%T (0.0%Ns)",
	"    %I_test.go:%N: got %N, want %N",
	"PASS",
	"FAIL\tgithub.com/example/%W\t0.%Ns",
	"%W/%W.go:%N:%N: undefined: %I",
	"drwxr-xr-x  %N root root  4096 Aug %N 10:%N %W",
	"-rw-r--r--  1 root root %N Aug %N 11:%N %I.go",
	"M  %W/%I.go",
	"?? %W/%I_test.go",
	"[main %N] %W %W %W",
	" %N files changed, %N insertions(+), %N deletions(-)",
	"npm warn deprecated %W@%N.%N.%N: %W %W",
	"added %N packages in %Ns",
	"error[E0%N]: %W %W `%I`",
	"  --> src/%I.rs:%N:%N",
	"Traceback (most recent call last):",
	"  File \"/home/dev/work/%W/%I.py\", line %N, in %I",
	"%TError: %W %W %W",
}

// Non-ASCII text as it shows up in real prompts. None of it folds to a
// planted term ("straße" and its spellings are planted, never filler).
var nonASCII = []string{
	"Grüße aus München, bitte prüfe die Änderung",
	"naïve café résumé déjà vu",
	"日本語のテキストを確認してください",
	"Привет, посмотри этот файл",
	"emoji check ✅ 🚀 ⚠️",
	"Ελληνικά γράμματα και σύμβολα",
	"中文注释：修复这个错误",
	"español: añadir la función de búsqueda",
	"Fußnote über Größe und Maß",
}

// titleCase-free helpers to keep generation allocation-light.
func pick[T any](r *rand.Rand, s []T) T { return s[r.IntN(len(s))] }

// expand fills a template: %I identifier, %T TypeName, %W word, %N number.
func expand(v *vocab, r *rand.Rand, b []byte, tpl string) []byte {
	for i := 0; i < len(tpl); i++ {
		c := tpl[i]
		if c != '%' || i+1 == len(tpl) {
			b = append(b, c)
			continue
		}
		i++
		switch tpl[i] {
		case 'I':
			b = append(b, pick(r, v.ident)...)
			if r.IntN(2) == 0 {
				w := pick(r, v.ident)
				b = append(b, w[0]-'a'+'A')
				b = append(b, w[1:]...)
			}
		case 'T':
			w := pick(r, v.ident)
			b = append(b, w[0]-'a'+'A')
			b = append(b, w[1:]...)
			w = v.word(r)
			if len(w) > 1 && 'a' <= w[0] && w[0] <= 'z' {
				b = append(b, w[0]-'a'+'A')
				b = append(b, w[1:]...)
			}
		case 'W':
			b = append(b, v.word(r)...)
		case 'N':
			n := r.IntN(1000)
			if n >= 100 {
				b = append(b, byte('0'+n/100))
			}
			if n >= 10 {
				b = append(b, byte('0'+n/10%10))
			}
			b = append(b, byte('0'+n%10))
		default:
			b = append(b, '%', tpl[i])
		}
	}
	return b
}

// pool is a large block of generated lines; text is taken from it as
// line-aligned slices so generation runs at memcpy speed.
type pool struct {
	text  string
	lines []int32 // start offset of each line
}

func newPool(v *vocab, r *rand.Rand, size int, templates []string, prose bool) *pool {
	b := make([]byte, 0, size+256)
	var lines []int32
	for len(b) < size {
		lines = append(lines, int32(len(b)))
		if prose {
			n := 4 + r.IntN(16)
			for i := 0; i < n; i++ {
				if i > 0 {
					b = append(b, ' ')
				}
				b = append(b, v.word(r)...)
			}
			b = append(b, '.')
		} else {
			b = expand(v, r, b, pick(r, templates))
		}
		b = append(b, '\n')
	}
	return &pool{text: string(b), lines: lines}
}

// take returns about n bytes of whole lines starting at a random line.
func (p *pool) take(r *rand.Rand, n int) string {
	if n <= 0 {
		return ""
	}
	i := r.IntN(len(p.lines))
	start := int(p.lines[i])
	end := start + n
	if end >= len(p.text) {
		end = len(p.text)
		if end-start < n && start > 0 {
			// Wrap: take from the beginning instead.
			start = 0
			end = min(n, len(p.text))
		}
	}
	// Cut at the end of a line so no word is split.
	if j := strings.IndexByte(p.text[end-1:], '\n'); j >= 0 {
		end = end - 1 + j
	}
	return p.text[start:end]
}

// b64Pool is random base64 used for image blocks and the huge line.
func b64Pool(r *rand.Rand, n int) string {
	raw := make([]byte, n*3/4+3)
	for i := range raw {
		raw[i] = byte(r.Uint32())
	}
	s := base64.StdEncoding.EncodeToString(raw)
	return s[:n]
}

const hexChars = "0123456789abcdef"

func appendUUID(b []byte, r *rand.Rand) []byte {
	var u [16]byte
	x, y := r.Uint64(), r.Uint64()
	for i := 0; i < 8; i++ {
		u[i] = byte(x >> (8 * i))
		u[8+i] = byte(y >> (8 * i))
	}
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	for i, c := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b = append(b, '-')
		}
		b = append(b, hexChars[c>>4], hexChars[c&0xf])
	}
	return b
}

func newUUID(r *rand.Rand) string { return string(appendUUID(nil, r)) }

const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// randID returns prefix + n characters from alphabet (message ids, tool ids).
func randID(r *rand.Rand, prefix string, n int, alphabet string) string {
	b := make([]byte, 0, len(prefix)+n)
	b = append(b, prefix...)
	for i := 0; i < n; i++ {
		b = append(b, alphabet[r.IntN(len(alphabet))])
	}
	return string(b)
}
