# Shared by the benches/*.sh comparison scripts (sourced, not run). Each script is one row of
# the performance table of docs/performance.md: it builds what it needs, makes its
# repositories (cached under $BENCH_DIR, default /tmp/clada-bench, keyed by their shape),
# times git-clada against plain git doing the same job in one interleaved run
# (lib/interleave.py: alternating order, medians, the result checked equal on both sides),
# and prints one GIT_CLADA_TRACE phase breakdown.
#
# Environment: RUNS (timed rounds, default 15), CLADA_BIN (a git-clada binary to time instead
# of building this checkout's release binary), BENCH_DIR, TRACE=0 (no phase breakdown).
# Nothing here is a test: the numbers depend on the machine, so they are printed, never asserted.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
LIB="$ROOT/benches/lib"
BENCH_DIR="${BENCH_DIR:-${TMPDIR:-/tmp}/clada-bench}"
mkdir -p "$BENCH_DIR"

need() { # tool... — every tool must be installed; says how to get the missing ones
    local missing=()
    for t in "$@"; do command -v "$t" >/dev/null || missing+=("$t"); done
    if [ ${#missing[@]} -gt 0 ]; then
        echo "missing: ${missing[*]} (e.g. apt-get install ${missing[*]})" >&2
        exit 1
    fi
}
need git python3 cargo

# A fixed, clean environment: no user or system config, a fixed identity, no auto gc.
export HOME="$BENCH_DIR/home" GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL="$BENCH_DIR/home/.gitconfig"
export GIT_AUTHOR_NAME=Bench GIT_AUTHOR_EMAIL=bench@example.com
export GIT_COMMITTER_NAME=Bench GIT_COMMITTER_EMAIL=bench@example.com
export TZ=UTC LC_ALL=C
unset GIT_CLADA_TRACE GIT_DIR GIT_WORK_TREE
mkdir -p "$HOME"
[ -f "$GIT_CONFIG_GLOBAL" ] || printf '[gc]\n\tauto = 0\n[maintenance]\n\tauto = false\n' >"$GIT_CONFIG_GLOBAL"

if [ -n "${CLADA_BIN:-}" ]; then
    BIN="$(cd "$(dirname "$CLADA_BIN")" && pwd)/$(basename "$CLADA_BIN")"
else
    echo "== building the release binary" >&2
    (cd "$ROOT" && cargo build --release --quiet)
    BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release/git-clada"
fi
[ -x "$BIN" ] || { echo "no git-clada binary at $BIN" >&2; exit 1; }
# Time a copy, as `cargo install` leaves it: the linker writes its output in small pieces,
# and a program started from a file the page cache holds that way takes more page faults
# than one copied or read from disk (measured: 0.1-0.2 ms more per command, 0.4-0.6 ms more
# per apply at 1k files, on this VM's ext4).
mkdir -p "$BENCH_DIR/bin"
installed="$BENCH_DIR/bin/git-clada-$(md5sum "$BIN" | cut -c1-12)"
[ -x "$installed" ] || { cp "$BIN" "$installed.tmp" && mv "$installed.tmp" "$installed"; }
BIN="$installed"

# interleave TITLE CWD  CLADA_CMD CLADA_PREP  GIT_CMD GIT_PREP  CHECK  [JSON]
interleave() {
    local args=(--title "$1" --cwd "$2"
        --side git-clada "$3" "$4" --side git "$5" "$6" --check "$7")
    [ -n "${8:-}" ] && args+=(--json "$8")
    python3 "$LIB/interleave.py" "${args[@]}"
}

# trace TITLE DIR CMD... — one run of a git-clada command with its phase breakdown
trace() {
    [ "${TRACE:-1}" = 0 ] && return 0
    local title=$1 dir=$2
    shift 2
    echo "  phases of one $title (GIT_CLADA_TRACE=1):"
    (cd "$dir" && GIT_CLADA_TRACE=1 "$@" 2>&1 >/dev/null | grep '^trace' | sed 's/^/    /')
}

# make_tree N DIR [packed|loose] — a repository of N files of 20 lines (src/mNNNN/fNNNNNN.rs,
# 100 per directory), one commit, a settled index (no racily clean entries). Cached.
make_tree() {
    local n=$1 dir=$2 store=${3:-packed}
    if [ -f "$dir/.ready" ]; then return 0; fi
    rm -rf "$dir" && mkdir -p "$dir"
    (
        cd "$dir"
        git init -q -b main
        python3 - "$n" <<'PY'
import os, sys
n = int(sys.argv[1])
for i in range(n):
    d = f"src/m{i // 100:04d}"
    os.makedirs(d, exist_ok=True)
    with open(f"{d}/f{i:06d}.rs", "w") as f:
        f.write("".join(f"fn f{i}_{j}() -> u32 {{ {j} }}\n" for j in range(20)))
PY
        git add -A && git commit -q -m init
        [ "$store" = packed ] && git gc -q
        sleep 1.1 && git status --porcelain >/dev/null # no racily clean entries
        git update-ref refs/bench/base HEAD # a ref, not a tag: tags count as published
        echo ".ready" >.git/info/exclude
        touch .ready
    )
}

# reply_for N FILE — 10 exact-text replacements spread over a make_tree repository of N files
# (one of them creates a new file).
reply_for() {
    python3 - "$1" >"$2" <<'PY'
import sys
n = int(sys.argv[1])
for k in range(9):
    i = (k * n) // 10 + 7
    print(f"#!nesl [@three-char-SHA-256: b{k:02d}]")
    print('action = "file_replace_text"')
    print(f'path = "src/m{i // 100:04d}/f{i:06d}.rs"')
    print(f'old_text = "fn f{i}_3() -> u32 {{ 3 }}"')
    print(f'new_text = "fn f{i}_3() -> u32 {{ 33 }}"')
    print(f"#!end_b{k:02d}\n")
print("#!nesl [@three-char-SHA-256: b09]")
print('action = "file_write"')
print('path = "src/new/created.rs"')
print('content = "fn created() {}\\n"')
print("#!end_b09")
PY
}

# patch_for DIR REPLY PATCH — the same change as a patch for `git apply --index` (made by
# applying the reply once without git and diffing).
patch_for() {
    local dir=$1 reply=$2 patch=$3
    [ -s "$patch" ] && return 0
    (
        cd "$dir"
        "$BIN" apply --no-git "$reply" >/dev/null
        git add -N src/new/created.rs
        git diff >"$patch"
        git reset -q --hard HEAD
        rm -rf src/new
    )
}

# setup_row N [STORE] — sets dir, reply and patch: a make_tree repository of N files (packed
# by default), its 10-block reply and the same change as a patch.
setup_row() {
    local store=${2:-packed}
    dir="$BENCH_DIR/tree-$1-$store" reply="$BENCH_DIR/reply-$1.md" patch="$BENCH_DIR/patch-$1-$store"
    make_tree "$1" "$dir" "$store"
    reply_for "$1" "$reply"
    patch_for "$dir" "$reply" "$patch"
}

# apply_row N STORE — apply + commit of a 10-block reply (reply_for) against `git apply --index`
# of the same patch + `git commit`, in a make_tree repository of N files (packed or loose).
apply_row() {
    local n=$1 store=$2 dir reply patch
    setup_row "$n" "$store"
    # The check compares the commit's author and committer offsets too (as git writes them
    # from TZ, or /etc/localtime when TZ is unset).
    interleave "apply + commit, $n files ($store)${TZ_LABEL:-}" "$dir" \
        "$BIN --format json apply --no-verify $reply" "git reset -q --hard refs/bench/base" \
        "git apply --index $patch && git commit -q --no-verify -m ai" "git reset -q --hard refs/bench/base" \
        "git rev-parse HEAD^{tree} && git status --porcelain && git log -1 --format='%ad %cd' --date=format:%z" \
        "$BENCH_DIR/apply-$n-$store.json"
    git -C "$dir" reset -q --hard refs/bench/base
    trace "apply ($n files, $store)" "$dir" "$BIN" --format json apply --no-verify "$reply"
    git -C "$dir" reset -q --hard refs/bench/base
}
