//! Reading a reply: the 50 MiB limit (DESIGN §6.1) and unreadable files.

use crate::common;

fn sparse_file(dir: &std::path::Path, len: u64) -> std::path::PathBuf {
    let p = dir.join(format!("reply-{len}.md"));
    let f = std::fs::File::create(&p).unwrap();
    f.set_len(len).unwrap();
    p
}

#[test]
fn a_reply_over_50_mib_is_refused_before_anything_happens() {
    let repo = common::TestRepo::with_files(&[("a.txt", "a\n")]);
    let big = sparse_file(repo.home.path(), 50 * 1024 * 1024 + 1);
    let before = repo.state();
    for args in [vec!["parse"], vec!["apply"], vec!["check"]] {
        let mut cmd = repo.clada_cmd();
        let out = cmd.args(&args).arg(&big).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("larger than the 50 MiB limit") && err.contains("split it"),
            "{args:?}: {err}"
        );
    }
    assert_eq!(repo.state(), before);
}

#[test]
fn a_reply_of_exactly_50_mib_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let limit = sparse_file(dir.path(), 50 * 1024 * 1024);
    let repo = common::TestRepo::new();
    let mut cmd = repo.clada_cmd();
    let out = cmd
        .args(["parse", "--format", "json"])
        .arg(&limit)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_missing_reply_file_is_a_clear_error() {
    let repo = common::TestRepo::with_files(&[("a.txt", "a\n")]);
    let out = repo.clada(&["apply", "no-such-reply.md"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot read 'no-such-reply.md'"), "{err}");
}

#[test]
fn a_directory_given_as_the_reply_is_one_clear_error_line() {
    let repo = common::TestRepo::with_files(&[("a.txt", "a\n")]);
    std::fs::create_dir(repo.path().join("replies")).unwrap();
    let before = repo.state();
    let out = repo.clada(&["apply", "replies"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("git-clada: cannot read 'replies': "),
        "{err}"
    );
    // The cause is said once, not repeated by the error chain.
    assert_eq!(err.matches("(os error").count(), 1, "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert_eq!(repo.state(), before);
}
