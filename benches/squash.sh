#!/usr/bin/env bash
# Row "squash": `git clada squash --mode auto_ai` of runs of 50, 500 and 1,000 AI commits (made
# by real `git clada apply` runs, loose objects as a series of applies leaves them) against the
# plain-git way, `git reset --soft <base>` + `git commit`; one interleaved run per count. The
# squashed commit's tree and parent, the commit count and the status are checked equal.
#
#   benches/squash.sh [COUNTS…]        (default: 50 500 1000; RUNS=15)
source "$(dirname "$0")/lib/common.sh"
COUNTS=("${@:-50 500 1000}")
# shellcheck disable=SC2206
COUNTS=(${COUNTS[*]})
max=0
for c in "${COUNTS[@]}"; do [ "$c" -gt "$max" ] && max=$c; done
# Made by this binary (what an apply leaves behind differs between versions).
dir="$BENCH_DIR/squash-$max-$(md5sum "$BIN" | cut -c1-8)"
if [ ! -f "$dir/.ready" ]; then
    echo "== making $max AI commits" >&2
    rm -rf "$dir" && mkdir -p "$dir"
    (
        cd "$dir"
        git init -q -b main
        for i in $(seq 0 99); do printf 'file %d\n' "$i" >"f$i.txt"; done
        git add -A && git commit -q -m initial && git update-ref refs/bench/base HEAD
        for i in $(seq 1 "$max"); do
            printf '#!nesl [@three-char-SHA-256: s%d]\naction = "file_write"\npath = "f%d.txt"\ncontent = "edit number %d"\n#!end_s%d\n' \
                "$i" $((i % 100)) "$i" "$i" | "$BIN" --format json apply - >/dev/null
            case " ${COUNTS[*]} " in *" $i "*) git update-ref "refs/bench/tip-$i" HEAD ;; esac
        done
        echo ".ready" >.git/info/exclude
        touch .ready
    )
fi
for c in "${COUNTS[@]}"; do
    prep="git update-ref refs/heads/main refs/bench/tip-$c && git reset -q --hard"
    interleave "squash of $c AI commits" "$dir" \
        "$BIN squash --mode auto_ai" "$prep" \
        "git reset -q --soft refs/bench/base && git commit -q --no-verify -m squashed" "$prep" \
        "git rev-parse HEAD^{tree} HEAD~1 && git rev-list --count HEAD && git status --porcelain" \
        "$BENCH_DIR/squash-$c.json"
done
# The floor: a squash carries each line's origin through every member's change, so it reads
# every member's commit, root tree, changed blobs and authorship log once. git reading those
# same objects (`git cat-file --batch`, one process, through `sh -c` for its standard input):
# what no squash that keeps attribution can go under with loose objects.
for c in "${COUNTS[@]}"; do
    list="$BENCH_DIR/squash-$c.objects"
    (
        cd "$dir"
        git rev-list --objects "refs/bench/base..refs/bench/tip-$c" | cut -d' ' -f1
        git rev-list "refs/bench/base..refs/bench/tip-$c" >"$list.commits"
        git notes --ref=ai list | grep -F -f "$list.commits" | cut -d' ' -f1
    ) >"$list"
    prep="git update-ref refs/heads/main refs/bench/tip-$c && git reset -q --hard"
    python3 "$LIB/interleave.py" --title "squash of $c AI commits against git reading its objects" \
        --cwd "$dir" --side git-clada "$BIN squash --mode auto_ai" "$prep" \
        --side "git cat-file" "sh -c 'git cat-file --batch <$list >/dev/null'" "$prep"
done
(cd "$dir" && git update-ref refs/heads/main "refs/bench/tip-$max" && git reset -q --hard)
trace "squash of $max commits" "$dir" "$BIN" squash --mode auto_ai
