#!/usr/bin/env bash
# Times `git clada apply` of a 500-hunk unified diff against the plain-git way of making the
# same commit (`git apply --index` of the same diff + `git commit`), on a repository of 10,000
# files (or the sizes given), and prints the ratio.
#
#   benches/patch_speed.sh [FILES…]        # default: 10000
#
# The diff changes 250 files in two hunks each, spread over the tree, as `git diff` writes it.
# Uses hyperfine when it is installed (20 runs after 3 warm-ups); otherwise runs the two commands
# alternately (RUNS times, default 15) and reports the medians. Builds the release binary first.
# Nothing here is a test: the numbers depend on the machine, so they are reported, never asserted.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v python3 >/dev/null || { echo "python3 is required"; exit 1; }
cargo build --release --quiet
BIN="$PWD/target/release/git-clada"
WORK="${TMPDIR:-/tmp}/clada-patch-speed"
SIZES=("${@:-10000}")
RUNS="${RUNS:-15}"
# shellcheck source=benches/repo.sh
. benches/repo.sh
bench_env "$WORK"

make_repo() { # $1 = number of files, $2 = dir
  local n=$1 dir=$2
  make_tree "$n" "$dir"
  # 500 hunks: two changes far apart in each of 250 files spread over the tree.
  python3 - "$n" <<'EOF'
import sys
n = int(sys.argv[1])
for k in range(250):
    i = (k * n) // 250 + 3
    p = f"src/m{i // 100:04d}/f{i:06d}.rs"
    lines = open(p).read().split("\n")
    lines[2] = f"fn f{i}_2() -> u32 {{ 222 }}"
    lines[16] = f"fn f{i}_16() -> u32 {{ 1616 }}"
    open(p, "w").write("\n".join(lines))
EOF
  git diff > "$dir.patch"
  git checkout -q -- .
  hunks=$(grep -c '^@@' "$dir.patch")
  [ "$hunks" -eq 500 ] || { echo "expected 500 hunks, got $hunks"; exit 1; }
  cd - >/dev/null
}

clada_cmd() { "$BIN" -C "$1" --format json apply --no-verify "$1.patch" >/dev/null; }
git_cmd() { (cd "$1" && git apply --index "$1.patch" && git commit -q --no-verify -m ai); }

median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

now_ms() { python3 -c 'import time; print(time.perf_counter_ns() / 1e6)'; }

printf '\n%-8s %12s %12s %8s\n' files "git-clada" "git" ratio
for n in "${SIZES[@]}"; do
  dir="$WORK/r$n"
  make_repo "$n" "$dir" >/dev/null
  base=$(git -C "$dir" rev-parse HEAD)
  if command -v hyperfine >/dev/null; then
    hyperfine -N --warmup 3 --runs 20 --export-json "$WORK/r$n.json" \
      --prepare "git -C $dir reset -q --hard $base" \
      -n git-clada "$BIN -C $dir --format json apply --no-verify $dir.patch" \
      -n git "bash -c 'cd $dir && git apply --index $dir.patch && git commit -q --no-verify -m ai'" >/dev/null
    read -r clada git < <(python3 - "$WORK/r$n.json" <<'EOF'
import json, sys
r = {x["command"]: x["median"] * 1000 for x in json.load(open(sys.argv[1]))["results"]}
print(f'{r["git-clada"]:.1f} {r["git"]:.1f}')
EOF
)
  else
    : > "$WORK/clada.ms"; : > "$WORK/git.ms"
    for r in $(seq 0 "$RUNS"); do
      for which in clada git; do
        git -C "$dir" reset -q --hard "$base"
        t0=$(now_ms); "${which}_cmd" "$dir"; t1=$(now_ms)
        # The first round warms the caches.
        [ "$r" -gt 0 ] && echo "$t1 - $t0" | bc -l >> "$WORK/$which.ms"
      done
    done
    clada=$(median < "$WORK/clada.ms"); git=$(median < "$WORK/git.ms")
  fi
  ratio=$(echo "scale=2; $clada / $git" | bc -l)
  printf '%-8s %10.1f ms %10.1f ms %7.2fx\n' "$n" "$clada" "$git" "$ratio"
  # Both made the same tree.
  git -C "$dir" reset -q --hard "$base" && clada_cmd "$dir"
  a=$(git -C "$dir" rev-parse 'HEAD^{tree}')
  git -C "$dir" reset -q --hard "$base" && git_cmd "$dir"
  b=$(git -C "$dir" rev-parse 'HEAD^{tree}')
  [ "$a" = "$b" ] || { echo "the trees differ: git-clada $a, git $b"; exit 1; }
done
