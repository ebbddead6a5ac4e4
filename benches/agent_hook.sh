#!/usr/bin/env bash
# Latency of `git clada agent-hook claude-code` (issue 43: a hook answers within 100 ms on a
# 10k-file repository for file tools; shell tools pay a status scan). On a make_tree
# repository of N files: per round, a Read's PreToolUse and PostToolUse (a read-only tool:
# the hook returns before it opens the repository), PreToolUse + an Edit of one file + PostToolUse, the same
# for a Bash call that edits one file, and the Stop that commits the round's two changes
# (the commit is reset afterwards). Each hook is timed as a whole process (what the agent
# waits for); medians and the slowest round are printed, nothing is asserted.
#
#   benches/agent_hook.sh [FILES]        (default 10000; RUNS=15; CLADA_BIN=… to skip the build)
source "$(dirname "$0")/lib/common.sh"
n=${1:-10000}
dir="$BENCH_DIR/tree-$n-packed"
make_tree "$n" "$dir" packed
cd "$dir"
git reset -q --hard refs/bench/base
git update-ref -d refs/clada/agent/main 2>/dev/null || true
python3 - "$BIN" "$dir" "$n" "${RUNS:-15}" <<'PY'
import json, os, statistics, subprocess, sys, time
bin, root, n, runs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
target = f"src/m{(n // 2) // 100:04d}/f{n // 2:06d}.rs"
shell_target = f"src/m{(n // 3) // 100:04d}/f{n // 3:06d}.rs"
times = {k: [] for k in ["pre Read", "post Read", "pre Edit", "post Edit", "pre Bash", "post Bash", "Stop (commit)"]}

def hook(name, payload):
    data = json.dumps(dict(session_id="bench", cwd=root, transcript_path="", **payload)).encode()
    t = time.perf_counter()
    p = subprocess.run([bin, "agent-hook", "claude-code"], input=data, cwd=root,
                       capture_output=True)
    times[name].append((time.perf_counter() - t) * 1000)
    if p.returncode != 0:
        sys.exit(f"{name}: exit {p.returncode}: {p.stderr.decode()}")

for r in range(runs):
    read = dict(tool_name="Read", tool_input={"file_path": f"{root}/{target}"}, tool_use_id=f"r{r}")
    hook("pre Read", dict(hook_event_name="PreToolUse", **read))
    hook("post Read", dict(hook_event_name="PostToolUse", **read))
    edit = dict(tool_name="Edit", tool_input={"file_path": f"{root}/{target}"}, tool_use_id=f"e{r}")
    hook("pre Edit", dict(hook_event_name="PreToolUse", **edit))
    with open(f"{root}/{target}", "a") as f:
        f.write(f"// edit {r}\n")
    hook("post Edit", dict(hook_event_name="PostToolUse", **edit))
    bash = dict(tool_name="Bash", tool_input={"command": "echo >> x"}, tool_use_id=f"b{r}")
    hook("pre Bash", dict(hook_event_name="PreToolUse", **bash))
    with open(f"{root}/{shell_target}", "a") as f:
        f.write(f"// shell {r}\n")
    hook("post Bash", dict(hook_event_name="PostToolUse", **bash))
    hook("Stop (commit)", dict(hook_event_name="Stop"))
    subprocess.run(["git", "reset", "-q", "--hard", "refs/bench/base"], cwd=root, check=True)

print(f"agent-hook claude-code, {n} files, {runs} rounds (ms, whole process):")
for k, v in times.items():
    print(f"  {k:14s} median {statistics.median(v):7.1f}   max {max(v):7.1f}")
PY
