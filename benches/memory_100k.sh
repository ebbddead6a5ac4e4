#!/usr/bin/env bash
# Row "peak memory, apply at 100k files": the largest resident set of `git clada apply` of a
# 10-block reply on a 100,000-file repository against the largest of `git apply --index` and
# `git commit` doing the same (max RSS of each process, from wait4), in one interleaved run.
#
#   benches/memory_100k.sh        (RUNS=5 by default; see benches/lib/common.sh)
RUNS=${RUNS:-5}
export RUNS
source "$(dirname "$0")/lib/common.sh"
TRACE=0 apply_row 100000 packed
python3 - "$BENCH_DIR/apply-100000-packed.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
c, g = (s["max_rss_kib"] / 1024 for s in r["sides"])
print(f"peak memory, apply at 100k files: git-clada {c:.1f} MiB, git {g:.1f} MiB, ratio {c / g:.2f}x")
PY
