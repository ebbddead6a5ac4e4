//! The index git-clada writes, held to the index git itself writes (issue 33).
//!
//! git-clada encodes the index file itself (for speed), so every state a user's index can be
//! in is a chance to write something git reads differently. Each case builds a random
//! repository state *with git itself* — intent-to-add, skip-worktree (by hand and by a
//! sparse checkout, with and without a sparse index), assume-unchanged, conflicted stages,
//! resolve-undo data, a split index, the untracked cache, the fsmonitor extension, index
//! version 4, an executable, a symlink, a submodule, a 4,095-byte path — runs one git-clada
//! operation, and compares with an oracle:
//!
//! - **apply, `git clada commit`, an MCP `edit`**: a copy of the repository taken before,
//!   where git itself staged the AI commit's paths (`git update-index --add --cacheinfo` /
//!   `--force-remove`, the user's assume-unchanged bit set again) and the branch was moved
//!   to the same commit;
//! - **undo**: the state recorded before the apply; **redo**, **step-back + step-forward**:
//!   the state recorded after it; **squash**: the state before the squash;
//! - **a conflicted index**: the operation refuses and the index file is unchanged.
//!
//! A state is what git says of the index: `ls-files --stage` with the flags git keeps on disk
//! (assume-unchanged, stage, intent-to-add, skip-worktree), `ls-files --resolve-undo`,
//! `status --porcelain=v2`, `diff --cached`, `diff`, `write-tree` (which trusts the
//! cache-tree: a wrong one gives a wrong tree) and the index version. `git fsck` must be
//! clean and `git ls-files --sparse` must read the file (git refuses an index out of order).
//!
//! Not compared, by design (docs/architecture.md, "What git-clada writes by hand"): the stat
//! data, and the extensions git-clada drops because git rebuilds them — the untracked cache,
//! the fsmonitor bitmap, the end-of-index and offset-table extensions, the split-index link
//! (written whole; git splits it again) — and where a sparse index is collapsed (git-clada
//! expands only the sparse directories above a path it writes; git collapses what it can on
//! its next write).
//!
//! `PROPTEST_CASES` sets the number of cases (CI: 200).

use crate::common;

use std::path::Path;
use std::process::{Command, Output, Stdio};

use common::{block, TestRepo};
use proptest::prelude::*;

/// Tracked files of every case (`x.sh` executable).
const BASE: &[(&str, &str)] = &[
    ("a.txt", "alpha\n"),
    ("d/b.txt", "beta\n"),
    ("d/e/c.txt", "gamma\n"),
    ("out/o.txt", "omega\n"),
    ("out/deep/p.txt", "pi\n"),
    ("x.sh", "#!/bin/sh\necho x\n"),
];
/// The files inside the sparse cone (`d/` and the root's files).
const IN_CONE: &[&str] = &["a.txt", "d/b.txt", "d/e/c.txt", "x.sh"];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sparse {
    No,
    Cone,
    ConeIndex,
}

#[derive(Debug, Clone)]
struct Setup {
    v4: bool,
    split: bool,
    untracked_cache: bool,
    fsmonitor: bool,
    sparse: Sparse,
    ita: bool,
    skip_worktree: Option<usize>,
    assume_unchanged: Option<usize>,
    symlink: bool,
    submodule: bool,
    long_path: bool,
    resolve_undo: bool,
    conflict: bool,
    staged: Option<usize>,
    unstaged: Option<usize>,
}

/// One edit a reply may make.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Edit {
    ReplaceA,
    ReplaceC,
    NewInCone,
    /// A new file inside `out/deep/` (a sparse directory with a sparse index).
    NewOutside,
    /// A tracked file outside the cone (not in the worktree when sparse).
    WriteOutside,
    DeleteB,
    /// The intent-to-add file, written (or created when there is none).
    WriteIta,
    AppendX,
}

const EDITS: &[Edit] = &[
    Edit::ReplaceA,
    Edit::ReplaceC,
    Edit::NewInCone,
    Edit::NewOutside,
    Edit::WriteOutside,
    Edit::DeleteB,
    Edit::WriteIta,
    Edit::AppendX,
];

impl Edit {
    fn path(self) -> &'static str {
        match self {
            Edit::ReplaceA => "a.txt",
            Edit::ReplaceC => "d/e/c.txt",
            Edit::NewInCone => "d/new.txt",
            Edit::NewOutside => "out/deep/new.txt",
            Edit::WriteOutside => "out/o.txt",
            Edit::DeleteB => "d/b.txt",
            Edit::WriteIta => "d/ita.txt",
            Edit::AppendX => "x.sh",
        }
    }

    fn block(self, id: &str, n: usize) -> String {
        let path = self.path();
        let text = format!("written by reply {n}\n");
        match self {
            Edit::ReplaceA => replace(id, path, "alpha", &format!("alpha {n}")),
            Edit::ReplaceC => replace(id, path, "gamma", &format!("gamma {n}")),
            Edit::DeleteB => block(id, &[("action", "file_delete"), ("path", path)]),
            Edit::AppendX => block(
                id,
                &[
                    ("action", "file_append"),
                    ("path", path),
                    ("content", &format!("echo {n}\n")),
                ],
            ),
            _ => block(
                id,
                &[("action", "file_write"), ("path", path), ("content", &text)],
            ),
        }
    }
}

fn replace(id: &str, path: &str, old: &str, new: &str) -> String {
    block(
        id,
        &[
            ("action", "file_replace_text"),
            ("path", path),
            ("old_text", old),
            ("new_text", new),
        ],
    )
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Apply,
    Undo,
    Redo,
    Step,
    Squash,
    Commit,
    McpEdit,
}

#[derive(Debug, Clone)]
struct Case {
    setup: Setup,
    edits: Vec<Edit>,
    op: Op,
}

fn setup() -> impl Strategy<Value = Setup> {
    let flags = (
        any::<bool>(),
        prop::bool::weighted(0.2),
        prop::bool::weighted(0.3),
        prop::bool::weighted(0.2),
        prop::sample::select(vec![
            Sparse::No,
            Sparse::No,
            Sparse::Cone,
            Sparse::ConeIndex,
        ]),
        prop::bool::weighted(0.4),
        prop::option::weighted(0.2, 0..IN_CONE.len()),
        prop::option::weighted(0.2, 0..IN_CONE.len()),
    );
    let more = (
        any::<bool>(),
        prop::bool::weighted(0.2),
        prop::bool::weighted(0.1),
        prop::bool::weighted(0.2),
        prop::bool::weighted(0.08),
        prop::option::weighted(0.3, 0..IN_CONE.len()),
        prop::option::weighted(0.3, 0..IN_CONE.len()),
    );
    (flags, more).prop_map(
        |(
            (v4, split, untracked_cache, fsmonitor, sparse, ita, skip_worktree, assume_unchanged),
            (symlink, submodule, long_path, resolve_undo, conflict, staged, unstaged),
        )| Setup {
            v4,
            split,
            untracked_cache,
            fsmonitor,
            sparse,
            ita,
            skip_worktree,
            assume_unchanged,
            symlink,
            submodule,
            long_path,
            resolve_undo,
            conflict,
            staged,
            unstaged,
        },
    )
}

fn case() -> impl Strategy<Value = Case> {
    (
        setup(),
        prop::sample::subsequence(EDITS.to_vec(), 1..=3),
        prop::sample::select(vec![
            Op::Apply,
            Op::Apply,
            Op::Undo,
            Op::Redo,
            Op::Step,
            Op::Squash,
            Op::Commit,
            Op::McpEdit,
        ]),
    )
        .prop_map(|(mut setup, mut edits, op)| {
            // A split index is decoded by gix, which misreads the entry after a path of
            // 4 KiB or more: git-clada refuses it with how to unsplit it (a test below).
            if setup.split {
                setup.long_path = false;
            }
            // git refuses to split a sparse index.
            if setup.sparse == Sparse::ConeIndex {
                setup.split = false;
            }
            // git 2.47 misreads a full index that holds an intent-to-add entry while
            // `index.sparse` is on (every entry shows as the first one), and a write outside
            // the cone makes the index full — in git's own hands too (`git update-index
            // --cacheinfo out/o.txt` leaves the same state). Nothing to compare there.
            if setup.sparse == Sparse::ConeIndex && setup.ita {
                edits.retain(|e| !matches!(e, Edit::NewOutside | Edit::WriteOutside));
                if edits.is_empty() {
                    edits.push(Edit::ReplaceC);
                }
            }
            // An MCP `edit` replaces text in one file (in the cone: `a.txt`, or `d/e/c.txt`
            // when the user hid `a.txt`).
            if op == Op::McpEdit {
                edits = vec![if setup.skip_worktree == Some(0) {
                    Edit::ReplaceC
                } else {
                    Edit::ReplaceA
                }];
            }
            // A file skip-worktree by hand is not in the user's view: the reply leaves it.
            if let Some(i) = setup.skip_worktree {
                edits.retain(|e| e.path() != IN_CONE[i]);
                if edits.is_empty() {
                    edits.push(Edit::NewInCone);
                }
            }
            // `git clada commit` leaves out a new file a hook stopped (issue 38 §3, a rule of
            // its own): here it commits changes to tracked files.
            if op == Op::Commit {
                let ita = setup.ita;
                edits.retain(|e| match e {
                    Edit::NewInCone | Edit::NewOutside => false,
                    Edit::WriteIta => ita,
                    _ => true,
                });
                if edits.is_empty() {
                    edits.push(Edit::AppendX);
                }
            }
            // The user's own work is on files the reply leaves alone, decided after every
            // rule above that adds an edit (an overlap is another
            // rule: DESIGN §6.3), and never on a file the user hid from git's view.
            let touched: Vec<&str> = edits.iter().map(|e| e.path()).collect();
            let hidden = [setup.skip_worktree, setup.assume_unchanged];
            for slot in [&mut setup.staged, &mut setup.unstaged] {
                if let Some(i) = *slot {
                    if touched.contains(&IN_CONE[i]) || hidden.contains(&Some(i)) {
                        *slot = None;
                    }
                }
            }
            if setup.staged == setup.unstaged {
                setup.unstaged = None;
            }
            // The step-back walk and long paths: issue 36 moves every worktree operation to
            // directory handles, which lifts the absolute-path limit step-back meets.
            if op == Op::Step {
                setup.long_path = false;
            }
            Case { setup, edits, op }
        })
}

/// Runs `program args` in `repo`'s environment; panics with its output on failure.
fn run(repo: &TestRepo, program: &str, args: &[&str]) -> String {
    let out = repo.command(program).args(args).output().expect("run");
    assert!(
        out.status.success(),
        "{program} {args:?} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Builds the case's repository with git.
fn build(s: &Setup) -> TestRepo {
    let repo = TestRepo::new();
    repo.git(&["config", "advice.sparseIndexExpanded", "false"]);
    for (p, c) in BASE {
        repo.write(p, c);
    }
    repo.set_executable("x.sh");
    if s.symlink {
        std::os::unix::fs::symlink("a.txt", repo.path().join("lnk")).expect("symlink");
    }
    let mut long = String::new();
    if s.long_path {
        long.push('L');
        while long.len() < 3_900 {
            long.push('/');
            long.push_str(&"x".repeat(200));
        }
        std::fs::create_dir_all(repo.path().join(&long)).expect("mkdir");
        long = format!("{long}/{}", "y".repeat(4_095 - long.len() - 1));
        // Too long as an absolute path: written relative to the worktree.
        run(&repo, "sh", &["-c", "echo long > \"$1\"", "sh", &long]);
    }
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "initial"]);
    if s.submodule {
        let head = repo.head();
        std::fs::create_dir_all(repo.path().join("sub")).expect("mkdir");
        let info = format!("160000,{head},sub");
        repo.git(&["update-index", "--add", "--cacheinfo", &info]);
        repo.git(&["commit", "-q", "-m", "a submodule"]);
    }
    if s.resolve_undo {
        // A conflict resolved by hand leaves resolve-undo data in the index.
        repo.git(&["checkout", "-q", "-b", "side"]);
        repo.write("d/b.txt", "beta side\n");
        repo.git(&["commit", "-q", "-am", "side"]);
        repo.git(&["checkout", "-q", "main"]);
        repo.write("d/b.txt", "beta main\n");
        repo.git(&["commit", "-q", "-am", "main"]);
        let _ = repo.git_output(&["merge", "-q", "side"]);
        repo.write("d/b.txt", "beta merged\n");
        repo.git(&["add", "d/b.txt"]);
        repo.git(&["commit", "-q", "--no-edit"]);
        assert!(!repo.git(&["ls-files", "--resolve-undo"]).is_empty());
    }
    configure_index(&repo, s);
    user_work(&repo, s);
    repo
}

/// The index's own settings and flags.
fn configure_index(repo: &TestRepo, s: &Setup) {
    match s.sparse {
        Sparse::No => {}
        Sparse::Cone => {
            repo.git(&["sparse-checkout", "set", "--cone", "d"]);
        }
        Sparse::ConeIndex => {
            repo.git(&["sparse-checkout", "set", "--cone", "--sparse-index", "d"]);
            let sparse = repo.git(&["ls-files", "--sparse"]);
            assert!(sparse.contains("out/\n"), "a sparse index: {sparse}");
        }
    }
    if let Some(i) = s.skip_worktree {
        repo.git(&["update-index", "--skip-worktree", IN_CONE[i]]);
    }
    if let Some(i) = s.assume_unchanged {
        repo.git(&["update-index", "--assume-unchanged", IN_CONE[i]]);
    }
    if s.untracked_cache {
        repo.git(&["config", "core.untrackedCache", "true"]);
        repo.git(&["update-index", "--untracked-cache"]);
    }
    if s.fsmonitor {
        // A hook that reports everything changed: git then writes the extension and still
        // looks at every file.
        let hook = repo.path().join(".git/fsmonitor-all");
        std::fs::write(&hook, "#!/bin/sh\nprintf 'token\\0/\\0'\n").expect("write hook");
        let mut perm = std::fs::metadata(&hook).expect("stat").permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
        std::fs::set_permissions(&hook, perm).expect("chmod");
        repo.git(&["config", "core.fsmonitor", hook.to_str().expect("utf-8")]);
        repo.git(&["config", "core.fsmonitorHookVersion", "2"]);
        repo.git(&["update-index", "--fsmonitor"]);
    }
    if s.split {
        repo.git(&["config", "core.splitIndex", "true"]);
        repo.git(&["update-index", "--split-index"]);
    }
    if s.v4 {
        repo.git(&["update-index", "--index-version", "4"]);
    }
}

/// The user's uncommitted work around the reply.
fn user_work(repo: &TestRepo, s: &Setup) {
    if s.ita {
        repo.write("d/ita.txt", "planned\n");
        repo.git(&["add", "-N", "d/ita.txt"]);
    }
    if let Some(i) = s.staged {
        repo.write(IN_CONE[i], "staged by the user\n");
        repo.git(&["add", IN_CONE[i]]);
    }
    if let Some(i) = s.unstaged {
        repo.write(IN_CONE[i], "changed by the user\n");
    }
    repo.write("untracked.txt", "the user's\n");
    if s.conflict {
        let id = |text: &str| {
            let out = repo
                .git_cmd()
                .args(["hash-object", "-w", "--stdin"])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .and_then(|mut c| {
                    use std::io::Write;
                    c.stdin.take().expect("stdin").write_all(text.as_bytes())?;
                    c.wait_with_output()
                })
                .expect("hash-object");
            String::from_utf8_lossy(&out.stdout).trim().to_string()
        };
        let info = format!(
            "100644 {} 1\tconf.txt\n100644 {} 2\tconf.txt\n100644 {} 3\tconf.txt\n",
            id("base\n"),
            id("ours\n"),
            id("theirs\n")
        );
        let mut child = repo
            .git_cmd()
            .args(["update-index", "--index-info"])
            .stdin(Stdio::piped())
            .spawn()
            .expect("update-index");
        {
            use std::io::Write;
            child
                .stdin
                .take()
                .expect("stdin")
                .write_all(info.as_bytes())
                .expect("write");
        }
        assert!(child.wait().expect("wait").success());
        repo.write("conf.txt", "<<<<<<< ours\n");
    }
}

/// What git says of the index (see the module doc).
#[derive(Debug, Clone, PartialEq, Eq)]
struct View {
    entries: String,
    resolve_undo: String,
    status: String,
    cached: String,
    worktree: String,
    tree: String,
    version: u32,
}

/// The flags git keeps in the index file: assume-unchanged, the stage, intent-to-add and
/// skip-worktree (git's `cache.h`); the rest of `--debug`'s flags live only in memory.
const ON_DISK_FLAGS: u32 = 0x8000 | 0x3000 | (1 << 29) | (1 << 30);

fn entries_with_flags(repo: &TestRepo) -> String {
    let debug = repo.git(&["ls-files", "--stage", "--debug"]);
    let mut out = String::new();
    for line in debug.lines() {
        if !line.starts_with(' ') {
            out.push_str(line);
        } else if let Some(flags) = line.split("flags: ").nth(1) {
            let bits = u32::from_str_radix(flags.trim(), 16).expect("hex flags");
            out.push_str(&format!(" flags {:x}\n", bits & ON_DISK_FLAGS));
        }
    }
    out
}

fn view(repo: &TestRepo) -> View {
    // Read before `git status`, which may write the index again.
    let data = std::fs::read(repo.path().join(".git/index")).expect("read the index");
    let mut version = u32::from_be_bytes([data[4], data[5], data[6], data[7]]);
    if data.windows(4).any(|w| w == b"link") {
        // A split index: git writes only the changed entries here, in the version they
        // need; git-clada writes the whole index (git splits it again).
        version = 0;
    }
    // git refuses an index out of order, with a sparse directory holding files, …
    repo.git(&["ls-files", "--sparse", "--stage"]);
    let write_tree = repo.git_output(&["write-tree"]);
    let tree = match write_tree.status.success() {
        true => String::from_utf8_lossy(&write_tree.stdout).into_owned(),
        false => format!("error: {}", String::from_utf8_lossy(&write_tree.stderr)),
    };
    View {
        entries: entries_with_flags(repo),
        resolve_undo: repo.git(&["ls-files", "--resolve-undo"]),
        status: repo.git(&["status", "--porcelain=v2", "--untracked-files=all"]),
        cached: repo.git(&["diff", "--cached"]),
        worktree: repo.git(&["diff"]),
        tree,
        version,
    }
}

/// Asserts two views are equal, naming the fields that differ.
fn same(got: &View, want: &View, what: &str) {
    let fields = [
        ("entries", &got.entries, &want.entries),
        ("resolve-undo", &got.resolve_undo, &want.resolve_undo),
        ("status", &got.status, &want.status),
        ("diff --cached", &got.cached, &want.cached),
        ("diff", &got.worktree, &want.worktree),
        ("write-tree", &got.tree, &want.tree),
    ];
    let mut differ = String::new();
    for (name, g, w) in fields {
        if g != w {
            differ.push_str(&format!(
                "{name}:\n  git-clada: {g:?}\n  git:       {w:?}\n"
            ));
        }
    }
    if got.version != want.version && got.version != 0 && want.version != 0 {
        differ.push_str(&format!("version: {} vs {}\n", got.version, want.version));
    }
    assert!(differ.is_empty(), "{what}:\n{differ}");
}

fn check(out: &Output, what: &str) {
    assert!(
        out.status.success(),
        "{what} failed ({:?}):\n{}{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn reply(c: &Case, n: usize) -> String {
    c.edits
        .iter()
        .enumerate()
        .map(|(i, e)| e.block(&format!("b{n}{i}"), n))
        .collect()
}

/// The oracle of an operation that made one AI commit from `before` to the repository's
/// HEAD: `copy` (taken before) with the same commit staged by git itself.
fn staged_by_git(repo: &TestRepo, copy: &TestRepo, before: &str, assume_unchanged: Option<&str>) {
    let after = repo.head();
    let objects = repo.path().join(".git/objects");
    let alternates = copy.path().join(".git/objects/info/alternates");
    std::fs::write(&alternates, format!("{}\n", objects.display())).expect("alternates");
    copy.git(&["update-ref", "refs/heads/main", &after, before]);
    let raw = repo.git(&["diff-tree", "-r", "--no-renames", "--raw", before, &after]);
    for line in raw.lines() {
        let (meta, path) = line.split_once('\t').expect("raw diff line");
        let fields: Vec<&str> = meta.split(' ').collect();
        let (mode, id, status) = (fields[1], fields[3], fields[4]);
        if status == "D" {
            copy.git(&["update-index", "--force-remove", "--", path]);
            let _ = std::fs::remove_file(copy.path().join(path));
        } else {
            let info = format!("{mode},{id},{path}");
            copy.git(&["update-index", "--add", "--cacheinfo", &info]);
            copy_file(repo.path(), copy.path(), path);
        }
        if assume_unchanged == Some(path) && status != "D" {
            copy.git(&["update-index", "--assume-unchanged", "--", path]);
        }
    }
}

fn copy_file(from: &Path, to: &Path, path: &str) {
    let target = to.join(path);
    if let Some(parent) = target.parent() {
        std::fs::create_dir_all(parent).expect("mkdir");
    }
    let status = Command::new("cp")
        .arg("-a")
        .arg(from.join(path))
        .arg(&target)
        .status()
        .expect("cp");
    assert!(status.success());
}

fn index_bytes(repo: &TestRepo) -> Vec<u8> {
    std::fs::read(repo.path().join(".git/index")).expect("read the index")
}

/// An MCP `edit` call: the server started, the handshake, one call.
fn mcp_edit(repo: &TestRepo, edit: Edit) -> Output {
    let (old, new) = match edit {
        Edit::ReplaceA => ("alpha", "alpha mcp"),
        _ => ("gamma", "gamma mcp"),
    };
    let lines = [
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "index-differential", "version": "1"}}}),
        serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "edit", "arguments": {
                "path": edit.path(), "old_string": old, "new_string": new}}}),
    ];
    let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
    // The server answers each line; stdin closed after the call ends it.
    let mut cmd = repo.clada_cmd();
    cmd.args(["mcp", "--session", "differential"]);
    let out = common::spawn_fed(cmd, &input)
        .wait_with_output()
        .expect("wait for the server");
    let text = String::from_utf8_lossy(&out.stdout);
    let answer = text
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|v| v["id"] == 2)
        .unwrap_or_else(|| panic!("no answer to the edit call:\n{text}"));
    assert_eq!(
        answer["result"]["isError"],
        serde_json::Value::Bool(false),
        "{answer:#}"
    );
    out
}

fn run_case(c: &Case) {
    let repo = build(&c.setup);
    let assume_unchanged = c.setup.assume_unchanged.map(|i| IN_CONE[i]);
    if c.setup.conflict {
        // Nothing runs over an unresolved conflict, and the index is left as it was.
        let before = index_bytes(&repo);
        let out = repo.apply(&reply(c, 1), &[]);
        assert!(!out.status.success(), "an apply over a conflict");
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("conflicts in conf.txt"),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
        assert_eq!(index_bytes(&repo), before, "the index is untouched");
        repo.assert_fsck();
        return;
    }
    let initial = view(&repo);
    let head = repo.head();
    match c.op {
        Op::Apply | Op::Undo | Op::Redo | Op::Step => {
            check(&repo.apply(&reply(c, 1), &[]), "apply");
        }
        Op::Squash => {
            check(&repo.apply(&reply(c, 1), &[]), "first apply");
            check(
                &repo.apply(&Edit::NewInCone.block("s01", 2), &[]),
                "second apply",
            );
        }
        Op::Commit => {
            let hooks = repo.path().join(".git/hooks");
            std::fs::create_dir_all(&hooks).expect("mkdir");
            let hook = hooks.join("pre-commit");
            std::fs::write(&hook, "#!/bin/sh\necho 'fix it first' >&2\nexit 1\n").expect("hook");
            repo.set_executable(".git/hooks/pre-commit");
            let out = repo.apply(&reply(c, 1), &[]);
            assert!(!out.status.success(), "the hook stopped the commit");
            assert_eq!(repo.head(), head);
            std::fs::remove_file(&hook).expect("remove hook");
            check(&repo.clada(&["commit"]), "git clada commit");
        }
        Op::McpEdit => {
            check(&mcp_edit(&repo, c.edits[0]), "mcp edit");
        }
    }
    assert_ne!(repo.head(), head, "an AI commit was made");
    let applied = view(&repo);
    match c.op {
        Op::Apply | Op::Commit | Op::McpEdit => {
            // The same state built again (the build is deterministic: fixed dates, same
            // content, so the same commits) rather than copied: no copying tool takes a
            // 4,095-byte path once `./` is in front of it.
            let copy = build(&c.setup);
            assert_eq!(
                copy.head(),
                head,
                "the oracle starts where the case started"
            );
            staged_by_git(&repo, &copy, &head, assume_unchanged);
            same(&applied, &view(&copy), "against git staging the same paths");
            copy.assert_fsck();
        }
        Op::Undo => {
            check(&repo.clada(&["undo"]), "undo");
            same(&view(&repo), &initial, "undo gives back the index before");
        }
        Op::Redo => {
            check(&repo.clada(&["undo"]), "undo");
            check(&repo.clada(&["redo"]), "redo");
            same(&view(&repo), &applied, "redo gives back the index after");
        }
        Op::Step => {
            check(&repo.clada(&["step-back"]), "step-back");
            view(&repo);
            check(&repo.clada(&["step-forward", "--all"]), "step-forward");
            same(&view(&repo), &applied, "the walk gives back the index");
        }
        Op::Squash => {
            check(&repo.clada(&["squash", "--mode", "auto_ai"]), "squash");
            same(&view(&repo), &applied, "squash leaves the index as it was");
        }
    }
    repo.assert_fsck();
}

proptest! {
    #![proptest_config(ProptestConfig {
        // Each case runs git a few dozen times; CI sets PROPTEST_CASES=200.
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(48),
        failure_persistence: None,
        .. ProptestConfig::default()
    })]

    #[test]
    fn the_index_git_clada_writes_is_the_index_git_writes(c in case()) {
        run_case(&c);
    }
}

/// The states the random cases must reach, each once by hand (so a regression in one is
/// named), with the operation most likely to break it.
#[test]
fn each_index_state_once() {
    let base = Setup {
        v4: false,
        split: false,
        untracked_cache: false,
        fsmonitor: false,
        sparse: Sparse::No,
        ita: false,
        skip_worktree: None,
        assume_unchanged: None,
        symlink: false,
        submodule: false,
        long_path: false,
        resolve_undo: false,
        conflict: false,
        staged: None,
        unstaged: None,
    };
    let edits = vec![Edit::ReplaceA, Edit::NewOutside, Edit::WriteIta];
    let cases = [
        (
            Setup {
                ita: true,
                ..base.clone()
            },
            Op::Apply,
        ),
        (
            Setup {
                ita: true,
                ..base.clone()
            },
            Op::McpEdit,
        ),
        (
            Setup {
                ita: true,
                ..base.clone()
            },
            Op::Commit,
        ),
        (
            Setup {
                v4: true,
                untracked_cache: true,
                ..base.clone()
            },
            Op::Undo,
        ),
        (
            Setup {
                split: true,
                staged: Some(3),
                ..base.clone()
            },
            Op::Apply,
        ),
        (
            Setup {
                sparse: Sparse::ConeIndex,
                ..base.clone()
            },
            Op::Apply,
        ),
        (
            Setup {
                sparse: Sparse::ConeIndex,
                ..base.clone()
            },
            Op::Undo,
        ),
        (
            Setup {
                sparse: Sparse::Cone,
                ..base.clone()
            },
            Op::Step,
        ),
        (
            Setup {
                resolve_undo: true,
                ..base.clone()
            },
            Op::Redo,
        ),
        (
            Setup {
                fsmonitor: true,
                assume_unchanged: Some(2),
                ..base.clone()
            },
            Op::Squash,
        ),
        (
            Setup {
                long_path: true,
                symlink: true,
                submodule: true,
                ..base.clone()
            },
            Op::Apply,
        ),
        (
            Setup {
                skip_worktree: Some(1),
                ..base.clone()
            },
            Op::Apply,
        ),
        (
            Setup {
                conflict: true,
                ..base.clone()
            },
            Op::Apply,
        ),
    ];
    for (setup, op) in cases {
        let edits = match op {
            Op::McpEdit => vec![Edit::ReplaceA],
            Op::Commit => vec![Edit::ReplaceA, Edit::WriteIta],
            _ => edits.clone(),
        };
        run_case(&Case { setup, edits, op });
    }
}

/// A split index is read by gix, which misreads the entry after a path of 4 KiB or more:
/// refused, nothing changed, with the commands that make it one file again — after which
/// the apply goes through.
#[test]
fn a_split_index_with_a_long_path_is_refused_with_how_to_unsplit_it() {
    let setup = Setup {
        v4: false,
        split: true,
        untracked_cache: false,
        fsmonitor: false,
        sparse: Sparse::No,
        ita: false,
        skip_worktree: None,
        assume_unchanged: None,
        symlink: false,
        submodule: false,
        long_path: true,
        resolve_undo: false,
        conflict: false,
        staged: None,
        unstaged: None,
    };
    let repo = build(&setup);
    let before = index_bytes(&repo);
    let head = repo.head();
    let out = repo.apply(&Edit::ReplaceA.block("e01", 1), &[]);
    assert_eq!(common::exit_code(&out), 2);
    let text = common::output_text(&out);
    assert!(text.contains("git update-index --no-split-index"), "{text}");
    assert_eq!(index_bytes(&repo), before);
    assert_eq!(repo.head(), head);
    repo.git(&["config", "core.splitIndex", "false"]);
    repo.git(&["update-index", "--no-split-index"]);
    check(&repo.apply(&Edit::ReplaceA.block("e01", 1), &[]), "apply");
    repo.assert_fsck();
}
