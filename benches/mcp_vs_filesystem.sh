#!/usr/bin/env bash
# One MCP edit, git-clada against the reference: `git clada mcp`'s `edit` (the edit, its AI
# commit and record) against `@modelcontextprotocol/server-filesystem`'s `edit_file` (the edit
# alone), both servers running, the same one-line edit of the same file of a 2,001-file
# repository, interleaved (lib/mcp_compare.py: one JSON-RPC client for both, alternating
# order). Each server works in its own identical copy of the repository, so neither sees the
# other's edits as uncommitted work. Then a shorter traced run prints git-clada's phases.
#
#   benches/mcp_vs_filesystem.sh     (ROUNDS=200, FILES=2001; see benches/lib/common.sh)
#
# The reference server comes from npm (pinned), installed once into target/ci-tools like the
# other tools scripts/test installs; needs node and npm.
source "$(dirname "$0")/lib/common.sh"
need node npm
FS_VERSION=2026.8.31
fs_dir="$ROOT/target/ci-tools/mcp-filesystem"
fs_main="$fs_dir/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"
if [ ! -f "$fs_main" ] || ! grep -q "\"version\": \"$FS_VERSION\"" \
    "$fs_dir/node_modules/@modelcontextprotocol/server-filesystem/package.json"; then
    echo "== installing @modelcontextprotocol/server-filesystem@$FS_VERSION (npm)" >&2
    npm install --silent --no-audit --no-fund --prefix "$fs_dir" \
        "@modelcontextprotocol/server-filesystem@$FS_VERSION" >&2
fi
files=${FILES:-2001}
base="$BENCH_DIR/tree-$files-packed"
make_tree "$files" "$base" packed
# The two copies (one pair per FILES) are kept between runs and put back to the base commit in place (the branch
# reset, git-clada's refs and notes deleted), not removed and copied again: on an ext4 without
# a journal (this project's VM) the kernel skips every inode freed in the last minutes when it
# allocates one in the same block group, so after an `rm -rf` of a 2,001-file copy each file
# a server creates costs a scan of thousands of inodes, and git-clada creates about 20 per
# call (loose objects, lock files, the journal) where the reference creates one: measured
# that way the ratio was the benchmark's own `rm -rf` (8-11x), not the servers (3-4x).
fresh() { # DIR — the base repository at its first commit, reusing DIR when it exists
    [ -d "$1/.git" ] || cp -a "$base" "$1"
    git -C "$1" for-each-ref --format='%(refname)' refs/notes refs/clada |
        while read -r ref; do git -C "$1" update-ref -d "$ref"; done
    rm -rf "$1/.git/clada"
    git -C "$1" reset -q --hard refs/bench/base
}
run() { # ROUNDS [--trace]
    fresh "$BENCH_DIR/mcp-clada-$files" && fresh "$BENCH_DIR/mcp-fs-$files"
    python3 "$LIB/mcp_compare.py" --clada "$BIN" --clada-repo "$BENCH_DIR/mcp-clada-$files" \
        --fs-cmd "node $fs_main" --fs-repo "$BENCH_DIR/mcp-fs-$files" --rounds "$@"
}
run "${ROUNDS:-200}"
if [ "${TRACE:-1}" != 0 ]; then
    run 40 --trace | sed -n '/phases/,$p'
fi
