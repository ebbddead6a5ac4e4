#!/usr/bin/env bash
# Rebuilds real commits from their diffs: for each of the last N non-merge commits of a
# repository's first-parent history, `git diff --binary -M PARENT COMMIT` is applied with
# `git clada apply` in a scratch clone checked out at PARENT, and the AI commit's tree must be
# COMMIT's tree, byte for byte (modes, binary files, renames, files without a last line break).
#
#   benches/replay_history.sh REPO [N]          # default N: 200
#   CLADA_BIN=/path/to/git-clada benches/replay_history.sh REPO [N]
#
# Prints one line per commit that did not rebuild (with the apply's report) and a summary
# line: commits replayed, rebuilt exactly, with binary hunks. Submodule changes are left out
# of the comparison (git-clada refuses them, as a reply cannot carry one). Nothing here is a
# test: a repository's history is not part of this one.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO="$(cd "${1:?usage: benches/replay_history.sh REPO [N]}" && pwd)"
N="${2:-200}"
if [ -z "${CLADA_BIN:-}" ]; then
  cargo build --release --quiet
fi
BIN="${CLADA_BIN:-$PWD/target/release/git-clada}"
WORK="${TMPDIR:-/tmp}/clada-replay-history"
rm -rf "$WORK"
mkdir -p "$WORK/home"
export HOME="$WORK/home" GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL="$WORK/home/.gitconfig"
export GIT_AUTHOR_NAME=replay GIT_AUTHOR_EMAIL=replay@example.com
export GIT_COMMITTER_NAME=replay GIT_COMMITTER_EMAIL=replay@example.com
git clone -q --no-checkout "$REPO" "$WORK/clone"
cd "$WORK/clone"
git config core.autocrlf false
git config advice.detachedHead false

total=0 exact=0 binary=0 failed=0
for c in $(git rev-list --first-parent --no-merges -n "$N" HEAD); do
  p=$(git rev-parse -q --verify "$c^" 2>/dev/null) || continue
  # A commit that changes a submodule cannot be written as a reply.
  if git diff --raw "$p" "$c" | grep -q ' 160000 \| 160000 '; then
    continue
  fi
  total=$((total + 1))
  git diff --binary -M "$p" "$c" > "$WORK/c.diff"
  grep -q '^GIT binary patch$' "$WORK/c.diff" && binary=$((binary + 1))
  git checkout -q -f "$p"
  git clean -qfdx
  git checkout -q -B replay
  if ! "$BIN" --format json apply --no-verify "$WORK/c.diff" > "$WORK/report.json" 2>&1; then
    failed=$((failed + 1))
    echo "FAILED $c: $(head -c 2000 "$WORK/report.json")"
    continue
  fi
  if [ "$(git rev-parse 'HEAD^{tree}')" = "$(git rev-parse "$c^{tree}")" ]; then
    exact=$((exact + 1))
  else
    failed=$((failed + 1))
    echo "DIFFERENT TREE $c:"
    git diff --stat "HEAD" "$c" | tail -5
  fi
done
echo "replayed $total commits of $REPO: $exact rebuilt exactly, $failed not; $binary with binary hunks"
