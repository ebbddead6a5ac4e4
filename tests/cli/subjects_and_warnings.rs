//! Edits that do nothing useful are named (a no-op, a line commented twice, an empty folder git
//! cannot track), and the AI commit's subject says what the reply says it does, names a deleted
//! folder, and never stacks its `(+N more)` counters.

use crate::common;

use common::{block, TestRepo};
use serde_json::Value;

fn json(repo: &TestRepo, reply: &str) -> Value {
    TestRepo::report(&repo.apply(reply, &[]))
}

fn warnings(j: &Value, i: usize) -> String {
    j["results"][i]["warnings"].to_string()
}

#[test]
fn a_no_op_edit_is_named() {
    let repo = TestRepo::with_files(&[("a.txt", "keep me\n")]);
    let j = json(
        &repo,
        &block(
            "n01",
            &[
                ("action", "file_replace_text"),
                ("path", "a.txt"),
                ("old_text", "keep me"),
                ("new_text", "keep me"),
            ],
        ),
    );
    assert!(
        warnings(&j, 0).contains("new_text is the same as old_text: this block changed nothing"),
        "{j}"
    );
}

#[test]
fn commenting_a_commented_line_is_named() {
    let repo = TestRepo::with_files(&[("a.py", "x = 1\n# y = 2\nz = 3\n")]);
    let j = json(
        &repo,
        &block(
            "c01",
            &[
                ("action", "file_comment_lines"),
                ("path", "a.py"),
                ("lines", "1-2"),
            ],
        ),
    );
    assert_eq!(j["success"], true, "{j}");
    assert!(
        warnings(&j, 0).contains(
            "1 of lines 1-2 was already commented out with '#' and is now commented twice"
        ),
        "{j}"
    );
    // Commenting fresh lines says nothing.
    let j = json(
        &repo,
        &block(
            "c02",
            &[
                ("action", "file_comment_lines"),
                ("path", "a.py"),
                ("lines", "3"),
            ],
        ),
    );
    assert!(j["results"][0].get("warnings").is_none(), "{j}");
}

#[test]
fn an_empty_dir_create_is_named_and_a_filled_one_is_not() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let reply = [
        block("d01", &[("action", "dir_create"), ("path", "empty")]),
        block("d02", &[("action", "dir_create"), ("path", "filled")]),
        block(
            "d03",
            &[
                ("action", "file_write"),
                ("path", "filled/x.txt"),
                ("content", "x"),
            ],
        ),
    ]
    .concat();
    let j = json(&repo, &reply);
    assert!(
        warnings(&j, 0)
            .contains("'empty' is an empty directory: git does not track empty directories"),
        "{j}"
    );
    assert!(j["results"][1].get("warnings").is_none(), "{j}");
}

#[test]
fn a_dir_delete_subject_names_the_folder() {
    let repo = TestRepo::with_files(&[
        ("old/a.txt", "a\n"),
        ("old/b.txt", "b\n"),
        ("old/deep/c.txt", "c\n"),
        ("keep.txt", "k\n"),
    ]);
    let out = repo.apply(
        &block(
            "r01",
            &[
                ("action", "dir_delete"),
                ("path", "old"),
                ("recursive", "true"),
            ],
        ),
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", common::output_text(&out));
    assert_eq!(repo.subject("HEAD"), "AI: delete old/");
}

#[test]
fn the_subject_says_what_the_reply_says_it_does() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let reply = format!(
        "I'll add a greeting to a.txt. It is short.\n\n```sh nesl\n{}```\n",
        common::write_block("g01", "a.txt", "hello\n")
    );
    let out = repo.apply(&reply, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", common::output_text(&out));
    assert_eq!(repo.subject("HEAD"), "AI: Add a greeting to a.txt");
    // Without prose: the file list.
    let out = repo.apply(&common::write_block("g02", "b.txt", "b\n"), &[]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(repo.subject("HEAD"), "AI: create b.txt");
}

#[test]
fn squashed_counters_never_stack() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let many = |id: &str, n: usize, prefix: &str| -> String {
        (0..n)
            .map(|i| common::write_block(&format!("{id}{i}"), &format!("{prefix}{i}.txt"), "x\n"))
            .collect()
    };
    assert_eq!(repo.apply(&many("p", 3, "p"), &[]).status.code(), Some(0));
    assert_eq!(repo.apply(&many("q", 7, "q"), &[]).status.code(), Some(0));
    let out = repo.clada(&["squash", "--mode", "auto_ai"]);
    assert_eq!(out.status.code(), Some(0), "{}", common::output_text(&out));
    let s = repo.subject("HEAD");
    assert_eq!(s.matches("more)").count(), 1, "{s}");
    assert!(s.ends_with(" more)"), "{s}");
}
