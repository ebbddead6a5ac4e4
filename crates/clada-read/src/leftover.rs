//! The pre-commit check (DESIGN §7.6): staged content that still holds action-block markers —
//! an LLM reply pasted into a source file by mistake — is refused with file and line. Files
//! matching `check.allow` (`.clada.yml`) are exempt, for files that document the format.
//!
//! This module only scans content handed to it; the staged content itself is read by
//! `repo::staged_files`, with the `git` CLI (this layer never runs git).

use serde::Serialize;

/// One leftover marker.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// Repository-relative, `/`-separated.
    pub path: String,
    /// 1-based.
    pub line: usize,
    /// The marker line (trimmed, at most 80 characters).
    pub marker: String,
}

fn is_id(s: &str) -> bool {
    (2..=40).contains(&s.len())
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// Whether `line` is a block marker: a header or end marker in any SHAM/NESL spelling, a CSL
/// marker line (`<---WRITE file="…"--->`, `<---END--->`, …) or a replacer-format marker line
/// (`<<<SEARCH>>>`, …). CML is left out: its elements are ordinary XML, which real files hold.
pub fn is_marker(line: &str) -> bool {
    let l = line.trim_end_matches(['\r', ' ', '\t']);
    const REPLACER: [&str; 6] = [
        "<<<EXPLANATION>>>",
        "<<<FILE>>>",
        "<<<SEARCH>>>",
        "<<<REPLACE>>>",
        "<<<OVERWRITE>>>",
        "<<<END>>>",
    ];
    if REPLACER.contains(&l) {
        return true;
    }
    if let Some(inner) = l.strip_prefix("<---").and_then(|r| r.strip_suffix("--->")) {
        let word = inner.split([' ', '\t']).next().unwrap_or("");
        return ["WRITE", "RUN", "SEARCH", "TO", "REPLACE", "END", "TASKS"].contains(&word);
    }
    if ["#!SHAM [@", "#!NESL [@", "#!nesl [@"]
        .iter()
        .any(|p| l.starts_with(p))
    {
        return super::sham::header_id(l).is_some() || l.ends_with(']');
    }
    ["#!END_SHAM_", "#!END_NESL_", "#!end_"].iter().any(|p| {
        l.strip_prefix(p)
            .is_some_and(|id| is_id(id.strip_suffix('\'').unwrap_or(id)))
    })
}

/// The markers in one file's content (binary content — a NUL in its first 8 KiB — has none).
pub fn scan(path: &str, content: &[u8]) -> Vec<Finding> {
    if content[..content.len().min(8192)].contains(&0) {
        return Vec::new();
    }
    let text = String::from_utf8_lossy(content);
    text.lines()
        .enumerate()
        .filter(|(_, l)| is_marker(l))
        .map(|(i, l)| Finding {
            path: path.to_string(),
            line: i + 1,
            marker: l.trim_end().chars().take(80).collect(),
        })
        .collect()
}

/// `check.allow` globs (`*` also crosses `/`; `docs/**`, `*.md`).
pub fn allow_set(globs: &[String]) -> anyhow::Result<globset::GlobSet> {
    let mut b = globset::GlobSetBuilder::new();
    for g in globs {
        b.add(globset::Glob::new(g).map_err(|e| {
            anyhow::anyhow!("check.allow: '{g}' is not a valid glob: {e} (fix it in .clada.yml)")
        })?);
    }
    Ok(b.build()?)
}

/// The leftover markers in staged files (read by `repo::staged_files`): each file's path and
/// content.
pub fn findings<'a>(files: impl IntoIterator<Item = (&'a str, &'a [u8])>) -> Vec<Finding> {
    files.into_iter().flat_map(|(p, c)| scan(p, c)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_in_every_spelling() {
        for l in [
            "#!SHAM [@three-char-SHA-256: abc]",
            "#!NESL [@three-char-SHA-256: x1y]",
            "#!nesl [@three-char-SHA-256: k9]",
            "#!END_SHAM_abc",
            "#!END_NESL_x1y",
            "#!end_k9",
            "#!end_k9'",
            "#!end_abc  \r",
            "<---WRITE file=\"src/a.rs\"--->",
            "<---SEARCH file=\"a\" count=\"all\"--->",
            "<---END--->",
            "<---TASKS--->",
            "<<<SEARCH>>>",
            "<<<END>>>",
        ] {
            assert!(is_marker(l), "{l}");
        }
        for l in [
            "#!/bin/sh",
            "# #!SHAM [@three-char-SHA-256: abc]",
            "  #!end_abc",
            "#!end_",
            "#!endless",
            "#!end_a b",
            "EOT_SHAM_abc",
            "<---->",
            "<---arrow--->",
            "x <<<END>>>",
            "<<<NOT>>>",
            "<tasks version=\"1\">",
        ] {
            assert!(!is_marker(l), "{l}");
        }
        let f = scan(
            "a.rs",
            b"fn main() {}\n#!SHAM [@three-char-SHA-256: abc]\nx\n#!END_SHAM_abc\n",
        );
        assert_eq!(
            f.iter().map(|f| f.line).collect::<Vec<_>>(),
            [2, 4],
            "{f:?}"
        );
        assert!(scan("b.bin", b"\0#!end_abc\n").is_empty());
    }
}
