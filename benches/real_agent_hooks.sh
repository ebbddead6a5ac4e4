#!/usr/bin/env bash
# Hook latency under the real Claude Code (issue 50, "Speed": p95 <= 100 ms at 10,000 files):
# headless Claude Code 2.1.332 turns against the tests' scripted model server, with the hooks
# `git clada agent-hook install claude-code` writes, on a make_tree repository of N files.
# Each turn: Read, Grep, Glob, Edit, Write, a Bash `sed -i`, Read, Grep, Glob, then the
# answer, whose Stop commits. Claude Code's debug log gives each hook's duration as the agent
# waits for it (`sh -c`, `git clada`, git-clada); the driver (benches/lib/real_agent_hooks.rs)
# prints p50/p95/max per event and tool. Nothing is asserted.
#
#   benches/real_agent_hooks.sh [FILES]   (default 10000; RUNS=10 turns; CLADA_BIN=… to skip
#                                          the release build; FLOOR=1: the hooks run
#                                          `git clada --version` instead, the cost of starting
#                                          a hook under Claude Code, for comparison)
#
# Needs Claude Code in the tools cache (scripts/test --install-only puts it there).
user_home=$HOME # common.sh gives the benchmark a HOME of its own
source "$(dirname "$0")/lib/common.sh"
n=${1:-10000}
claude="${XDG_CACHE_HOME:-$user_home/.cache}/git-clada-ci/claude-code-2.1.332/node_modules/.bin/claude"
[ -x "$claude" ] || { echo "no Claude Code at $claude: run scripts/test --install-only" >&2; exit 1; }
dir="$BENCH_DIR/tree-$n-packed"
make_tree "$n" "$dir" packed
git -C "$dir" reset -q --hard refs/bench/base
git -C "$dir" clean -qfd -e .ready
git -C "$dir" update-ref -d refs/clada/agent/main 2>/dev/null || true

# The hooks run `git clada`: git-clada (the timed copy) first on PATH, under its own name.
bindir="$BENCH_DIR/real-agent-bin"
mkdir -p "$bindir" && ln -sf "$BIN" "$bindir/git-clada"
export PATH="$bindir:$PATH"
agent_home="$BENCH_DIR/real-agent-home"
rm -rf "$agent_home" && mkdir -p "$agent_home"
HOME="$agent_home" git-clada agent-hook install claude-code >&2
mode=turn
if [ "${FLOOR:-0}" = 1 ]; then
    sed -i 's/git clada agent-hook claude-code/git clada --version >\/dev\/null/' "$agent_home/.claude/settings.json"
    mode=floor
fi

echo "== building the driver (dev profile)" >&2
(cd "$ROOT" && HOME="$user_home" cargo build --quiet --example real_agent_hooks)
"${CARGO_TARGET_DIR:-$ROOT/target}/debug/examples/real_agent_hooks" "$dir" "$claude" "$agent_home" "${RUNS:-10}" "$mode"
git -C "$dir" reset -q --hard refs/bench/base
git -C "$dir" update-ref -d refs/clada/agent/main 2>/dev/null || true
