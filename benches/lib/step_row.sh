#!/usr/bin/env bash
# Rows "step-back / step-forward": `git clada step-back` from an AI commit (10 files changed)
# against `git checkout HEAD~1`, and `git clada step-forward` back to the tip against
# `git checkout -`, in repositories of 10,000 and 100,000 files; one interleaved run per
# command and size. HEAD (and the branch it is on), the status and the untracked files are
# checked equal on both sides.
#
#   benches/lib/step_row.sh FILES…   (benches/step_10k.sh, benches/step_100k.sh)
source "$(dirname "$0")/common.sh"
SIZES=("${@:-10000 100000}")
# shellcheck disable=SC2206
SIZES=(${SIZES[*]})
for n in "${SIZES[@]}"; do
    dir="$BENCH_DIR/step-$n" reply="$BENCH_DIR/reply-$n.md"
    make_tree "$n" "$dir" packed
    reply_for "$n" "$reply"
    if ! git -C "$dir" rev-parse -q --verify refs/bench/tip >/dev/null; then
        (cd "$dir" && "$BIN" --format json apply --no-verify "$reply" >/dev/null && git update-ref refs/bench/tip HEAD)
    fi
    at_tip="$BIN step-forward --all >/dev/null 2>&1; git checkout -q main"
    check="git rev-parse --symbolic-full-name HEAD && git rev-parse HEAD && git status --porcelain --untracked-files=all"
    interleave "step-back, $n files" "$dir" \
        "$BIN step-back" "$at_tip" \
        "git checkout -q HEAD~1" "$at_tip" \
        "$check" "$BENCH_DIR/step-back-$n.json"
    interleave "step-forward, $n files" "$dir" \
        "$BIN step-forward" "$at_tip; $BIN step-back >/dev/null" \
        "git checkout -q -" "$at_tip; git checkout -q HEAD~1" \
        "$check" "$BENCH_DIR/step-forward-$n.json"
    (cd "$dir" && bash -c "$at_tip")
    trace "step-back ($n files)" "$dir" "$BIN" step-back
    trace "step-forward ($n files)" "$dir" "$BIN" step-forward
    (cd "$dir" && bash -c "$at_tip")
done
