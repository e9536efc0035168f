#!/usr/bin/env bash
# The test command of the README: every unit, in-process and txtar test
# under the race detector, then the contract suite against the real
# Claude Code 2.1.328 (installed from npm into ~/.cache/ccpipe on first use;
# interactive cases need tmux).
set -euo pipefail
cd "$(dirname "$0")"
go test -race -count=1 ./...
CCPIPE_CONTRACT=1 go test -count=1 -timeout 15m ./lib/internal/contract/
