#!/usr/bin/env bash
# Times how long each front end takes to place (or refuse) one long edit in one long file: a
# 5,000-line chunk against a 100,000-line file (or the sizes given), written as an aider
# SEARCH/REPLACE block, a Codex apply_patch envelope and a unified diff, applied with
# `git clada apply --no-git` (the search, then the not-found hint when it fails).
#
#   benches/search_speed.sh [FILE_LINES [CHUNK_LINES]]      # default: 100000 5000
#   BASE=/path/to/other/git-clada benches/search_speed.sh   # the same runs with another build too
#   CLADA_BIN=/path/to/git-clada …                          # time that build (no release build)
#
# Three shapes of file and chunk:
#   near-miss    code-like lines; the chunk is lines 50,000.. of the file with one line changed
#                in its middle (found nowhere: the usual refusal);
#   repeated     a 1,000-line block repeated; the chunk is from it with its last line changed;
#   runs         runs of CHUNK_LINES - 1 equal lines; the chunk is CHUNK_LINES of them, which
#                occur nowhere in a row (the worst case for a search position by position:
#                quadratic there, linear here).
# Each run is timed once after a warm-up (RUNS=n for the median of n). Builds the release
# binary first. Nothing here is a test: the numbers depend on the machine, so they are
# reported, never asserted.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v python3 >/dev/null || { echo "python3 is required"; exit 1; }
if [ -z "${CLADA_BIN:-}" ]; then
  cargo build --release --quiet
fi
BIN="${CLADA_BIN:-$PWD/target/release/git-clada}"
WORK="${TMPDIR:-/tmp}/clada-search-speed"
N="${1:-100000}"
M="${2:-5000}"
RUNS="${RUNS:-1}"
TIMEOUT="${TIMEOUT:-300}"
rm -rf "$WORK"
mkdir -p "$WORK"

python3 - "$WORK" "$N" "$M" <<'EOF'
import os, random, sys
work, n, m = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
words = "alpha beta count delta event frame gamma handle index jitter key limit".split()

def code_line(rng):
    r = rng.random()
    if r < 0.1:
        return "}"
    if r < 0.15:
        return ""
    if r < 0.2:
        return "return None"
    return f"{rng.choice(words)}_{rng.randrange(1000)} = {rng.randrange(100000)}"

def write(shape, lines, old, new):
    d = os.path.join(work, shape)
    os.makedirs(d)
    open(f"{d}/big.py", "w").write("\n".join(lines) + "\n")
    hunk = "".join(f"-{l}\n" for l in old) + "".join(f"+{l}\n" for l in new)
    k = len(old)
    open(f"{d}/diff.md", "w").write(
        f"```diff\n--- a/big.py\n+++ b/big.py\n@@ -1,{k} +1,{k} @@\n{hunk}```\n")
    open(f"{d}/apply_patch.md", "w").write(
        f"*** Begin Patch\n*** Update File: big.py\n@@\n{hunk}*** End Patch\n")
    s = "".join(f"{l}\n" for l in old)
    r = "".join(f"{l}\n" for l in new)
    open(f"{d}/aider.md", "w").write(
        f"big.py\n```python\n<<<<<<< SEARCH\n{s}=======\n{r}>>>>>>> REPLACE\n```\n")

rng = random.Random(1)
lines = [code_line(rng) for _ in range(n)]
old = lines[n // 2:n // 2 + m]
old[m // 2] += " # stale"
write("near-miss", lines, old, [l + " # new" for l in old])

rng = random.Random(2)
block = [code_line(rng) for _ in range(1000)]
lines = (block * (n // 1000 + 1))[:n]
old = lines[n // 2:n // 2 + m]
old[-1] += " # stale"
write("repeated", lines, old, [l + " # new" for l in old])

lines = []
while len(lines) < n:
    lines += ["    pass"] * (m - 1) + [f"# end {len(lines)}"]
write("runs", lines[:n], ["    pass"] * m, ["    return"] * m)
EOF

median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

# Seconds one apply takes (the reply fails: the file is never changed), or "timeout".
time_one() { # $1 = binary, $2 = dir, $3 = reply
  local t0 t1
  t0=$(date +%s.%N)
  if ! (cd "$2" && timeout "$TIMEOUT" "$1" --format json apply --no-git "$3" >/dev/null 2>&1 \
        || [ $? -ne 124 ]); then
    echo "timeout"
    return
  fi
  t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc -l
}

run() { # $1 = binary, $2 = dir, $3 = reply
  # The warm-up; a build that takes longer than TIMEOUT is not run again.
  [ "$(time_one "$1" "$2" "$3")" = timeout ] && { echo ">${TIMEOUT}"; return; }
  local all=() t
  for _ in $(seq 1 "$RUNS"); do
    t=$(time_one "$1" "$2" "$3")
    [ "$t" = timeout ] && { echo ">${TIMEOUT}"; return; }
    all+=("$t")
  done
  printf '%s\n' "${all[@]}" | median | xargs printf '%.2f'
}

echo "file of $N lines, chunk of $M lines; seconds per apply (search + hint)"
printf '%-10s %-12s %10s' shape format git-clada
[ -n "${BASE:-}" ] && printf ' %10s' base
echo
for shape in near-miss repeated runs; do
  for format in aider apply_patch diff; do
    printf '%-10s %-12s %10s' "$shape" "$format" "$(run "$BIN" "$WORK/$shape" "$format.md")"
    [ -n "${BASE:-}" ] && printf ' %10s' "$(run "$BASE" "$WORK/$shape" "$format.md")"
    echo
  done
done
