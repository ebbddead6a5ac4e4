//! Shared harness for integration tests: real git repositories in temp dirs, driven by the
//! real `git` CLI and the real `git-clada` binary, in a fixed, clean environment (no user or
//! system config, fixed dates, UTC, English messages).
#![allow(dead_code)]

pub mod agent_fixtures;
pub mod crash;
pub mod modes;

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output};

/// Fixed author/committer date for every git and git-clada process.
pub const DATE: &str = "2026-01-01T12:00:00 +0000";

pub struct TestRepo {
    pub dir: tempfile::TempDir,
    pub home: tempfile::TempDir,
    /// Extra environment for every command (e.g. a different date).
    pub env: Vec<(String, String)>,
}

/// The observable state of a repository: HEAD, refs, index, every worktree file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct State {
    pub head: String,
    pub refs: String,
    pub index: String,
    /// Every file under the worktree except `.git/`: path → (mode bits, bytes or link target).
    pub files: BTreeMap<String, (u32, Vec<u8>)>,
    pub status: String,
}

impl TestRepo {
    /// An empty repository on branch `main` with an identity configured.
    pub fn new() -> TestRepo {
        let repo = TestRepo {
            dir: tempfile::tempdir().expect("tempdir"),
            home: tempfile::tempdir().expect("tempdir"),
            env: Vec::new(),
        };
        repo.git(&["init", "-q", "-b", "main"]);
        repo.git(&["config", "user.name", "Test User"]);
        repo.git(&["config", "user.email", "test@example.com"]);
        repo.git(&["config", "commit.gpgsign", "false"]);
        repo
    }

    /// A repository with one commit holding `files`.
    pub fn with_files(files: &[(&str, &str)]) -> TestRepo {
        let repo = TestRepo::new();
        for (p, c) in files {
            repo.write(p, c);
        }
        repo.git(&["add", "-A"]);
        repo.git(&["commit", "-q", "-m", "initial"]);
        repo
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    fn apply_env(&self, cmd: &mut Command) {
        // The machine's own variables stay out (a CI image's AWS_CA_BUNDLE would make every
        // report that ran code name it as withheld): only what a test needs is inherited.
        for (var, _) in std::env::vars_os() {
            if !inherited(&var.to_string_lossy()) {
                cmd.env_remove(&var);
            }
        }
        for var in [
            "GIT_DIR",
            "GIT_WORK_TREE",
            "GIT_INDEX_FILE",
            "GIT_OBJECT_DIRECTORY",
            "GIT_CLADA_FAILPOINT",
            "NO_COLOR",
            "XDG_CONFIG_HOME",
            // An agent session's memory of its repositories goes under HOME, the test's own.
            "XDG_STATE_HOME",
        ] {
            cmd.env_remove(var);
        }
        cmd.current_dir(self.path())
            .env("HOME", self.home.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", self.home.path().join(".gitconfig"))
            .env("GIT_AUTHOR_NAME", "Test User")
            .env("GIT_AUTHOR_EMAIL", "test@example.com")
            .env("GIT_COMMITTER_NAME", "Test User")
            .env("GIT_COMMITTER_EMAIL", "test@example.com")
            .env("GIT_AUTHOR_DATE", DATE)
            .env("GIT_COMMITTER_DATE", DATE)
            .env("TZ", "UTC")
            .env("LANG", "C")
            .env("LC_ALL", "C")
            .env("GIT_CLADA_LOCK_WAIT_MS", "2000");
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
    }

    /// Runs git; panics with its output if it fails.
    pub fn git(&self, args: &[&str]) -> String {
        let out = self.git_output(args);
        assert!(
            out.status.success(),
            "git {args:?} failed:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub fn git_output(&self, args: &[&str]) -> Output {
        let mut cmd = self.git_cmd();
        cmd.args(args);
        cmd.output().expect("run git")
    }

    /// `program`, ready to run in this repository with the fixed environment.
    pub fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut cmd = Command::new(program);
        self.apply_env(&mut cmd);
        cmd
    }

    /// The git command, ready to run in this repository (for tests that spawn it).
    pub fn git_cmd(&self) -> Command {
        self.command("git")
    }

    /// The git-clada command, ready to run in this repository.
    pub fn clada_cmd(&self) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_git-clada"));
        self.apply_env(&mut cmd);
        cmd
    }

    /// Runs git-clada with `args`.
    pub fn clada(&self, args: &[&str]) -> Output {
        let mut cmd = self.clada_cmd();
        cmd.args(args);
        cmd.output().expect("run git-clada")
    }

    /// Runs `git-clada apply --format json -` with `reply` on stdin (plus `extra` args).
    pub fn apply(&self, reply: &str, extra: &[&str]) -> Output {
        self.spawn_apply(&[], reply, extra)
            .wait_with_output()
            .expect("wait git-clada")
    }

    /// [`TestRepo::apply`] of a reply's bytes (which need not be UTF-8).
    pub fn apply_bytes(&self, reply: &[u8], extra: &[&str]) -> Output {
        let mut cmd = self.clada_cmd();
        cmd.args(["--format", "json", "apply"]).args(extra).arg("-");
        spawn_fed_bytes(cmd, reply)
            .wait_with_output()
            .expect("wait git-clada")
    }

    /// Starts `git-clada apply --format json -` with `env` set, `reply` fed on stdin and
    /// stdout/stderr captured; the caller decides when to wait.
    pub fn spawn_apply(&self, env: &[(&str, &str)], reply: &str, extra: &[&str]) -> Child {
        let mut cmd = self.clada_cmd();
        cmd.envs(env.iter().copied())
            .args(["--format", "json", "apply"])
            .args(extra)
            .arg("-");
        spawn_fed(cmd, reply)
    }

    /// Parses the JSON report of an apply.
    pub fn report(out: &Output) -> serde_json::Value {
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "report is not JSON ({e}):\nstdout:\n{}\nstderr:\n{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
        })
    }

    /// Writes the user's own git-clada configuration (`~/.config/clada/config.yml` under the
    /// test's HOME), which may loosen what a repository's file may not.
    pub fn user_config(&self, yaml: &str) {
        let f = self.home.path().join(".config/clada/config.yml");
        std::fs::create_dir_all(f.parent().expect("dir")).expect("mkdir");
        std::fs::write(f, yaml).expect("write the user's config");
    }

    pub fn write(&self, rel: &str, content: &str) {
        self.write_bytes(rel, content.as_bytes());
    }

    pub fn write_bytes(&self, rel: &str, content: &[u8]) {
        let p = self.path().join(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(p, content).expect("write");
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path().join(rel)).expect("read")
    }

    pub fn exists(&self, rel: &str) -> bool {
        self.path().join(rel).symlink_metadata().is_ok()
    }

    pub fn set_executable(&self, rel: &str) {
        let p = self.path().join(rel);
        let mut perm = std::fs::metadata(&p).expect("stat").permissions();
        perm.set_mode(0o755);
        std::fs::set_permissions(p, perm).expect("chmod");
    }

    pub fn status(&self) -> String {
        self.git(&["status", "--porcelain=v1", "--untracked-files=all"])
    }

    pub fn head(&self) -> String {
        self.git(&["rev-parse", "HEAD"]).trim().to_string()
    }

    pub fn subject(&self, rev: &str) -> String {
        self.git(&["log", "-1", "--format=%s", rev])
            .trim()
            .to_string()
    }

    /// Asserts `git fsck --strict` finds nothing wrong.
    pub fn assert_fsck(&self) {
        let out = self.git_output(&["fsck", "--strict", "--no-progress"]);
        assert!(
            out.status.success(),
            "git fsck failed:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !err.contains("error") && !err.contains("missing"),
            "git fsck complained:\n{err}"
        );
    }

    /// Everything observable, for before/after comparisons.
    pub fn state(&self) -> State {
        let head_ref = self.git_output(&["symbolic-ref", "-q", "HEAD"]);
        let head = format!(
            "{} {}",
            String::from_utf8_lossy(&head_ref.stdout).trim(),
            String::from_utf8_lossy(
                &self
                    .git_output(&["rev-parse", "-q", "--verify", "HEAD"])
                    .stdout
            )
            .trim()
        );
        State {
            head,
            refs: self.git(&["for-each-ref", "--format=%(refname) %(objectname)"]),
            index: self
                .git(&["ls-files", "-s", "--debug"])
                .lines()
                .filter(|l| {
                    !l.trim_start().starts_with("ctime")
                        && !l.trim_start().starts_with("mtime")
                        && !l.trim_start().starts_with("dev")
                        && !l.trim_start().starts_with("uid")
                        && !l.trim_start().starts_with("size")
                        && !l.trim_start().starts_with("flags")
                })
                .collect::<Vec<_>>()
                .join("\n"),
            files: files_of(self.path()),
            status: self.status(),
        }
    }
}

/// The shared conformance data `../shared/conformance/<sub>` (or
/// `$CLADA_SHARED/conformance/<sub>`). A fresh clone has none: the tests that read it are
/// marked ignored there (`has_shared`, from build.rs), and one run anyway
/// (`--include-ignored`) fails here saying what is missing.
pub fn shared_conformance(sub: &str) -> Option<PathBuf> {
    let base = std::env::var_os("CLADA_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared"));
    shared_conformance_in(&base, sub)
}

/// [`shared_conformance`] under `base` instead of the configured place (the tests share one
/// process: none may change its environment for the others).
pub fn shared_conformance_in(base: &Path, sub: &str) -> Option<PathBuf> {
    let dir = base.join("conformance").join(sub);
    if dir.is_dir() {
        return Some(dir);
    }
    panic!(
        "the conformance data {} is missing (a clone without ../shared): put it there or set \
         CLADA_SHARED to run this test",
        dir.display()
    );
}

/// Asserts a command exited 0, showing its output otherwise.
#[track_caller]
pub fn assert_ok(out: &Output, what: &str) {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{what}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Asserts a command was aborted at a fail point (killed by a signal, no exit code).
#[track_caller]
pub fn assert_aborted(out: &Output, what: &str) {
    assert_eq!(
        out.status.code(),
        None,
        "{what}: should have aborted: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Asserts two states are the same for the user: HEAD and its branch, the index, every
/// worktree byte and the status (git-clada's own refs and notes are not compared).
#[track_caller]
pub fn assert_same_user_state(actual: &State, expected: &State, what: &str) {
    assert_eq!(actual.head, expected.head, "{what}: HEAD");
    assert_eq!(actual.index, expected.index, "{what}: index");
    assert_eq!(actual.files, expected.files, "{what}: worktree files");
    assert_eq!(actual.status, expected.status, "{what}: status");
}

/// `bytes` with every occurrence of `from` replaced by `to` (same length: binary files keep
/// their layout), byte for byte, not through a lossy UTF-8 conversion.
pub fn replace_bytes(bytes: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    assert_eq!(from.len(), to.len(), "a same-length replacement");
    let mut out = bytes.to_vec();
    let mut i = 0;
    while i + from.len() <= out.len() {
        if &out[i..i + from.len()] == from {
            out[i..i + from.len()].copy_from_slice(to);
            i += from.len();
        } else {
            i += 1;
        }
    }
    out
}

/// Every file below `root` except `.git/`, with mode bits and content (or link target).
pub fn files_of(root: &Path) -> BTreeMap<String, (u32, Vec<u8>)> {
    let mut out = BTreeMap::new();
    let mut stack: Vec<PathBuf> = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read_dir") {
            let entry = entry.expect("entry");
            let p = entry.path();
            let rel = p
                .strip_prefix(root)
                .expect("prefix")
                .to_string_lossy()
                .into_owned();
            if rel == ".git" {
                continue;
            }
            let md = std::fs::symlink_metadata(&p).expect("lstat");
            if md.file_type().is_symlink() {
                let t = std::fs::read_link(&p).expect("readlink");
                out.insert(
                    rel,
                    (0o120000, t.to_string_lossy().into_owned().into_bytes()),
                );
            } else if md.is_dir() {
                out.insert(format!("{rel}/"), (0o040000, Vec::new()));
                stack.push(p);
            } else {
                let mode = md.permissions().mode() & 0o111;
                out.insert(rel, (mode, std::fs::read(&p).expect("read")));
            }
        }
    }
    out
}

/// The exit code of a finished process (-1 when a signal ended it).
pub fn exit_code(out: &Output) -> i32 {
    out.status.code().unwrap_or(-1)
}

/// Everything a process printed: stdout, then stderr (for assertion messages).
pub fn output_text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// A NESL block.
pub fn block(id: &str, props: &[(&str, &str)]) -> String {
    let mut s = format!("#!nesl [@three-char-SHA-256: {id}]\n");
    for (k, v) in props {
        if v.contains('\n') {
            s.push_str(&format!("{k} = <<'EOT_{id}'\n{v}\nEOT_{id}\n"));
        } else {
            s.push_str(&format!(
                "{k} = {}\n",
                serde_json::to_string(v).expect("json")
            ));
        }
    }
    s.push_str(&format!("#!end_{id}\n"));
    s
}

/// A NESL `file_write` block.
pub fn write_block(id: &str, path: &str, content: &str) -> String {
    block(
        id,
        &[
            ("action", "file_write"),
            ("path", path),
            ("content", content),
        ],
    )
}

/// A NESL `file_replace_text` block.
pub fn replace_block(id: &str, path: &str, old: &str, new: &str) -> String {
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

/// Spawns `cmd` with `input` written to its stdin (then closed) and stdout/stderr captured.
pub fn spawn_fed(cmd: Command, input: &str) -> Child {
    spawn_fed_bytes(cmd, input.as_bytes())
}

/// [`spawn_fed`] with bytes (which need not be UTF-8).
pub fn spawn_fed_bytes(mut cmd: Command, input: &[u8]) -> Child {
    use std::io::Write;
    cmd.stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().expect("spawn");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input)
        .expect("write stdin");
    child
}

/// PATH with `first` directories in front, then the directory of the git-clada under test
/// (for hooks and tools that call `git-clada`), then the inherited PATH.
pub fn path_with_clada(first: &[PathBuf]) -> String {
    let bin = Path::new(env!("CARGO_BIN_EXE_git-clada"))
        .parent()
        .expect("bin dir")
        .to_path_buf();
    let mut dirs = first.to_vec();
    dirs.push(bin);
    dirs.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(dirs)
        .expect("PATH")
        .to_string_lossy()
        .into_owned()
}

/// Whether a variable of the test process reaches the programs a test runs: the search path,
/// the temp folder, who and where the user is, the terminal, and the toolchain's and the
/// tests' own switches.
fn inherited(name: &str) -> bool {
    matches!(
        name,
        "PATH" | "TMPDIR" | "USER" | "LOGNAME" | "SHELL" | "TERM" | "LD_LIBRARY_PATH"
    ) || ["RUST", "CARGO", "CLADA_", "GIT_CLADA_"]
        .iter()
        .any(|p| name.starts_with(p))
}
