//! Issue 35: hooks on AI commits run contained — and still work — and a reply cannot plant
//! code for the user's next commit. Every attack of the issue with real git and real tools:
//! a `.githooks` repository attacked by a unified diff under `--exec deny`, husky 9 with
//! lint-staged (npm), the pre-commit framework (PyPI) with a dirty worktree and a `repo: local`
//! hook, a Change-Id `commit-msg` hook, git-clada's own pre-commit hook from a
//! `~/.cargo/bin`-like folder, and a user's `sed -i {paths}` hook fed a reply-chosen name.
//! Each scenario runs as this process's user and, when that is root, once more as an
//! unprivileged user (`common::modes`); those whose hooks reach the git directory (a planted
//! hook, `commit-msg`, a hook an exec block wrote) also under a seccomp filter that refuses
//! namespaces, where the git directory is read-only instead of an overlay.
//!
//! husky/lint-staged come from `target/ci-tools/node` and the pre-commit framework from
//! `target/ci-tools/venv` (`scripts/test` installs both); without them those tests are ignored
//! (`has_husky`, `has_pre_commit`, from build.rs), and run anyway they fail.

use crate::common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::modes::{self, Mode};
use common::{block, exit_code, output_text, replace_block, spawn_fed, write_block, TestRepo};

/// A scenario's repository, and who runs git-clada in it.
struct Case {
    r: TestRepo,
    mode: Mode,
    /// A folder outside the worktree the hooks try to write (writable by the user).
    outside: tempfile::TempDir,
}

impl Case {
    fn new(r: TestRepo, mode: &Mode) -> Case {
        let outside = tempfile::tempdir().expect("tempdir");
        // Root's own git commands keep working in the user's repository.
        let gc = r.home.path().join(".gitconfig");
        let mut text = fs::read_to_string(&gc).unwrap_or_default();
        text.push_str("[safe]\n\tdirectory = *\n");
        fs::write(&gc, text).expect("gitconfig");
        fs::write(r.home.path().join("secret.txt"), "HOME-SECRET\n").expect("secret");
        Case {
            r,
            mode: mode.clone(),
            outside,
        }
    }

    /// Hands everything written so far to the mode's user (call after the set-up writes).
    fn own(&self) {
        self.mode
            .own(&[self.r.path(), self.r.home.path(), self.outside.path()]);
    }

    fn as_user(&self, cmd: &mut Command) {
        self.mode.command(cmd);
    }

    fn who(&self) -> String {
        self.mode.name()
    }

    fn apply(&self, reply: &str, extra: &[&str]) -> Output {
        let mut cmd = self.r.clada_cmd();
        cmd.args(["--format", "json", "apply"]).args(extra).arg("-");
        self.as_user(&mut cmd);
        spawn_fed(cmd, reply).wait_with_output().expect("apply")
    }

    fn clada(&self, args: &[&str]) -> Output {
        let mut cmd = self.r.clada_cmd();
        cmd.args(args);
        self.as_user(&mut cmd);
        cmd.output().expect("git-clada")
    }

    fn marker(&self, name: &str) -> PathBuf {
        self.outside.path().join(name)
    }

    /// A hook body that tries every escape and says which worked, then succeeds.
    fn attempts(&self) -> String {
        format!(
            "echo x > '{o}/WROTE-OUTSIDE' 2>/dev/null && echo ESCAPE-WROTE-OUTSIDE\n\
             cat \"$HOME/secret.txt\" 2>/dev/null | grep -q HOME-SECRET && echo x > '{o}/READ-HOME' && echo ESCAPE-READ-HOME\n\
             head -c1 /etc/shadow >/dev/null 2>&1 && [ \"$(id -u)\" = 0 ] && echo ESCAPE-READ-SHADOW\n\
             (exec 3<>/dev/tcp/127.0.0.1/9) 2>/dev/null && echo ESCAPE-SOCKET\n\
             echo planted > .git/planted 2>/dev/null; echo planted > .git/hooks/post-checkout 2>/dev/null\n\
             echo hook ran\n\
             exit 0\n",
            o = self.outside.path().display()
        )
    }

    /// Asserts nothing a hook of [`Case::attempts`] tried got out (`out`: git-clada's).
    fn assert_contained(&self, out: &Output) {
        let steps = serde_json::from_slice::<serde_json::Value>(&out.stdout)
            .map(|v| v["steps"].to_string())
            .unwrap_or_default();
        let said = format!("{steps}{}", String::from_utf8_lossy(&out.stderr));
        assert!(!said.contains("ESCAPE-"), "{} {said}", self.who());
        assert!(!self.marker("WROTE-OUTSIDE").exists(), "{}", self.who());
        assert!(!self.marker("READ-HOME").exists(), "{}", self.who());
        assert!(!self.r.exists(".git/planted"), "{}", self.who());
        assert!(!self.r.exists(".git/hooks/post-checkout"), "{}", self.who());
    }
}

fn report(out: &Output) -> serde_json::Value {
    TestRepo::report(out)
}

fn step<'a>(v: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    v["steps"]
        .as_array()
        .and_then(|s| s.iter().find(|x| x["name"] == name))
        .unwrap_or_else(|| panic!("no step {name}: {v}"))
}

/// The `.githooks` repository of the issue: `core.hooksPath=.githooks`, a README.
fn githooks_repo(mode: &Mode) -> Case {
    let r = TestRepo::with_files(&[("README.md", "hello\n"), (".githooks/README", "hooks\n")]);
    r.git(&["config", "core.hooksPath", ".githooks"]);
    Case::new(r, mode)
}

/// The reply of the issue: one unified diff creating an executable `.githooks/pre-commit`.
fn diff_creating_hook(body: &str) -> String {
    let lines: Vec<String> = body.lines().map(|l| format!("+{l}")).collect();
    format!(
        "```diff\ndiff --git a/.githooks/pre-commit b/.githooks/pre-commit\nnew file mode 100755\n--- /dev/null\n+++ b/.githooks/pre-commit\n@@ -0,0 +1,{} @@\n{}\n```\n",
        lines.len(),
        lines.join("\n")
    )
}

fn githooks_attack_as(mode: &Mode) {
    let c = githooks_repo(mode);
    let hook = format!("#!/bin/sh\n{}", c.attempts());
    c.own();
    let head = c.r.head();
    // The reply cannot create the hook at all: protected_hook, the user's to allow.
    let out = c.apply(&diff_creating_hook(&hook), &["--exec", "deny"]);
    let v = report(&out);
    let res = &v["results"][0];
    assert_eq!(res["success"], false, "{} {v}", c.who());
    assert!(
        res["error"]
            .as_str()
            .unwrap_or_default()
            .starts_with("protected_hook:"),
        "{v}"
    );
    assert!(
        res["needsUser"]["how"]
            .as_str()
            .unwrap_or_default()
            .contains("paths.protect_hooks"),
        "{v}"
    );
    assert!(!c.r.exists(".githooks/pre-commit"));
    assert_eq!(c.r.head(), head);
    c.assert_contained(&out);

    // The user allows hook writes: under --exec deny the hook is written and committed, and
    // never runs; the commit says its hooks were skipped.
    c.r.user_config("paths:\n  protect_hooks: false\n");
    c.own();
    let out = c.apply(&diff_creating_hook(&hook), &["--exec", "deny"]);
    assert_eq!(exit_code(&out), 0, "{} {}", c.who(), output_text(&out));
    assert!(c.r.exists(".githooks/pre-commit"));
    c.assert_contained(&out);
    let v = report(&out);
    assert!(
        !v["steps"].to_string().contains("hook pre-commit"),
        "the hook did not run: {v}"
    );
    let msg = c.r.git(&["log", "-1", "--format=%B"]);
    assert!(msg.contains("\nClada-Hooks: skipped\n"), "{msg}");
    let log = c.clada(&["--format", "json", "log"]);
    let log: serde_json::Value = serde_json::from_slice(&log.stdout).expect("log json");
    assert_eq!(log["entries"][0]["hooksSkipped"], true, "{log}");

    // The next AI commit (exec allowed to ask, so hooks run): the planted hook runs, contained.
    let out = c.apply(
        &replace_block("r01", "README.md", "hello", "hello there"),
        &[],
    );
    assert_eq!(exit_code(&out), 0, "{} {}", c.who(), output_text(&out));
    let v = report(&out);
    assert!(
        step(&v, "hook pre-commit")["output"]
            .as_str()
            .unwrap_or_default()
            .contains("hook ran"),
        "{v}"
    );
    c.assert_contained(&out);
    assert!(!c
        .r
        .git(&["log", "-1", "--format=%B"])
        .contains("Clada-Hooks"));
    c.r.assert_fsck();

    // A reply that changes the hook file runs contained even with the user's hooks.sandbox: off.
    c.r.user_config("paths:\n  protect_hooks: false\nhooks:\n  sandbox: off\n");
    c.own();
    let changed = hook.replace("echo hook ran", "echo hook ran changed");
    let out = c.apply(
        &replace_block(
            "r02",
            ".githooks/pre-commit",
            "echo hook ran",
            "echo hook ran changed",
        ),
        &[],
    );
    assert_eq!(exit_code(&out), 0, "{} {}", c.who(), output_text(&out));
    assert_eq!(c.r.read(".githooks/pre-commit"), changed);
    assert!(output_text(&out).contains("hook ran changed"));
    c.assert_contained(&out);

    // Control: the user's hooks.sandbox: off, on a reply that leaves the hooks alone, runs
    // the hook as the user — which is what every run above was kept from.
    let out = c.apply(&replace_block("r03", "README.md", "there", "world"), &[]);
    assert_eq!(exit_code(&out), 0, "{} {}", c.who(), output_text(&out));
    assert!(
        c.marker("WROTE-OUTSIDE").exists(),
        "{} {}",
        c.who(),
        output_text(&out)
    );
    assert!(
        output_text(&out).contains("hooks.sandbox: off"),
        "the unconfined run is said: {}",
        output_text(&out)
    );
}

#[test]
fn a_githooks_hook_a_reply_writes_never_runs_under_exec_deny_and_runs_contained_otherwise() {
    modes::each(githooks_attack_as);
}

fn sed_paths_as(mode: &Mode) {
    let r = TestRepo::with_files(&[("README.md", "hello\n")]);
    let c = Case::new(r, mode);
    c.r.user_config("hooks:\n  after:\n    - sed -i -e s/TODO/DONE/ {paths}\n");
    c.own();
    let name = "--expression=1e touch SED-RAN".to_string();
    let reply = [
        write_block("s01", "notes.txt", "a TODO\n"),
        block(
            "s02",
            &[
                ("action", "file_write"),
                ("path", &name),
                ("content", "TODO\n"),
            ],
        ),
    ]
    .concat();
    let out = c.apply(&reply, &[]);
    assert!(!c.r.exists("SED-RAN"), "{} {}", c.who(), output_text(&out));
    assert_eq!(exit_code(&out), 0, "{} {}", c.who(), output_text(&out));
    assert_eq!(c.r.read("notes.txt"), "a DONE\n");
    assert_eq!(c.r.git(&["show", &format!("HEAD:{name}")]), "DONE\n");
}

#[test]
fn a_reply_chosen_file_name_is_never_an_option_to_a_paths_hook() {
    // Without namespaces `sed -i` cannot make its temporary file in the worktree root (the
    // per-entry grants): the quoting does not differ by mode.
    modes::each_where(|m| m.namespaces, sed_paths_as);
}

fn change_id_as(mode: &Mode) {
    let r = TestRepo::with_files(&[("a.txt", "a\n")]);
    // A Change-Id hook in the way of Gerrit's (not its code): the id hashes the tree git
    // would commit, the committer and the message; the trailer goes in with
    // `git interpret-trailers --in-place`.
    let hook = "#!/bin/sh\n\
                tree=$(git write-tree) || exit 1\n\
                id=$( (echo \"tree $tree\"; git var GIT_COMMITTER_IDENT; cat \"$1\") | git hash-object --stdin) || exit 1\n\
                git interpret-trailers --in-place --if-exists doNothing --trailer \"Change-Id: I$id\" \"$1\"\n";
    r.write(".git/hooks/commit-msg", hook);
    r.set_executable(".git/hooks/commit-msg");
    let c = Case::new(r, mode);
    c.own();
    let out = c.apply(&replace_block("c01", "a.txt", "a", "b"), &[]);
    assert_eq!(exit_code(&out), 0, "{} {}", c.who(), output_text(&out));
    let msg = c.r.git(&["log", "-1", "--format=%B"]);
    let id = msg
        .lines()
        .find_map(|l| l.strip_prefix("Change-Id: I"))
        .unwrap_or_else(|| panic!("no Change-Id: {msg}"));
    assert_eq!(id.len(), 40, "{msg}");
    assert!(msg.contains("Clada-Blocks: c01"), "{msg}");
    // The tree the hook wrote stayed in its quarantine: nothing but the commit's objects.
    c.r.assert_fsck();
    assert_eq!(c.r.git(&["show", "HEAD:a.txt"]), "b\n");
}

#[test]
fn a_change_id_commit_msg_hook_edits_the_message_in_place() {
    modes::each(change_id_as);
}

/// A folder like `~/.cargo/bin` holding the git-clada under test (`cargo install` copies it
/// there), in `home`.
fn cargo_bin(home: &Path) -> PathBuf {
    let bin = home.join(".cargo/bin");
    fs::create_dir_all(&bin).expect("mkdir");
    let exe = Path::new(env!("CARGO_BIN_EXE_git-clada"));
    let to = bin.join("git-clada");
    if fs::hard_link(exe, &to).is_err() {
        fs::copy(exe, &to).expect("copy git-clada");
    }
    fs::write(
        home.join(".cargo/credentials.toml"),
        "token = \"CRATES-SECRET\"\n",
    )
    .expect("creds");
    bin
}

fn own_hook_as(mode: &Mode) {
    let mut r = TestRepo::with_files(&[("src/lib.rs", "pub fn a() {}\n")]);
    let bin = cargo_bin(r.home.path());
    r.env.push((
        "PATH".into(),
        format!("{}:/usr/local/bin:/usr/bin:/bin", bin.display()),
    ));
    let c = Case::new(r, mode);
    c.own();
    let out = c.clada(&["hooks", "install"]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    // A reply that leaves a block marker in a source file: the model's failure.
    let marker =
        "fn b() {}\n#!SHAM [@three-char-SHA-256: k9x]\naction = \"file_write\"\n#!END_SHAM_k9x\n";
    let head = c.r.head();
    let out = c.apply(&write_block("o01", "src/b.rs", marker), &[]);
    assert_eq!(exit_code(&out), 1, "{} {}", c.who(), output_text(&out));
    let v = report(&out);
    let s = step(&v, "hook pre-commit");
    assert_eq!(s["success"], false, "{v}");
    assert!(s.get("needsUser").is_none(), "the model's failure: {v}");
    assert!(
        s["output"]
            .as_str()
            .unwrap_or_default()
            .contains("src/b.rs:2"),
        "{v}"
    );
    assert_eq!(c.r.head(), head);
    // A clean reply commits, the check having run from ~/.cargo/bin inside the sandbox.
    let out = c.apply(&write_block("o02", "src/b.rs", "fn b() {}\n"), &[]);
    assert_eq!(exit_code(&out), 0, "{} {}", c.who(), output_text(&out));
    assert_eq!(c.r.git(&["show", "HEAD:src/b.rs"]), "fn b() {}\n");
    assert!(!output_text(&out).contains("CRATES-SECRET"));
}

#[test]
fn git_cladas_own_hook_runs_from_a_cargo_bin_folder_inside_the_sandbox() {
    modes::each_where(|m| m.namespaces, own_hook_as);
}

fn refusal_as(mode: &Mode) {
    let r = TestRepo::with_files(&[("a.txt", "a\n")]);
    let tool = r.home.path().join(".tool");
    fs::create_dir_all(&tool).expect("mkdir");
    fs::write(tool.join("config"), "setting\n").expect("tool config");
    let hook = format!(
        "#!/bin/sh\n[ \"$(cat a.txt)\" = bad ] && {{ echo \"cat: /nonexistent-dir/x: Permission denied\"; echo \"test failed\"; exit 1; }}\n\
         [ \"$(cat a.txt)\" = inside ] && {{ echo \"$PWD/a.txt: Permission denied\"; exit 1; }}\n\
         cat '{}/config' || exit 1\n",
        tool.display()
    );
    r.write(".git/hooks/pre-commit", &hook);
    r.set_executable(".git/hooks/pre-commit");
    let c = Case::new(r, mode);
    c.own();
    // The hook needs ~/.tool, outside what hooks may read: ⏸ with the exact line.
    let out = c.apply(&replace_block("p01", "a.txt", "a", "b"), &[]);
    assert_eq!(exit_code(&out), 1, "{} {}", c.who(), output_text(&out));
    let v = report(&out);
    let how = step(&v, "hook pre-commit")["needsUser"]["how"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(how.contains("read: [\"~/.tool\"]"), "{} {v}", c.who());
    // A reply printing "Permission denied" about nothing real, or about a path inside the
    // worktree, is the model's failure.
    for (id, text) in [("p02", "bad"), ("p03", "inside")] {
        c.r.write("a.txt", "a\n");
        c.own();
        let out = c.apply(&write_block(id, "a.txt", text), &[]);
        let v = report(&out);
        let s = step(&v, "hook pre-commit");
        assert_eq!(s["success"], false, "{v}");
        assert!(s.get("needsUser").is_none(), "{} {text}: {v}", c.who());
    }
    // The proposed line, in the user's own file, lets the hook run.
    c.r.write("a.txt", "a\n");
    c.r.user_config("sandbox:\n  read: [\"~/.tool\"]\n");
    c.own();
    let out = c.apply(&replace_block("p04", "a.txt", "a", "c"), &[]);
    assert_eq!(exit_code(&out), 0, "{} {}", c.who(), output_text(&out));
}

#[test]
fn a_refusal_is_the_users_only_when_it_names_a_real_path_outside_the_grants() {
    modes::each_where(|m| m.namespaces, refusal_as);
}

/// A repository whose pre-commit hook runs every script of `checks/` (the project's own
/// checks, which a reply may add to, as a test runner runs the tests a reply writes).
fn lint_case(mode: &Mode) -> Case {
    let r = TestRepo::with_files(&[("a.txt", "a\n"), ("checks/ok.sh", "exit 0\n")]);
    r.write(
        ".git/hooks/pre-commit",
        "#!/bin/sh\nfor f in checks/*; do sh \"$f\" || exit 1; done\n",
    );
    r.set_executable(".git/hooks/pre-commit");
    for d in [".cache/tool", ".config/autostart", ".local/bin"] {
        fs::create_dir_all(r.home.path().join(d)).expect("mkdir");
    }
    let c = Case::new(r, mode);
    c.own();
    c
}

fn lure_as(mode: &Mode) {
    // The reply's check writes the user's start-up files and fails: each write is refused
    // by the sandbox for real, and none of them may come back as a line to add.
    let c = lint_case(mode);
    let gitconfig = fs::read_to_string(c.r.home.path().join(".gitconfig")).expect("gitconfig");
    let lint = "touch \"$HOME/.profile\"\necho '[core] fsmonitor = x' >> \"$HOME/.gitconfig\"\n\
                echo x > \"$HOME/.local/bin/git\"\necho x > \"$HOME/.config/autostart/x.desktop\"\n\
                echo x > \"$HOME/.bashrc\"\nexit 1\n";
    let out = c.apply(&write_block("l01", "checks/lure.sh", lint), &[]);
    let v = report(&out);
    let s = step(&v, "hook pre-commit");
    assert_eq!(s["success"], false, "{} {v}", c.who());
    assert!(s.get("needsUser").is_none(), "{} {v}", c.who());
    let said = v.to_string();
    assert!(!said.contains("write: ["), "{} {said}", c.who());
    assert_eq!(
        fs::read_to_string(c.r.home.path().join(".gitconfig")).expect("gitconfig"),
        gitconfig
    );
    for f in [
        ".profile",
        ".local/bin/git",
        ".config/autostart/x.desktop",
        ".bashrc",
    ] {
        assert!(!c.r.home.path().join(f).exists(), "{} {f}", c.who());
    }
    // A hook that needs a cache folder: ⏸ with the line for it.
    let c = lint_case(mode);
    let out = c.apply(
        &write_block(
            "l02",
            "checks/cache.sh",
            "touch \"$HOME/.cache/tool/db\" || exit 1\n",
        ),
        &[],
    );
    let v = report(&out);
    let how = step(&v, "hook pre-commit")["needsUser"]["how"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        how.contains("write: [\"~/.cache/tool\"]"),
        "{} {v}",
        c.who()
    );
}

/// Issue 51 §7: a failed hook proposes write grants for caches only, never for the files and
/// folders whose content runs as the user (dotfiles, `$PATH` folders, autostart entries).
#[test]
fn a_failed_hook_never_proposes_a_write_grant_on_start_up_files_or_program_folders() {
    modes::each(lure_as);
}

fn repository_cannot_loosen_as(mode: &Mode) {
    let r = TestRepo::with_files(&[("a.txt", "a\n")]);
    let c = Case::new(r, mode);
    let hook = format!("#!/bin/sh\n{}", c.attempts());
    c.r.write(".git/hooks/pre-commit", &hook);
    c.r.set_executable(".git/hooks/pre-commit");
    let yml = format!(
        "sandbox:\n  level: off\n  read: [\"{h}\"]\n  write: [\"{o}\"]\nhooks:\n  sandbox: off\n",
        h = c.r.home.path().display(),
        o = c.outside.path().display()
    );
    c.r.write(".clada.yml", &yml);
    c.r.git(&["add", ".clada.yml"]);
    c.r.git(&["commit", "-q", "--no-verify", "-m", "config"]);
    c.own();
    let out = c.clada(&["config", "--trust"]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    let out = c.apply(&replace_block("t01", "a.txt", "a", "b"), &[]);
    assert_eq!(exit_code(&out), 0, "{} {}", c.who(), output_text(&out));
    c.assert_contained(&out);
    assert!(
        output_text(&out).contains("only your own configuration file sets"),
        "{}",
        output_text(&out)
    );
}

#[test]
fn a_trusted_repository_file_cannot_unconfine_or_widen_hooks() {
    modes::each_where(|m| m.namespaces, repository_cannot_loosen_as);
}

fn include_as(mode: &Mode) {
    let r = TestRepo::with_files(&[("README.md", "hello\n"), ("team.gitconfig", "[core]\n")]);
    r.git(&["config", "include.path", "../team.gitconfig"]);
    r.git(&["config", "filter.lfsx.clean", "./tools/clean.sh"]);
    let c = Case::new(r, mode);
    c.own();
    for (id, path) in [
        ("i01", "team.gitconfig"),
        ("i02", "tools/clean.sh"),
        ("i03", ".pre-commit-config.yaml"),
        ("i04", ".husky/pre-commit"),
        ("i05", ".GitHooks/pre-commit"),
    ] {
        let out = c.apply(&write_block(id, path, "[core]\n\thooksPath = /tmp\n"), &[]);
        let v = report(&out);
        let err = v["results"][0]["error"].as_str().unwrap_or_default();
        assert!(
            err.starts_with("protected_hook:"),
            "{} {path}: {v}",
            c.who()
        );
    }
    assert_eq!(c.r.read("team.gitconfig"), "[core]\n");
    assert!(!c.r.exists("tools/clean.sh"));
}

#[test]
fn files_the_git_configuration_includes_or_runs_are_protected_like_hooks() {
    modes::each_where(|m| m.namespaces, include_as);
}

/// Where `scripts/test` installs husky and lint-staged (the tests that need them are ignored
/// where it has not).
fn node_modules() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/ci-tools/node/node_modules");
    let found = dir.join("husky/bin.js").is_file()
        && dir.join(".bin/lint-staged").exists()
        && Command::new("node")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
    if found {
        return Some(dir);
    }
    panic!(
        "husky and lint-staged are not in {} (bash scripts/test installs them with npm) or node \
         is missing",
        dir.display()
    );
}

/// The pre-commit framework's folder (`target/ci-tools/venv/bin`), as for
/// `tests/cli/pre_commit_framework.rs`.
fn pre_commit_bin() -> Option<PathBuf> {
    let bin = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/ci-tools/venv/bin");
    if [
        "pre-commit",
        "end-of-file-fixer",
        "trailing-whitespace-fixer",
    ]
    .iter()
    .all(|t| bin.join(t).is_file())
    {
        return Some(bin);
    }
    panic!(
        "the pre-commit framework is not in {} (bash scripts/test installs it)",
        bin.display()
    );
}

fn copy_dir(from: &Path, to: &Path) {
    let out = Command::new("cp")
        .arg("-R")
        .arg(from)
        .arg(to)
        .output()
        .expect("cp");
    assert!(out.status.success(), "cp: {}", output_text(&out));
}

const TEN: &str = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";

fn husky_as(modules: &Path, mode: &Mode) {
    let mut r = TestRepo::with_files(&[
        (
            "package.json",
            "{\"name\": \"t\", \"private\": true, \"lint-staged\": {\"*.txt\": \"node tools/done.js\"}}\n",
        ),
        (
            "tools/done.js",
            "const fs = require('fs');\nfor (const f of process.argv.slice(2)) fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replace(/TODO/g, 'DONE'));\n",
        ),
        (".gitignore", "node_modules/\n"),
        ("a.txt", TEN),
    ]);
    r.env
        .push(("PATH".into(), std::env::var("PATH").unwrap_or_default()));
    copy_dir(modules, &r.path().join("node_modules"));
    let out = r
        .command("node")
        .arg("node_modules/husky/bin.js")
        .output()
        .expect("husky");
    assert!(out.status.success(), "husky: {}", output_text(&out));
    assert_eq!(r.git(&["config", "core.hooksPath"]).trim(), ".husky/_");
    r.write(
        ".husky/pre-commit",
        "lint-staged\necho \"init: $HUSKY_INIT\"\n",
    );
    r.git(&["add", "-A"]);
    r.git(&["commit", "-q", "--no-verify", "-m", "husky"]);
    // husky 9 sources the user's init.sh before every hook (nvm users set PATH there).
    let init = r.home.path().join(".config/husky/init.sh");
    fs::create_dir_all(init.parent().expect("dir")).expect("mkdir");
    fs::write(&init, "export HUSKY_INIT=sourced\n").expect("init.sh");
    let c = Case::new(r, mode);
    // The user's unstaged work in the file the AI edits: lint-staged hides it in a patch in
    // the git directory, stashes a backup (refs/stash), and puts it back afterwards.
    c.r.write("a.txt", &TEN.replace("9\n", "9 mine\n"));
    c.own();
    let out = c.apply(&replace_block("h01", "a.txt", "2\n", "2 ai TODO\n"), &[]);
    assert_eq!(exit_code(&out), 0, "{} {}", c.who(), output_text(&out));
    let v = report(&out);
    let s = step(&v, "hook pre-commit");
    assert!(
        s["output"]
            .as_str()
            .unwrap_or_default()
            .contains("init: sourced"),
        "{v}"
    );
    assert_eq!(
        c.r.git(&["show", "HEAD:a.txt"]),
        TEN.replace("2\n", "2 ai DONE\n"),
        "lint-staged's fix is in the AI commit ({})",
        c.who()
    );
    assert_eq!(
        c.r.read("a.txt"),
        TEN.replace("2\n", "2 ai DONE\n").replace("9\n", "9 mine\n")
    );
    assert_eq!(c.r.status(), " M a.txt\n", "{}", c.who());
    assert_eq!(
        c.r.git(&["stash", "list"]),
        "",
        "lint-staged's backup stash stayed in the overlay"
    );
    assert!(!c.r.exists(".git/lint-staged_unstaged.patch"));
    c.r.assert_fsck();
    // The issue's attack: a plain file_write of .husky/pre-commit (no executable bit needed).
    let before = c.r.read(".husky/pre-commit");
    for (id, path) in [("h02", ".husky/pre-commit"), ("h03", ".husky/_/h")] {
        let out = c.apply(
            &write_block(id, path, &format!("#!/bin/sh\n{}", c.attempts())),
            &[],
        );
        let v = report(&out);
        assert_eq!(v["results"][0]["code"], "protected_hook", "{} {v}", c.who());
        c.assert_contained(&out);
    }
    assert_eq!(c.r.read(".husky/pre-commit"), before);
}

#[test]
#[cfg_attr(
    not(has_husky),
    ignore = "needs husky, lint-staged and node (bash scripts/test installs them)"
)]
fn husky_9_with_lint_staged_works_contained_and_its_hooks_cannot_be_written() {
    let Some(modules) = node_modules() else {
        return;
    };
    // Without namespaces no overlay can be mounted: lint-staged cannot write its patch into
    // the read-only git directory, and the step is the user's (⏸), as hooks-sandbox.md says.
    modes::each_where(|m| m.namespaces, |m| husky_as(&modules, m));
}

fn pre_commit_as(bin: &Path, mode: &Mode) {
    let config = "repos:
  - repo: local
    hooks:
      - id: trailing-whitespace
        name: trim trailing whitespace
        entry: trailing-whitespace-fixer
        language: system
        types: [text]
      - id: end-of-file-fixer
        name: fix end of files
        entry: end-of-file-fixer
        language: system
        types: [text]
";
    let mut r = TestRepo::with_files(&[
        ("README.md", "hello\n"),
        (".pre-commit-config.yaml", config),
    ]);
    r.env.push((
        "PATH".into(),
        format!(
            "{}:{}",
            bin.display(),
            std::env::var("PATH").unwrap_or_default()
        ),
    ));
    let setup_cache = r.home.path().join("setup-cache");
    let out = r
        .command(bin.join("pre-commit"))
        .arg("install")
        .env("PRE_COMMIT_HOME", &setup_cache)
        .output()
        .expect("pre-commit install");
    assert!(
        out.status.success(),
        "pre-commit install: {}",
        output_text(&out)
    );
    let c = Case::new(r, mode);
    // A dirty worktree: an unstaged change (the framework stashes it as a patch and runs
    // `git checkout -- .`), an intent-to-add file (`git rm --cached` and `git add -N` around
    // the run), an untracked file.
    c.r.write("README.md", "hello, my unstaged work\n");
    c.r.write("wip.txt", "work in progress\n");
    c.r.git(&["add", "-N", "wip.txt"]);
    c.r.write("scratch.txt", "untracked\n");
    c.own();
    let out = c.apply(&write_block("f01", "b.txt", "x  \n"), &[]);
    assert_eq!(exit_code(&out), 0, "{} {}", c.who(), output_text(&out));
    assert_eq!(c.r.git(&["show", "HEAD:b.txt"]), "x\n", "{}", c.who());
    assert_eq!(c.r.read("README.md"), "hello, my unstaged work\n");
    assert_eq!(c.r.read("wip.txt"), "work in progress\n");
    assert_eq!(
        c.r.status(),
        " M README.md\n A wip.txt\n?? scratch.txt\n",
        "{}",
        c.who()
    );
    c.r.assert_fsck();
    // The issue's attack: a reply's .pre-commit-config.yaml with a `repo: local`,
    // `language: system` hook.
    let evil = format!(
        "repos:\n  - repo: local\n    hooks:\n      - id: x\n        name: x\n        entry: sh -c \"echo x > {}/WROTE-OUTSIDE || true\"\n        language: system\n        always_run: true\n",
        c.outside.path().display()
    );
    let out = c.apply(&write_block("f02", ".pre-commit-config.yaml", &evil), &[]);
    assert_eq!(
        report(&out)["results"][0]["code"],
        "protected_hook",
        "{}",
        c.who()
    );
    // Allowed by the user, it runs — contained, since the reply changed it.
    c.r.user_config("paths:\n  protect_hooks: false\nhooks:\n  sandbox: off\n");
    c.own();
    let out = c.apply(&write_block("f03", ".pre-commit-config.yaml", &evil), &[]);
    assert_eq!(exit_code(&out), 0, "{} {}", c.who(), output_text(&out));
    assert!(
        !c.marker("WROTE-OUTSIDE").exists(),
        "{} {}",
        c.who(),
        output_text(&out)
    );
}

#[test]
#[cfg_attr(
    not(has_pre_commit),
    ignore = "needs the pre-commit framework (bash scripts/test installs it)"
)]
fn the_pre_commit_framework_works_contained_on_a_dirty_worktree_and_its_config_cannot_be_written() {
    let Some(bin) = pre_commit_bin() else {
        return;
    };
    // Without namespaces the framework's `git checkout -- .` cannot replace files in the
    // worktree root (the per-entry grants).
    modes::each_where(|m| m.namespaces, |m| pre_commit_as(&bin, m));
}

fn check_as(mode: &Mode) {
    let r = TestRepo::with_files(&[("a.txt", "a\n")]);
    let tool = r.home.path().join(".tool");
    fs::create_dir_all(&tool).expect("mkdir");
    fs::write(tool.join("config"), "setting\n").expect("tool config");
    r.write(
        ".git/hooks/pre-commit",
        &format!(
            "#!/bin/sh\ncat '{}/config' >/dev/null || exit 1\n",
            tool.display()
        ),
    );
    r.set_executable(".git/hooks/pre-commit");
    r.write(
        ".git/hooks/commit-msg",
        "#!/bin/sh\ngrep -q sample \"$1\"\n",
    );
    r.set_executable(".git/hooks/commit-msg");
    let c = Case::new(r, mode);
    c.own();
    let out = c.clada(&["hooks", "check"]);
    let text = output_text(&out);
    assert_eq!(exit_code(&out), 1, "{} {text}", c.who());
    assert!(text.contains("⏸ hook pre-commit"), "{text}");
    assert!(text.contains("read: [\"~/.tool\"]"), "{text}");
    assert!(text.contains("✅ hook commit-msg"), "{text}");
    assert!(text.contains("1 of 2 pass"), "{text}");
    // The line it proposes, in the user's own file, makes the check pass.
    c.r.user_config("sandbox:\n  read: [\"~/.tool\"]\n");
    c.own();
    let out = c.clada(&["--format", "json", "hooks", "check"]);
    assert_eq!(exit_code(&out), 0, "{} {}", c.who(), output_text(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["success"], true, "{v}");
    assert_eq!(v["hooks"].as_array().map(Vec::len), Some(2), "{v}");
    // Nothing was committed or staged.
    assert_eq!(c.r.status(), "");
    assert_eq!(c.r.git(&["rev-list", "--count", "HEAD"]).trim(), "1");
}

#[test]
fn hooks_check_says_what_the_sandbox_refused_and_the_line_that_allows_it() {
    modes::each_where(|m| m.namespaces, check_as);
}

fn unavailable_as(mode: &Mode) {
    let r = TestRepo::with_files(&[("a.txt", "a\n"), (".gitignore", "ran\n")]);
    r.write(".git/hooks/pre-commit", "#!/bin/sh\necho yes > ran\n");
    r.set_executable(".git/hooks/pre-commit");
    let c = Case::new(r, mode);
    // No OS sandbox (as on a kernel without Landlock): hooks do not run unconfined instead.
    c.r.user_config("sandbox:\n  landlock: false\n");
    c.own();
    let head = c.r.head();
    let out = c.apply(&replace_block("u01", "a.txt", "a", "b"), &[]);
    assert_eq!(exit_code(&out), 1, "{} {}", c.who(), output_text(&out));
    let v = report(&out);
    let how = step(&v, "hook pre-commit")["needsUser"]["how"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(how.contains("hooks.sandbox: off"), "{v}");
    assert!(!c.r.exists("ran"), "{}", c.who());
    assert_eq!(c.r.head(), head);
    // The user's own hooks.sandbox: off runs them, and the report says so.
    c.r.user_config("sandbox:\n  landlock: false\nhooks:\n  sandbox: off\n");
    c.own();
    let out = c.clada(&["--format", "json", "commit"]);
    assert_eq!(exit_code(&out), 0, "{} {}", c.who(), output_text(&out));
    assert!(c.r.exists("ran"), "{}", c.who());
    assert!(
        output_text(&out).contains("code the reply wrote ran as you"),
        "{}",
        output_text(&out)
    );
    assert_eq!(c.r.git(&["show", "HEAD:a.txt"]), "b\n");
}

#[test]
fn without_the_os_sandbox_hooks_wait_for_the_user_instead_of_running_unconfined() {
    modes::each_where(|m| m.namespaces, unavailable_as);
}

fn exec_writes_hook_as(mode: &Mode) {
    let c = githooks_repo(mode);
    c.r.user_config("hooks:\n  sandbox: off\n");
    let hook = format!("#!/bin/sh\n{}", c.attempts());
    c.r.write("gen/pre-commit", &hook);
    c.r.git(&["add", "gen"]);
    c.r.git(&["commit", "-q", "-m", "generator"]);
    c.own();
    // An approved exec block (the user ran `--exec allow`) copies a hook into place.
    let code = "cp gen/pre-commit .githooks/pre-commit && chmod +x .githooks/pre-commit";
    let reply = block(
        "x01",
        &[("action", "exec"), ("lang", "bash"), ("code", code)],
    );
    let head = c.r.head();
    let out = c.apply(&reply, &["--exec", "allow"]);
    // The hook folder is read-only inside the sandbox (or put back): the block waits for the
    // user, naming it, and nothing is committed (issue 51.1).
    let v = report(&out);
    assert_eq!(v["results"][0]["code"], "protected_hook", "{} {v}", c.who());
    assert!(
        v["results"][0]["needsUser"]["how"]
            .as_str()
            .unwrap_or_default()
            .contains(".githooks"),
        "{v}"
    );
    assert!(!c.r.exists(".githooks/pre-commit"), "{}", c.who());
    assert_eq!(c.r.head(), head);
    // The user's own paths.protect_hooks: false lets it through: said, and run contained.
    c.r.user_config("hooks:\n  sandbox: off\npaths:\n  protect_hooks: false\n");
    c.r.git(&["checkout", "-q", "--", "."]);
    c.own();
    let out = c.apply(&reply, &["--exec", "allow"]);
    assert_eq!(exit_code(&out), 0, "{} {}", c.who(), output_text(&out));
    let text = output_text(&out);
    assert!(
        text.contains("this commit changes .githooks/pre-commit")
            && text.contains("runs outside any sandbox"),
        "{text}"
    );
    // Its hook ran on this very commit — contained, although hooks.sandbox is off.
    let v = report(&out);
    assert!(
        step(&v, "hook pre-commit")["output"]
            .as_str()
            .unwrap_or_default()
            .contains("hook ran"),
        "{v}"
    );
    c.assert_contained(&out);
    assert!(
        text.contains("ran in the OS sandbox although hooks.sandbox is off"),
        "{text}"
    );
}

#[test]
fn an_exec_block_that_writes_a_hook_is_said_and_its_hook_runs_contained() {
    modes::each(exec_writes_hook_as);
}
