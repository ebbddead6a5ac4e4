#!/usr/bin/env bash
# The floor of the apply rows: how long the file system work alone takes, each way. One apply
# (and one `git apply --index` + `git commit` of the same patch) is recorded with strace; each
# recording becomes a C program making the same file system calls with the same bytes and
# nothing else (lib/replay.py); the two programs are timed against each other in one
# interleaved run, and so are the "essential" variants (without the probes another
# implementation of the same design might skip). A replay runs its calls in one sequence:
# the real command may spread some over threads.
#
#   benches/floor.sh           (SIZES="1000 10000" by default; needs strace and cc)
#   BLOCKS="100 1000" SIZES= benches/floor.sh
#                              the same for the replies of `apply_blocks.sh` (N blocks, each in
#                              its own file of a 10k-file repository; run apply_blocks.sh first)
source "$(dirname "$0")/lib/common.sh"
need strace cc
work="$BENCH_DIR/floor"
mkdir -p "$work"
rows=()
for n in ${SIZES-1000 10000}; do rows+=("$n"); done
for b in ${BLOCKS:-}; do rows+=("b$b"); done
for n in "${rows[@]}"; do
    if [ "${n#b}" != "$n" ]; then
        dir="$BENCH_DIR/tree-10000-packed" reply="$BENCH_DIR/reply-10000-$n.md"
        patch="$BENCH_DIR/patch-10000-$n"
        [ -s "$reply" ] && [ -s "$patch" ] || { echo "run benches/apply_blocks.sh ${n#b} first" >&2; exit 1; }
        label="apply of ${n#b} blocks at 10000 files"
    else
        setup_row "$n" packed
        label="apply at $n files"
    fi
    reset="git reset -q --hard refs/bench/base"
    # Warm: both ways once, so the recordings see what the timed rounds see.
    (cd "$dir" && $reset && "$BIN" --format json apply --no-verify "$reply" >/dev/null &&
        $reset && git apply --index "$patch" && git commit -q --no-verify -m ai && $reset)
    (cd "$dir" && strace -f -s 1000000 -xx -o "$work/clada-$n.log" \
        "$BIN" --format json apply --no-verify "$reply" >/dev/null && $reset)
    (cd "$dir" && strace -f -s 1000000 -xx -o "$work/git-$n.log" \
        bash -c "git apply --index '$patch' && git commit -q --no-verify -m ai" && $reset)
    for side in clada git; do
        for mode in all essential; do
            python3 "$LIB/replay.py" "$work/$side-$n.log" "$mode" "$work/$side-$n.objects" \
                >"$work/$side-$n-$mode.c"
            # A replay is one function of system calls: -O2 gains nothing there, and on the
            # 1,000-block recording (13 MB of C) it ran out of patience (11 min, 6 GB).
            opt=-O2
            [ "$(stat -c %s "$work/$side-$n-$mode.c")" -lt 10000000 ] || opt=-O0
            cc "$opt" -w -o "$work/$side-$n-$mode" "$work/$side-$n-$mode.c"
        done
    done
    # The prep deletes the objects the recording created, so the replay creates them again.
    prep() { echo "$reset && xargs -r rm -f <$work/$1-$n.objects"; }
    for mode in all essential; do
        interleave "file system calls alone ($mode), $label" "$dir" \
            "$work/clada-$n-$mode" "$(prep clada)" "$work/git-$n-$mode" "$(prep git)" \
            "git rev-parse HEAD^{tree}"
    done
    interleave "the commands themselves, $label" "$dir" \
        "$BIN --format json apply --no-verify $reply" "$reset" \
        "git apply --index $patch && git commit -q --no-verify -m ai" "$reset" \
        "git rev-parse HEAD^{tree} && git status --porcelain"
    git -C "$dir" reset -q --hard refs/bench/base
done
