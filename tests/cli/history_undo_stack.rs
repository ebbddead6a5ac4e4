//! `undo` and `redo` are a stack: undo N times, redo N times, in order, over committed and
//! uncommitted applies, squashes and steps; `undo --list` shows both stacks; a refusal says
//! exactly why.

use crate::common;

use common::{block, TestRepo};

fn code(out: &std::process::Output) -> i32 {
    out.status.code().unwrap_or(-1)
}

fn text(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn ok(repo: &TestRepo, args: &[&str]) -> String {
    let out = repo.clada(args);
    assert_eq!(code(&out), 0, "{args:?}: {}", text(&out));
    text(&out)
}

/// What undo and redo must restore exactly: HEAD, the index, the files, git status (not the
/// refs: the redo stack lives there).
fn seen(repo: &TestRepo) -> (String, String, String, String) {
    let s = repo.state();
    (s.head, s.index, format!("{:?}", s.files), s.status)
}

fn write(id: &str, path: &str, content: &str) -> String {
    block(
        id,
        &[
            ("action", "file_write"),
            ("path", path),
            ("content", content),
        ],
    )
}

fn apply(repo: &TestRepo, reply: &str, extra: &[&str]) {
    let out = repo.apply(reply, extra);
    assert_eq!(code(&out), 0, "{}", text(&out));
}

/// Undoes everything in `states` (newest last) one by one, then redoes it all, checking each
/// state on the way down and back up.
fn undo_all_then_redo_all(repo: &TestRepo, states: &[(String, String, String, String)]) {
    for (i, want) in states.iter().rev().skip(1).enumerate() {
        ok(repo, &["undo"]);
        assert_eq!(&seen(repo), want, "after undo #{}", i + 1);
    }
    for (i, want) in states.iter().skip(1).enumerate() {
        ok(repo, &["redo"]);
        assert_eq!(&seen(repo), want, "after redo #{}", i + 1);
    }
    let out = repo.clada(&["redo"]);
    assert_eq!(code(&out), 3, "{}", text(&out));
    assert!(text(&out).contains("nothing to redo"), "{}", text(&out));
    repo.assert_fsck();
}

#[test]
fn undo_three_applies_then_redo_three() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("mine.txt", "mine\n")]);
    let mut states = vec![seen(&repo)];
    apply(&repo, &write("s01", "a.txt", "one\n"), &[]);
    states.push(seen(&repo));
    apply(&repo, &write("s02", "b.txt", "two\n"), &[]);
    states.push(seen(&repo));
    apply(&repo, &write("s03", "a.txt", "three\n"), &[]);
    states.push(seen(&repo));
    undo_all_then_redo_all(&repo, &states);
}

#[test]
fn the_users_edit_between_two_applies_stays_through_undo_and_redo() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("mine.txt", "mine\n")]);
    apply(&repo, &write("e01", "a.txt", "one\n"), &[]);
    repo.write("mine.txt", "my edit\n");
    apply(&repo, &write("e02", "a.txt", "two\n"), &[]);
    let top = seen(&repo);
    for (args, a) in [
        ("undo", "one\n"),
        ("undo", "a\n"),
        ("redo", "one\n"),
        ("redo", "two\n"),
    ] {
        ok(&repo, &[args]);
        assert_eq!(repo.read("a.txt"), a, "after {args}");
        assert_eq!(repo.read("mine.txt"), "my edit\n", "after {args}");
    }
    assert_eq!(seen(&repo), top);
}

#[test]
fn uncommitted_applies_are_undone_and_redone_one_by_one() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let mut states = vec![seen(&repo)];
    apply(&repo, &write("u01", "a.txt", "committed\n"), &[]);
    states.push(seen(&repo));
    apply(
        &repo,
        &write("u02", "b.txt", "staged one\n"),
        &["--no-commit"],
    );
    states.push(seen(&repo));
    apply(
        &repo,
        &write("u03", "c.txt", "staged two\n"),
        &["--no-commit"],
    );
    states.push(seen(&repo));
    undo_all_then_redo_all(&repo, &states);
}

#[test]
fn a_squash_and_the_applies_under_it_are_on_the_stack() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let mut states = vec![seen(&repo)];
    apply(&repo, &write("q01", "a.txt", "one\n"), &[]);
    states.push(seen(&repo));
    apply(&repo, &write("q02", "a.txt", "two\n"), &[]);
    states.push(seen(&repo));
    ok(&repo, &["squash", "--mode", "auto_ai"]);
    states.push(seen(&repo));
    apply(&repo, &write("q03", "b.txt", "three\n"), &[]);
    states.push(seen(&repo));
    undo_all_then_redo_all(&repo, &states);
}

/// Three commits to walk through, and uncommitted work that step-back parks.
fn walkable() -> TestRepo {
    let repo = TestRepo::with_files(&[("a.txt", "0\n")]);
    for i in 1..=3 {
        repo.write("a.txt", &format!("{i}\n"));
        repo.git(&["commit", "-q", "-am", &format!("commit {i}")]);
    }
    repo.write("u.txt", "untracked\n");
    repo.write("a.txt", "my edit\n");
    repo
}

#[test]
fn steps_are_undone_and_redone_in_order() {
    let repo = walkable();
    let mut states = vec![seen(&repo)];
    for args in [
        ["step-back"],
        ["step-back"],
        ["step-forward"],
        ["step-back"],
    ] {
        ok(&repo, &args);
        states.push(seen(&repo));
    }
    undo_all_then_redo_all(&repo, &states);
    // Back at the tip with the work restored, exactly.
    ok(&repo, &["step-forward", "--all"]);
    assert_eq!(seen(&repo), states[0]);
}

#[test]
fn a_return_to_the_tip_is_undone_back_into_the_walk() {
    let repo = walkable();
    let mut states = vec![seen(&repo)];
    ok(&repo, &["step-back"]);
    states.push(seen(&repo));
    ok(&repo, &["step-back"]);
    states.push(seen(&repo));
    ok(&repo, &["step-forward", "--all"]);
    states.push(seen(&repo));
    assert_eq!(states[3], states[0], "--all returns exactly");
    undo_all_then_redo_all(&repo, &states);
}

#[test]
fn applies_and_steps_mixed_are_one_stack() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let mut states = vec![seen(&repo)];
    apply(&repo, &write("m01", "a.txt", "one\n"), &[]);
    states.push(seen(&repo));
    apply(&repo, &write("m02", "a.txt", "two\n"), &[]);
    states.push(seen(&repo));
    ok(&repo, &["step-back"]);
    states.push(seen(&repo));
    undo_all_then_redo_all(&repo, &states);
}

#[test]
fn a_new_operation_after_an_undo_ends_the_redo_stack_and_redo_says_why() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    apply(&repo, &write("n01", "a.txt", "one\n"), &[]);
    apply(&repo, &write("n02", "a.txt", "two\n"), &[]);
    ok(&repo, &["undo"]);
    apply(&repo, &write("n03", "b.txt", "new\n"), &[]);
    let before = repo.state();
    let out = repo.clada(&["redo"]);
    assert_eq!(code(&out), 3, "{}", text(&out));
    let t = text(&out);
    assert!(t.contains("nothing to redo"), "{t}");
    assert!(t.contains("no longer the last operation"), "{t}");
    assert!(t.contains("HEAD moved from"), "{t}");
    assert_eq!(repo.state(), before, "nothing changed");
    // The next undo starts a new stack: undo twice, redo twice, and no older entry comes
    // back.
    let states = [seen(&repo)];
    ok(&repo, &["undo"]);
    ok(&repo, &["undo"]);
    ok(&repo, &["redo"]);
    ok(&repo, &["redo"]);
    assert_eq!(seen(&repo), states[0]);
    let out = repo.clada(&["redo"]);
    assert_eq!(code(&out), 3, "{}", text(&out));
}

#[test]
fn undo_with_nothing_to_take_back_says_why() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let out = repo.clada(&["undo"]);
    assert_eq!(code(&out), 3);
    let t = text(&out);
    assert!(t.contains("is not a git-clada commit"), "{t}");
    assert!(t.contains("nothing to undo"), "{t}");
    let out = repo.clada(&["redo"]);
    assert_eq!(code(&out), 3);
    assert!(
        text(&out).contains("no `git clada undo` was run"),
        "{}",
        text(&out)
    );
}

#[test]
fn undo_list_shows_what_undo_and_redo_reach() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    apply(&repo, &write("l01", "a.txt", "one\n"), &[]);
    apply(&repo, &write("l02", "b.txt", "two\n"), &[]);
    apply(&repo, &write("l03", "c.txt", "three\n"), &["--no-commit"]);
    ok(&repo, &["undo"]);
    let list = ok(&repo, &["--format", "human", "undo", "--list"]);
    let undo_at = list.find("Undo").expect(&list);
    let redo_at = list.find("Redo").expect(&list);
    let lines: Vec<&str> = list[undo_at..redo_at].lines().skip(1).collect();
    assert_eq!(lines.len(), 2, "{list}");
    assert!(
        lines[0].contains("apply") && lines[0].contains("AI: create b.txt"),
        "{list}"
    );
    assert!(
        lines[1].contains("AI: edit a.txt") || lines[1].contains("a.txt"),
        "{list}"
    );
    let redo: Vec<&str> = list[redo_at..].lines().skip(1).collect();
    assert_eq!(redo.len(), 1, "{list}");
    assert!(redo[0].contains("uncommitted apply"), "{list}");
    // The JSON form lists the same.
    let out = repo.clada(&["--format", "json", "undo", "--list"]);
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["undo"].as_array().unwrap().len(), 2, "{j}");
    assert_eq!(j["redo"].as_array().unwrap().len(), 1, "{j}");
    assert_eq!(j["redo"][0]["kind"], "uncommitted-apply");
    // Listing changes nothing.
    let before = repo.state();
    ok(&repo, &["undo", "--list"]);
    assert_eq!(repo.state(), before);
}
