#!/usr/bin/env bash
# bench/grep.sh: cc-grep against ripgrep on one generated corpus, in one run.
#
#   bench/grep.sh [CORPUS_DIR] [SIZE]      (defaults /tmp/ccpipe-grep-corpus 512MB)
#
# Generates the corpus with bench/gen when missing (no huge line, no zstd, so
# ripgrep reads exactly the same bytes), reads it once into the page cache,
# then runs each command ROUNDS times (default 5), ripgrep and cc-grep in
# turn, and reports the fastest wall time of each, the throughput over the
# bytes under projects/, and the peak RSS. The machine may be shared: the
# rounds are interleaved so that both tools see the same load.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=${1:-/tmp/ccpipe-grep-corpus}
size=${2:-512MB}
rounds=${ROUNDS:-5}
command -v rg >/dev/null || { echo "grep.sh: ripgrep (rg) not installed" >&2; exit 1; }

if [ ! -d "$corpus/projects" ]; then
	go run ./bench/gen -out "$corpus" -size "$size" -sessions 600 -huge-line 0 -zst 0 -seed 7 >&2
fi
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/cc-grep" ./cmd/cc-grep
go build -o "$bin/cc-sessions" ./cmd/cc-sessions
find "$corpus/projects" -type f -exec cat {} + >/dev/null
bytes=$(find "$corpus/projects" -type f -printf '%s\n' | awk '{s+=$1} END {print s}')
export CLAUDE_CONFIG_DIR=$corpus HOME=$bin
"$bin/cc-sessions" >"$bin/sessions.ndjson"

# best NAME CMD...: runs CMD once, adds its time and RSS to NAME's samples.
declare -A best_t best_m
run() {
	local name=$1
	shift
	/usr/bin/time -o "$bin/time" -f '%e %M' "$@" >/dev/null 2>&1 || true
	local out t m
	out=$(tail -1 "$bin/time")
	t=${out% *} m=${out#* }
	if [ -z "${best_t[$name]:-}" ] || awk "BEGIN{exit !($t < ${best_t[$name]})}"; then best_t[$name]=$t; fi
	if [ -z "${best_m[$name]:-}" ] || [ "$m" -gt "${best_m[$name]}" ]; then best_m[$name]=$m; fi
	return 0
}

names=(rg-one cc-one cc-and cc-and-stdin rg-nonascii cc-nonascii cc-greek rg-greek)
for _ in $(seq "$rounds"); do
	run rg-one rg -l -i -F qzvandalpha "$corpus/projects"
	run cc-one "$bin/cc-grep" qzvandalpha
	run cc-and "$bin/cc-grep" qzvandalpha qzvandbravo
	run cc-and-stdin bash -c 'exec "$0" qzvandalpha qzvandbravo <"$1"' "$bin/cc-grep" "$bin/sessions.ndjson"
	run rg-nonascii rg -l -i -F straße "$corpus/projects"
	run cc-nonascii "$bin/cc-grep" straße
	run rg-greek rg -l -i -F σίσυφος "$corpus/projects"
	run cc-greek "$bin/cc-grep" σίσυφος
done

printf 'corpus %s: %.1f MB under projects/, %d rounds, best wall time\n' "$corpus" "$(echo "$bytes/1048576" | bc -l)" "$rounds"
printf '%-14s %8s %8s %10s\n' name seconds GB/s peak_KB
for n in "${names[@]}"; do
	printf '%-14s %8.3f %8.2f %10d\n' "$n" "${best_t[$n]}" "$(echo "$bytes/1000000000/(${best_t[$n]}+0.0005)" | bc -l)" "${best_m[$n]}"
done
ratio() { echo "scale=2; ${best_t[$1]}/${best_t[$2]}" | bc -l; }
echo "cc-grep AND (two terms) / rg one term: $(ratio cc-and rg-one)x (target <= 1.0)"
echo "cc-grep AND from stdin  / rg one term: $(ratio cc-and-stdin rg-one)x"
echo "cc-grep straße / rg one term: $(ratio cc-nonascii rg-one)x (target <= 2.0); / rg straße: $(ratio cc-nonascii rg-nonascii)x"
echo "cc-grep σίσυφος / rg one term: $(ratio cc-greek rg-one)x; / rg σίσυφος: $(ratio cc-greek rg-greek)x"
