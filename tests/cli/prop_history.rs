//! Properties of the history commands (DESIGN §11), on real temporary repositories driven by
//! the real binary and checked with the real git CLI:
//!
//! 1. `apply` then `undo` is the identity on HEAD, the branch, the index and every worktree
//!    byte (tracked, untracked, ignored), and `undo` then `redo` gives back exactly the state
//!    after the apply;
//! 2. `squash` keeps the final tree, and leaves the index and the worktree untouched (or
//!    refuses, changing nothing at all);
//! 3. any walk of `step-back`/`step-forward` ending in `step-forward --all` is the identity,
//!    untracked files and refs included.
//!
//! Every case builds a random repository (a handful of files, an executable, a symlink),
//! random uncommitted work (staged, unstaged, untracked, ignored; added, deleted, renamed,
//! mode-changed, symlinked files) and random replies (write, create, append, replace, delete,
//! move over existing and new paths). The number of cases comes from `PROPTEST_CASES`
//! (CI sets 200).
//!
//! "Every byte" means every file, symlink and non-empty directory. Git does not track empty
//! directories, and neither git-clada nor `git stash`/`checkout` keeps one that a user
//! emptied by deleting its last file (a checkout that deletes a file prunes the directories
//! it leaves empty), so empty directories are left out of the comparisons.

use crate::common;

use std::os::unix::fs::PermissionsExt;

use common::{block, State, TestRepo};
use proptest::prelude::*;

/// Paths the initial commit may track.
const TRACKED: &[&str] = &["a.txt", "b.txt", "d/c.txt", "d/e/f.txt", "x.sh", "s p.txt"];
/// Paths that start out absent.
const NEW: &[&str] = &["new.txt", "d/new.txt", "n/m/o.txt", "u.txt"];
/// Paths `.gitignore` excludes.
const IGNORED: &[&str] = &["z.log", "ignored/i.txt", "d/y.log"];
const LINK: &str = "lnk";
const LINK_TARGETS: &[&str] = &["a.txt", "d", "missing.txt"];
const WORDS: &[&str] = &["alpha", "beta", "gamma", "delta", "eps"];

/// Tracked, new and the symlink: every path a reply or the user's work may touch.
fn any_path(i: usize) -> &'static str {
    let all = TRACKED.len() + NEW.len() + 1;
    let i = i % all;
    if i < TRACKED.len() {
        TRACKED[i]
    } else if i < TRACKED.len() + NEW.len() {
        NEW[i - TRACKED.len()]
    } else {
        LINK
    }
}

fn content() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(prop::sample::select(WORDS), 0..4),
        any::<bool>(),
    )
        .prop_map(|(words, newline)| {
            let mut s = words.join("\n");
            if newline {
                s.push('\n');
            }
            s
        })
}

#[derive(Debug, Clone)]
struct Initial {
    files: Vec<Option<String>>,
    exec: bool,
    link: Option<usize>,
}

fn initial() -> impl Strategy<Value = Initial> {
    (
        prop::collection::vec(prop::option::weighted(0.7, content()), TRACKED.len()),
        any::<bool>(),
        prop::option::of(0..LINK_TARGETS.len()),
    )
        .prop_map(|(files, exec, link)| Initial { files, exec, link })
}

/// One piece of uncommitted work, done the way a user would (files, then `git add`/`rm`/`mv`).
#[derive(Debug, Clone)]
enum Work {
    Modify {
        path: usize,
        content: String,
        stage: bool,
    },
    Delete {
        path: usize,
        stage: bool,
    },
    Rename {
        from: usize,
        to: usize,
        staged: bool,
    },
    Chmod {
        path: usize,
        stage: bool,
    },
    Symlink {
        path: usize,
        target: usize,
        stage: bool,
    },
    Untracked {
        path: usize,
        content: String,
        exec: bool,
    },
    Ignored {
        path: usize,
        content: String,
    },
    AddNew {
        path: usize,
        content: String,
    },
    /// `git rm --cached`: the file stays on disk, untracked.
    RmCached {
        path: usize,
    },
}

fn work() -> impl Strategy<Value = Work> {
    let p = 0..(TRACKED.len() + NEW.len() + 1);
    prop_oneof![
        3 => (p.clone(), content(), any::<bool>())
            .prop_map(|(path, content, stage)| Work::Modify { path, content, stage }),
        1 => (p.clone(), any::<bool>()).prop_map(|(path, stage)| Work::Delete { path, stage }),
        1 => (p.clone(), 0..NEW.len(), any::<bool>())
            .prop_map(|(from, to, staged)| Work::Rename { from, to, staged }),
        1 => (p.clone(), any::<bool>()).prop_map(|(path, stage)| Work::Chmod { path, stage }),
        1 => (p.clone(), 0..LINK_TARGETS.len(), any::<bool>())
            .prop_map(|(path, target, stage)| Work::Symlink { path, target, stage }),
        2 => (0..NEW.len(), content(), any::<bool>())
            .prop_map(|(path, content, exec)| Work::Untracked { path, content, exec }),
        1 => (0..IGNORED.len(), content()).prop_map(|(path, content)| Work::Ignored { path, content }),
        1 => (0..NEW.len(), content()).prop_map(|(path, content)| Work::AddNew { path, content }),
        1 => (0..TRACKED.len()).prop_map(|path| Work::RmCached { path }),
    ]
}

/// One block of a reply.
#[derive(Debug, Clone)]
enum Op {
    Write {
        path: usize,
        content: String,
    },
    Create {
        path: usize,
        content: String,
    },
    Append {
        path: usize,
        content: String,
    },
    Replace {
        path: usize,
        old: usize,
        new: String,
    },
    Delete {
        path: usize,
    },
    Move {
        from: usize,
        to: usize,
    },
    /// An exec block that deletes or appends to a file (tracked, untracked or absent).
    Exec {
        path: usize,
        delete: bool,
    },
}

fn op() -> impl Strategy<Value = Op> {
    let p = 0..(TRACKED.len() + NEW.len() + 1);
    prop_oneof![
        3 => (p.clone(), content()).prop_map(|(path, content)| Op::Write { path, content }),
        1 => (p.clone(), content()).prop_map(|(path, content)| Op::Create { path, content }),
        1 => (p.clone(), content()).prop_map(|(path, content)| Op::Append { path, content }),
        2 => (p.clone(), 0..WORDS.len(), content())
            .prop_map(|(path, old, new)| Op::Replace { path, old, new }),
        1 => p.clone().prop_map(|path| Op::Delete { path }),
        1 => (p.clone(), p.clone()).prop_map(|(from, to)| Op::Move { from, to }),
        1 => (p, any::<bool>()).prop_map(|(path, delete)| Op::Exec { path, delete }),
    ]
}

/// The paths a reply names (what its AI commit may change).
fn reply_paths(ops: &[Op]) -> Vec<&'static str> {
    let mut out = Vec::new();
    for op in ops {
        match op {
            Op::Write { path, .. }
            | Op::Create { path, .. }
            | Op::Append { path, .. }
            | Op::Replace { path, .. }
            | Op::Delete { path }
            | Op::Exec { path, .. } => out.push(any_path(*path)),
            Op::Move { from, to } => {
                out.push(any_path(*from));
                out.push(any_path(*to));
            }
        }
    }
    out
}

fn reply(ops: &[Op], tag: &str) -> String {
    let mut out = String::from("Some prose before the blocks.\n");
    for (i, op) in ops.iter().enumerate() {
        let id = format!("{tag}{i:02}");
        let b = match op {
            Op::Write { path, content } => block(
                &id,
                &[
                    ("action", "file_write"),
                    ("path", any_path(*path)),
                    ("content", content),
                ],
            ),
            Op::Create { path, content } => block(
                &id,
                &[
                    ("action", "file_create"),
                    ("path", any_path(*path)),
                    ("content", content),
                ],
            ),
            Op::Append { path, content } => block(
                &id,
                &[
                    ("action", "file_append"),
                    ("path", any_path(*path)),
                    ("content", content),
                ],
            ),
            Op::Replace { path, old, new } => block(
                &id,
                &[
                    ("action", "file_replace_text"),
                    ("path", any_path(*path)),
                    ("old_text", WORDS[*old]),
                    ("new_text", new),
                ],
            ),
            Op::Delete { path } => {
                block(&id, &[("action", "file_delete"), ("path", any_path(*path))])
            }
            Op::Move { from, to } => block(
                &id,
                &[
                    ("action", "file_move"),
                    ("old_path", any_path(*from)),
                    ("new_path", any_path(*to)),
                ],
            ),
            Op::Exec { path, delete } => {
                let rel = any_path(*path);
                let code = if *delete {
                    format!("rm -f '{rel}'")
                } else {
                    format!("[ -f '{rel}' ] && echo appended >> '{rel}' || true")
                };
                block(
                    &id,
                    &[("action", "exec"), ("lang", "bash"), ("code", &code)],
                )
            }
        };
        out.push_str(&b);
    }
    out
}

fn setup(init: &Initial) -> TestRepo {
    let repo = TestRepo::new();
    repo.write(".gitignore", "*.log\nignored/\n");
    for (path, content) in TRACKED.iter().zip(&init.files) {
        if let Some(c) = content {
            repo.write(path, c);
        }
    }
    if init.exec && init.files[4].is_some() {
        repo.set_executable("x.sh");
    }
    if let Some(t) = init.link {
        std::os::unix::fs::symlink(LINK_TARGETS[t], repo.path().join(LINK)).unwrap();
    }
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "initial"]);
    repo
}

fn lstat(repo: &TestRepo, rel: &str) -> Option<std::fs::Metadata> {
    std::fs::symlink_metadata(repo.path().join(rel)).ok()
}

/// True when `rel` can be created: nothing there, and no file where a parent directory goes.
fn creatable(repo: &TestRepo, rel: &str) -> bool {
    if lstat(repo, rel).is_some() {
        return false;
    }
    let mut p = std::path::Path::new(rel);
    while let Some(parent) = p.parent() {
        if parent.as_os_str().is_empty() {
            break;
        }
        if let Some(md) = lstat(repo, parent.to_str().unwrap()) {
            if !md.is_dir() {
                return false;
            }
        }
        p = parent;
    }
    true
}

fn stage(repo: &TestRepo, rel: &str) {
    // Errors (an untracked path that vanished, …) leave the index as it is, like a user's
    // failed `git add` would.
    let _ = repo.git_output(&["add", "-A", "--", rel]);
}

fn do_work(repo: &TestRepo, work: &[Work]) {
    for w in work {
        match w {
            Work::Modify {
                path,
                content,
                stage: s,
            } => {
                let rel = any_path(*path);
                if lstat(repo, rel).is_some_and(|m| m.is_file()) {
                    repo.write(rel, content);
                    if *s {
                        stage(repo, rel);
                    }
                }
            }
            Work::Delete { path, stage: s } => {
                let rel = any_path(*path);
                if lstat(repo, rel).is_some_and(|m| !m.is_dir()) {
                    std::fs::remove_file(repo.path().join(rel)).unwrap();
                    if *s {
                        stage(repo, rel);
                    }
                }
            }
            Work::Rename { from, to, staged } => {
                let (from, to) = (any_path(*from), NEW[*to]);
                if lstat(repo, from).is_some_and(|m| !m.is_dir()) && creatable(repo, to) {
                    if *staged {
                        let _ = repo.git_output(&["mv", "--", from, to]);
                    } else {
                        let dest = repo.path().join(to);
                        std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
                        std::fs::rename(repo.path().join(from), dest).unwrap();
                    }
                }
            }
            Work::Chmod { path, stage: s } => {
                let rel = any_path(*path);
                if let Some(md) = lstat(repo, rel).filter(|m| m.is_file()) {
                    let mode = md.permissions().mode() ^ 0o111;
                    std::fs::set_permissions(
                        repo.path().join(rel),
                        std::fs::Permissions::from_mode(mode),
                    )
                    .unwrap();
                    if *s {
                        stage(repo, rel);
                    }
                }
            }
            Work::Symlink {
                path,
                target,
                stage: s,
            } => {
                let rel = any_path(*path);
                let ok = match lstat(repo, rel) {
                    Some(m) if m.is_file() => {
                        std::fs::remove_file(repo.path().join(rel)).unwrap();
                        true
                    }
                    Some(_) => false,
                    None => creatable(repo, rel),
                };
                if ok {
                    let abs = repo.path().join(rel);
                    std::fs::create_dir_all(abs.parent().unwrap()).unwrap();
                    std::os::unix::fs::symlink(LINK_TARGETS[*target], abs).unwrap();
                    if *s {
                        stage(repo, rel);
                    }
                }
            }
            Work::Untracked {
                path,
                content,
                exec,
            } => {
                let rel = NEW[*path];
                if creatable(repo, rel) {
                    repo.write(rel, content);
                    if *exec {
                        repo.set_executable(rel);
                    }
                }
            }
            Work::Ignored { path, content } => {
                let rel = IGNORED[*path];
                if creatable(repo, rel) {
                    repo.write(rel, content);
                }
            }
            Work::AddNew { path, content } => {
                let rel = NEW[*path];
                if creatable(repo, rel) {
                    repo.write(rel, content);
                    stage(repo, rel);
                }
            }
            Work::RmCached { path } => {
                let _ = repo.git_output(&["rm", "-q", "--cached", "--", TRACKED[*path]]);
            }
        }
    }
}

fn code(out: &std::process::Output) -> i32 {
    out.status.code().unwrap_or(-1)
}

fn explain(out: &std::process::Output) -> String {
    format!(
        "exit {}\nstdout:\n{}\nstderr:\n{}",
        code(out),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// `state` without empty directories (see the module docs).
fn comparable(mut s: State) -> State {
    let dirs: Vec<String> = s
        .files
        .keys()
        .filter(|k| k.ends_with('/'))
        .cloned()
        .collect();
    for d in dirs {
        if !s
            .files
            .keys()
            .any(|k| !k.ends_with('/') && k.starts_with(&d))
        {
            s.files.remove(&d);
        }
    }
    s
}

/// What undo and redo promise to restore: HEAD (and the branch it is on), the index and every
/// file, and therefore git's status. (Refs under `refs/clada/` and notes legitimately
/// differ: undo keeps what redo needs.)
fn worktree_view(s: &State) -> (String, String, String, Vec<String>) {
    let s = comparable(s.clone());
    (
        s.head,
        s.index,
        s.status,
        s.files
            .iter()
            .map(|(k, (mode, bytes))| format!("{k} {mode:o} {}", bytes.escape_ascii()))
            .collect(),
    )
}

/// Applies `ops`; returns whether an AI commit was made.
fn apply(repo: &TestRepo, ops: &[Op], tag: &str) -> Result<bool, TestCaseError> {
    let out = repo.apply(&reply(ops, tag), &["--exec", "allow"]);
    prop_assert!(
        [0, 1, 3].contains(&code(&out)),
        "apply must succeed, partly fail or refuse: {}",
        explain(&out)
    );
    if code(&out) == 3 {
        return Ok(false);
    }
    let report = TestRepo::report(&out);
    Ok(report.get("gitCommit").and_then(|c| c.as_str()).is_some())
}

fn config() -> ProptestConfig {
    ProptestConfig {
        max_shrink_iters: 200,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    /// apply∘undo is the identity; undo∘redo gives back the state after the apply.
    #[test]
    fn apply_undo_redo_round_trip(
        init in initial(),
        work in prop::collection::vec(work(), 0..7),
        ops in prop::collection::vec(op(), 1..5),
    ) {
        let repo = setup(&init);
        do_work(&repo, &work);
        let before = repo.state();
        // A write through a symlink changes its target.
        let mut named: Vec<String> = reply_paths(&ops).iter().map(|p| p.to_string()).collect();
        for n in named.clone() {
            if let Ok(target) = std::fs::read_link(repo.path().join(&n)) {
                let parent = std::path::Path::new(&n).parent().unwrap_or(std::path::Path::new(""));
                named.push(parent.join(target).to_string_lossy().into_owned());
            }
        }
        if !apply(&repo, &ops, "p")? {
            // Nothing committed: whatever the reply changed (untracked or ignored files,
            // or nothing at all) is undoable all the same.
            let out = repo.clada(&["--format", "json", "undo"]);
            prop_assert!([0, 3].contains(&code(&out)), "undo: {}", explain(&out));
            prop_assert_eq!(worktree_view(&repo.state()), worktree_view(&before), "apply∘undo (uncommitted)");
            return Ok(());
        }
        let applied = repo.state();
        repo.assert_fsck();
        // The AI commit holds only paths the reply changed (never the user's work).

        for p in repo.git(&["diff-tree", "--no-commit-id", "--name-only", "-r", "HEAD"]).lines() {
            prop_assert!(
                named.iter().any(|n| n == p || p.starts_with(&format!("{n}/"))),
                "the AI commit changed {} which the reply did not name ({:?})", p, named
            );
        }

        let out = repo.clada(&["--format", "json", "undo"]);
        prop_assert_eq!(code(&out), 0, "undo: {}", explain(&out));
        let undone = repo.state();
        prop_assert_eq!(worktree_view(&undone), worktree_view(&before), "apply∘undo");

        let out = repo.clada(&["--format", "json", "redo"]);
        prop_assert_eq!(code(&out), 0, "redo: {}", explain(&out));
        let redone = repo.state();
        prop_assert_eq!(worktree_view(&redone), worktree_view(&applied), "undo∘redo");
        repo.assert_fsck();
    }
}

/// One step of a history: an apply (after some uncommitted work, so snapshots happen) or a
/// human commit of some work.
#[derive(Debug, Clone)]
enum Step {
    Apply { work: Vec<Work>, ops: Vec<Op> },
    Human { work: Vec<Work> },
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        2 => (prop::collection::vec(work(), 0..3), prop::collection::vec(op(), 1..4))
            .prop_map(|(work, ops)| Step::Apply { work, ops }),
        1 => prop::collection::vec(work(), 1..4).prop_map(|work| Step::Human { work }),
    ]
}

fn make_history(repo: &TestRepo, steps: &[Step]) -> Result<(), TestCaseError> {
    for (n, s) in steps.iter().enumerate() {
        match s {
            Step::Apply { work, ops } => {
                do_work(repo, work);
                apply(repo, ops, &format!("h{n}"))?;
            }
            Step::Human { work } => {
                do_work(repo, work);
                repo.git(&["add", "-A"]);
                repo.git(&["commit", "-q", "--allow-empty", "-m", &format!("human {n}")]);
            }
        }
    }
    Ok(())
}

fn squash_args(mode: usize) -> Vec<&'static str> {
    match mode {
        0 => vec!["--mode", "auto_ai"],
        1 => vec!["--mode", "ai_messages"],
        // The fixed test dates lie in the past: every AI commit, then none.
        2 => vec!["--mode", "days", "--days", "100000"],
        3 => vec!["--mode", "hours", "--hours", "1"],
        _ => vec!["--mode", "msg_contains", "--msg-target", "Clada-Version"],
    }
}

proptest! {
    #![proptest_config(config())]

    /// squash keeps the final tree and never touches the index or the worktree; a refusal
    /// changes nothing at all; undo takes the squash back.
    #[test]
    fn squash_keeps_the_final_tree(
        init in initial(),
        steps in prop::collection::vec(step(), 1..6),
        work in prop::collection::vec(work(), 0..5),
        mode in 0usize..5,
        contiguous in any::<bool>(),
    ) {
        let repo = setup(&init);
        make_history(&repo, &steps)?;
        do_work(&repo, &work);
        let before = repo.state();
        let tree = repo.git(&["rev-parse", "HEAD^{tree}"]);
        let mut args = vec!["--format", "json", "squash"];
        args.extend(squash_args(mode));
        if !contiguous {
            args.push("--no-contiguous-only");
        }
        let out = repo.clada(&args);
        prop_assert!([0, 3].contains(&code(&out)), "squash: {}", explain(&out));
        let after = repo.state();
        if code(&out) == 3 {
            prop_assert_eq!(comparable(after), comparable(before), "a refusal changes nothing");
            return Ok(());
        }
        prop_assert_eq!(repo.git(&["rev-parse", "HEAD^{tree}"]), tree, "final tree");
        prop_assert_eq!(&comparable(after.clone()).files, &comparable(before.clone()).files);
        prop_assert_eq!(&after.index, &before.index);
        prop_assert_eq!(&after.status, &before.status);
        prop_assert!(after.head.starts_with("refs/heads/main "), "{}", after.head);
        repo.assert_fsck();

        // …and undo takes it back exactly.
        let out = repo.clada(&["--format", "json", "undo"]);
        if before.status.lines().any(|l| !l.starts_with("??")) {
            // Undo refuses while tracked files are modified; that refusal changes nothing.
            prop_assert!([0, 3].contains(&code(&out)), "undo: {}", explain(&out));
            if code(&out) == 3 {
                prop_assert_eq!(comparable(repo.state()), comparable(after));
                return Ok(());
            }
        }
        prop_assert_eq!(code(&out), 0, "undo of the squash: {}", explain(&out));
        prop_assert_eq!(worktree_view(&repo.state()), worktree_view(&before));
    }
}

proptest! {
    #![proptest_config(config())]

    /// Any walk of step-back/step-forward, ended by step-forward --all, is the identity:
    /// HEAD, branch, refs, index, every file (untracked and ignored included).
    #[test]
    fn step_walks_return_exactly(
        init in initial(),
        steps in prop::collection::vec(step(), 1..4),
        work in prop::collection::vec(work(), 0..7),
        moves in prop::collection::vec(prop::bool::weighted(0.7), 1..6),
    ) {
        let repo = setup(&init);
        make_history(&repo, &steps)?;
        do_work(&repo, &work);
        let before = repo.state();
        for back in moves {
            let state = repo.state();
            let out = if back {
                repo.clada(&["--format", "json", "step-back"])
            } else {
                repo.clada(&["--format", "json", "step-forward"])
            };
            prop_assert!([0, 3].contains(&code(&out)), "step: {}", explain(&out));
            if code(&out) == 3 {
                prop_assert_eq!(
                    comparable(repo.state()),
                    comparable(state),
                    "a refused step changes nothing"
                );
            } else if back {
                // While stepped back the checkout is clean apart from ignored files.
                prop_assert_eq!(repo.status(), "", "after step-back");
            }
        }
        if !repo.git(&["for-each-ref", "refs/clada/step/"]).is_empty() {
            let out = repo.clada(&["--format", "json", "step-forward", "--all"]);
            prop_assert_eq!(code(&out), 0, "step-forward --all: {}", explain(&out));
        }
        prop_assert_eq!(comparable(repo.state()), comparable(before));
        repo.assert_fsck();
    }
}

/// Issue 22: CRLF text (lines of words joined by CRLF, maybe a final CRLF).
fn crlf_content() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(prop::sample::select(WORDS), 1..4),
        any::<bool>(),
    )
        .prop_map(|(words, newline)| {
            let mut s = words.join("\r\n");
            if newline {
                s.push_str("\r\n");
            }
            s
        })
}

/// A reply block over the tracked files: a move to a new path, a delete, or a text
/// replacement with multi-line new text.
#[derive(Debug, Clone)]
enum DirtyOp {
    Move { from: usize, to: usize },
    Delete { path: usize },
    Replace { path: usize, old: usize, new: usize },
}

fn dirty_op() -> impl Strategy<Value = DirtyOp> {
    prop_oneof![
        2 => (0..TRACKED.len(), 0..NEW.len()).prop_map(|(from, to)| DirtyOp::Move { from, to }),
        1 => (0..TRACKED.len()).prop_map(|path| DirtyOp::Delete { path }),
        2 => (0..TRACKED.len() + NEW.len(), 0..WORDS.len(), 0..WORDS.len())
            .prop_map(|(path, old, new)| DirtyOp::Replace { path, old, new }),
    ]
}

fn dirty_reply(ops: &[DirtyOp]) -> String {
    let mut out = String::new();
    for (i, op) in ops.iter().enumerate() {
        let id = format!("q{i:02}");
        out.push_str(&match op {
            DirtyOp::Move { from, to } => block(
                &id,
                &[
                    ("action", "file_move"),
                    ("old_path", TRACKED[*from]),
                    ("new_path", NEW[*to]),
                ],
            ),
            DirtyOp::Delete { path } => {
                block(&id, &[("action", "file_delete"), ("path", TRACKED[*path])])
            }
            DirtyOp::Replace { path, old, new } => block(
                &id,
                &[
                    ("action", "file_replace_text"),
                    ("path", any_path(*path)),
                    ("old_text", WORDS[*old]),
                    ("new_text", &format!("{}\nadded by the AI", WORDS[*new])),
                ],
            ),
        });
    }
    out
}

/// The results' success flags of an apply, in order.
fn outcomes(out: &std::process::Output) -> Vec<bool> {
    TestRepo::report(out)["results"]
        .as_array()
        .map(|r| r.iter().map(|x| x["success"] == true).collect())
        .unwrap_or_default()
}

proptest! {
    #![proptest_config(config())]

    /// Moves, deletes and edits of files holding the user's unstaged edits, in CRLF files:
    /// the AI commit is exactly what the same reply commits on a clean checkout (never the
    /// user's work), CRLF files get no bare LF, and apply∘undo is the identity.
    #[test]
    fn dirty_moves_deletes_and_crlf_edits_commit_only_the_ais_change(
        files in prop::collection::vec(crlf_content(), TRACKED.len()),
        edits in prop::collection::vec((0..TRACKED.len(), crlf_content()), 0..4),
        ops in prop::collection::vec(dirty_op(), 1..5),
    ) {
        let make = || {
            let repo = TestRepo::new();
            for (path, content) in TRACKED.iter().zip(&files) {
                repo.write(path, content);
            }
            repo.git(&["add", "-A"]);
            repo.git(&["commit", "-q", "-m", "initial"]);
            repo
        };
        let (clean, dirty) = (make(), make());
        for (path, content) in &edits {
            dirty.write(TRACKED[*path], content);
        }
        let before = dirty.state();
        let reply = dirty_reply(&ops);
        let out_clean = clean.apply(&reply, &[]);
        let out_dirty = dirty.apply(&reply, &[]);
        prop_assert!([0, 1].contains(&code(&out_dirty)), "apply: {}", explain(&out_dirty));
        let report = TestRepo::report(&out_dirty);
        let committed = report.get("gitCommit").is_some();
        if committed && report.get("snapshotCommit").is_none()
            && outcomes(&out_clean) == outcomes(&out_dirty)
        {
            // A path whose AI change overlapped the user's edit stays uncommitted (⏸,
            // `Clada-Uncommitted`, DESIGN §6.3): the commit keeps HEAD's version there.
            let uncommitted: Vec<String> = dirty
                .git(&["log", "-1", "--format=%(trailers:key=Clada-Uncommitted,valueonly)"])
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(String::from)
                .collect();
            let tree = |repo: &TestRepo, rev: &str| -> Vec<String> {
                repo.git(&["ls-tree", "-r", rev])
                    .lines()
                    .filter(|l| !uncommitted.iter().any(|u| l.ends_with(&format!("\t{u}"))))
                    .map(String::from)
                    .collect()
            };
            prop_assert_eq!(
                tree(&dirty, "HEAD"),
                tree(&clean, "HEAD"),
                "the AI commit differs from the reply's change alone: {}", report
            );
            for u in &uncommitted {
                prop_assert_eq!(
                    dirty.git(&["ls-tree", "-r", "HEAD", "--", u]),
                    dirty.git(&["ls-tree", "-r", "HEAD^", "--", u]),
                    "{} is listed uncommitted but the commit changed it", u
                );
            }
        }
        if committed {
            for p in dirty.git(&["diff-tree", "--no-commit-id", "--name-only", "-r", "HEAD"]).lines() {
                let bytes = dirty.git_output(&["show", &format!("HEAD:{p}")]).stdout;
                let lf = bytes.iter().filter(|&&b| b == b'\n').count();
                let crlf = bytes.windows(2).filter(|w| w == b"\r\n").count();
                prop_assert!(crlf == 0 || lf == crlf, "{} has mixed line endings: {:?}", p, bytes.escape_ascii().to_string());
            }
            dirty.assert_fsck();
            let out = dirty.clada(&["--format", "json", "undo"]);
            prop_assert_eq!(code(&out), 0, "undo: {}", explain(&out));
            prop_assert_eq!(worktree_view(&dirty.state()), worktree_view(&before), "apply∘undo");
        }
    }
}
