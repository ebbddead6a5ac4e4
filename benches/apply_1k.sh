#!/usr/bin/env bash
# Row "apply + commit, 1k files": `git clada apply` of a 10-block reply against
# `git apply --index` of the same patch + `git commit`, one interleaved run per object store
# (packed loose), same resulting tree and status checked on both sides.
#
#   benches/apply_1k.sh        (RUNS=15 by default; see benches/lib/common.sh)
source "$(dirname "$0")/lib/common.sh"
for store in packed loose; do
    apply_row 1000 "$store"
done
