#!/usr/bin/env bash
# Row "undo": `git clada undo` of an AI commit (9 files edited, 1 created) against
# `git reset --keep HEAD~1` from the same commit, in repositories of 10,000 and 100,000 files,
# one interleaved run per size; HEAD, the status and the untracked files are checked equal.
#
#   benches/undo.sh [FILES…]        (default: 10000 100000; RUNS=15)
source "$(dirname "$0")/lib/common.sh"
SIZES=("${@:-10000 100000}")
# shellcheck disable=SC2206
SIZES=(${SIZES[*]})
for n in "${SIZES[@]}"; do
    setup_row "$n"
    git -C "$dir" reset -q --hard refs/bench/base
    (cd "$dir" && git apply --index "$patch" && git commit -q --no-verify -m ai && git update-ref refs/bench/ai HEAD)
    interleave "undo, $n files" "$dir" \
        "$BIN undo" "git reset -q --hard refs/bench/base && $BIN --format json apply --no-verify $reply >/dev/null" \
        "git reset -q --keep HEAD~1" "git reset -q --hard refs/bench/ai" \
        "git rev-parse HEAD && git status --porcelain --untracked-files=all" \
        "$BENCH_DIR/undo-$n.json"
    git -C "$dir" reset -q --hard refs/bench/base
    (cd "$dir" && "$BIN" --format json apply --no-verify "$reply" >/dev/null)
    trace "undo ($n files)" "$dir" "$BIN" undo
    git -C "$dir" reset -q --hard refs/bench/base
done
