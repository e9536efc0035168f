#!/usr/bin/env bash
# The test command of the README: every unit, in-process and txtar test
# under the race detector, then the contract suite against the real
# Claude Code 2.1.328 (installed from npm into ~/.cache/ccpipe on first use;
# interactive cases need tmux) and, beside it, lib/internal/collectortest, a
# module of its own (the OpenTelemetry Collector's dependency tree stays out
# of ccpipe's go.mod): a real collector takes cc-otel's export, and DuckDB
# (from npm, into ~/.cache/ccpipe/duckdb) runs docs/cc-otel.md's team query.
# The two run at once: the contract suite mostly waits on the real binary,
# and building the collector is minutes of CPU.
set -euo pipefail
cd "$(dirname "$0")"
go test -race -count=1 -timeout 30m ./...
collector_log=$(mktemp)
trap 'rm -f "$collector_log"' EXIT
(cd lib/internal/collectortest && go vet ./... && go test -count=1 -timeout 10m ./...) >"$collector_log" 2>&1 &
collector=$!
contract=0
CCPIPE_CONTRACT=1 go test -count=1 -timeout 30m ./lib/internal/contract/ || contract=$?
status=0
wait "$collector" || status=$?
cat "$collector_log"
if [ "$contract" -ne 0 ] || [ "$status" -ne 0 ]; then
	echo "test.sh: contract suite exit $contract, collectortest exit $status" >&2
	exit 1
fi
