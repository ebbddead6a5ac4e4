//! The cost of the OS sandbox per exec block (issue 21): one `sh -c true` block run through
//! `exec::Runner` (policy allow) at each level, in a real git worktree, so the difference is
//! what confinement adds — the Landlock ruleset (opening the granted folders, the rules), the
//! private temporary directory, the seccomp filter, and at `workspace` the user and mount
//! namespace that keeps `.git` read-only; plus a read-only-list command (`pwd`), which runs
//! directly in the `read-only` sandbox. Run with
//! `cargo bench --bench exec_sandbox --profile profiling` (spawning dominates; no need for the
//! full release build).

use std::hint::black_box;
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use git_clada::exec::confine::{Confine, Jail, Level};
use git_clada::exec::{ExecPolicy, Lang, Runner, Settings};
use git_clada::sandbox::Sandbox;

fn settings(level: Level, policy: ExecPolicy, git_dir: std::path::PathBuf) -> Settings {
    Settings {
        policy,
        timeout: Duration::from_secs(30),
        max_output: 1 << 20,
        total_timeout: None,
        approved: Arc::default(),
        prompt: None,
        watch: None,
        confine: Confine {
            level,
            git_dirs: vec![git_dir],
            ..Confine::default()
        },
    }
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tempdir");
    let ok = Command::new("git")
        .args(["init", "-q"])
        .current_dir(dir.path())
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "git init");
    let sandbox = Sandbox::new(dir.path(), false).expect("sandbox");
    let root = sandbox.root().to_path_buf();
    let git_dir = root.join(".git");
    let mut g = c.benchmark_group("exec_block");
    g.sample_size(30);
    for (name, level, policy, code) in [
        ("off", Level::Off, ExecPolicy::Allow, "true"),
        ("workspace", Level::Workspace, ExecPolicy::Allow, "true"),
        ("read-only", Level::ReadOnly, ExecPolicy::Allow, "true"),
        ("read-only-list", Level::Off, ExecPolicy::Ask, "pwd"),
    ] {
        let mut runner = Runner::new(settings(level, policy, git_dir.clone()));
        g.bench_function(name, |b| {
            b.iter(|| {
                let ran = runner
                    .run(&sandbox, "b01", code, Lang::Sh, &root, None)
                    .expect("ran");
                assert!(ran.output.success(), "{:?}", ran.output);
                black_box(ran.output.stdout.len())
            })
        });
    }
    g.finish();
    // What confinement costs before the fork (the ruleset, the filter, the temporary
    // directory): the block times above also carry the spawn loop's 5 ms polling step, so a
    // child that starts a little later can cost a whole step.
    let mut g = c.benchmark_group("jail_prepare");
    let confine = Confine {
        git_dirs: vec![git_dir.clone()],
        ..Confine::default()
    };
    for (name, level) in [
        ("workspace", Level::Workspace),
        ("read-only", Level::ReadOnly),
    ] {
        g.bench_function(name, |b| {
            b.iter(|| black_box(Jail::new(level, &confine, &root).expect("jail").level))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
