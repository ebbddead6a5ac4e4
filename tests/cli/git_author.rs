//! `--git-author` (the CML era's flag, issue 14): the AI commit's author; the committer and a
//! snapshot of the user's work keep the user's identity.

use crate::common;

use common::{exit_code, write_block, TestRepo};

#[test]
fn git_author_sets_only_the_ai_commits_author() {
    let repo = TestRepo::with_files(&[("README.md", "readme\n")]);
    repo.write("README.md", "my own edit\n");
    let out = repo.apply(
        &write_block("a01", "new.txt", "hello\n"),
        &[
            "--git-author",
            "clada bot <bot@example.com>",
            "--wip",
            "commit",
        ],
    );
    assert_eq!(
        exit_code(&out),
        0,
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ai = repo.git(&["log", "-1", "--format=%an <%ae>|%cn <%ce>"]);
    assert_eq!(
        ai.trim(),
        "clada bot <bot@example.com>|Test User <test@example.com>"
    );
    // The snapshot of the user's work (the AI commit's parent) is the user's.
    let snap = repo.git(&["log", "-1", "--skip=1", "--format=%an <%ae>|%s"]);
    assert!(
        snap.starts_with("Test User <test@example.com>|"),
        "snapshot: {snap}"
    );
    repo.assert_fsck();
}

#[test]
fn git_author_must_name_an_email() {
    let repo = TestRepo::with_files(&[("README.md", "readme\n")]);
    repo.write("reply.md", &write_block("a01", "new.txt", "x"));
    for bad in ["clada", "clada <>", "<x@y>", "a <b@c> d"] {
        // A file argument, not stdin: the usage error comes before the reply is read.
        let out = repo.clada(&["apply", "--git-author", bad, "reply.md"]);
        assert_eq!(exit_code(&out), 2, "{bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("expected `NAME <EMAIL>`"), "{bad}: {err}");
        assert!(!repo.exists("new.txt"), "{bad}");
    }
}

/// Applies a reply writing `file` and returns the new commit's `%an <%ae>|%cn`.
fn author_of_apply(repo: &TestRepo, id: &str, file: &str, extra: &[&str]) -> String {
    let out = repo.apply(&write_block(id, file, "x\n"), extra);
    assert_eq!(
        exit_code(&out),
        0,
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    repo.git(&["log", "-1", "--format=%an <%ae>|%cn"])
        .trim()
        .to_string()
}

#[test]
fn config_commit_author_is_used_and_the_flag_wins() {
    let repo = TestRepo::with_files(&[("README.md", "readme\n")]);
    repo.write(
        ".clada.yml",
        "commit:\n  author: Team Bot <team@example.com>\n",
    );
    repo.git(&["add", ".clada.yml"]);
    repo.git(&["commit", "-qm", "config"]);
    assert_eq!(
        author_of_apply(&repo, "a01", "one.txt", &[]),
        "Team Bot <team@example.com>|Test User"
    );
    // git config `clada.author` is personal and wins over the repository's file.
    repo.git(&["config", "clada.author", "Me Bot <me@example.com>"]);
    assert_eq!(
        author_of_apply(&repo, "a02", "two.txt", &[]),
        "Me Bot <me@example.com>|Test User"
    );
    assert_eq!(
        author_of_apply(
            &repo,
            "a03",
            "three.txt",
            &["--git-author", "Flag <flag@example.com>"]
        ),
        "Flag <flag@example.com>|Test User"
    );
    repo.assert_fsck();
}

#[test]
fn a_malformed_config_author_is_a_usage_error_naming_where_it_was_set() {
    let repo = TestRepo::with_files(&[("README.md", "readme\n")]);
    repo.git(&["config", "clada.author", "no email here"]);
    repo.write("reply.md", &write_block("a01", "new.txt", "x"));
    let out = repo.clada(&["apply", "reply.md"]);
    assert_eq!(exit_code(&out), 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("commit.author (set in git config clada.author)"),
        "{err}"
    );
    assert!(err.contains("expected `NAME <EMAIL>`"), "{err}");
    assert!(!repo.exists("new.txt"));
}

/// Without `GIT_AUTHOR_DATE`/`GIT_COMMITTER_DATE`, the AI commit's dates carry the offset `TZ`
/// gives, as a commit git itself makes at the same time does (a POSIX `TZ`, so no time zone
/// database is needed: India, +05:30 all year).
#[test]
fn without_a_date_the_ai_commit_has_the_local_offset_git_would_give_it() {
    let repo = TestRepo::with_files(&[("README.md", "readme\n")]);
    let reply = repo.path().join("../reply.md");
    std::fs::write(&reply, write_block("t01", "new.txt", "hello\n")).unwrap();
    let out = repo
        .clada_cmd()
        .env_remove("GIT_AUTHOR_DATE")
        .env_remove("GIT_COMMITTER_DATE")
        .env("TZ", "IST-5:30")
        .arg("apply")
        .arg(&reply)
        .output()
        .unwrap();
    assert_eq!(
        exit_code(&out),
        0,
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ours = repo.git(&["log", "-1", "--format=%ad|%cd", "--date=format:%z"]);
    assert_eq!(ours.trim(), "+0530|+0530");
    let theirs = repo
        .git_cmd()
        .env_remove("GIT_AUTHOR_DATE")
        .env_remove("GIT_COMMITTER_DATE")
        .env("TZ", "IST-5:30")
        .args(["commit", "--allow-empty", "-qm", "by git"])
        .status()
        .unwrap();
    assert!(theirs.success());
    let gits = repo.git(&["log", "-1", "--format=%ad|%cd", "--date=format:%z"]);
    assert_eq!(gits, ours, "git's own commit");
}

/// The AI commit's author and committer offsets (`%ad %cd` as `%z`) with no date given, under
/// `tz` (`None`: unset), and the same of a plain `git commit` made beside it.
fn offsets_under(tz: Option<&str>, id: &str) -> (String, String) {
    let repo = TestRepo::with_files(&[("README.md", "readme\n")]);
    let set = |cmd: &mut std::process::Command| {
        cmd.env_remove("GIT_AUTHOR_DATE")
            .env_remove("GIT_COMMITTER_DATE")
            .env_remove("TZ");
        if let Some(tz) = tz {
            cmd.env("TZ", tz);
        }
    };
    let fmt = ["log", "-1", "--format=%ad %cd", "--date=format:%z"];
    let mut cmd = repo.clada_cmd();
    set(&mut cmd);
    cmd.args(["--format", "json", "apply", "-"]);
    let out = common::spawn_fed(cmd, &write_block(id, "new.txt", "x\n"))
        .wait_with_output()
        .unwrap();
    assert_eq!(
        exit_code(&out),
        0,
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ours = repo.git(&fmt);
    repo.write("human.txt", "y\n");
    repo.git(&["add", "human.txt"]);
    let mut git = repo.git_cmd();
    set(&mut git);
    assert!(git
        .args(["commit", "-qm", "human"])
        .status()
        .unwrap()
        .success());
    (ours.trim().to_string(), repo.git(&fmt).trim().to_string())
}

#[test]
fn a_commit_without_a_date_has_the_offset_git_gives_it_under_every_tz() {
    let mut zones = vec![
        None,
        Some("UTC"),
        Some("EST5EDT"),
        Some("<+0530>-5:30"),
        Some(""),
    ];
    if std::path::Path::new("/usr/share/zoneinfo/America/New_York").exists() {
        zones.extend([Some("America/New_York"), Some(":Europe/Paris")]);
    }
    for (i, tz) in zones.into_iter().enumerate() {
        let (ours, gits) = offsets_under(tz, &format!("z{i:02}"));
        assert_eq!(ours, gits, "TZ={tz:?}");
    }
}
