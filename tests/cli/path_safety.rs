//! Paths git itself refuses, on real repositories: `.git` look-alikes (HFS+-ignorable code
//! points, NTFS trailing dots/spaces, streams and short names), symlinks a move would make
//! escape or name `.gitmodules`, and writes into submodules. Each is refused by `check` and by
//! `apply` before anything runs: nothing written, nothing committed, no journal left.

use crate::common;

use std::os::unix::fs::symlink;
use std::path::Path;

use common::{block, exit_code as code, output_text as text, TestRepo};

fn write(id: &str, path: &str) -> String {
    block(
        id,
        &[
            ("action", "file_write"),
            ("path", path),
            ("content", "#!/bin/sh\necho pwned\n"),
        ],
    )
}

fn mv(id: &str, from: &str, to: &str) -> String {
    block(
        id,
        &[
            ("action", "file_move"),
            ("old_path", from),
            ("new_path", to),
        ],
    )
}

/// Runs `git clada check` on `reply` (from a file in the home dir, outside the worktree).
fn check(repo: &TestRepo, reply: &str) -> std::process::Output {
    let file = repo.home.path().join("reply.md");
    std::fs::write(&file, reply).expect("write reply");
    repo.clada(&["check", file.to_str().expect("utf-8 path")])
}

fn no_journal(repo: &TestRepo) -> bool {
    !repo.path().join(".git/clada/transaction.json").exists()
}

/// `reply` (whose only block `id` is refused with `code`) is refused by check and apply, and
/// the repository is exactly as before. Returns the apply's error text for the block.
#[track_caller]
fn refused_everywhere(repo: &TestRepo, reply: &str, id: &str, want_code: &str) -> String {
    let before = repo.state();
    let checked = check(repo, reply);
    assert_eq!(code(&checked), 1, "check: {}", text(&checked));
    let out = text(&checked);
    assert!(out.contains(id) && out.contains(want_code), "check: {out}");

    let applied = repo.apply(reply, &[]);
    // Nothing in the reply could run: refused for safety.
    assert_eq!(code(&applied), 3, "apply: {}", text(&applied));
    let report = TestRepo::report(&applied);
    let r = &report["results"][0];
    assert_eq!(r["blockId"], id);
    assert_eq!(r["success"], false);
    assert_eq!(r["refused"], true, "{r}");
    let error = r["error"].as_str().unwrap_or_default().to_string();
    assert!(error.starts_with(&format!("{want_code}: ")), "{error}");
    assert!(report.get("gitCommit").is_none(), "{report}");
    assert_eq!(repo.state(), before, "apply changed something");
    assert!(no_journal(repo));
    repo.assert_fsck();
    error
}

#[test]
fn every_dotgit_lookalike_is_refused_by_check_and_apply() {
    let repo = TestRepo::with_files(&[("README", "hi\n")]);
    for (name, says) in [
        (
            ".g\u{200C}it/hooks/pre-commit",
            "U+200C (ZERO WIDTH NON-JOINER)",
        ),
        (".gi\u{200D}t/config", "U+200D"),
        ("\u{200E}.git/config", "U+200E"),
        (".git\u{200F}/config", "U+200F"),
        (".g\u{202A}it/x", "U+202A"),
        (".g\u{202E}it/x", "U+202E"),
        (".g\u{206A}it/x", "U+206A"),
        (".g\u{206F}it/x", "U+206F"),
        (".\u{FEFF}git/x", "U+FEFF"),
        (".GIT\u{200C}/x", "U+200C"),
        ("sub/.g\u{200C}it/hooks/x", "macOS"),
        (".git./hooks/pre-commit", "trailing dots and spaces"),
        (".git /hooks/pre-commit", "trailing dots and spaces"),
        (".git. . /config", "trailing dots and spaces"),
        (".git::$INDEX_ALLOCATION/hooks/x", "data stream"),
        ("GIT~1/hooks/pre-commit", "short name"),
        ("git~1/config", "short name"),
        ("deep/dir/Git~1./x", "short name"),
        (".GiT/config", "inside a .git directory"),
    ] {
        let error = refused_everywhere(&repo, &write("lk1", name), "lk1", "git_dir");
        assert!(error.contains(says), "{name:?}: {error}");
        // Invisible characters are shown, never printed raw.
        assert!(
            !error.contains('\u{200C}') && !error.contains('\u{FEFF}'),
            "{error}"
        );
        assert!(!repo.path().join(name).exists(), "{name:?} was written");
    }
    // Names that only resemble .git are fine.
    for name in [
        ".gitignore",
        ".git-blame-ignore-revs",
        "x.git/a",
        "git~2/a",
        ".github/x.yml",
    ] {
        let out = repo.apply(&write("ok1", name), &[]);
        assert_eq!(code(&out), 0, "{name}: {}", text(&out));
    }
    repo.assert_fsck();
}

#[test]
fn a_refused_lookalike_does_not_stop_the_other_blocks() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let reply = format!("{}{}", write("bad", ".git./x"), write("ok1", "b.txt"));
    let out = repo.apply(&reply, &[]);
    assert_eq!(code(&out), 1, "{}", text(&out));
    let report = TestRepo::report(&out);
    assert_eq!(report["results"][0]["refused"], true);
    assert_eq!(report["results"][1]["success"], true);
    assert_eq!(
        repo.git(&["ls-tree", "-r", "--name-only", "HEAD"]),
        "a.txt\nb.txt\n"
    );
    assert!(!repo.path().join(".git.").exists());
    assert!(no_journal(&repo));
    repo.assert_fsck();
}

#[test]
fn a_symlink_moved_to_a_gitmodules_lookalike_name_is_refused() {
    let repo = TestRepo::with_files(&[("modules.txt", "[submodule]\n")]);
    symlink("modules.txt", repo.path().join("link")).expect("symlink");
    repo.git(&["add", "link"]);
    repo.git(&["commit", "-q", "-m", "link"]);
    for name in [
        ".gitmodules",
        ".GITMODULES.",
        "GITMOD~1",
        "gi7eba~1",
        ".gitattributes",
        ".mailmap",
    ] {
        let error = refused_everywhere(&repo, &mv("sm1", "link", name), "sm1", "git_dir");
        assert!(error.contains("symlink"), "{name}: {error}");
    }
    // A regular file may be moved there.
    let out = repo.apply(&mv("ok1", "modules.txt", ".gitattributes"), &[]);
    assert_eq!(code(&out), 0, "{}", text(&out));
    repo.assert_fsck();
}

#[test]
fn moving_a_symlink_so_its_relative_target_escapes_is_refused() {
    let repo = TestRepo::with_files(&[("README", "hi\n"), ("a/b/keep.txt", "k\n")]);
    // docs/readme -> ../README points at the root's README; from the root it would point
    // above the repository.
    std::fs::create_dir_all(repo.path().join("docs")).expect("mkdir");
    symlink("../README", repo.path().join("docs/readme")).expect("symlink");
    symlink("../../README", repo.path().join("a/b/readme")).expect("symlink");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "links"]);

    let error = refused_everywhere(
        &repo,
        &mv("mv1", "docs/readme", "readme"),
        "mv1",
        "symlink_escape",
    );
    assert!(
        error.contains("'../README' is relative") && error.contains("outside"),
        "{error}"
    );
    // A directory holding such a link, moved one level up.
    let error = refused_everywhere(&repo, &mv("mv2", "a/b", "b"), "mv2", "symlink_escape");
    assert!(error.contains("a/b/readme"), "{error}");

    // Moving it where the target still resolves inside is fine and commits the link as is.
    let out = repo.apply(&mv("ok1", "docs/readme", "other/readme"), &[]);
    assert_eq!(code(&out), 0, "{}", text(&out));
    assert_eq!(
        std::fs::read_link(repo.path().join("other/readme")).expect("link"),
        Path::new("../README")
    );
    assert_eq!(repo.read("other/readme"), "hi\n");
    repo.assert_fsck();
}

/// A superproject with the submodule `libs/sub`, committed.
fn with_submodule() -> (TestRepo, TestRepo) {
    let sub = TestRepo::with_files(&[("lib.txt", "lib\n")]);
    let repo = TestRepo::with_files(&[("README", "hi\n")]);
    let url = sub.path().to_str().expect("utf-8").to_string();
    repo.git(&[
        "-c",
        "protocol.file.allow=always",
        "submodule",
        "add",
        "-q",
        &url,
        "libs/sub",
    ]);
    repo.git(&["commit", "-q", "-m", "add submodule"]);
    (repo, sub)
}

#[test]
fn writing_inside_a_submodule_is_refused_naming_it() {
    let (repo, _sub) = with_submodule();
    let sub_head = repo.git(&["-C", "libs/sub", "rev-parse", "HEAD"]);
    for (reply, id) in [
        (write("sb1", "libs/sub/new.txt"), "sb1"),
        (
            block(
                "sb2",
                &[
                    ("action", "file_replace_text"),
                    ("path", "libs/sub/lib.txt"),
                    ("old_text", "lib"),
                    ("new_text", "LIB"),
                ],
            ),
            "sb2",
        ),
        (mv("sb3", "README", "libs/sub/README"), "sb3"),
    ] {
        let error = refused_everywhere(&repo, &reply, id, "submodule");
        assert!(error.contains("the submodule 'libs/sub'"), "{error}");
    }
    assert_eq!(repo.read("libs/sub/lib.txt"), "lib\n");
    assert_eq!(repo.git(&["-C", "libs/sub", "rev-parse", "HEAD"]), sub_head);
    // Reading inside it is fine.
    let out = repo.apply(
        &block(
            "rd1",
            &[("action", "file_read"), ("path", "libs/sub/lib.txt")],
        ),
        &[],
    );
    assert_eq!(code(&out), 0, "{}", text(&out));
}

#[test]
fn writing_into_a_submodule_that_is_not_checked_out_is_refused() {
    let (origin, _sub) = with_submodule();
    // A clone without --recurse-submodules: `libs/sub` is an empty directory, known only
    // from .gitmodules and the gitlink.
    let work = TestRepo {
        dir: tempfile::tempdir().expect("tempdir"),
        home: tempfile::tempdir().expect("home"),
        env: Vec::new(),
    };
    let out = origin.git_output(&[
        "clone",
        "-q",
        origin.path().to_str().expect("utf-8"),
        work.path().to_str().expect("utf-8"),
    ]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(work.path().join("libs/sub").is_dir());
    assert!(!work.path().join("libs/sub/.git").exists());
    let error = refused_everywhere(&work, &write("un1", "libs/sub/x.txt"), "un1", "submodule");
    assert!(error.contains("the submodule 'libs/sub'"), "{error}");
}

#[test]
fn writing_inside_a_nested_repository_is_refused() {
    let repo = TestRepo::with_files(&[("README", "hi\n")]);
    let nested = repo.path().join("vendor/other");
    std::fs::create_dir_all(&nested).expect("mkdir");
    let out = repo.git_output(&["-C", "vendor/other", "init", "-q"]);
    assert!(out.status.success());
    let error = refused_everywhere(
        &repo,
        &write("ne1", "vendor/other/x.txt"),
        "ne1",
        "submodule",
    );
    assert!(
        error.contains("'vendor/other', a nested repository"),
        "{error}"
    );
}

#[test]
fn git_dir_without_git_work_tree_uses_the_current_directory_as_the_worktree() {
    // As git does: with only GIT_DIR set, the current directory is the top of the worktree.
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let elsewhere = tempfile::tempdir().expect("tempdir");
    std::fs::write(elsewhere.path().join("a.txt"), "a\n").expect("write");
    let git_dir = repo.path().join(".git");
    let reply = write("gd1", "b.txt");
    let mut cmd = repo.clada_cmd();
    cmd.current_dir(elsewhere.path())
        .env("GIT_DIR", &git_dir)
        .args(["--format", "json", "apply", "-"]);
    let out = common::spawn_fed(cmd, &reply)
        .wait_with_output()
        .expect("run");
    assert_eq!(code(&out), 0, "{}", text(&out));
    assert!(elsewhere.path().join("b.txt").exists());
    assert!(!repo.path().join("b.txt").exists());
    let tree = repo.git(&["ls-tree", "-r", "--name-only", "HEAD"]);
    assert_eq!(tree, "a.txt\nb.txt\n");
    // git agrees: with the same environment, the status there is clean.
    let status = std::process::Command::new("git")
        .current_dir(elsewhere.path())
        .env("GIT_DIR", &git_dir)
        .env_remove("GIT_WORK_TREE")
        .args(["status", "--porcelain"])
        .output()
        .expect("git status");
    assert_eq!(String::from_utf8_lossy(&status.stdout), "");

    // check resolves paths the same way.
    let file = repo.home.path().join("reply.md");
    std::fs::write(&file, write("gd2", "../escape.txt")).expect("write");
    let mut cmd = repo.clada_cmd();
    let checked = cmd
        .current_dir(elsewhere.path())
        .env("GIT_DIR", &git_dir)
        .args(["check", file.to_str().expect("utf-8")])
        .output()
        .expect("run");
    assert_eq!(code(&checked), 1, "{}", text(&checked));
    assert!(text(&checked).contains(&format!(
        "outside '{}'",
        std::fs::canonicalize(elsewhere.path())
            .expect("canonical")
            .display()
    )));
}

#[test]
fn names_git_refuses_that_an_exec_creates_are_left_out_of_the_commit() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let script = "mkdir -p .git. GIT~1 \"$(printf '.g\\342\\200\\214it')\" && \
                  echo x > .git./x && echo y > GIT~1/y && \
                  echo z > \"$(printf '.g\\342\\200\\214it')/z\" && \
                  ln -s a.txt .gitmodules && echo ok > ok.txt";
    let reply = block(
        "ex1",
        &[("action", "exec"), ("lang", "bash"), ("code", script)],
    );
    let out = repo.apply(&reply, &["--exec", "allow"]);
    assert_eq!(code(&out), 0, "{}", text(&out));
    let report = TestRepo::report(&out);
    let warnings = report["warnings"].to_string();
    for name in [".git./x", "GIT~1/y", ".g<U+200C>it/z", ".gitmodules"] {
        assert!(
            warnings.contains(&format!("'{name}' was not committed")),
            "{name}: {warnings}"
        );
    }
    assert_eq!(
        repo.git(&["ls-tree", "-r", "--name-only", "HEAD"]),
        "a.txt\nok.txt\n"
    );
    assert!(repo.path().join(".git./x").exists(), "left in place");
    assert!(no_journal(&repo));
    repo.assert_fsck();
}
