#!/usr/bin/env python3
"""Times two ways of doing the same job in one interleaved run and prints their ratio.

Each round runs both sides once, alternating which goes first, so a change in the machine's
load hits both alike; the ratio printed is the median of the per-round ratios. Before every
timed command its side's `--prep` runs (untimed, through bash); after it, `--check` (untimed,
through bash) prints a fingerprint of the result, and the two sides' fingerprints must be equal
in every round, or the run stops: a speed-up that changes the result is no speed-up.

A command is one or more programs joined by `&&`, each run directly (no shell), so neither side
pays for a shell the other does not need. CPU time (user + system, every thread, from wait4)
and peak memory (max RSS) of every program are recorded too: on a busy machine the CPU-time
ratio is the steadier number, the wall-clock ratio the one a user feels.

    interleave.py --title T [--runs 15] [--warmup 2] [--cwd DIR] [--json OUT]
        --side NAME CMD PREP   (twice: first the subject, then the baseline)
        [--check CMD]
"""
import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import time


def programs(cmd):
    """Splits `a b && c d` into [[a, b], [c, d]]."""
    out, cur = [], []
    for tok in shlex.split(cmd):
        if tok == "&&":
            out.append(cur)
            cur = []
        else:
            cur.append(tok)
    if cur:
        out.append(cur)
    return out


def shell(cmd, cwd):
    r = subprocess.run(["bash", "-c", cmd], cwd=cwd, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if r.returncode != 0:
        sys.exit(f"failed ({r.returncode}): {cmd}\n{r.stdout.decode()}{r.stderr.decode()}")
    return r.stdout


def timed(progs, cwd):
    """Seconds of wall time for the programs in sequence, their CPU seconds (user + system, all
    threads) and the largest max RSS (KiB)."""
    peak = 0
    cpu = 0.0
    start = time.perf_counter()
    for argv in progs:
        p = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        if p.returncode != 0:
            err = p.stderr.read().decode(errors="replace")
            sys.exit(f"failed ({p.returncode}): {shlex.join(argv)}\n{err}")
        p.stderr.close()
        peak = max(peak, usage.ru_maxrss)
        cpu += usage.ru_utime + usage.ru_stime
    return time.perf_counter() - start, cpu, peak


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--title", required=True)
    ap.add_argument("--runs", type=int, default=int(os.environ.get("RUNS", 15)))
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--cwd", default=".")
    ap.add_argument("--json")
    ap.add_argument("--side", nargs=3, action="append", metavar=("NAME", "CMD", "PREP"),
                    required=True)
    ap.add_argument("--check")
    a = ap.parse_args()
    if len(a.side) != 2:
        sys.exit("--side must be given twice")
    sides = [{"name": n, "progs": programs(c), "prep": p, "times": [], "cpu": [], "rss": []}
             for n, c, p in a.side]
    ratios = []
    cpu_ratios = []
    for rnd in range(a.warmup + a.runs):
        order = sides if rnd % 2 == 0 else sides[::-1]
        round_times = {}
        round_cpu = {}
        prints = {}
        for s in order:
            if s["prep"]:
                shell(s["prep"], a.cwd)
            t, cpu, rss = timed(s["progs"], a.cwd)
            round_times[s["name"]] = t
            round_cpu[s["name"]] = cpu
            if a.check:
                prints[s["name"]] = shell(a.check, a.cwd)
            if rnd >= a.warmup:
                s["times"].append(t)
                s["cpu"].append(cpu)
                s["rss"].append(rss)
        if a.check and len(set(prints.values())) != 1:
            detail = "".join(f"--- {n}:\n{v.decode(errors='replace')}" for n, v in prints.items())
            sys.exit(f"{a.title}: the two sides produced different results\n{detail}")
        if rnd >= a.warmup:
            ratios.append(round_times[sides[0]["name"]] / round_times[sides[1]["name"]])
            base_cpu = round_cpu[sides[1]["name"]]
            if base_cpu > 0:
                cpu_ratios.append(round_cpu[sides[0]["name"]] / base_cpu)
    med = [statistics.median(s["times"]) for s in sides]
    q = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else [ratios[0]] * 3
    rss = [max(s["rss"]) for s in sides]
    cpu_med = [statistics.median(s["cpu"]) for s in sides]
    cpu_ratio = statistics.median(cpu_ratios) if cpu_ratios else None
    result = {
        "title": a.title,
        "runs": a.runs,
        "ratio": statistics.median(ratios),
        "ratio_q1": q[0],
        "ratio_q3": q[2],
        "cpu_ratio": cpu_ratio,
        "sides": [{"name": s["name"], "median_ms": m * 1e3, "min_ms": min(s["times"]) * 1e3,
                   "cpu_ms": c * 1e3, "max_rss_kib": r}
                  for s, m, c, r in zip(sides, med, cpu_med, rss)],
        "rss_ratio": rss[0] / rss[1] if rss[1] else None,
        "same_result": bool(a.check),
    }
    print(f"{a.title}: {sides[0]['name']} {med[0] * 1e3:.1f} ms, {sides[1]['name']} "
          f"{med[1] * 1e3:.1f} ms (medians of {a.runs}), ratio {result['ratio']:.2f}x "
          f"(quartiles {q[0]:.2f}-{q[2]:.2f}); CPU {cpu_med[0] * 1e3:.1f} / {cpu_med[1] * 1e3:.1f} ms"
          + (f" ({cpu_ratio:.2f}x)" if cpu_ratio else "")
          + f"; peak RSS {rss[0] // 1024} / {rss[1] // 1024} MiB"
          + ("; same result both sides" if a.check else ""))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
