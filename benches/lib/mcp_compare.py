#!/usr/bin/env python3
"""Times one `edit` call of `git clada mcp` against one `edit_file` call of the reference
filesystem server (`@modelcontextprotocol/server-filesystem`), interleaved, and prints the
ratio.

Both servers run for the whole measurement and are spoken to the same way: JSON-RPC over
their stdio, one message per line, by this one client (no SDK on either side, so the client's
own cost is the same). Each round sends one call to each, alternating which goes first, so a
change in the machine's load hits both alike. Each edit flips one line of one file between two
values; each server works in its own identical copy of the repository, so neither sees the
other's edits as uncommitted work. Every result is checked to be a success.

Printed: the median and 90th percentile of each side's wall time, the median of the per-round
ratios, and each server process's CPU time per call (user + system, from /proc; clock-tick
resolution, meaningful summed over many calls). With --trace FILE, git-clada's stderr (run with
GIT_CLADA_TRACE=1) is summed per phase over the timed calls and the phases are printed, largest
first.

    mcp_compare.py --clada BIN --clada-repo DIR --fs-cmd 'node …/dist/index.js' --fs-repo DIR
                   [--rounds 200] [--warmup 10] [--file REL] [--trace]
"""
import argparse
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
import threading
import time


class Server:
    def __init__(self, argv, cwd, env=None, stderr=None):
        self.proc = subprocess.Popen(
            argv,
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr if stderr is not None else subprocess.DEVNULL,
            env=env,
        )
        self.next = 1
        self.request(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "mcp_compare", "version": "1"},
            },
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, msg):
        self.proc.stdin.write((json.dumps(msg) + "\n").encode())
        self.proc.stdin.flush()

    def request(self, method, params):
        rid = self.next
        self.next += 1
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise SystemExit(f"the server ended before answering {method}")
            msg = json.loads(line)
            if msg.get("id") == rid:
                return msg

    def cpu(self):
        """User + system time of the process so far, in seconds."""
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        ticks = sum(int(x) for x in fields[11:15])
        return ticks / os.sysconf("SC_CLK_TCK")

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def flip(round_no, file_line):
    """The (old, new) text of round `round_no`: the line and its edited form, alternately."""
    edited = file_line.replace("{ 3 }", "{ 33 }")
    return (file_line, edited) if round_no % 2 == 0 else (edited, file_line)


def check(side, reply):
    result = reply.get("result")
    if result is None or result.get("isError"):
        raise SystemExit(f"{side}: the call failed: {json.dumps(reply)[:2000]}")


def phases(lines):
    """Sums `trace: NAME  X ms` lines per phase name."""
    out = {}
    for line in lines:
        m = re.match(r"trace: (.+?)\s+([0-9.]+) ms", line)
        if m:
            out[m.group(1)] = out.get(m.group(1), 0.0) + float(m.group(2))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--clada", required=True)
    ap.add_argument("--clada-repo", required=True)
    ap.add_argument("--fs-cmd", required=True)
    ap.add_argument("--fs-repo", required=True)
    ap.add_argument("--rounds", type=int, default=200)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--file", default="src/m0000/f000001.rs")
    ap.add_argument("--trace", action="store_true")
    a = ap.parse_args()

    with open(os.path.join(a.clada_repo, a.file)) as f:
        line = next(l.rstrip("\n") for l in f if "{ 3 }" in l)

    env = dict(os.environ)
    trace_lines = []
    if a.trace:
        env["GIT_CLADA_TRACE"] = "1"
    clada = Server(
        [a.clada, "mcp", "--session", "bench"],
        a.clada_repo,
        env=env,
        stderr=subprocess.PIPE if a.trace else None,
    )
    if a.trace:
        def drain():
            for raw in clada.proc.stderr:
                trace_lines.append(raw.decode(errors="replace"))
        threading.Thread(target=drain, daemon=True).start()
    fs = Server(shlex.split(a.fs_cmd) + [a.fs_repo], a.fs_repo)

    def call_clada(old, new):
        return clada.request(
            "tools/call",
            {"name": "edit", "arguments": {"path": a.file, "old_string": old, "new_string": new}},
        )

    def call_fs(old, new):
        return fs.request(
            "tools/call",
            {
                "name": "edit_file",
                "arguments": {
                    "path": os.path.join(a.fs_repo, a.file),
                    "edits": [{"oldText": old, "newText": new}],
                },
            },
        )

    sides = {"git-clada": ([], call_clada, clada), "filesystem": ([], call_fs, fs)}
    cpu = {name: 0.0 for name in sides}
    ratios = []
    total = a.warmup + a.rounds
    timed_from = None
    for r in range(total):
        old, new = flip(r, line)
        order = ["git-clada", "filesystem"] if r % 2 == 0 else ["filesystem", "git-clada"]
        if r == a.warmup:
            timed_from = len(trace_lines)
        took = {}
        for name in order:
            times, call, server = sides[name]
            c0 = server.cpu()
            t0 = time.perf_counter()
            reply = call(old, new)
            took[name] = time.perf_counter() - t0
            check(name, reply)
            if r >= a.warmup:
                times.append(took[name])
                cpu[name] += server.cpu() - c0
        if r >= a.warmup:
            ratios.append(took["git-clada"] / took["filesystem"])
    clada.close()
    fs.close()

    ms = lambda s: s * 1000.0
    p90 = lambda v: sorted(v)[(len(v) * 9) // 10]
    print(f"mcp edit: {a.rounds} interleaved rounds ({a.warmup} warm-up), one edit of {a.file} per call")
    print("                                        wall median   wall p90   CPU/call")
    for name, label in [("git-clada", "git-clada mcp `edit` (+ AI commit)"), ("filesystem", "server-filesystem `edit_file`")]:
        v = sides[name][0]
        print(
            f"  {label:36s} {ms(statistics.median(v)):8.2f} ms  {ms(p90(v)):8.2f} ms  {ms(cpu[name] / a.rounds):7.2f} ms"
        )
    print(f"  ratio (median of per-round ratios)   {statistics.median(ratios):8.2f}x")
    print(f"  CPU ratio                            {cpu['git-clada'] / max(cpu['filesystem'], 1e-9):8.2f}x")
    if a.trace:
        time.sleep(0.2)
        summed = phases(trace_lines[timed_from or 0:])
        print("  git-clada phases, mean per call (GIT_CLADA_TRACE=1; tracing adds its own cost):")
        for name, total_ms in sorted(summed.items(), key=lambda kv: -kv[1]):
            print(f"    {name:32s} {total_ms / a.rounds:7.2f} ms")


if __name__ == "__main__":
    main()
