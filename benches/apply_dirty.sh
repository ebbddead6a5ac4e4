#!/usr/bin/env bash
# Row "apply with 10 dirty user files": `git clada apply` of a 10-block reply while the user has
# uncommitted changes in 10 other files (they stay uncommitted) against plain git's way of
# committing around them: `git stash` + `git apply --index` + `git commit` + `git stash pop`.
# One interleaved run per size; the commit's tree, the status and the user's diff are checked
# equal on both sides.
#
#   benches/apply_dirty.sh [FILES…]        (default: 1000 10000 100000; RUNS=15)
source "$(dirname "$0")/lib/common.sh"
SIZES=("${@:-1000 10000 100000}")
# shellcheck disable=SC2206
SIZES=(${SIZES[*]})
for n in "${SIZES[@]}"; do
    setup_row "$n"
    # 10 user edits in files the reply does not touch.
    dirty=""
    for k in 0 1 2 3 4 5 6 7 8 9; do
        i=$(((k * n) / 10 + 3))
        dirty+="printf 'user edit\\n' >>src/m$(printf %04d $((i / 100)))/f$(printf %06d $i).rs; "
    done
    prep="git reset -q --hard refs/bench/base && $dirty"
    interleave "apply with 10 dirty user files, $n files" "$dir" \
        "$BIN --format json apply --no-verify $reply" "$prep" \
        "git stash -q && git apply --index $patch && git commit -q --no-verify -m ai && git stash pop -q" "$prep" \
        "git rev-parse HEAD^{tree} && git status --porcelain && git diff | git hash-object --stdin" \
        "$BENCH_DIR/dirty-$n.json"
    (cd "$dir" && bash -c "$prep")
    trace "apply with dirty files ($n files)" "$dir" "$BIN" --format json apply --no-verify "$reply"
    git -C "$dir" reset -q --hard refs/bench/base
done
