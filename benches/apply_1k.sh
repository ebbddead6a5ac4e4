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
# The same row under each way of naming the local zone (the commit's offsets are checked equal):
# TZ unset (/etc/localtime), a zone file, a zone file named with ':', a POSIX rule.
if [ "${TZ_ROWS:-1}" = 1 ]; then
    for tz in unset America/New_York :Europe/Paris EST5EDT; do
        (
            if [ "$tz" = unset ]; then unset TZ; else export TZ=$tz; fi
            TZ_LABEL=", TZ $tz" RUNS=${TZ_RUNS:-5} TRACE=0 apply_row 1000 packed
        )
    done
fi
