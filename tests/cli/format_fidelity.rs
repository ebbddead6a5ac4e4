//! Each format gives the bytes its own tool gives (issue 39): the cases found against aider,
//! Codex's apply_patch and `git apply`, each applied with the real binary in a real repository
//! and checked with git. The random comparisons with the tools themselves are
//! `tests/cli/differential_formats.rs`.

use crate::common;

use common::{exit_code, output_text, TestRepo};

/// The JSON report of `apply` (of any exit code).
fn report(out: &std::process::Output) -> serde_json::Value {
    TestRepo::report(out)
}

fn warnings(r: &serde_json::Value) -> Vec<String> {
    r["results"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|x| x["warnings"].as_array().cloned().unwrap_or_default())
        .filter_map(|w| w.as_str().map(str::to_string))
        .collect()
}

/// Every failure message of the report: failed results and parse errors.
fn errors(r: &serde_json::Value) -> String {
    let mut out = Vec::new();
    for x in r["results"].as_array().into_iter().flatten() {
        if let Some(e) = x["error"].as_str() {
            out.push(e.to_string());
        }
    }
    for e in r["parseErrors"].as_array().into_iter().flatten() {
        out.push(e.to_string());
    }
    out.join("\n")
}

fn bytes(repo: &TestRepo, rel: &str) -> Vec<u8> {
    std::fs::read(repo.path().join(rel)).expect("read")
}

/// A repository with one commit holding `files` (bytes).
fn repo_with(files: &[(&str, &[u8])]) -> TestRepo {
    let repo = TestRepo::new();
    for (p, b) in files {
        repo.write_bytes(p, b);
    }
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "initial"]);
    repo
}

const AIDER_EDIT: &str =
    "a.py\n```python\n<<<<<<< SEARCH\n    return 1\n=======\n    return 2\n>>>>>>> REPLACE\n```\n";

const CODEX_EDIT: &str =
    "*** Begin Patch\n*** Update File: a.py\n@@\n def f():\n-    return 1\n+    return 2\n*** End Patch\n";

#[test]
fn aider_and_apply_patch_end_the_file_with_a_line_break_as_their_tools_do() {
    for reply in [AIDER_EDIT, CODEX_EDIT] {
        let repo = repo_with(&[("a.py", b"def f():\n    return 1")]);
        let out = repo.apply(reply, &[]);
        assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
        assert_eq!(bytes(&repo, "a.py"), b"def f():\n    return 2\n", "{reply}");
        let w = warnings(&report(&out)).join("\n");
        assert!(
            w.contains("did not end with a line break; one was added")
                && w.contains("files.final_newline"),
            "{w}"
        );
        assert_eq!(repo.status(), "");
        repo.assert_fsck();
    }
}

#[test]
fn final_newline_false_keeps_a_missing_last_line_break() {
    for reply in [AIDER_EDIT, CODEX_EDIT] {
        // The repository's configuration…
        let repo = repo_with(&[
            ("a.py", b"def f():\n    return 1"),
            (".clada.yml", b"files:\n  final_newline: false\n"),
        ]);
        let out = repo.apply(reply, &[]);
        assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
        assert_eq!(bytes(&repo, "a.py"), b"def f():\n    return 2", "{reply}");
        // …or .editorconfig, for the paths it names.
        let repo = repo_with(&[
            ("a.py", b"def f():\n    return 1"),
            (
                ".editorconfig",
                b"root = true\n[*.py]\ninsert_final_newline = false\n",
            ),
        ]);
        let out = repo.apply(reply, &[]);
        assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
        assert_eq!(bytes(&repo, "a.py"), b"def f():\n    return 2", "{reply}");
        assert!(
            !warnings(&report(&out)).join("\n").contains("was added"),
            "{}",
            output_text(&out)
        );
    }
}

#[test]
fn a_unified_diff_follows_no_newline_at_end_of_file_exactly() {
    // Made by `git diff`: the new side has no last line break either.
    let repo = repo_with(&[("a.py", b"def f():\n    return 1")]);
    let diff = "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n def f():\n-    return 1\n\\ No newline at end of file\n+    return 2\n\\ No newline at end of file\n";
    let out = repo.apply(diff, &[]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    assert_eq!(bytes(&repo, "a.py"), b"def f():\n    return 2");
}

#[test]
fn apply_patch_reads_a_context_line_that_says_end_patch() {
    // A file that shows the format (docs/formats.md's apply_patch section does).
    let doc = "Example:\n\n*** Begin Patch\n*** End Patch\n\nMore text.\n";
    let repo = repo_with(&[("doc.md", doc.as_bytes())]);
    let reply = "Here is the patch:\n\n*** Begin Patch\n*** Update File: doc.md\n@@\n *** Begin Patch\n *** End Patch\n \n-More text.\n+Less text.\n*** End Patch\n\nDone.\n";
    let out = repo.apply(reply, &[]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    assert_eq!(
        repo.read("doc.md"),
        "Example:\n\n*** Begin Patch\n*** End Patch\n\nLess text.\n"
    );
    // In a heredoc too, and a second envelope after it is still read.
    let repo = repo_with(&[("doc.md", doc.as_bytes()), ("b.txt", b"x\n")]);
    let reply = "```bash\napply_patch <<'EOF'\n*** Begin Patch\n*** Update File: doc.md\n@@\n *** End Patch\n \n-More text.\n+Less text.\n*** End Patch\nEOF\n```\n\n*** Begin Patch\n*** Update File: b.txt\n@@\n-x\n+y\n*** End Patch\n";
    let out = repo.apply(reply, &[]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    assert!(repo.read("doc.md").ends_with("Less text.\n"));
    assert_eq!(repo.read("b.txt"), "y\n");
}

#[test]
fn diff_lines_that_read_as_file_headers_go_by_the_hunk_counts() {
    // `-- x` removed and `++ y` added: `--- x` / `+++ y` inside the hunk.
    let repo = repo_with(&[("notes.txt", b"a\n-- x\nb\n")]);
    repo.write("notes.txt", "a\n++ y\nb\n");
    let diff = repo.git(&["diff"]);
    assert!(diff.contains("\n--- x\n+++ y\n"), "{diff}");
    repo.git(&["checkout", "--", "notes.txt"]);
    let out = repo.apply(&diff, &[]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    assert_eq!(repo.read("notes.txt"), "a\n++ y\nb\n");
}

#[test]
fn a_diff_cut_off_mid_hunk_is_refused_and_changes_nothing() {
    let lines: String = (1..=40).map(|i| format!("line {i}\n")).collect();
    let repo = repo_with(&[("m.py", lines.as_bytes())]);
    let before = repo.state();
    // The header promises 8 old lines; the reply ends two lines later.
    let reply = "```diff\n--- a/m.py\n+++ b/m.py\n@@ -27,8 +27,10 @@\n line 27\n-line 28\n```\n";
    let out = repo.apply(reply, &[]);
    assert_ne!(exit_code(&out), 0, "{}", output_text(&out));
    let e = errors(&report(&out));
    assert!(
        e.contains("the reply was cut off after line 2 of this hunk"),
        "{e}"
    );
    common::assert_same_user_state(&repo.state(), &before, "cut-off diff");
}

#[test]
fn miscounted_hunks_are_still_recounted() {
    let lines: String = (1..=40).map(|i| format!("line {i}\n")).collect();
    // Followed by another hunk, and (the last) ending in context: counts too high.
    let repo = repo_with(&[("m.py", lines.as_bytes())]);
    let reply = "```diff\n--- a/m.py\n+++ b/m.py\n@@ -2,9 +2,9 @@\n line 2\n-line 3\n+LINE 3\n line 4\n@@ -30,9 +30,9 @@\n line 30\n-line 31\n+LINE 31\n line 32\n```\n";
    let out = repo.apply(reply, &[]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    let text = repo.read("m.py");
    assert!(
        text.contains("LINE 3\n") && text.contains("LINE 31\n"),
        "{text}"
    );
    assert!(warnings(&report(&out)).join("\n").contains("--recount"));
}

#[test]
fn modes_git_does_not_write_are_refused() {
    for mode in ["104755", "10075"] {
        let repo = repo_with(&[("s.sh", b"echo hi\n")]);
        let before = repo.state();
        let diff = format!("diff --git a/s.sh b/s.sh\nold mode 100644\nnew mode {mode}\n");
        let out = repo.apply(&diff, &[]);
        assert_ne!(exit_code(&out), 0, "{mode}: {}", output_text(&out));
        let e = errors(&report(&out));
        assert!(
            e.contains(&format!("invalid mode on the line `new mode {mode}`")),
            "{e}"
        );
        common::assert_same_user_state(&repo.state(), &before, mode);
        assert_eq!(
            repo.git(&["ls-files", "-s", "s.sh"])[..6].to_string(),
            "100644"
        );
    }
}

#[test]
fn a_reply_that_starts_with_a_byte_order_mark_loses_nothing() {
    let repo = repo_with(&[("a.py", b"x = 1\n")]);
    let reply = "\u{feff}a.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n";
    let out = repo.apply(reply, &[]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    assert_eq!(repo.read("a.py"), "x = 2\n");
    // A SHAM block first.
    let repo = repo_with(&[("a.py", b"x = 1\n")]);
    let reply = format!("\u{feff}{}", common::write_block("abc", "a.py", "y = 3"));
    let out = repo.apply(&reply, &[]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    assert_eq!(report(&out)["totalBlocks"], 1);
    assert_eq!(repo.read("a.py"), "y = 3\n");
}

#[test]
fn a_forced_dialect_says_how_many_blocks_of_other_formats_it_did_not_read() {
    let repo = repo_with(&[("a.py", b"x = 1\n"), ("b.txt", b"b\n")]);
    let reply = format!(
        "a.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n\n*** Begin Patch\n*** Update File: b.txt\n@@\n-b\n+c\n*** End Patch\n\n{}",
        common::write_block("abc", "c.txt", "c")
    );
    let out = repo.apply(&reply, &["--dialect", "aider"]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    let r = report(&out);
    assert_eq!(r["totalBlocks"], 1);
    let w = warnings(&r).join("\n");
    assert!(
        w.contains("--dialect aider: 2 blocks of other formats in this reply were not read (apply_patch, nesl, the first at line 9)"),
        "{w}"
    );
    assert_eq!(repo.read("b.txt"), "b\n");
}

#[test]
fn file_append_follows_the_final_newline_rule_of_file_write() {
    let editorconfig: &[u8] = b"root = true\n[*]\ninsert_final_newline = true\n";
    let repo = repo_with(&[("log.txt", b"one\n"), (".editorconfig", editorconfig)]);
    let reply = common::block(
        "abc",
        &[
            ("action", "file_append"),
            ("path", "log.txt"),
            ("content", "two"),
        ],
    );
    let out = repo.apply(&reply, &[]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    assert_eq!(repo.read("log.txt"), "one\ntwo\n");
    assert!(warnings(&report(&out))
        .join("\n")
        .contains("added a final newline (.editorconfig insert_final_newline)"));
    // And where it says false, the text is appended as it is.
    let repo = repo_with(&[
        ("log.txt", b"one\n"),
        (
            ".editorconfig",
            b"root = true\n[*]\ninsert_final_newline = false\n",
        ),
    ]);
    let out = repo.apply(&reply, &[]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    assert_eq!(repo.read("log.txt"), "one\ntwo");
}

// ---------------------------------------------------------------------------------------------
// binary patches

/// Bytes git takes for binary (a NUL), `n` of them, from `seed`.
fn binary(n: usize, seed: u8) -> Vec<u8> {
    let mut x = u32::from(seed) * 2 + 1;
    (0..n)
        .map(|i| {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            if i % 50 == 0 {
                0
            } else {
                (x >> 16) as u8 % 16
            }
        })
        .collect()
}

/// The diff `git diff --binary` makes of `change` (run in the worktree), and the tree it makes;
/// the worktree is put back to HEAD.
fn binary_diff(repo: &TestRepo, change: impl FnOnce(&TestRepo)) -> (String, String) {
    change(repo);
    repo.git(&["add", "-A"]);
    let diff = repo.git(&["diff", "--cached", "--binary", "-M", "HEAD"]);
    let tree = repo.git(&["write-tree"]).trim().to_string();
    repo.git(&["reset", "-q", "--hard", "HEAD"]);
    repo.git(&["clean", "-qfd"]);
    (diff, tree)
}

/// The tree of the AI commit the apply made.
fn head_tree(repo: &TestRepo) -> String {
    repo.git(&["rev-parse", "HEAD^{tree}"]).trim().to_string()
}

#[test]
fn binary_patches_literal_and_delta_rebuild_the_tree_git_makes() {
    let big = binary(6000, 1);
    let repo = repo_with(&[
        ("img/logo.png", &big),
        (".DS_Store", &binary(600, 2)),
        ("src/a.py", b"x = 1\n"),
    ]);
    let (diff, want) = binary_diff(&repo, |r| {
        // A small change of a large file (git writes a delta), a deleted file, a new one,
        // and a text change beside them.
        let mut changed = big.clone();
        changed[3000..3010].copy_from_slice(b"0123456789");
        r.write_bytes("img/logo.png", &changed);
        std::fs::remove_file(r.path().join(".DS_Store")).expect("rm");
        r.write_bytes("img/new.bin", &binary(300, 3));
        r.write("src/a.py", "x = 2\n");
    });
    assert!(
        diff.contains("\ndelta ") && diff.contains("\nliteral "),
        "{diff}"
    );
    let out = repo.apply(&format!("```diff\n{diff}```\n"), &[]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    assert_eq!(head_tree(&repo), want);
    assert_eq!(repo.status(), "");
    repo.assert_fsck();
}

#[test]
fn binary_patches_in_a_sha256_repository() {
    let repo = TestRepo::new();
    std::fs::remove_dir_all(repo.path().join(".git")).expect("rm .git");
    repo.git(&["init", "-q", "-b", "main", "--object-format=sha256"]);
    repo.git(&["config", "user.name", "Test User"]);
    repo.git(&["config", "user.email", "test@example.com"]);
    repo.write_bytes("b.bin", &binary(4000, 4));
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "initial"]);
    let (diff, want) = binary_diff(&repo, |r| {
        let mut b = binary(4000, 4);
        b[100] ^= 0x55;
        r.write_bytes("b.bin", &b);
    });
    let index = diff.lines().find(|l| l.starts_with("index ")).unwrap_or("");
    assert_eq!(
        index.len(),
        "index ".len() + 64 + 2 + 64 + " 100644".len(),
        "{index}"
    );
    // The engine's part, with --no-git, against git's own tree of the result.
    let out = apply_no_git(&repo, &diff);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    repo.git(&["add", "-A"]);
    assert_eq!(repo.git(&["write-tree"]).trim(), want);
}

/// `apply --no-git` with `reply` on stdin.
fn apply_no_git(repo: &TestRepo, reply: &str) -> std::process::Output {
    let mut cmd = repo.clada_cmd();
    cmd.args(["--format", "json", "apply", "--no-git", "-"]);
    common::spawn_fed(cmd, reply)
        .wait_with_output()
        .expect("wait git-clada")
}

#[test]
fn a_binary_patch_for_another_version_of_the_file_is_refused() {
    let repo = repo_with(&[("b.bin", &binary(3000, 5))]);
    let (diff, _) = binary_diff(&repo, |r| {
        let mut b = binary(3000, 5);
        b[10] ^= 1;
        r.write_bytes("b.bin", &b);
    });
    // The file is not what the patch was made from.
    let mut other = binary(3000, 5);
    other[2000] ^= 1;
    repo.write_bytes("b.bin", &other);
    repo.git(&["commit", "-qam", "other"]);
    let before = repo.state();
    let out = repo.apply(&diff, &[]);
    assert_ne!(exit_code(&out), 0, "{}", output_text(&out));
    let e = errors(&report(&out));
    assert!(
        e.contains("which does not match the current contents"),
        "{e}"
    );
    common::assert_same_user_state(&repo.state(), &before, "stale binary patch");
}

#[test]
fn binary_patches_need_the_full_index_line_and_intact_data() {
    let repo = repo_with(&[("b.bin", &binary(3000, 6))]);
    let (diff, _) = binary_diff(&repo, |r| r.write_bytes("b.bin", &binary(3000, 7)));
    assert!(diff.contains("GIT binary patch"), "{diff}");
    let before = repo.state();
    // Abbreviated ids, as `git diff` without --binary writes them.
    let short: String = diff
        .lines()
        .map(|l| match l.strip_prefix("index ") {
            Some(ids) => {
                let (a, b) = ids.split_once("..").expect("ids");
                format!("index {}..{}\n", &a[..7], &b[..7])
            }
            None => format!("{l}\n"),
        })
        .collect();
    let out = repo.apply(&short, &[]);
    assert_ne!(exit_code(&out), 0);
    assert!(errors(&report(&out)).contains("without full index line"));
    // A data line damaged: refused while reading, with the rest of the diff.
    let data = diff
        .lines()
        .position(|l| l.starts_with("literal ") || l.starts_with("delta "))
        .expect("hunk");
    let broken: String = diff
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i == data + 1 {
                format!("{}\n", &l[..l.len() - 5])
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    let out = repo.apply(&broken, &[]);
    assert_ne!(exit_code(&out), 0);
    assert!(
        errors(&report(&out)).contains("corrupt binary patch"),
        "{}",
        output_text(&out)
    );
    common::assert_same_user_state(&repo.state(), &before, "broken binary patches");
}

#[test]
fn binary_files_differ_is_refused_with_that_reason() {
    let repo = repo_with(&[("b.bin", &binary(300, 8)), ("a.txt", b"a\n")]);
    let before = repo.state();
    let diff = "diff --git a/b.bin b/b.bin\nindex 1234567..89abcde 100644\nBinary files a/b.bin and b/b.bin differ\ndiff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+b\n";
    let out = repo.apply(diff, &[]);
    assert_ne!(exit_code(&out), 0);
    let e = errors(&report(&out));
    assert!(e.contains("the diff was made without `--binary`"), "{e}");
    common::assert_same_user_state(&repo.state(), &before, "Binary files differ");
}
