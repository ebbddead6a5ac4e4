//! Unit tests of `squash`.

use super::combined_subject;

#[test]
fn subjects_are_combined_without_repeating_the_prefix() {
    let s = combined_subject(["AI: edit a.txt", "AI: create b.txt", "AI: edit a.txt"].into_iter());
    assert_eq!(s, "AI: edit a.txt; create b.txt");
}

#[test]
fn long_combinations_are_cut_with_a_count() {
    let subjects: Vec<String> = (0..20)
        .map(|i| format!("AI: edit src/file{i}.rs"))
        .collect();
    let s = combined_subject(subjects.iter().map(String::as_str));
    assert!(s.chars().count() <= 72, "{s}");
    assert!(s.ends_with("more)"), "{s}");
    assert!(
        s.starts_with("AI: edit src/file0.rs; edit src/file1.rs"),
        "{s}"
    );
}

#[test]
fn counters_never_stack() {
    let s =
        combined_subject(["AI: edit a.txt (+1 more)", "AI: create b.txt (+5 more)"].into_iter());
    assert_eq!(s, "AI: edit a.txt; create b.txt (+6 more)");
    assert_eq!(s.matches("more)").count(), 1);
}

#[test]
fn human_subjects_keep_their_form() {
    assert_eq!(
        combined_subject(["fix typo", "AI: x"].into_iter()),
        "fix typo; AI: x"
    );
}
