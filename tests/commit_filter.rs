//! What enters an AI commit (issue 50 items 4, 6, 7; issue 51 item 6): one filter,
//! `record::admit`, for the agent's turn commit, the apply and what a contained hook
//! re-staged. Claude Code's hook payloads (tests/fixtures/agent-hooks/) piped to the real
//! binary around real edits, and a real pre-commit hook running `git add -A`, each checked
//! with git: an ignored file the agent wrote, the user's untracked file it edited, the
//! agent's hunk next to the user's edit, and the user's files a hook staged stay out of the
//! AI commit, and the report or stderr says so.

mod common;

use common::{exit_code, output_text, replace_block, TestRepo};

fn changed(repo: &TestRepo, rev: &str) -> String {
    repo.git(&["diff-tree", "--no-commit-id", "--name-only", "-r", rev])
        .trim_end()
        .to_string()
}

/// 51.6: a contained pre-commit hook's `git add -A` does not put the user's uncommitted and
/// untracked files into the AI commit: only the paths the apply changed are taken from the
/// hook's index, the others are named; a hook file among them stops the commit (⏸).
#[test]
fn a_hooks_git_add_takes_only_the_applys_paths_and_a_hook_file_pauses_the_commit() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("u.txt", "u\n")]);
    repo.write(".git/hooks/pre-commit", "#!/bin/sh\ngit add -A\n");
    repo.set_executable(".git/hooks/pre-commit");
    repo.write("u.txt", "u\nmy uncommitted line\n");
    repo.write("notes.txt", "my untracked notes\n");
    let out = repo.apply(&replace_block("h01", "a.txt", "a", "a by the AI"), &[]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    assert_eq!(changed(&repo, "HEAD"), "a.txt");
    assert_eq!(repo.status(), " M u.txt\n?? notes.txt\n");
    let v = TestRepo::report(&out);
    let warnings = v["warnings"].to_string();
    assert!(
        warnings.contains("u.txt")
            && warnings.contains("notes.txt")
            && warnings.contains("left out"),
        "{v}"
    );

    // An untracked hook file the hook stages: the commit waits for the user.
    repo.write(".husky/pre-push", "#!/bin/sh\necho planted\n");
    let head = repo.head();
    let out = repo.apply(
        &replace_block("h02", "a.txt", "a by the AI", "a again"),
        &[],
    );
    assert_eq!(exit_code(&out), 1, "{}", output_text(&out));
    assert_eq!(repo.head(), head);
    let v = TestRepo::report(&out);
    let paused = v["steps"]
        .as_array()
        .and_then(|s| s.iter().find(|x| !x["needsUser"].is_null()))
        .unwrap_or_else(|| panic!("no ⏸ step: {v}"));
    assert!(paused.to_string().contains(".husky/pre-push"), "{v}");
    let staged = repo.git(&["diff", "--cached", "--name-only"]);
    assert_eq!(staged, "", "nothing the hook staged stays staged");
    assert_eq!(repo.read("a.txt"), "a again\n");
    repo.assert_fsck();
}
