//! Symbolic links a unified diff makes (issue 54.3): allowed when the target, read from the
//! link's folder and through no existing link, stays inside the worktree and out of every git
//! directory; refused otherwise with that reason, and at a path replies may not write, with
//! nothing of the diff applied. (What `git apply` gives for the allowed ones, undo included,
//! is `tests/cli/diff_round_trip.rs`'s.)

use crate::common;

use common::{exit_code, output_text, TestRepo};

/// A repository with files, a folder, and a committed link `ln -> d` to a folder.
fn repo() -> TestRepo {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("d/t.txt", "t\n")]);
    std::os::unix::fs::symlink("d", repo.path().join("ln")).expect("symlink");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "a link"]);
    repo
}

/// The diff `git diff` prints for a new link at `path` to `target`.
fn new_link(path: &str, target: &str) -> String {
    format!(
        "diff --git a/{path} b/{path}\nnew file mode 120000\nindex 0000000..1234567\n--- \
         /dev/null\n+++ b/{path}\n@@ -0,0 +1 @@\n+{target}\n\\ No newline at end of file\n"
    )
}

/// The first failed result's code and error.
fn failure(out: &std::process::Output) -> (String, String) {
    let report = TestRepo::report(out);
    let r = report["results"]
        .as_array()
        .and_then(|rs| {
            rs.iter().find(|r| {
                r["success"] == false && r["code"] != "not_run" && r["code"] != "rolled_back"
            })
        })
        .cloned()
        .unwrap_or_default();
    (
        r["code"].as_str().unwrap_or_default().to_string(),
        r["error"].as_str().unwrap_or_default().to_string(),
    )
}

#[test]
fn links_leading_out_or_into_git_or_through_a_link_are_refused_and_nothing_changes() {
    let repo = repo();
    let head = repo.head();
    for (path, target, code, why) in [
        (
            "l",
            "../outside",
            "symlink_escape",
            "leads above the worktree",
        ),
        (
            "d/l",
            "../../../etc/passwd",
            "symlink_escape",
            "above the worktree",
        ),
        ("l", "/etc/passwd", "symlink_escape", "absolute target"),
        ("l", ".git/config", "git_dir", "inside the git directory"),
        (
            "d/l",
            "../.GIT/hooks/pre-commit",
            "git_dir",
            "git directory",
        ),
        (
            "l",
            "ln/t.txt",
            "symlink_escape",
            "through the existing link 'ln'",
        ),
        (
            "l",
            "ln/../a.txt",
            "symlink_escape",
            "through the existing link 'ln'",
        ),
    ] {
        // With an allowed link beside it: a diff applies all or nothing.
        let reply = format!("{}{}", new_link("ok", "a.txt"), new_link(path, target));
        let out = repo.apply(&reply, &[]);
        assert_eq!(exit_code(&out), 1, "{target}: {}", output_text(&out));
        let (c, error) = failure(&out);
        assert_eq!(c, code, "{target}: {error}");
        assert!(error.contains(why), "{target}: {error}");
        assert!(
            error.contains("must lead, from its own folder and through no other link"),
            "{error}"
        );
        assert_eq!(repo.head(), head, "{target}");
        assert_eq!(repo.status(), "", "{target}");
        assert!(std::fs::symlink_metadata(repo.path().join("ok")).is_err());
    }
    // A link's target changed to lead out, too.
    let retarget = "diff --git a/ln b/ln\nindex 0000000..1234567 120000\n--- a/ln\n+++ b/ln\n@@ -1 +1 @@\n-d\n\\ No newline at end of file\n+..\n\\ No newline at end of file\n";
    let out = repo.apply(retarget, &[]);
    assert_eq!(exit_code(&out), 1, "{}", output_text(&out));
    assert_eq!(failure(&out).0, "symlink_escape");
    assert_eq!(
        std::fs::read_link(repo.path().join("ln"))
            .expect("link")
            .to_string_lossy(),
        "d"
    );
    assert_eq!(repo.head(), head);
    repo.assert_fsck();
}

#[test]
fn a_link_where_replies_may_not_write_is_refused_like_the_file() {
    let repo = repo();
    let head = repo.head();
    for (path, code, why) in [
        (".husky/pre-commit", "protected_hook", "husky"),
        (".gitattributes", "git_dir", "without following symlinks"),
        ("d/.gitmodules", "git_dir", "without following symlinks"),
        (".clada.yml", "protected_config", "git-clada"),
    ] {
        let out = repo.apply(&new_link(path, "a.txt"), &[]);
        assert_ne!(exit_code(&out), 0, "{path}: {}", output_text(&out));
        let (c, error) = failure(&out);
        assert_eq!(c, code, "{path}: {error}");
        assert!(error.contains(why), "{path}: {error}");
        assert!(std::fs::symlink_metadata(repo.path().join(path)).is_err());
        assert_eq!(repo.head(), head);
    }
    assert_eq!(repo.status(), "");
}

/// A git directory under another name inside the worktree (`--separate-git-dir`) is one too.
#[test]
fn a_link_into_a_git_directory_of_another_name_is_refused() {
    let dir = tempfile::tempdir().expect("tmp");
    let repo = TestRepo {
        dir,
        home: tempfile::tempdir().expect("tmp"),
        env: Vec::new(),
    };
    let gitdir = repo.path().join("store");
    let out = repo.git_output(&[
        "init",
        "-q",
        "-b",
        "main",
        "--separate-git-dir",
        gitdir.to_str().expect("utf8"),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    repo.git(&["config", "user.name", "Test User"]);
    repo.git(&["config", "user.email", "test@example.com"]);
    repo.write("a.txt", "a\n");
    repo.git(&["add", "a.txt"]);
    repo.git(&["commit", "-q", "-m", "a"]);
    let head = repo.head();
    let out = repo.apply(&new_link("l", "store/config"), &[]);
    assert_eq!(exit_code(&out), 1, "{}", output_text(&out));
    let (code, error) = failure(&out);
    assert_eq!(code, "git_dir", "{error}");
    assert!(
        error.contains("inside the git directory 'store'"),
        "{error}"
    );
    assert_eq!(repo.head(), head);
}

/// The AI commit holds the link as git does (mode 120000, the target as the blob), `git fsck`
/// agrees, and a dry run changes nothing.
#[test]
fn the_ai_commit_holds_mode_120000_entries_git_agrees_with() {
    let repo = repo();
    let reply = new_link("d/up", "../a.txt");
    let out = repo.apply(&reply, &["--dry-run"]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    assert!(std::fs::symlink_metadata(repo.path().join("d/up")).is_err());
    let out = repo.apply(&reply, &[]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    let staged = repo.git(&["ls-files", "-s", "d/up"]);
    let id = repo.git(&["rev-parse", "HEAD:d/up"]);
    assert_eq!(staged, format!("120000 {} 0\td/up\n", id.trim()));
    assert_eq!(repo.git(&["cat-file", "blob", id.trim()]), "../a.txt");
    assert_eq!(
        repo.git(&["ls-tree", "HEAD", "d/up"]),
        format!("120000 blob {}\td/up\n", id.trim())
    );
    assert_eq!(
        std::fs::read_link(repo.path().join("d/up"))
            .expect("link")
            .to_string_lossy(),
        "../a.txt"
    );
    assert_eq!(repo.status(), "");
    repo.assert_fsck();
}
