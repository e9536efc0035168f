#!/usr/bin/env bash
# The test command of the README: every unit, in-process and txtar test
# under the race detector, then the contract suite against the real
# Claude Code 2.1.328 (installed from npm into ~/.cache/ccpipe on first use;
# interactive cases need tmux), then lib/internal/collectortest, a module of
# its own (the OpenTelemetry Collector's dependency tree stays out of
# ccpipe's go.mod): a real collector takes cc-otel's export, and DuckDB
# (from npm, into ~/.cache/ccpipe/duckdb) runs docs/cc-otel.md's team query.
set -euo pipefail
cd "$(dirname "$0")"
go test -race -count=1 ./...
(cd lib/internal/collectortest && go test -count=1 -timeout 10m ./...)
CCPIPE_CONTRACT=1 go test -count=1 -timeout 15m ./lib/internal/contract/
