//! `git clada demo` runs the whole product on a scratch repository and cleans up after itself.

use crate::common;

#[test]
fn demo_applies_shows_and_undoes_the_example() {
    let repo = common::TestRepo::new();
    let out = repo.clada(&["demo"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    for expected in [
        "k7m ✅ file_write src/greet.rs",
        "p2x ✅ file_replace_text src/main.rs",
        "AI: create src/greet.rs, edit src/main.rs (+1 more)",
        "Clada-Blocks: k7m p2x c9d r4q",
        " 3 files changed, 8 insertions(+), 1 deletion(-)",
        "Undid the apply",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
    }
    let scratch = text
        .lines()
        .find_map(|l| l.strip_prefix("Scratch repository: "))
        .expect("scratch path printed");
    assert!(
        !std::path::Path::new(scratch).exists(),
        "the scratch repository is removed"
    );
}

#[test]
fn demo_keep_leaves_a_clean_repository_at_the_starting_commit() {
    let repo = common::TestRepo::new();
    let out = repo.clada(&["demo", "--keep"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    let kept = text
        .lines()
        .find_map(|l| l.strip_prefix("The scratch repository is kept at "))
        .expect("kept path printed")
        .to_string();
    let status = std::process::Command::new("git")
        .args(["-C", &kept, "status", "--porcelain"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&status.stdout), "");
    let log = std::process::Command::new("git")
        .args(["-C", &kept, "log", "--format=%s"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&log.stdout), "Initial commit\n");
    let fsck = std::process::Command::new("git")
        .args(["-C", &kept, "fsck"])
        .output()
        .unwrap();
    assert!(fsck.status.success());
    std::fs::remove_dir_all(&kept).unwrap();
}
