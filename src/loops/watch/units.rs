//! Cutting a watched file into units that are applied once each: every complete block (header
//! to end marker, or to the next header when its end marker is missing), and every block-like
//! line that opened no block (a bad header), identified by a hash of their text.
//!
//! A block still being written — open at the end of the file — is no unit yet: it waits. The
//! text handed to `apply` keeps the file's line numbers (so reports point at the right lines):
//! lines of units already applied, and the unfinished tail, become empty lines.

use sha1::{Digest, Sha1};

use clada_read::{Dialect, ParseResult};

/// One unit of the watched file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    /// 1-based first and last line (inclusive).
    pub start: usize,
    pub end: usize,
    /// The block id (or `unknown`), for progress messages.
    pub label: String,
    /// SHA-1 (hex) of the unit's lines, carriage returns removed.
    pub key: String,
}

/// A watched file cut into units.
#[derive(Debug, Clone)]
pub struct Units {
    pub units: Vec<Unit>,
    /// The 1-based line where a block still being written starts, if any.
    pub pending: Option<(usize, String)>,
    lines: Vec<String>,
}

/// The hash that identifies a unit's text.
pub fn key_of(lines: &[String]) -> String {
    let mut h = Sha1::new();
    for (i, l) in lines.iter().enumerate() {
        if i > 0 {
            h.update(b"\n");
        }
        h.update(l.trim_end_matches('\r').as_bytes());
    }
    h.finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<String>()
}

impl Units {
    /// Cuts `text` into units.
    pub fn of(text: &str, dialect: Dialect) -> Units {
        let mut lines: Vec<String> = text.split('\n').map(String::from).collect();
        // The piece after a final line break is not a line.
        if text.ends_with('\n') {
            lines.pop();
        }
        let mut parsed = clada_read::parse(text, dialect);
        let mut pending = None;
        // The last block open at the end of the file is still being written.
        if let Some(last) = parsed.blocks.last() {
            if last.end_line.is_none() {
                pending = Some((last.start_line, last.id.clone()));
            }
        }
        // A last line without its line break that starts a marker may be half a header.
        if pending.is_none() && !text.ends_with('\n') {
            if let Some(l) = lines.last() {
                if l.starts_with("#!")
                    && !parsed
                        .blocks
                        .iter()
                        .any(|b| b.end_line == Some(lines.len()))
                {
                    pending = Some((lines.len(), "?".into()));
                }
            }
        }
        if let Some((start, _)) = &pending {
            lines.truncate(start - 1);
            let mut prefix = lines.join("\n");
            prefix.push('\n');
            parsed = clada_read::parse(&prefix, dialect);
        }
        let units = cut(&parsed, &lines);
        Units {
            units,
            pending,
            lines,
        }
    }

    /// The text to apply: the file's complete part with the lines of every unit not in
    /// `wanted` emptied, so line numbers stay the file's own.
    pub fn reply_text(&self, wanted: &[&Unit]) -> String {
        let mut keep = vec![true; self.lines.len()];
        for u in &self.units {
            if !wanted.iter().any(|w| w.start == u.start) {
                for k in keep.iter_mut().take(u.end).skip(u.start - 1) {
                    *k = false;
                }
            }
        }
        let mut out = String::new();
        for (line, keep) in self.lines.iter().zip(keep) {
            if keep {
                out.push_str(line);
            }
            out.push('\n');
        }
        out
    }
}

/// Units in line order: blocks with their spans, then block-like lines outside every block.
fn cut(parsed: &ParseResult, lines: &[String]) -> Vec<Unit> {
    let last_line = lines.len();
    let mut units: Vec<Unit> = Vec::new();
    for (i, b) in parsed.blocks.iter().enumerate() {
        let end = b.end_line.unwrap_or_else(|| {
            parsed
                .blocks
                .get(i + 1)
                .map(|n| n.start_line.saturating_sub(1))
                .unwrap_or(last_line)
        });
        let end = end.clamp(b.start_line, last_line.max(b.start_line));
        units.push(unit(lines, b.start_line, end, &b.id));
    }
    let inside =
        |line: usize, units: &[Unit]| units.iter().any(|u| u.start <= line && line <= u.end);
    let mut strays: Vec<(usize, String)> = Vec::new();
    for e in &parsed.errors {
        if e.line <= last_line && !inside(e.line, &units) {
            let label = e
                .note
                .as_ref()
                .and_then(|n| n.block_id.clone())
                .or_else(|| e.block_id.clone())
                .unwrap_or_else(|| "unknown".into());
            strays.push((e.line, label));
        }
    }
    for n in &parsed.notices {
        if n.line <= last_line && !inside(n.line, &units) {
            strays.push((
                n.line,
                n.block_id.clone().unwrap_or_else(|| "unknown".into()),
            ));
        }
    }
    strays.sort();
    strays.dedup_by_key(|(l, _)| *l);
    for (line, label) in strays {
        units.push(unit(lines, line, line, &label));
    }
    units.sort_by_key(|u| u.start);
    units
}

fn unit(lines: &[String], start: usize, end: usize, label: &str) -> Unit {
    let text = lines.get(start - 1..end).unwrap_or(&[]);
    Unit {
        start,
        end,
        label: label.to_string(),
        key: key_of(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "#!nesl [@three-char-SHA-256: aaa]\naction = \"file_write\"\npath = \"a.txt\"\ncontent = \"A\"\n#!end_aaa\n";
    const B: &str = "#!nesl [@three-char-SHA-256: bbb]\naction = \"file_write\"\npath = \"b.txt\"\ncontent = \"B\"\n#!end_bbb\n";

    #[test]
    fn complete_blocks_are_units_identified_by_content() {
        let text = format!("prose\n{A}more prose\n{B}");
        let u = Units::of(&text, Dialect::Auto);
        assert_eq!(u.units.len(), 2);
        assert_eq!((u.units[0].start, u.units[0].end), (2, 6));
        assert_eq!((u.units[1].start, u.units[1].end), (8, 12));
        assert!(u.pending.is_none());
        // The same block elsewhere in another file has the same key.
        let again = Units::of(&format!("\n\n\n{A}"), Dialect::Auto);
        assert_eq!(again.units[0].key, u.units[0].key);
        assert_ne!(u.units[0].key, u.units[1].key);
    }

    #[test]
    fn a_block_without_its_end_marker_at_the_end_waits() {
        let half = &B[..B.find("content").unwrap()];
        let text = format!("{A}{half}");
        let u = Units::of(&text, Dialect::Auto);
        assert_eq!(u.units.len(), 1);
        assert_eq!(u.pending, Some((6, "bbb".into())));
        let reply = u.reply_text(&u.units.iter().collect::<Vec<_>>());
        assert_eq!(reply, A, "the unfinished block is not in the reply");
        // Half a header line, no line break yet.
        let u = Units::of(&format!("{A}#!nesl [@three-ch"), Dialect::Auto);
        assert_eq!(u.units.len(), 1);
        assert!(u.pending.is_some());
    }

    #[test]
    fn reply_text_empties_units_not_wanted_and_keeps_line_numbers() {
        let text = format!("{A}x\n{B}");
        let u = Units::of(&text, Dialect::Auto);
        let reply = u.reply_text(&[&u.units[1]]);
        assert_eq!(reply.lines().count(), text.lines().count());
        let parsed = clada_read::parse(&reply, Dialect::Auto);
        assert_eq!(parsed.blocks.len(), 1);
        assert_eq!(parsed.blocks[0].id, "bbb");
        assert_eq!(parsed.blocks[0].start_line, 7);
    }

    #[test]
    fn a_bad_header_outside_blocks_is_its_own_unit() {
        let text = format!(
            "{A}#!nesl [@three-char-SHA-256: 1234567890]\naction = \"exec\"\n#!end_1234567890\n"
        );
        let u = Units::of(&text, Dialect::Auto);
        assert_eq!(u.units.len(), 2, "{:?}", u.units);
        assert_eq!(u.units[1].start, 6);
        let reply = u.reply_text(&[&u.units[0]]);
        let parsed = clada_read::parse(&reply, Dialect::Auto);
        assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
    }
}
