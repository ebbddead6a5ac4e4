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
source "$(dirname "$0")/lib/common.sh"
need strace cc
work="$BENCH_DIR/floor"
mkdir -p "$work"
for n in ${SIZES:-1000 10000}; do
    setup_row "$n" packed
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
            cc -O2 -w -o "$work/$side-$n-$mode" "$work/$side-$n-$mode.c"
        done
    done
    # The prep deletes the objects the recording created, so the replay creates them again.
    prep() { echo "$reset && xargs -r rm -f <$work/$1-$n.objects"; }
    for mode in all essential; do
        interleave "file system calls alone ($mode), apply at $n files" "$dir" \
            "$work/clada-$n-$mode" "$(prep clada)" "$work/git-$n-$mode" "$(prep git)" \
            "git rev-parse HEAD^{tree}"
    done
    interleave "the commands themselves, apply at $n files" "$dir" \
        "$BIN --format json apply --no-verify $reply" "$reset" \
        "git apply --index $patch && git commit -q --no-verify -m ai" "$reset" \
        "git rev-parse HEAD^{tree} && git status --porcelain"
    git -C "$dir" reset -q --hard refs/bench/base
done
