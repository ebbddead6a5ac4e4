#!/usr/bin/env bash
# Rows "apply, 100-block reply" and "apply, 1,000-block reply" (10k files): `git clada apply` of
# a reply of N file_replace_text blocks, each in a different file, against `git apply --index` of
# the same patch + `git commit`; same tree, status and commit offsets checked on both sides.
# Per-block cost shows here (the 10-block rows are dominated by what every apply does once).
#
#   benches/apply_blocks.sh [N…]        (default: 100 1000; RUNS=15)
source "$(dirname "$0")/lib/common.sh"
COUNTS=("${@:-100 1000}")
# shellcheck disable=SC2206
COUNTS=(${COUNTS[*]})
files=10000
dir="$BENCH_DIR/tree-$files-packed"
make_tree "$files" "$dir" packed
for n in "${COUNTS[@]}"; do
    reply="$BENCH_DIR/reply-$files-b$n.md" patch="$BENCH_DIR/patch-$files-b$n"
    python3 - "$files" "$n" >"$reply" <<'PY'
import sys
files, n = int(sys.argv[1]), int(sys.argv[2])
for k in range(n):
    i = (k * files) // n + 7
    print(f"#!nesl [@three-char-SHA-256: b{k:04d}]")
    print('action = "file_replace_text"')
    print(f'path = "src/m{i // 100:04d}/f{i:06d}.rs"')
    print(f'old_text = "fn f{i}_3() -> u32 {{ 3 }}"')
    print(f'new_text = "fn f{i}_3() -> u32 {{ 33 }}"')
    print(f"#!end_b{k:04d}\n")
PY
    if [ ! -s "$patch" ]; then
        (
            cd "$dir"
            "$BIN" apply --no-git "$reply" >/dev/null
            git diff >"$patch"
            git reset -q --hard HEAD
        )
    fi
    interleave "apply + commit, $n-block reply, $files files" "$dir" \
        "$BIN --format json apply --no-verify $reply" "git reset -q --hard refs/bench/base" \
        "git apply --index $patch && git commit -q --no-verify -m ai" "git reset -q --hard refs/bench/base" \
        "git rev-parse HEAD^{tree} && git status --porcelain && git log -1 --format='%ad %cd' --date=format:%z" \
        "$BENCH_DIR/apply-$files-b$n.json"
    git -C "$dir" reset -q --hard refs/bench/base
    trace "apply of $n blocks ($files files)" "$dir" "$BIN" --format json apply --no-verify "$reply"
    git -C "$dir" reset -q --hard refs/bench/base
done
