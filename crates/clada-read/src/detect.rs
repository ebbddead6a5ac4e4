//! Block-like text in a reply that has no block of any format read: a misspelled CSL or
//! replacer marker, a diff hunk or apply_patch file header without what must come before it, a
//! `<<<<<<<` without `SEARCH`, or a block of a format `--dialect` turned off. Such a reply must
//! not "succeed" with nothing done, so each finding is a notice (which the reports show as an
//! error, exit 1) naming what was seen, where, and what to do. (Misspelled SHAM/NESL headers
//! such as `#!Nesl` are the SHAM parser's near-miss notices.)

use super::block::{Dialect, Format, Notice};
use super::lines::Lines;

/// What to ask the model for: the formats git-clada reads, from the registry.
fn ask() -> String {
    let names: Vec<&str> = super::formats().map(|(f, _)| f.name).collect();
    format!(
        "git-clada reads {} blocks (`git clada prompt` prints the instructions); ask the model to \
         resend the edit in one of them",
        names.join(", ")
    )
}

/// What a line looks like, if it looks like a block of some kind.
fn looks_like(line: &str, next: Option<&str>, dialect: Dialect) -> Option<String> {
    let t = line.trim();
    if t == "<<<<<<<" {
        return Some(format!(
            "an aider SEARCH/REPLACE marker without `SEARCH` (`{t}`): aider blocks start with the \
             line `<<<<<<< SEARCH`; {}",
            ask()
        ));
    }
    if let Some(header) = ["*** Update File: ", "*** Add File: ", "*** Delete File: "]
        .iter()
        .find(|m| t.starts_with(**m))
    {
        return Some(format!(
            "an apply_patch file header (`{}`) outside a patch: put the file operations between \
             `*** Begin Patch` and `*** End Patch`",
            header.trim()
        ));
    }
    let diffs = matches!(dialect, Dialect::Auto | Dialect::Only(Format::DIFF));
    if diffs && (t.starts_with("```diff") || t.starts_with("```patch")) {
        return Some(
            "a diff fence with no diff read in it: a unified diff names each file first \
             (`--- a/PATH` and `+++ b/PATH`, or `diff --git a/PATH b/PATH`), then its `@@` hunks"
                .to_string(),
        );
    }
    if diffs
        && t.starts_with("@@ -")
        && next.is_some_and(|n| matches!(n.chars().next(), Some(' ' | '-' | '+')))
    {
        return Some(format!(
            "a diff hunk (`{}`) without the file headers before it: write `--- a/PATH` and \
             `+++ b/PATH` (or `diff --git a/PATH b/PATH` and those) before the first hunk",
            shorten(t)
        ));
    }
    if let Some(which) = other_dialect(line, dialect) {
        return Some(format!(
            "a {which} block, which `--dialect {}` does not read; drop `--dialect` or choose \
             the reply's format",
            dialect_name(dialect)
        ));
    }
    if (t.starts_with("<--") || t.starts_with("<-")) && t.contains("->") {
        let word: String = t
            .trim_start_matches(['<', '-'])
            .chars()
            .take_while(|c| c.is_ascii_alphabetic())
            .collect();
        if !word.is_empty() {
            return Some(format!(
                "a misspelled CSL marker (`{}`): CSL markers are exactly `<---{}--->` at the start \
                 of a line, e.g. `<---WRITE file=\"path\"--->` … `<---END--->`",
                shorten(t),
                word.to_ascii_uppercase()
            ));
        }
    }
    let angles = |s: &str, c: char| s.chars().take_while(|&x| x == c).count();
    if t.starts_with("<<") && t.ends_with(">>") && angles(t, '<') != 7 {
        let inner = t.trim_start_matches('<').trim_end_matches('>');
        let known = [
            "EXPLANATION",
            "FILE",
            "SEARCH",
            "REPLACE",
            "OVERWRITE",
            "END",
        ];
        if known.iter().any(|k| k.eq_ignore_ascii_case(inner.trim())) {
            return Some(format!(
                "a misspelled replacer marker (`{}`): replacer markers are exactly `<<<{}>>>` on \
                 their own line",
                shorten(t),
                inner.trim().to_ascii_uppercase()
            ));
        }
    }
    None
}

fn shorten(s: &str) -> String {
    if s.chars().count() <= 60 {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(60).collect::<String>())
    }
}

fn dialect_name(d: Dialect) -> &'static str {
    match d {
        Dialect::Auto => "auto",
        Dialect::Only(f) => f.id,
    }
}

/// A block of a format the forced dialect leaves out.
fn other_dialect(line: &str, dialect: Dialect) -> Option<&'static str> {
    if dialect == Dialect::Auto {
        return None;
    }
    let t = line.trim_start();
    let allowed = |f: Format| dialect == Dialect::Only(f);
    if t.starts_with("#!SHAM [") && !allowed(Format::SHAM) {
        return Some("SHAM");
    }
    if t.starts_with("#!NESL [") && !allowed(Format::NESL_UPPER) {
        return Some("NESL");
    }
    if t.starts_with("#!nesl [") && !allowed(Format::NESL) {
        return Some("nesl");
    }
    let csl = ["<---WRITE", "<---RUN", "<---SEARCH", "<---TASKS"];
    if csl.iter().any(|m| line.starts_with(m)) && !allowed(Format::CSL) {
        return Some("CSL");
    }
    let cml = [
        "<tasks", "<write ", "<edit ", "<move ", "<remove ", "<run>", "<run ",
    ];
    if cml.iter().any(|m| t.starts_with(m)) && !allowed(Format::CML) {
        return Some("CML");
    }
    if (t.trim_end() == "<<<FILE>>>" || t.trim_end() == "<<<EXPLANATION>>>")
        && !allowed(Format::REPLACER)
    {
        return Some("replacer");
    }
    if t.trim_end().starts_with("<<<<<<< SEARCH") && !allowed(Format::AIDER) {
        return Some("aider SEARCH/REPLACE");
    }
    if (t.trim_end() == "*** Begin Patch" || t.starts_with("apply_patch <<"))
        && !allowed(Format::APPLY_PATCH)
    {
        return Some("apply_patch");
    }
    if (line.starts_with("diff --git ") || line.starts_with("+++ ")) && !allowed(Format::DIFF) {
        return Some("unified diff");
    }
    None
}

/// Notices for every block-like line of `text` (call it only when nothing was read).
pub fn block_like(text: &str, dialect: Dialect) -> Vec<Notice> {
    let mut out = Vec::new();
    let mut lines = Lines::new(text).peekable();
    let mut n = 0;
    let mut in_diff = false;
    while let Some(line) = lines.next() {
        n += 1;
        let next = lines.peek().map(|l| l.text);
        if let Some(what) = looks_like(line.text, next, dialect) {
            // One notice per diff, not one per file header or hunk in it.
            let diff = what.starts_with("a unified diff") || what.starts_with("a diff ");
            if diff && in_diff {
                continue;
            }
            in_diff = diff;
            out.push(Notice {
                line: n,
                block_id: None,
                action: None,
                message: format!("line {n} looks like {what}"),
            });
        }
    }
    out
}
