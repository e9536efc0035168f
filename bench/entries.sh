#!/usr/bin/env bash
# bench/entries.sh: cc-entries against jq on one generated transcript, in one run.
#
#   bench/entries.sh [CORPUS_DIR] [SIZE]      (defaults /tmp/ccpipe-entries-corpus 512MB)
#
# Generates the corpus with bench/gen when missing (no huge line, no zstd),
# joins its main transcripts into one file (so both tools read the same
# bytes in one process), reads it once into the page cache, then runs each
# command ROUNDS times (default 3), interleaved, and reports the fastest
# wall time, the throughput and the peak RSS of each:
#   jq       jq -c 'select(.type=="assistant")'
#   types    cc-entries --types assistant          (byte check + scan, passthrough)
#   all      cc-entries                            (every line scanned, passthrough)
#   decode   cc-entries --diagnostics              (every line decoded into typed records)
# The target for "types" is at most 0.1x jq's time and at least 1 GB/s.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=${1:-/tmp/ccpipe-entries-corpus}
size=${2:-512MB}
rounds=${ROUNDS:-3}
command -v jq >/dev/null || { echo "entries.sh: jq not installed" >&2; exit 1; }

if [ ! -d "$corpus/projects" ]; then
	go run ./bench/gen -out "$corpus" -size "$size" -huge-line 0 -zst 0 -seed 7 >&2
fi
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/cc-entries" ./cmd/cc-entries
all=$corpus/all-main.jsonl
if [ ! -f "$all" ]; then
	find "$corpus/projects" -maxdepth 2 -name '*.jsonl' -type f -print0 | sort -z | xargs -0 cat >"$all"
fi
cat "$all" >/dev/null
bytes=$(stat -c %s "$all")
lines=$(wc -l <"$all")

declare -A best_t best_m
run() {
	local name=$1
	shift
	/usr/bin/time -o "$bin/time" -f '%e %M' "$@" >/dev/null 2>"$bin/err" || true
	local out t m
	out=$(tail -1 "$bin/time")
	t=${out% *} m=${out#* }
	if [ -z "${best_t[$name]:-}" ] || awk "BEGIN{exit !($t < ${best_t[$name]})}"; then best_t[$name]=$t; fi
	if [ -z "${best_m[$name]:-}" ] || [ "$m" -gt "${best_m[$name]}" ]; then best_m[$name]=$m; fi
}
# The same records must come out of both.
a=$(jq -c 'select(.type=="assistant")' "$all" | wc -l)
b=$("$bin/cc-entries" --types assistant "$all" | wc -l)
[ "$a" = "$b" ] || { echo "entries.sh: jq found $a assistant records, cc-entries $b" >&2; exit 1; }
for _ in $(seq "$rounds"); do
	run jq jq -c 'select(.type=="assistant")' "$all"
	run types "$bin/cc-entries" --types assistant "$all"
	run all "$bin/cc-entries" "$all"
	run decode "$bin/cc-entries" --diagnostics "$all"
done
longest=$(awk '{ if (length($0) > m) m = length($0) } END { print m }' "$all")
printf 'corpus: %s, %d bytes, %d lines, longest line %d bytes, %d assistant records\n' "$all" "$bytes" "$lines" "$longest" "$a"
printf '%-8s %9s %10s %12s %9s\n' tool seconds MB/s peak_rss_MB vs_jq
for name in jq types all decode; do
	t=${best_t[$name]} m=${best_m[$name]}
	awk -v n="$name" -v t="$t" -v m="$m" -v b="$bytes" -v j="${best_t[jq]}" \
		'BEGIN { printf "%-8s %9.2f %10.0f %12.1f %8.3fx\n", n, t, (t > 0 ? b / t / 1e6 : 0), m / 1024, (j > 0 ? t / j : 0) }'
done
