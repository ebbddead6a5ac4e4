//! OpenAI Codex's `apply_patch` envelope (`codex-rs/apply-patch`):
//!
//! ```text
//! *** Begin Patch
//! *** Add File: docs/new.md
//! +first line
//! *** Delete File: old.txt
//! *** Update File: src/app.py
//! *** Move to: src/main.py
//! @@ def main():
//! -    print("hi")
//! +    print("hello")
//! *** End Patch
//! ```
//!
//! also as the body of an `apply_patch <<'EOF'` … `EOF` heredoc (how models write it in a
//! shell fence). Read as Codex's parser reads it: the envelope and file markers may carry
//! whitespace around them; an Add File's lines all start with `+`; an Update File's chunks start
//! with `@@` or `@@ ` and one line to find first (the first chunk may leave it out), their
//! lines start with ` `, `-` or `+` (an empty line is an empty context line), blank lines
//! between chunks are skipped, and `*** End of File` ends a chunk that must match at the end
//! of the file. Whatever Codex refuses to parse is an error for the whole envelope, and nothing
//! of it runs (as with Codex).
//!
//! Mapping, one block per file operation, the envelope's blocks a group that stops at its first
//! failure (Codex applies them in order and stops at the first that fails): Add File →
//! `file_write` (Codex overwrites an existing file too), Delete File → `file_delete`, Update
//! File → `file_patch` with `style = "apply_patch"` (and `new_path` for Move to; a move without
//! chunks, which Codex refuses as empty, is read as a plain move with a warning).

use super::lines::{Line, Lines};
use super::scan::{error, group, next_id, props, FrontEnd, Taken, TaskIds};
use super::{Block, ErrorCode, Format, GroupKind, Registration};

impl Format {
    pub const APPLY_PATCH: Format = Format {
        id: "apply-patch",
        name: "apply_patch",
        reference: false,
    };
}

pub(super) static FRONT_END: Registration = Registration::new(
    &[(
        Format::APPLY_PATCH,
        "Only Codex apply_patch envelopes: `*** Begin Patch` … `*** End Patch`, bare or in an \
         `apply_patch <<'EOF'` heredoc",
    )],
    |text, _| Box::new(ApplyPatch { text }),
);

const BEGIN: &str = "*** Begin Patch";
const END: &str = "*** End Patch";
const ADD: &str = "*** Add File: ";
const DELETE: &str = "*** Delete File: ";
const UPDATE: &str = "*** Update File: ";
const MOVE: &str = "*** Move to: ";
const EOF_MARK: &str = "*** End of File";

/// The apply_patch front end: an envelope opens on `*** Begin Patch` or `apply_patch <<EOF`.
struct ApplyPatch<'a> {
    text: &'a str,
}

impl<'a> FrontEnd<'a> for ApplyPatch<'a> {
    fn opens_with(&self) -> &'static [u8] {
        b"*a"
    }

    fn may_open(&self, trimmed: &str) -> bool {
        trimmed.starts_with(BEGIN) || trimmed.starts_with("apply_patch")
    }

    fn take(&mut self, ids: &mut TaskIds, line: Line<'a>, n: usize) -> Option<Taken> {
        let text = self.text.get(line.start..).unwrap_or("");
        let mut it = Lines::new(text);
        let first = it.next()?;
        let t = first.text.trim();
        let mut lines = vec![first];
        let heredoc = if t == BEGIN {
            None
        } else {
            let delim = heredoc_delimiter(t)?;
            let next = it.next()?;
            if next.text.trim() != BEGIN {
                return None;
            }
            lines.push(next);
            Some(delim)
        };
        // Up to `*** End Patch` (and the heredoc's closing line), not further: a reply of
        // many envelopes stays linear.
        let mut end = None;
        for l in it.by_ref() {
            let is_end = l.text.trim() == END;
            lines.push(l);
            if is_end {
                end = Some(lines.len() - 1);
                break;
            }
        }
        // A chunk's context line may read `*** End Patch` (a file that shows the format): as
        // Codex takes the last one for the end, the envelope goes on over the lines that can
        // belong to it, to the last `*** End Patch` among them.
        if end.is_some() {
            let mut more = Vec::new();
            for l in it.by_ref() {
                if !envelope_line(l.text) {
                    more.push(l);
                    break;
                }
                let is_end = l.text.trim() == END;
                more.push(l);
                if is_end {
                    lines.append(&mut more);
                    end = Some(lines.len() - 1);
                }
            }
            // The lines read past the end go back: they are not the envelope's.
            it = Lines::new(text);
            for _ in 0..lines.len() {
                it.next();
            }
        }
        if heredoc.is_some() {
            lines.extend(it.next());
        }
        Some(read(
            text,
            &lines,
            n,
            heredoc.as_deref(),
            end,
            ids.counter(),
        ))
    }
}

/// Whether a line after an `*** End Patch` can still be part of the envelope: a chunk line
/// (` `, `-`, `+`, `@@`, empty) or a file operation's `*** ` line, but not the start of
/// another envelope.
fn envelope_line(l: &str) -> bool {
    if l.starts_with(BEGIN) || l.starts_with("apply_patch") {
        return false;
    }
    l.is_empty()
        || matches!(l.as_bytes()[0], b' ' | b'-' | b'+')
        || l.starts_with("@@")
        || l.starts_with("*** ")
}

/// The delimiter of `apply_patch <<'EOF'` (also `<<EOF`, `<<"EOF"`, `<<-EOF`).
fn heredoc_delimiter(line: &str) -> Option<String> {
    let rest = line.strip_prefix("apply_patch")?.trim_start();
    let rest = rest.strip_prefix("<<")?;
    let rest = rest.strip_prefix('-').unwrap_or(rest).trim_start();
    let word = rest
        .trim_matches(|c| c == '\'' || c == '"')
        .trim_end_matches(|c: char| c == ';' || c.is_whitespace());
    (!word.is_empty() && word.chars().all(|c| c.is_alphanumeric() || c == '_'))
        .then(|| word.to_string())
}

/// One file operation of the envelope.
struct Op {
    /// Index (in the envelope's lines) of its header and of its last line.
    first: usize,
    last: usize,
    properties: indexmap::IndexMap<String, String>,
    warnings: Vec<String>,
}

/// A syntax error: the index of its line and the message.
type Bad = (usize, String);

/// Reads the envelope whose first line is `lines[0]` (line `n` of the reply).
fn read(
    text: &str,
    lines: &[Line<'_>],
    n: usize,
    heredoc: Option<&str>,
    end: Option<usize>,
    counter: &mut usize,
) -> Taken {
    let begin = usize::from(heredoc.is_some());
    let end = end.map(|e| e - (begin + 1));
    let result = match end {
        None => Err((
            lines.len().saturating_sub(1),
            "the envelope is not closed: the reply ends before `*** End Patch` (Codex: \"The \
             last line of the patch must be '*** End Patch'\")"
                .to_string(),
        )),
        Some(k) => ops(lines, begin + 1, begin + 1 + k),
    };
    let end_at = end.map_or(lines.len().saturating_sub(1), |k| begin + 1 + k);
    // The heredoc's closing delimiter belongs to the envelope.
    let taken = match (heredoc, lines.get(end_at + 1)) {
        (Some(d), Some(l)) if l.text.trim() == d => end_at + 2,
        _ => end_at + 1,
    };
    match result {
        Err((at, message)) => {
            let id = next_id(counter);
            Taken {
                lines: taken,
                blocks: Vec::new(),
                errors: vec![error(
                    ErrorCode::ApplyPatchSyntax,
                    text,
                    n,
                    n + at,
                    1,
                    Some(id),
                    format!(
                        "{message}; nothing of this patch (line {n}) was run, as apply_patch \
                         runs nothing of a patch it cannot parse"
                    ),
                )],
            }
        }
        Ok(ops) => {
            let mut blocks: Vec<Block> = ops
                .into_iter()
                .map(|op| {
                    let mut b = Block::foreign(
                        Format::APPLY_PATCH,
                        next_id(counter),
                        op.properties,
                        n + op.first,
                        n + op.last,
                    );
                    b.warnings = op.warnings;
                    b.source = Some(source(text, lines, op.first, op.last));
                    b
                })
                .collect();
            if let Some(gid) = blocks.first().map(|b| b.id.clone()) {
                group(&mut blocks, &gid, GroupKind::StopOnFailure, "patch");
            }
            Taken {
                lines: taken,
                blocks,
                errors: Vec::new(),
            }
        }
    }
}

fn source(text: &str, lines: &[Line<'_>], first: usize, last: usize) -> String {
    let (a, b) = (lines[first].start, lines[last].end());
    text.get(a..b).unwrap_or("").to_string()
}

/// The file operations between the envelope's markers (`lines[from..to]`).
fn ops(lines: &[Line<'_>], from: usize, to: usize) -> Result<Vec<Op>, Bad> {
    let mut out = Vec::new();
    let mut i = from;
    while i < to {
        let t = lines[i].text.trim();
        if let Some(path) = t.strip_prefix(ADD) {
            let mut content = String::new();
            let mut j = i + 1;
            while j < to {
                let Some(l) = lines[j].text.strip_prefix('+') else {
                    break;
                };
                content.push_str(l);
                content.push('\n');
                j += 1;
            }
            out.push(Op {
                first: i,
                last: j - 1,
                properties: props([
                    ("action", "file_write"),
                    ("path", path),
                    ("content", &content),
                ]),
                warnings: Vec::new(),
            });
            i = j;
        } else if let Some(path) = t.strip_prefix(DELETE) {
            out.push(Op {
                first: i,
                last: i,
                properties: props([("action", "file_delete"), ("path", path)]),
                warnings: Vec::new(),
            });
            i += 1;
        } else if let Some(path) = t.strip_prefix(UPDATE) {
            let (op, next) = update(lines, i, to, path)?;
            out.push(op);
            i = next;
        } else {
            return Err((
                i,
                format!(
                    "'{t}' is not a valid hunk header. Valid hunk headers: '*** Add File: {{path}}', \
                     '*** Delete File: {{path}}', '*** Update File: {{path}}'"
                ),
            ));
        }
    }
    if out.is_empty() {
        return Err((
            from.saturating_sub(1),
            "the patch changes no file (Codex: \"No files were modified.\")".into(),
        ));
    }
    Ok(out)
}

/// An Update File operation from its header `lines[at]`: the op and the index after it.
fn update(lines: &[Line<'_>], at: usize, to: usize, path: &str) -> Result<(Op, usize), Bad> {
    let mut i = at + 1;
    let move_to = lines
        .get(i)
        .filter(|_| i < to)
        .and_then(|l| l.text.strip_prefix(MOVE));
    if move_to.is_some() {
        i += 1;
    }
    let mut hunks = String::new();
    let mut chunks = 0;
    let mut last = i - 1;
    while i < to {
        let l = lines[i].text;
        if l.trim().is_empty() {
            i += 1;
            continue;
        }
        if l.starts_with("***") {
            break;
        }
        let (used, text) = chunk(lines, i, to, chunks == 0)?;
        hunks.push_str(&text);
        chunks += 1;
        i += used;
        last = i - 1;
    }
    let mut warnings = Vec::new();
    let mut properties = props([("action", "file_patch"), ("path", path)]);
    if chunks == 0 {
        if move_to.is_none() {
            return Err((at, format!("Update file hunk for path '{path}' is empty")));
        }
        warnings.push(
            "the Update File has a `*** Move to:` but no chunks (apply_patch refuses it as \
             empty); the file was moved unchanged"
                .to_string(),
        );
    }
    properties.insert("hunks".into(), hunks);
    properties.insert("style".into(), "apply_patch".into());
    if let Some(m) = move_to {
        properties.insert("new_path".into(), m.to_string());
    }
    Ok((
        Op {
            first: at,
            last,
            properties,
            warnings,
        },
        i,
    ))
}

/// One chunk from `lines[at]`: the lines it used and its text for the `hunks` parameter
/// (`@@` header, then ` `/`-`/`+` lines, `*** End of File`).
fn chunk(lines: &[Line<'_>], at: usize, to: usize, first: bool) -> Result<(usize, String), Bad> {
    let l = lines[at].text;
    let (mut out, mut i) = if l == "@@" || l.starts_with("@@ ") {
        (format!("{l}\n"), at + 1)
    } else if first {
        ("@@\n".to_string(), at)
    } else {
        return Err((
            at,
            format!("Expected update hunk to start with a @@ context marker, got: '{l}'"),
        ));
    };
    let start = i;
    while i < to {
        let l = lines[i].text;
        if l == EOF_MARK {
            if i == start {
                break;
            }
            out.push_str(EOF_MARK);
            out.push('\n');
            i += 1;
            return Ok((i - at, out));
        }
        match l.chars().next() {
            None => out.push_str(" \n"),
            Some(' ' | '-' | '+') => {
                out.push_str(l);
                out.push('\n');
            }
            Some(_) => break,
        }
        i += 1;
    }
    if i == start {
        let l = lines.get(i).map_or("", |l| l.text);
        return Err((
            i.min(to.saturating_sub(1)),
            if l == EOF_MARK || i == to {
                "Update hunk does not contain any lines".to_string()
            } else {
                format!(
                    "Unexpected line found in update hunk: '{l}'. Every line should start with ' ' \
                     (context line), '+' (added line), or '-' (removed line)"
                )
            },
        ));
    }
    Ok((i - at, out))
}

#[cfg(test)]
mod tests {
    use crate::{parse, Dialect};

    #[test]
    fn one_block_per_file_operation_in_a_group() {
        let r = parse(
            "*** Begin Patch\n*** Add File: a.txt\n+x\n*** Delete File: b.txt\n*** Update File: c.py\n*** Move to: d.py\n@@ def f():\n-    a\n+    b\n\n@@\n x\n*** End of File\n*** End Patch\n",
            Dialect::Auto,
        );
        assert!(r.errors.is_empty(), "{:?}", r.errors);
        let actions: Vec<&str> = r
            .blocks
            .iter()
            .map(|b| b.properties["action"].as_str())
            .collect();
        assert_eq!(actions, ["file_write", "file_delete", "file_patch"]);
        assert_eq!(r.blocks[0].properties["content"], "x\n");
        let p = &r.blocks[2].properties;
        assert_eq!(p["new_path"], "d.py");
        assert_eq!(
            p["hunks"],
            "@@ def f():\n-    a\n+    b\n \n@@\n x\n*** End of File\n"
        );
        assert!(r
            .blocks
            .iter()
            .all(|b| b.group.as_ref().is_some_and(|g| g.id == "task-1")));
        assert_eq!(
            (r.blocks[2].start_line, r.blocks[2].end_line),
            (5, Some(13))
        );
    }

    #[test]
    fn heredoc_form() {
        let r = parse(
            "```bash\napply_patch <<'EOF'\n*** Begin Patch\n*** Add File: a\n+x\n*** End Patch\nEOF\n```\n",
            Dialect::Auto,
        );
        assert_eq!(r.blocks.len(), 1);
        assert!(r.errors.is_empty());
    }

    #[test]
    fn the_last_end_patch_ends_the_envelope() {
        // A context line that reads `*** End Patch`, then the chunk's changes.
        let r = parse(
            "*** Begin Patch\n*** Update File: README.md\n@@\n *** End Patch\n-old\n+new\n*** End Patch\n\n- a list item after it\n",
            Dialect::Auto,
        );
        assert!(r.errors.is_empty(), "{:?}", r.errors);
        assert_eq!(
            r.blocks[0].properties["hunks"],
            "@@\n *** End Patch\n-old\n+new\n"
        );
        assert_eq!(r.blocks[0].end_line, Some(6));
        // Prose that looks like chunk lines after the end does not move it.
        let r = parse(
            "*** Begin Patch\n*** Add File: a\n+x\n*** End Patch\n- done\n- tested\n",
            Dialect::Auto,
        );
        assert_eq!(r.blocks.len(), 1);
        assert_eq!(r.blocks[0].properties["content"], "x\n");
        // Nor does the next envelope.
        let r = parse(
            "*** Begin Patch\n*** Add File: a\n+x\n*** End Patch\n*** Begin Patch\n*** Add File: b\n+y\n*** End Patch\n",
            Dialect::Auto,
        );
        assert_eq!(r.blocks.len(), 2, "{:?}", r.errors);
    }

    #[test]
    fn what_codex_refuses_runs_nothing() {
        for (patch, want) in [
            (
                "*** Begin Patch\n*** Update File: a\n*** End Patch\n",
                "is empty",
            ),
            (
                "*** Begin Patch\n*** Update File: a\n@@\nbad\n*** End Patch\n",
                "Unexpected line",
            ),
            (
                "*** Begin Patch\n\n*** Add File: a\n+x\n*** End Patch\n",
                "not a valid hunk header",
            ),
            ("*** Begin Patch\n*** Add File: a\n+x\n", "not closed"),
            ("*** Begin Patch\n*** End Patch\n", "changes no file"),
        ] {
            let r = parse(patch, Dialect::Auto);
            assert!(r.blocks.is_empty(), "{patch}");
            assert!(
                r.errors[0].message.contains(want),
                "{patch}: {:?}",
                r.errors
            );
        }
    }
}
