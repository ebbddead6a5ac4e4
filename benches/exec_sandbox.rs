//! The cost of the OS sandbox per exec block (issue 21): one `sh -c true` block run through
//! `exec::Runner` (policy allow) at each level, in a real git worktree, so the difference is
//! what confinement adds — the Landlock ruleset (opening the granted folders, the rules), the
//! private temporary directory, the seccomp filter, and at `workspace` the user and mount
//! namespace that keeps `.git` read-only; plus a read-only-list command (`pwd`), which runs
//! directly in the `read-only` sandbox. And the cost per hook (issue 35): a `pre-commit` hook
//! that exits at once, run on an AI commit's index through `record::githooks` (its private
//! folder, the index written there and read back, the quarantine) unconfined
//! (`hooks.sandbox: off`) and contained (the default: `.git` behind the discarded overlay);
//! and what the hook jail costs before the fork (the `$PATH` grants, the interpreter, and with
//! the overlay its layers and whiteout, against `.git` read-only). And the block's init
//! (issue 37): the same blocks once this bench binary acts as git-clada does (its `main`
//! answers `__clada-init`, and `exec::init::register` routes spawns through it), with a PID
//! namespace and, with `CLADA_TEST_NO_NAMESPACES` set, as the subreaper fallback. And the
//! read-only view (issue 37 §2) in a larger worktree (2,000 files in 200 folders, 3 nested
//! repositories, `paths.deny` matching 20 folders and 20 files): `pwd` with the cached list
//! (`read-only-list-tree`) and after a change in the worktree, which walks it again
//! (`read-only-list-tree-changed`); on a build without the view both run `pwd` alike. With
//! `CLADA_TEST_NO_NAMESPACES` the `pwd` cases are left out (without the view they ask). Run with
//! `cargo bench --bench exec_sandbox --profile profiling` (spawning dominates; no need for the
//! full release build).

use std::hint::black_box;
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use clada_engine::exec::confine::{Confine, Jail, Level};
use clada_engine::exec::{ExecPolicy, Lang, Runner, Settings};
use clada_engine::sandbox::Sandbox;
use criterion::{criterion_group, Criterion};

fn settings(level: Level, policy: ExecPolicy, git_dir: std::path::PathBuf) -> Settings {
    Settings {
        policy,
        timeout: Duration::from_secs(30),
        max_output: 1 << 20,
        total_timeout: None,
        approved: Arc::default(),
        prompt: None,
        watch: None,
        reachable_commit: None,
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
        if code == "pwd" && fallback() {
            continue;
        }
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
    if !fallback() {
        view(&mut g);
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
    hooks(c);
    init(c, &sandbox, &git_dir);
}

/// Whether namespaces are refused (`CLADA_TEST_NO_NAMESPACES`): then `pwd` asks (no read-only
/// view can be made) and its cases are left out.
fn fallback() -> bool {
    std::env::var_os("CLADA_TEST_NO_NAMESPACES").is_some()
}

/// A worktree of 2,000 files in 200 folders, with 3 nested repositories, a `secrets` folder
/// and a `.env` in every tenth folder.
fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let ok = Command::new("git")
        .args(["init", "-q"])
        .current_dir(dir.path())
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "git init");
    for d in 0..200 {
        let sub = dir.path().join(format!("m{}/d{d}", d % 20));
        std::fs::create_dir_all(&sub).expect("mkdir");
        for f in 0..10 {
            std::fs::write(sub.join(format!("f{f}.rs")), "x\n").expect("write");
        }
        if d % 10 == 0 {
            std::fs::create_dir_all(sub.join("secrets")).expect("mkdir");
            std::fs::write(sub.join(".env"), "T=1\n").expect("write");
        }
        if d % 70 == 0 {
            std::fs::create_dir_all(sub.join("nested/.git")).expect("mkdir");
        }
    }
    dir
}

/// `pwd` from the read-only list in [`tree`], with the view's list cached and after a change.
fn view(g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>) {
    let dir = tree();
    let deny = ["**/secrets".to_string(), "**/.env".to_string()];
    let sandbox = Sandbox::new(dir.path(), false)
        .expect("sandbox")
        .deny_paths(&deny);
    let root = sandbox.root().to_path_buf();
    let git_dir = root.join(".git");
    for (name, change) in [
        ("read-only-list-tree", false),
        ("read-only-list-tree-changed", true),
    ] {
        let mut runner = Runner::new(settings(Level::Off, ExecPolicy::Ask, git_dir.clone()));
        let touched = root.join("touched");
        g.bench_function(name, |b| {
            b.iter(|| {
                if change {
                    // A new entry in the root: its folder's ctime changes, the list is stale.
                    std::fs::write(&touched, "x").expect("touch");
                    std::fs::remove_file(&touched).expect("rm");
                }
                let ran = runner
                    .run(&sandbox, "b01", "pwd", Lang::Sh, &root, None)
                    .expect("ran");
                assert!(ran.output.success(), "{:?}", ran.output);
                black_box(ran.output.stdout.len())
            })
        });
    }
}

/// The blocks of `exec_block` again, through the block's init (last: registering it cannot be
/// undone in this process).
fn init(c: &mut Criterion, sandbox: &Sandbox, git_dir: &std::path::Path) {
    clada_engine::exec::init::register();
    let root = sandbox.root().to_path_buf();
    let mut g = c.benchmark_group("exec_block_init");
    g.sample_size(30);
    let fallback = fallback();
    for (name, level, policy, code) in [
        ("off", Level::Off, ExecPolicy::Allow, "true"),
        ("workspace", Level::Workspace, ExecPolicy::Allow, "true"),
        ("read-only-list", Level::Off, ExecPolicy::Ask, "pwd"),
    ] {
        if code == "pwd" && fallback {
            continue;
        }
        let mut runner = Runner::new(settings(level, policy, git_dir.to_path_buf()));
        let name = match fallback {
            true => format!("{name}-subreaper"),
            false => format!("{name}-pidns"),
        };
        g.bench_function(name, |b| {
            b.iter(|| {
                let ran = runner
                    .run(sandbox, "b01", code, Lang::Sh, &root, None)
                    .expect("ran");
                assert!(ran.output.success(), "{:?}", ran.output);
                black_box(ran.output.stdout.len())
            })
        });
    }
    g.finish();
}

/// A repository with one commit and a `pre-commit` hook that exits at once.
fn hook_repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let git = |args: &[&str]| {
        let ok = Command::new("git")
            .args(["-c", "user.name=B", "-c", "user.email=b@example.com"])
            .args(args)
            .current_dir(dir.path())
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q"]);
    std::fs::write(dir.path().join("a.txt"), "a\n").expect("write");
    git(&["add", "a.txt"]);
    git(&["commit", "-q", "-m", "init"]);
    let hook = dir.path().join(".git/hooks/pre-commit");
    std::fs::create_dir_all(hook.parent().expect("dir")).expect("mkdir");
    std::fs::write(&hook, "#!/bin/sh\nexit 0\n").expect("hook");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    dir
}

fn hooks(c: &mut Criterion) {
    use clada_engine::exec::hook_sandbox::{HookPolicy, Spec};
    let dir = hook_repo();
    let repo = clada_git::Repo::open(dir.path()).expect("repo");
    let index = repo.read_index().expect("index");
    let policy = HookPolicy {
        git_dirs: vec![repo.git_dir().to_path_buf()],
        max_output: 1 << 20,
        ..HookPolicy::default()
    };
    let mut g = c.benchmark_group("git_hook");
    g.sample_size(30);
    let unconfined = HookPolicy {
        unconfined: Some("bench".into()),
        ..policy.clone()
    };
    let cases = [("unconfined", &unconfined), ("contained", &policy)];
    for (name, p) in cases {
        let hooks = clada_engine::record::githooks::GitHooks::new(&repo, p, false);
        g.bench_function(name, |b| {
            b.iter(|| {
                let mut msg = "AI: x\n".to_string();
                let v = hooks.pre_commit(&index, &mut msg).expect("hook");
                assert!(v.passed, "{:?}", v.steps);
                black_box(v.steps.len())
            })
        });
    }
    g.finish();
    let mut g = c.benchmark_group("hook_jail_prepare");
    let root = repo.workdir().to_path_buf();
    let hook = root.join(".git/hooks/pre-commit");
    for (name, overlay) in [
        ("git-read-only", None),
        ("git-overlay", Some(vec![repo.index_lock_path()])),
    ] {
        g.bench_function(name, |b| {
            b.iter(|| {
                let spec = Spec {
                    program: Some(&hook),
                    overlay: overlay.clone(),
                    ..Spec::new(&root)
                };
                black_box(policy.jail(&spec).expect("jail").confined())
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);

fn main() {
    // As git-clada's own `main`: this binary is the block's init when re-executed as one.
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.get(1).and_then(|a| a.to_str()) == Some(clada_engine::exec::init::ARG) {
        clada_engine::exec::init::main(args[2..].to_vec());
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
