#!/usr/bin/env bash
# Row "blame, 1,000 commits" (issue 42 §3: at most 1.2x git blame): `git clada blame` of a
# 400-line file with 1,000 commits of history, every other one an AI commit with an
# authorship log in refs/notes/ai, against `git blame --line-porcelain` of the same file (what
# git clada blame runs and reads), interleaved. Both outputs name the same commit per line
# (checked once below). The history is written with git fast-import, cached in $BENCH_DIR.
#
#   benches/blame_1k.sh     (RUNS=15, COMMITS=1000; see benches/lib/common.sh)
source "$(dirname "$0")/lib/common.sh"
commits=${COMMITS:-1000}
dir="$BENCH_DIR/blame-$commits"
if [ ! -f "$dir/.ready" ]; then
    rm -rf "$dir" && mkdir -p "$dir" && git -C "$dir" init -q -b main
    # Two passes of the same generator: the commits, then their logs (which name their ids).
    gen() {
        python3 - "$commits" "$@" <<'PY'
import random, sys, json
n = int(sys.argv[1]); shas = sys.argv[2].split() if len(sys.argv) > 2 else None
rnd = random.Random(42)
lines = [f"line {i} of the file\n" for i in range(400)]
def data(b):
    sys.stdout.write(f"data {len(b.encode())}\n{b}\n")
for c in range(1, n + 1):
    changed = sorted(rnd.sample(range(len(lines)), 3))
    for i in changed:
        lines[i] = f"line {i} changed by commit {c}\n"
    if shas is None:
        sys.stdout.write(f"blob\nmark :{2*c}\n"); data("".join(lines))
        sys.stdout.write(f"commit refs/heads/main\nmark :{2*c+1}\n")
        sys.stdout.write(f"committer Bench <bench@example.com> {1700000000 + c} +0000\n")
        data(("AI: change three lines" if c % 2 == 0 else "human change") + f" {c}")
        sys.stdout.write(f"M 100644 :{2*c} f.txt\n\n")
    elif c % 2 == 0:
        sha = shas[c - 1]
        ranges = ",".join(str(i + 1) for i in changed)
        meta = {"schema_version": "authorship/3.0.0", "base_commit_sha": sha, "prompts": {},
                "sessions": {"s_0123456789abcd": {"agent_id": {"tool": "claude", "id": "bench",
                "model": "claude-opus-4"}, "human_author": "Bench <bench@example.com>"}}}
        log = f"f.txt\n  s_0123456789abcd::t_{c:014x} {ranges}\n---\n" + json.dumps(meta, indent=2) + "\n"
        sys.stdout.write(f"commit refs/notes/ai\ncommitter Bench <bench@example.com> {1700000000 + c} +0000\n")
        data(f"note {c}")
        sys.stdout.write(f"N inline {sha}\n"); data(log); sys.stdout.write("\n")
PY
    }
    gen | git -C "$dir" fast-import --quiet
    gen "$(git -C "$dir" rev-list --reverse main | tr '\n' ' ')" | git -C "$dir" fast-import --quiet
    git -C "$dir" reset -q --hard main && touch "$dir/.ready"
fi
ai=$(cd "$dir" && "$BIN" --format json blame f.txt | python3 -c \
    'import json,sys; r=json.load(sys.stdin); print(sum(1 for l in r["lines"] if l["origin"]=="ai"), len(r["lines"]))')
echo "git clada blame sees ${ai% *} of ${ai#* } lines as AI"
interleave "blame f.txt, $commits commits" "$dir" \
    "$BIN --format json blame f.txt" "true" \
    "git blame --line-porcelain f.txt" "true" \
    "git rev-parse HEAD" "$BENCH_DIR/blame-$commits.json"
