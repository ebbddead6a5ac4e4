#!/usr/bin/env bash
# Times `git clada apply` of a 10-block reply against the plain-git way of making the same
# commit (`git apply --index` of the equivalent patch + `git commit`), on repositories of
# 10,000 and 100,000 files, in one run, and prints the ratios.
#
#   benches/apply_speed.sh [FILES…]        # default: 10000 100000
#
# Needs hyperfine and python3. Builds the release binary first. Nothing here is a test: the
# numbers depend on the machine, so they are reported, never asserted.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v hyperfine >/dev/null || { echo "hyperfine is required (apt-get install hyperfine)"; exit 1; }
cargo build --release --quiet
BIN="$PWD/target/release/git-clada"
WORK="${TMPDIR:-/tmp}/clada-apply-speed"
SIZES=("${@:-10000 100000}")
# shellcheck disable=SC2206
SIZES=(${SIZES[*]})
# shellcheck source=benches/repo.sh
. benches/repo.sh
bench_env "$WORK"

make_repo() { # $1 = number of files, $2 = dir
  local n=$1 dir=$2
  make_tree "$n" "$dir"
  # The reply: 10 exact-text replacements in 10 files spread over the tree.
  python3 - "$n" > "$dir.reply.md" <<'EOF'
import sys
n = int(sys.argv[1])
for k in range(10):
    i = (k * n) // 10 + 7
    print(f"#!nesl [@three-char-SHA-256: b{k:02d}]")
    print('action = "file_replace_text"')
    print(f'path = "src/m{i // 100:04d}/f{i:06d}.rs"')
    print(f'old_text = "fn f{i}_3() -> u32 {{ 3 }}"')
    print(f'new_text = "fn f{i}_3() -> u32 {{ 33 }}"')
    print(f"#!end_b{k:02d}\n")
EOF
  # The equivalent patch, made by applying the reply once and diffing.
  "$BIN" apply --no-git "$dir.reply.md" >/dev/null
  git diff > "$dir.patch"
  git checkout -q -- .
  cd - >/dev/null
}

printf '\n%-8s %12s %12s %8s\n' files "git-clada" "git" ratio
results=()
for n in "${SIZES[@]}"; do
  dir="$WORK/r$n"
  make_repo "$n" "$dir" >/dev/null
  base=$(git -C "$dir" rev-parse HEAD)
  hyperfine -N --warmup 3 --runs 20 --export-json "$WORK/r$n.json" \
    --prepare "git -C $dir reset -q --hard $base" \
    -n git-clada "$BIN -C $dir --format json apply --no-verify $dir.reply.md" \
    -n git "bash -c 'cd $dir && git apply --index $dir.patch && git commit -q --no-verify -m ai'" >/dev/null
  read -r clada git ratio < <(python3 - "$WORK/r$n.json" <<'EOF'
import json, sys
r = {x["command"]: x["mean"] * 1000 for x in json.load(open(sys.argv[1]))["results"]}
print(f'{r["git-clada"]:.1f} {r["git"]:.1f} {r["git-clada"] / r["git"]:.2f}')
EOF
)
  printf '%-8s %10s ms %10s ms %7sx\n' "$n" "$clada" "$git" "$ratio"
  results+=("$n:$clada")
done

echo
echo "Where git-clada's time goes (largest repository, one run, GIT_CLADA_TRACE=1):"
n=${SIZES[-1]}
dir="$WORK/r$n"
git -C "$dir" reset -q --hard "$(git -C "$dir" rev-list --max-parents=0 HEAD)"
GIT_CLADA_TRACE=1 "$BIN" -C "$dir" --format json apply --no-verify "$dir.reply.md" 2>&1 >/dev/null | sed 's/^/  /'
