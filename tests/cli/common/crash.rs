//! Crash harness shared by the fail-point tests and the kill-at-random loop: a set of
//! operations (apply, undo, redo, squash, step-back, step-forward), each with a prepared
//! repository to start from and the state a clean run ends in, and the check that a
//! repository recovered from a crash is exactly in one of those two states, with nothing
//! left behind (no lock file, no journal, `git fsck` clean).

use std::path::Path;
use std::process::Command;

use super::{assert_ok as ok, block, TestRepo};

/// One operation to crash, from a fixed starting repository.
pub struct Op {
    pub name: &'static str,
    /// The git-clada arguments (the reply comes from `stdin`).
    pub args: Vec<&'static str>,
    pub stdin: Option<String>,
    /// The repository before the operation (copied for every run).
    pub template: TestRepo,
    /// Key state before and after a clean run.
    pub before: KeyState,
    pub after: KeyState,
    /// Run again after the recovery (a watcher restarted): it must then end exactly in
    /// `after`, each block applied once.
    pub restart: bool,
}

/// What must be exactly "before" or "after": HEAD and its branch, the index, every worktree
/// file, the status, and the refs that carry meaning (branches, step-back state, parked
/// work, redo). Bookkeeping refs (notes, apply and squash records) are left out: an
/// interrupted operation may leave an unreferenced record, which changes nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyState {
    pub head: String,
    pub index: String,
    pub flags: String,
    pub files: std::collections::BTreeMap<String, (u32, Vec<u8>)>,
    pub status: String,
    pub refs: String,
}

pub fn key_state(repo: &TestRepo) -> KeyState {
    let s = repo.state();
    KeyState {
        head: s.head,
        index: s.index,
        flags: repo.git(&["ls-files", "-v"]),
        files: s.files,
        status: s.status,
        refs: repo.git(&[
            "for-each-ref",
            "--format=%(refname) %(objectname)",
            "refs/heads",
            "refs/clada/step",
            "refs/clada/stash",
            "refs/clada/redo",
        ]),
    }
}

/// `state` with HEAD's commit id replaced by the trees of its history, for operations whose
/// commit message names where the repository is (a watcher names its file's absolute
/// path), so a run in a copy makes another commit id for the same commit.
pub fn without_commit_id(mut state: KeyState, repo: &TestRepo) -> KeyState {
    let head = repo.head();
    // The trees of the first-parent history (a snapshot commit in between names the file
    // too).
    let stand_in = format!(
        "trees {}",
        repo.git(&["log", "--first-parent", "--format=%T", "HEAD"])
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    );
    state.head = state.head.replace(&head, &stand_in);
    state.refs = state.refs.replace(&head, &stand_in);
    state
}

/// The key state `op` is compared by.
fn op_state(op: &Op, repo: &TestRepo) -> KeyState {
    match op.restart {
        true => without_commit_id(key_state(repo), repo),
        false => key_state(repo),
    }
}

/// A new repository holding a copy of `template` (worktree and `.git`).
pub fn copy_of(template: &TestRepo) -> TestRepo {
    let repo = TestRepo {
        dir: tempfile::tempdir().expect("tempdir"),
        home: tempfile::tempdir().expect("tempdir"),
        env: template.env.clone(),
    };
    let status = Command::new("cp")
        .arg("-a")
        .arg(format!("{}/.", template.path().display()))
        .arg(repo.path())
        .status()
        .expect("cp");
    assert!(status.success());
    repo
}

impl Op {
    /// The command for one run of the operation in `repo`.
    pub fn command(&self, repo: &TestRepo) -> Command {
        let mut cmd = repo.clada_cmd();
        cmd.args(&self.args);
        cmd
    }

    /// Runs the operation to the end in `repo`.
    pub fn run(&self, repo: &TestRepo, env: &[(&str, &str)]) -> std::process::Output {
        let mut cmd = self.command(repo);
        cmd.envs(env.iter().copied());
        match &self.stdin {
            Some(input) => super::spawn_fed(cmd, input)
                .wait_with_output()
                .expect("wait git-clada"),
            None => cmd.output().expect("run git-clada"),
        }
    }
}

/// The reply of the n-th apply: an edit of a file the user also changed (staged and
/// unstaged), a rewritten tracked file, an overwritten untracked file and a new file.
pub fn reply(n: usize) -> String {
    [
        block(
            "r1",
            &[
                ("action", "file_replace_text"),
                ("path", "notes.md"),
                ("old_text", "n2 unstaged"),
                ("new_text", &format!("n2 unstaged, AI {n}")),
            ],
        ),
        block(
            "r4",
            &[
                ("action", "file_write"),
                ("path", "src/lib.rs"),
                ("content", &format!("pub fn a() -> u32 {{ {n} }}\n")),
            ],
        ),
        block(
            "r2",
            &[
                ("action", "file_write"),
                ("path", "scratch.txt"),
                ("content", &format!("AI {n}\n")),
            ],
        ),
        block(
            "r3",
            &[
                ("action", "file_write"),
                ("path", &format!("src/new{n}.rs")),
                ("content", "// new\n"),
            ],
        ),
    ]
    .concat()
}

/// A repository with uncommitted work of every kind: staged and unstaged edits, an
/// untracked file the reply overwrites, one it leaves alone, an ignored file.
pub fn base_repo() -> TestRepo {
    let repo = TestRepo::with_files(&[
        ("src/lib.rs", "pub fn a() {}\n"),
        ("notes.md", "n0\n"),
        ("old.txt", "old\n"),
        (".gitignore", "*.log\n"),
    ]);
    repo.write("notes.md", "n1 staged\n");
    repo.git(&["add", "notes.md"]);
    repo.write("notes.md", "n1 staged\nn2 unstaged\n");
    repo.write("scratch.txt", "untracked, will be overwritten\n");
    repo.write("keep.txt", "untracked, left alone\n");
    repo.write("app.log", "ignored\n");
    repo
}

/// A repository whose user edited files the reply moves and deletes (and one it moves into
/// a new folder), staged and unstaged.
pub fn dirty_move_repo() -> TestRepo {
    let repo = TestRepo::with_files(&[
        ("src/old.rs", "fn old() {}\n\nfn keep() {}\n"),
        ("gone.txt", "g0\n"),
        ("bench", "bench\n"),
        ("staged.txt", "s0\n"),
    ]);
    repo.write("src/old.rs", "fn old() { /* mine */ }\n\nfn keep() {}\n");
    repo.write("gone.txt", "g1 mine\n");
    repo.write("staged.txt", "s1\n");
    repo.git(&["add", "staged.txt"]);
    repo.write("bench", "bench, mine\n");
    repo
}

pub fn dirty_move_reply() -> String {
    [
        block(
            "d1",
            &[
                ("action", "file_move"),
                ("old_path", "src/old.rs"),
                ("new_path", "src/new/moved.rs"),
            ],
        ),
        block(
            "d2",
            &[
                ("action", "file_replace_text"),
                ("path", "src/new/moved.rs"),
                ("old_text", "fn keep() {}"),
                ("new_text", "fn keep() { /* AI */ }"),
            ],
        ),
        block("d3", &[("action", "file_delete"), ("path", "gone.txt")]),
        block(
            "d4",
            &[
                ("action", "file_move"),
                ("old_path", "bench"),
                ("new_path", "bench/bench"),
            ],
        ),
    ]
    .concat()
}

/// CRLF files, one with uncommitted work.
pub fn crlf_repo() -> TestRepo {
    let repo = TestRepo::new();
    repo.write_bytes("win.txt", b"one\r\ntwo\r\nthree\r\n");
    repo.write_bytes("dos.ini", b"[a]\r\nx=1\r\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "initial"]);
    repo.write_bytes("dos.ini", b"[a]\r\nx=1\r\ny=mine\r\n");
    repo
}

pub fn crlf_reply() -> String {
    [
        block(
            "c1",
            &[
                ("action", "file_replace_text"),
                ("path", "win.txt"),
                ("old_text", "two"),
                ("new_text", "two\nand a half"),
            ],
        ),
        block(
            "c2",
            &[
                ("action", "file_replace_text"),
                ("path", "dos.ini"),
                ("old_text", "[a]"),
                ("new_text", "[a]\nz=0"),
            ],
        ),
    ]
    .concat()
}

fn make_op(
    name: &'static str,
    args: &[&'static str],
    stdin: Option<String>,
    template: TestRepo,
) -> Op {
    let restart = name.starts_with("watch");
    let before = match restart {
        true => without_commit_id(key_state(&template), &template),
        false => key_state(&template),
    };
    let clean = copy_of(&template);
    let mut op = Op {
        name,
        args: args.to_vec(),
        stdin,
        template,
        before,
        after: key_state(&clean),
        restart,
    };
    ok(&op.run(&clean, &[]), name);
    op.after = op_state(&op, &clean);
    assert_ne!(op.before, op.after, "{name} changes something");
    op
}

/// Every operation the crash tests cover, with its starting repository.
pub fn ops() -> Vec<Op> {
    let apply_args: &[&'static str] = &["--format", "json", "apply", "-"];
    let mut out = Vec::new();

    let repo = base_repo();
    out.push(make_op("apply", apply_args, Some(reply(1)), repo));

    // Issue 22: moves and deletes of files holding the user's uncommitted edits, and
    // edits of CRLF files with multi-line new text.
    let repo = dirty_move_repo();
    out.push(make_op(
        "apply (dirty move/delete)",
        apply_args,
        Some(dirty_move_reply()),
        repo,
    ));
    let repo = crlf_repo();
    out.push(make_op(
        "apply (CRLF)",
        apply_args,
        Some(crlf_reply()),
        repo,
    ));

    // A watcher killed anywhere and restarted applies each block once.
    let repo = base_repo();
    repo.write(".gitignore", "*.log\nwatched.md\n");
    repo.git(&["add", ".gitignore"]);
    repo.write("watched.md", &format!("Reply:\n{}", reply(1)));
    out.push(make_op(
        "watch (restarted)",
        &["watch", "--once", "--poll", "--exec", "deny", "watched.md"],
        None,
        repo,
    ));

    // As most clones are: refs packed, so every ref transaction locks packed-refs too.
    let repo = base_repo();
    ok(&repo.apply(&reply(1), &[]), "setup apply");
    repo.git(&["pack-refs", "--all"]);
    out.push(make_op(
        "apply (packed refs)",
        apply_args,
        Some(reply(2)),
        repo,
    ));

    let repo = base_repo();
    ok(&repo.apply(&reply(1), &[]), "setup apply");
    out.push(make_op("undo", &["undo"], None, copy_of(&repo)));

    ok(&repo.clada(&["undo"]), "setup undo");
    out.push(make_op("redo", &["redo"], None, repo));

    let repo = base_repo();
    ok(&repo.apply(&reply(1), &[]), "setup apply 1");
    ok(&repo.apply(&reply(2), &[]), "setup apply 2");
    out.push(make_op(
        "squash",
        &["squash", "--mode", "auto_ai"],
        None,
        copy_of(&repo),
    ));

    // Stepping: a history of three commits and uncommitted work to park.
    let repo = base_repo();
    ok(&repo.apply(&reply(1), &[]), "setup apply 1");
    ok(&repo.apply(&reply(2), &[]), "setup apply 2");
    repo.write("notes.md", "work while stepping\n");
    repo.write("untracked-dir/u.txt", "untracked\n");
    out.push(make_op("step-back", &["step-back"], None, copy_of(&repo)));

    ok(&repo.clada(&["step-back"]), "setup step-back");
    ok(&repo.clada(&["step-back"]), "setup step-back 2");
    out.push(make_op(
        "step-forward",
        &["step-forward"],
        None,
        copy_of(&repo),
    ));
    out.push(make_op(
        "step-forward-all",
        &["step-forward", "--all"],
        None,
        repo,
    ));
    out
}

/// Lock files under `.git` (git-clada's own `clada.lock` and `clada-watch.lock`, `flock`
/// files, excepted).
pub fn lock_files(git_dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![git_dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.to_string_lossy().ends_with(".lock")
                && !p.ends_with("clada.lock")
                && !p.ends_with("clada-watch.lock")
            {
                out.push(p.display().to_string());
            }
        }
    }
    out
}

/// What a crash ended in, after recovery.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Outcome {
    Before,
    After,
}

/// Temporary files of an atomic write (`.<name>.clada-tmp-<pid>-<n>`) a kill left in the
/// worktree; the state comparison is made without them, and the caller reports them.
pub fn temp_files(state: &mut KeyState) -> Vec<String> {
    let tmp: Vec<String> = state
        .files
        .keys()
        .filter(|k| k.contains(".clada-tmp-"))
        .cloned()
        .collect();
    for k in &tmp {
        state.files.remove(k);
    }
    state.status = state
        .status
        .lines()
        .filter(|l| !l.contains(".clada-tmp-"))
        .map(|l| format!("{l}\n"))
        .collect();
    tmp
}

/// After a crash of `op` in `repo`: recovers the way a user would (`git clada undo` when
/// `git clada status` reports an interrupted operation), then checks the repository is
/// exactly before or after, nothing is left behind and git is happy. Returns the outcome
/// and whether a recovery ran; panics with `what` on any violation.
pub fn recover_and_check(op: &Op, repo: &TestRepo, what: &str) -> (Outcome, bool) {
    let (outcome, recovered, tmp) = recover_and_check_tmp(op, repo, what);
    assert!(tmp.is_empty(), "{what}: temporary files left: {tmp:?}");
    (outcome, recovered)
}

/// [`recover_and_check`], except that temporary files left in the worktree are returned
/// instead of failing the check.
pub fn recover_and_check_tmp(op: &Op, repo: &TestRepo, what: &str) -> (Outcome, bool, Vec<String>) {
    let status = repo.clada(&["--format", "json", "status"]);
    ok(&status, &format!("{what}: status"));
    let report: serde_json::Value = serde_json::from_slice(&status.stdout).expect("status json");
    let interrupted = !report["interrupted"].is_null();
    if interrupted {
        let undo = repo.clada(&["undo"]);
        ok(&undo, &format!("{what}: recovery by undo"));
        let again = repo.clada(&["--format", "json", "status"]);
        let again: serde_json::Value = serde_json::from_slice(&again.stdout).expect("json");
        assert!(
            again["interrupted"].is_null(),
            "{what}: still interrupted after undo: {again}"
        );
    }
    let git_dir = repo.path().join(".git");
    let locks = lock_files(&git_dir);
    assert!(locks.is_empty(), "{what}: lock files left: {locks:?}");
    for journal in ["transaction.json", "restore.json"] {
        assert!(
            !git_dir.join("clada").join(journal).exists(),
            "{what}: {journal} left"
        );
    }
    repo.assert_fsck();
    let mut now = op_state(op, repo);
    let tmp = temp_files(&mut now);
    let outcome = if now == op.before {
        Outcome::Before
    } else if now == op.after {
        Outcome::After
    } else {
        panic!(
            "{what}: neither the state before nor after:\n{}",
            describe_difference(&now, &op.before, &op.after)
        );
    };
    // git itself works on the result: a commit can be made (and is then taken back).
    let commit = repo.git_output(&["commit", "-q", "--allow-empty", "-m", "probe"]);
    ok(&commit, &format!("{what}: git commit after recovery"));
    repo.git(&["reset", "-q", "--soft", "HEAD~1"]);
    (outcome, interrupted, tmp)
}

/// After a crash of a restartable `op` (a watcher) and its recovery: runs it again to the
/// end, and checks the repository is then exactly `after`: no block applied twice or lost.
pub fn restart_and_check(op: &Op, repo: &TestRepo, what: &str) {
    let out = op.run(repo, &[]);
    ok(&out, &format!("{what}: restart"));
    let mut now = op_state(op, repo);
    let tmp = temp_files(&mut now);
    assert!(
        tmp.is_empty(),
        "{what}: temporary files left after the restart: {tmp:?}"
    );
    assert!(
        now == op.after,
        "{what}: after the restart, not the state of one clean run:\n{}",
        describe_difference(&now, &op.before, &op.after)
    );
    repo.assert_fsck();
}

fn describe_difference(now: &KeyState, before: &KeyState, after: &KeyState) -> String {
    let mut out = String::new();
    for (label, other) in [("before", before), ("after", after)] {
        out.push_str(&format!("vs {label}:"));
        if now.head != other.head {
            out.push_str(&format!(" head {} != {};", now.head, other.head));
        }
        if now.index != other.index {
            out.push_str(" index;");
        }
        if now.flags != other.flags {
            out.push_str(" flags;");
        }
        if now.status != other.status {
            out.push_str(&format!(" status {:?} != {:?};", now.status, other.status));
        }
        if now.refs != other.refs {
            out.push_str(&format!(" refs {:?} != {:?};", now.refs, other.refs));
        }
        if now.files != other.files {
            let keys: Vec<&String> = now
                .files
                .keys()
                .chain(other.files.keys())
                .filter(|k| now.files.get(*k) != other.files.get(*k))
                .collect();
            out.push_str(&format!(" files {keys:?};"));
        }
        out.push('\n');
    }
    out
}
