#!/usr/bin/env bash
# Row "step-back / step-forward, 10k files": see benches/lib/step_row.sh.
exec "$(dirname "$0")/lib/step_row.sh" 10000
