#!/usr/bin/env bash
# Row "stats, 1,000 files" (issue 52 item 4: at most 1.2x git blame of the files it reads):
# `git clada stats --format json` of a 1,000-file tree (one commit, benches/lib's make_tree)
# with 3 AI commits (9 files each, authorship logs in refs/notes/ai) and 3 human commits on
# top, against `git blame --line-porcelain` of the files those logs name (what stats blames;
# the other 991 files' lines are counted unknown without a blame), interleaved. Before this,
# stats ran one `git blame` per file of the tree: set BEFORE=<an older git-clada> to time it
# too.
#
#   benches/stats_vs_blame.sh     (RUNS=15; see benches/lib/common.sh)
source "$(dirname "$0")/lib/common.sh"
dir="$BENCH_DIR/stats-1k"
if [ ! -f "$dir/.ready-stats" ]; then
    rm -rf "$dir"
    make_tree 1000 "$dir"
    for round in 1 2 3; do
        python3 - "$round" >"$BENCH_DIR/stats-reply.md" <<'PY'
import sys
r = int(sys.argv[1])
for k in range(9):
    i = (k * 1000) // 9 + r * 3
    print(f"#!nesl [@three-char-SHA-256: s{k:02d}]")
    print('action = "file_replace_text"')
    print(f'path = "src/m{i // 100:04d}/f{i:06d}.rs"')
    print(f'old_text = "fn f{i}_{r}() -> u32 {{ {r} }}\\n"')
    print(f'new_text = "fn f{i}_{r}() -> u32 {{ {r}0 }}\\nfn g{i}_{r}() {{}}\\n"')
    print(f"#!end_s{k:02d}\n")
PY
        (cd "$dir" && "$BIN" apply --agent claude --model opus "$BENCH_DIR/stats-reply.md" >/dev/null)
        (cd "$dir" && sed -i "s/ 1[0-9] }/ 99 }/" "src/m000$round/f000${round}01.rs" &&
            git commit -qam "human change $round")
    done
    touch "$dir/.ready-stats"
fi
files=$(cd "$dir" && for c in $(git notes --ref=ai list | cut -d' ' -f2); do
    git show --format= --name-only "$c"; done | sort -u)
echo "stats blames $(echo "$files" | wc -l) files; git blames the same"
printf '%s\n' $files >"$BENCH_DIR/stats-files"
(cd "$dir" && "$BIN" --format json stats | python3 -c \
    'import json,sys; r=json.load(sys.stdin); print("total", r["total"], "added", r["added"])')
interleave "stats, 1,000 files, 3 AI commits" "$dir" \
    "$BIN --format json stats" "true" \
    "xargs -a $BENCH_DIR/stats-files -n1 git blame --line-porcelain --" "true" \
    "git rev-parse HEAD" "$BENCH_DIR/stats-1k.json"
if [ -n "${BEFORE:-}" ]; then
    interleave "stats before (one git blame per file) vs now" "$dir" \
        "$BIN --format json stats" "true" \
        "$BEFORE --format json stats" "true" \
        "git rev-parse HEAD" ""
fi
trace "stats" "$dir" "$BIN" --format json stats
