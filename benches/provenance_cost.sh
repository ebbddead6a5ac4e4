#!/usr/bin/env bash
# What the authorship log costs an apply (issue 42 §1: under 5% at 1k files): `git clada
# apply` of the 10-block reply of apply_1k.sh with the log (the default) against the same
# apply with `provenance: off`, interleaved, on the 1k-file repository (packed). Both sides
# run through `env` with their own configuration folder, so both pay the same extra exec.
# Before each run the branch goes back to the base and refs/notes/ai is deleted, so every
# log is the first in its notes tree.
#
#   benches/provenance_cost.sh     (RUNS=15; N=1000; see benches/lib/common.sh)
source "$(dirname "$0")/lib/common.sh"
n=${N:-1000}
setup_row "$n" packed
on="$BENCH_DIR/xdg-provenance-on" off="$BENCH_DIR/xdg-provenance-off"
mkdir -p "$on/clada" "$off/clada"
: >"$on/clada/config.yml"
echo "provenance: off" >"$off/clada/config.yml"
prep="git reset -q --hard refs/bench/base && (git update-ref -d refs/notes/ai || true)"
interleave "apply + commit, $n files: with the authorship log vs provenance: off" "$dir" \
    "env XDG_CONFIG_HOME=$on $BIN --format json apply --no-verify $reply" "$prep" \
    "env XDG_CONFIG_HOME=$off $BIN --format json apply --no-verify $reply" "$prep" \
    "git rev-parse HEAD^{tree} && git status --porcelain" "$BENCH_DIR/provenance-$n.json"
git -C "$dir" reset -q --hard refs/bench/base
git -C "$dir" update-ref -d refs/notes/ai 2>/dev/null || true
