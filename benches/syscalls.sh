#!/usr/bin/env bash
# System calls of one apply at 1,000 files and one undo at 100,000 files, beside plain git's
# for the same job (`strace -c -f`, children included): counts do not depend on how busy the
# machine is, so they show fixed costs that timings on a shared machine blur.
#
#   benches/syscalls.sh        (needs strace; see benches/lib/common.sh)
source "$(dirname "$0")/lib/common.sh"
need strace
count() { # label command... — total calls, and the five most frequent
    local out
    out=$(mktemp)
    strace -c -f -o "$out" "${@:2}" >/dev/null 2>&1
    awk '/total/ {print $4}' "$out" >>"$TOTALS"
    printf '  %-34s %6s calls  (%s)\n' "$1" "$(awk '/total/ {print $4}' "$out")" \
        "$(awk 'NR>2 && !/total|----/ {print $4, $NF}' "$out" | sort -rn | head -5 | awk '{printf "%s %s, ", $2, $1}' | sed 's/, $//')"
    rm -f "$out"
}
run_in() { (cd "$1" && shift && count "$@"); }
TOTALS=$(mktemp)
sum() { # label — the sum of the totals counted since the last sum
    printf '  %-34s %6s calls\n' "$1" "$(awk '{s += $1} END {print s}' "$TOTALS")"
    : >"$TOTALS"
}

n=1000
setup_row $n
echo "apply + commit, $n files:"
git -C "$dir" reset -q --hard refs/bench/base
: >"$TOTALS"
run_in "$dir" "git-clada apply" "$BIN" --format json apply --no-verify "$reply"
: >"$TOTALS"
git -C "$dir" reset -q --hard refs/bench/base
run_in "$dir" "git apply --index" git apply --index "$patch"
run_in "$dir" "git commit" git commit -q --no-verify -m ai
sum "git, both"
git -C "$dir" reset -q --hard refs/bench/base

n=100000
setup_row $n
echo "undo, $n files:"
git -C "$dir" reset -q --hard refs/bench/base
(cd "$dir" && "$BIN" --format json apply --no-verify "$reply" >/dev/null)
run_in "$dir" "git-clada undo" "$BIN" undo
git -C "$dir" reset -q --hard refs/bench/base
(cd "$dir" && git apply --index "$patch" && git commit -q --no-verify -m ai)
run_in "$dir" "git reset --keep HEAD~1" git reset -q --keep HEAD~1
git -C "$dir" reset -q --hard refs/bench/base
rm -f "$TOTALS"
