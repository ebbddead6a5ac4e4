//! Kill-at-random loop: every operation (apply, undo, redo, squash, step-back,
//! step-forward) is started and `SIGKILL`ed after a random delay up to a little longer than
//! it takes, then recovered as a user would (`git clada undo` when `git clada status`
//! reports an interrupted operation). Every run must end exactly before or exactly after the
//! operation, with `git fsck` clean, no lock file and no journal left, and git able to commit.
//!
//! Too slow for every CI run, so it only runs with `CLADA_KILL_LOOP=<runs>` set, e.g.
//! `CLADA_KILL_LOOP=1000 cargo test --release --test kill_loop -- --nocapture`;
//! `CLADA_KILL_SEED` fixes the random sequence, `CLADA_KILL_ONLY=<text>` keeps the operations
//! whose name contains it. It prints the outcome table. A watcher (`watch --once`) is also
//! restarted after the recovery and must then have applied every block exactly once.

use crate::common;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use common::crash::{self, Outcome};

/// A small xorshift generator: reproducible from the seed, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// Uniform in `0..bound`.
    fn below(&mut self, bound: u64) -> u64 {
        if bound == 0 {
            0
        } else {
            self.next() % bound
        }
    }
}

#[derive(Default)]
struct Row {
    runs: usize,
    /// Ended on its own before the kill.
    finished: usize,
    killed: usize,
    /// Killed runs where `status` reported an interrupted operation and `undo` recovered.
    recovered: usize,
    before: usize,
    after: usize,
    /// Runs that left `.clada-tmp-*` files of an interrupted atomic write.
    temp_left: usize,
    failures: Vec<String>,
}

#[test]
fn kill_at_random_and_recover() {
    let Some(runs) = std::env::var("CLADA_KILL_LOOP")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    else {
        eprintln!("kill loop skipped: set CLADA_KILL_LOOP=<runs> to run it");
        return;
    };
    let seed = std::env::var("CLADA_KILL_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(1)
                | 1
        });
    eprintln!("kill loop: {runs} runs, CLADA_KILL_SEED={seed}");
    let mut rng = Rng(seed);
    // `CLADA_KILL_ONLY=<text>` runs only the operations whose name contains it (e.g.
    // `watch` for the restarted watcher alone).
    let only = std::env::var("CLADA_KILL_ONLY").unwrap_or_default();
    let ops: Vec<crash::Op> = crash::ops()
        .into_iter()
        .filter(|op| op.name.contains(only.as_str()))
        .collect();
    assert!(
        !ops.is_empty(),
        "CLADA_KILL_ONLY={only} matches no operation"
    );

    // How long each operation takes when left alone (the slowest of three runs).
    let durations: Vec<Duration> = ops
        .iter()
        .map(|op| {
            (0..3)
                .map(|_| {
                    let repo = crash::copy_of(&op.template);
                    let start = Instant::now();
                    let out = op.run(&repo, &[]);
                    assert_eq!(out.status.code(), Some(0), "{}", op.name);
                    start.elapsed()
                })
                .max()
                .unwrap_or_default()
        })
        .collect();

    let mut table: BTreeMap<&str, Row> = BTreeMap::new();
    for i in 0..runs {
        let k = i % ops.len();
        let op = &ops[k];
        let row = table.entry(op.name).or_default();
        row.runs += 1;
        let repo = crash::copy_of(&op.template);
        let limit = durations[k].as_micros() as u64 * 12 / 10;
        let delay = Duration::from_micros(rng.below(limit.max(1)));
        let mut cmd = op.command(&repo);
        let mut child = match &op.stdin {
            Some(input) => common::spawn_fed(cmd, input),
            None => cmd
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("spawn"),
        };
        std::thread::sleep(delay);
        let _ = child.kill();
        let out = child.wait_with_output().expect("wait");
        let what = format!("run {i}: {} killed after {delay:?}", op.name);
        if out.status.code().is_some() {
            row.finished += 1;
            if out.status.code() != Some(0) {
                row.failures.push(format!(
                    "{what}: exited {:?} on its own: {}",
                    out.status.code(),
                    String::from_utf8_lossy(&out.stderr)
                ));
                continue;
            }
        } else {
            row.killed += 1;
        }
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let checked = crash::recover_and_check_tmp(op, &repo, &what);
            if op.restart {
                crash::restart_and_check(op, &repo, &what);
            }
            checked
        }));
        match result {
            Ok((outcome, recovered, tmp)) => {
                if !tmp.is_empty() {
                    row.temp_left += 1;
                    row.failures
                        .push(format!("{what}: temporary files left: {tmp:?}"));
                }
                if recovered {
                    row.recovered += 1;
                }
                match outcome {
                    Outcome::Before => row.before += 1,
                    Outcome::After => row.after += 1,
                }
            }
            Err(e) => {
                let msg = e
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                row.failures.push(msg);
            }
        }
    }

    let mut text = String::from(
        "| operation | runs | ended before the kill | killed | recovered by undo | before | after | temp files left | failures |\n|---|---|---|---|---|---|---|---|---|\n",
    );
    let mut total = Row::default();
    let mut failures = Vec::new();
    for (name, row) in &table {
        text.push_str(&format!(
            "| {name} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            row.runs,
            row.finished,
            row.killed,
            row.recovered,
            row.before,
            row.after,
            row.temp_left,
            row.failures.len()
        ));
        total.runs += row.runs;
        total.finished += row.finished;
        total.killed += row.killed;
        total.recovered += row.recovered;
        total.before += row.before;
        total.after += row.after;
        total.temp_left += row.temp_left;
        failures.extend(row.failures.iter().cloned());
    }
    text.push_str(&format!(
        "| all | {} | {} | {} | {} | {} | {} | {} | {} |\n",
        total.runs,
        total.finished,
        total.killed,
        total.recovered,
        total.before,
        total.after,
        total.temp_left,
        failures.len()
    ));
    eprintln!("{text}");
    if let Ok(path) = std::env::var("CLADA_KILL_REPORT") {
        let _ = std::fs::write(
            path,
            format!("seed {seed}\n{text}\n{}", failures.join("\n\n")),
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
