#!/usr/bin/env bash
# Speed of git-clada's history commands against plain git doing the same job, in one run
# (ratios, not absolute times; DESIGN §11).
#
#   1. undo of an AI commit (10 files changed) in a repository of N_FILES files (default
#      100,000), against `git reset --hard HEAD~1` from the same commit;
#   2. squash of a run of AI commits (250, 500 and N_COMMITS, default 1,000, made by real
#      `git clada apply` runs), against the plain-git way (`git reset --soft <base>` +
#      `git commit`), to show what squash's time grows with.
#
# Needs: cargo, git, hyperfine, jq. Usage: benches/history_speed.sh
# Environment: N_FILES, N_COMMITS, RUNS (hyperfine runs per command, default 10),
# GIT_CLADA_TRACE=1 to print git-clada's phase times of one extra run of each command.
set -euo pipefail
cd "$(dirname "$0")/.."

N_FILES=${N_FILES:-100000}
N_COMMITS=${N_COMMITS:-1000}
RUNS=${RUNS:-10}
for tool in git hyperfine jq; do
    command -v "$tool" >/dev/null || { echo "$tool is required" >&2; exit 1; }
done

echo "== building the release binary"
cargo build --release --quiet
BIN="$PWD/target/release/git-clada"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# A fixed, clean environment: no user or system config, fixed identity.
export HOME="$WORK/home" GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL="$WORK/home/.gitconfig"
export GIT_AUTHOR_NAME=Bench GIT_AUTHOR_EMAIL=bench@example.com
export GIT_COMMITTER_NAME=Bench GIT_COMMITTER_EMAIL=bench@example.com
export TZ=UTC LC_ALL=C
unset GIT_CLADA_TRACE_ONCE
TRACE=${GIT_CLADA_TRACE:-}
unset GIT_CLADA_TRACE
mkdir -p "$HOME"

# mean seconds of command number $2 in hyperfine's JSON export $1
mean() { jq -r ".results[$2].mean" "$1"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
ms() { awk -v a="$1" 'BEGIN { printf "%.1f ms", a * 1000 }'; }

block() { # id path content
    printf '#!nesl [@three-char-SHA-256: %s]\naction = "file_write"\npath = "%s"\ncontent = "%s"\n#!end_%s\n' "$1" "$2" "$3" "$1"
}

echo "== undo: repository of $N_FILES files"
UNDO="$WORK/undo"
git init -q -b main "$UNDO"
cd "$UNDO"
git config gc.auto 0
awk -v n="$N_FILES" 'BEGIN {
    for (i = 0; i < n; i++) {
        c = sprintf("file %d\nsecond line of file %d\n", i, i)
        printf "blob\nmark :%d\ndata %d\n%s\n", i + 1, length(c), c
    }
    printf "commit refs/heads/main\ncommitter Bench <bench@example.com> 1700000000 +0000\ndata 8\ninitial\n"
    for (i = 0; i < n; i++) printf "M 100644 :%d d%03d/f%06d.txt\n", i + 1, int(i / 1000), i
    printf "\n"
}' | git fast-import --quiet
git reset -q --hard main
git status --porcelain >/dev/null # a fresh index, as in a repository in use
REPLY="$WORK/reply.md"
: >"$REPLY"
for i in 0 1 2 3 4 5 6 7 8; do
    block "u0$i" "d00$i/f00000$i.txt" "changed by the AI $i" >>"$REPLY"
done
block u09 "d000/new-file.txt" "created by the AI" >>"$REPLY"
"$BIN" --format json apply "$REPLY" >/dev/null
AI=$(git rev-parse HEAD)
echo "AI commit $(git rev-parse --short HEAD): $(git log -1 --format=%s)"

hyperfine --warmup 2 --runs "$RUNS" --export-json "$WORK/undo.json" \
    --prepare "$BIN redo >/dev/null 2>&1 || true" -n "git clada undo" "$BIN undo" \
    --prepare "git reset -q --hard $AI" -n "git reset --hard HEAD~1" "git reset -q --hard HEAD~1"
UNDO_CLADA=$(mean "$WORK/undo.json" 0)
UNDO_GIT=$(mean "$WORK/undo.json" 1)
if [ -n "$TRACE" ]; then
    git reset -q --hard "$AI" && "$BIN" redo >/dev/null 2>&1 || true
    git reset -q --hard "$AI"
    echo "-- phases of one undo (GIT_CLADA_TRACE=1):"
    GIT_CLADA_TRACE=1 "$BIN" undo >/dev/null
fi

echo "== squash: runs of AI commits made by real applies"
SQ="$WORK/squash"
git init -q -b main "$SQ"
cd "$SQ"
# No automatic packing halfway through (git commit would trigger it): every command sees
# the same object store, loose objects as a series of applies leaves them.
git config gc.auto 0
for i in $(seq 0 99); do printf 'file %d\n' "$i" >"f$i.txt"; done
git add -A && git commit -q -m initial
BASE=$(git rev-parse HEAD)
declare -A TIP
for i in $(seq 1 "$N_COMMITS"); do
    block "s$i" "f$((i % 100)).txt" "edit number $i" | "$BIN" --format json apply - >/dev/null
    case $i in 250 | 500 | "$N_COMMITS") TIP[$i]=$(git rev-parse HEAD) ;; esac
done
echo "$N_COMMITS AI commits made"

SIZES=$(printf '%s\n' "${!TIP[@]}" | sort -n | uniq)
for n in $SIZES; do
    tip=${TIP[$n]}
    hyperfine --warmup 1 --runs "$RUNS" --export-json "$WORK/squash-$n.json" \
        --prepare "git update-ref refs/heads/main $tip" -n "git clada squash ($n commits)" \
        "$BIN squash --mode auto_ai" \
        --prepare "git update-ref refs/heads/main $tip" -n "git reset --soft + commit ($n commits)" \
        "git reset -q --soft $BASE && git commit -q -m squashed"
done
if [ -n "$TRACE" ]; then
    git update-ref refs/heads/main "${TIP[$N_COMMITS]}"
    echo "-- phases of one squash of $N_COMMITS commits (GIT_CLADA_TRACE=1):"
    GIT_CLADA_TRACE=1 "$BIN" squash --mode auto_ai >/dev/null
fi

echo
echo "== results (mean of $RUNS runs, warm cache)"
printf '%-46s %12s %12s %8s\n' "job" "git-clada" "plain git" "ratio"
printf '%-46s %12s %12s %8s\n' "undo, $N_FILES files, 10 paths changed" \
    "$(ms "$UNDO_CLADA")" "$(ms "$UNDO_GIT")" "$(ratio "$UNDO_CLADA" "$UNDO_GIT")x"
for n in $SIZES; do
    c=$(mean "$WORK/squash-$n.json" 0)
    g=$(mean "$WORK/squash-$n.json" 1)
    printf '%-46s %12s %12s %8s\n' "squash of $n AI commits" "$(ms "$c")" "$(ms "$g")" "$(ratio "$c" "$g")x"
done
echo "(ratio = git-clada / plain git; below 1.0 is faster than git)"
