//! apply_patch (Codex) chunks placed as Codex places them: the `@@ anchor` line first, then the
//! chunk's old lines forward from the chunk before, through the cascade of tolerances (exact,
//! trailing whitespace, surrounding whitespace, typographic punctuation); a chunk without old
//! lines at the end of the file.

use std::borrow::Cow;
use std::collections::HashMap;

use super::super::hunks::{Hunk, Kind};
use super::search::{occurrences, DIRECT_WORK};
use super::{lines_word, not_found, Edit, Level, Located, NotFound, Text};

/// apply_patch's last resort: surrounding whitespace trimmed, typographic dashes, quotes and
/// odd spaces read as their ASCII forms.
fn normalise(s: &str) -> String {
    s.trim()
        .chars()
        .map(|c| match c {
            '\u{2010}'..='\u{2015}' | '\u{2212}' => '-',
            '\u{2018}'..='\u{201B}' => '\'',
            '\u{201C}'..='\u{201F}' => '"',
            '\u{00A0}' | '\u{2002}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' => ' ',
            other => other,
        })
        .collect()
}

/// A line as apply_patch compares it at `level`.
fn key(l: &str, level: Level) -> Cow<'_, str> {
    match level {
        Level::Exact | Level::LineEndings => Cow::Borrowed(l),
        Level::Trailing => Cow::Borrowed(l.trim_end()),
        Level::Surrounding => Cow::Borrowed(l.trim()),
        Level::Punctuation => Cow::Owned(normalise(l)),
    }
}

const LEVELS: [Level; 4] = [
    Level::Exact,
    Level::Trailing,
    Level::Surrounding,
    Level::Punctuation,
];

/// The file's lines as apply_patch compares them. A chunk is looked for position by position
/// (a mismatch usually shows on its first line or two); when that costs more than a few
/// comparisons per line (a long chunk that nearly matches at many places), the search goes on
/// in linear time (Knuth–Morris–Pratt over the lines), so a long chunk that is nowhere in a
/// long file is refused in time proportional to their sizes, not to their product.
struct Seeker<'t> {
    lines: &'t [&'t str],
}

impl<'t> Seeker<'t> {
    fn new(lines: &'t [&'t str]) -> Seeker<'t> {
        Seeker { lines }
    }

    /// The first position in `from ..= last` where `pattern` matches at `level`.
    fn first(&self, pattern: &[&str], from: usize, last: usize, level: Level) -> Option<usize> {
        let lines = self.lines;
        let want: Vec<Cow<'_, str>> = pattern.iter().map(|p| key(p, level)).collect();
        let budget = DIRECT_WORK * (lines.len() + pattern.len());
        let mut work = 0usize;
        let mut i = from;
        while i <= last {
            let same = want
                .iter()
                .enumerate()
                .take_while(|(k, w)| key(lines[i + k], level) == **w)
                .count();
            if same == want.len() {
                return Some(i);
            }
            work += same + 1;
            i += 1;
            if work > budget {
                return self.linear(&want, i, last, level);
            }
        }
        None
    }

    /// [`Seeker::first`] in linear time: the lines become numbers (the pattern's distinct
    /// keys; a file line that is none of them can never match), then [`occurrences`].
    fn linear(
        &self,
        want: &[Cow<'_, str>],
        from: usize,
        last: usize,
        level: Level,
    ) -> Option<usize> {
        if from > last {
            return None;
        }
        let mut ids: HashMap<&str, u32> = HashMap::new();
        let pattern: Vec<u32> = want
            .iter()
            .map(|w| {
                let next = ids.len() as u32;
                *ids.entry(w.as_ref()).or_insert(next)
            })
            .collect();
        let hay: Vec<u32> = self.lines[from..last + want.len()]
            .iter()
            .map(|l| ids.get(key(l, level).as_ref()).copied().unwrap_or(u32::MAX))
            .collect();
        occurrences(&hay, &pattern, true).first().map(|i| from + i)
    }

    /// apply_patch's `seek_sequence`: the first place at or after `start` where `pattern`
    /// occurs, trying each level in turn over the whole range; with `eof`, only at the end of
    /// the file.
    fn seek(&self, pattern: &[&str], start: usize, eof: bool) -> Option<(usize, Level)> {
        if pattern.is_empty() {
            return Some((start, Level::Exact));
        }
        if pattern.len() > self.lines.len() {
            return None;
        }
        let last = self.lines.len() - pattern.len();
        // With `eof`, only at the end, and never before the previous chunk's end.
        let from = if eof { last.max(start) } else { start };
        LEVELS
            .into_iter()
            .find_map(|level| self.first(pattern, from, last, level).map(|i| (i, level)))
    }
}

/// The line after a chunk's `@@ anchor` line, found from `cursor` on.
fn find_anchor(
    seeker: &Seeker<'_>,
    anchor: &str,
    cursor: usize,
    name: &str,
    warnings: &mut Vec<String>,
) -> Result<usize, NotFound> {
    let Some((at, level)) = seeker.seek(&[anchor], cursor, false) else {
        let after = if cursor > 0 {
            format!(" after line {cursor}, where the chunk before it ended")
        } else {
            String::new()
        };
        return Err(NotFound {
            message: format!(
                "{name}: its context line `@@ {anchor}` was not found in the file{after}"
            ),
            old_text: format!("{anchor}\n"),
            new_text: String::new(),
        });
    };
    if level != Level::Exact {
        warnings.push(format!(
            "{name}: its context line `@@ {anchor}` matched line {} {}",
            at + 1,
            level.tolerance()
        ));
    }
    Ok(at + 1)
}

/// The file's lines as apply_patch sees them: text without line breaks, UTF-8.
fn patch_lines<'t>(text: &Text<'t>) -> Result<Vec<&'t str>, usize> {
    (0..text.len())
        .map(|i| std::str::from_utf8(text.text(i)).map_err(|_| i + 1))
        .collect()
}

/// Places apply_patch chunks (Codex's rules, see the module doc). `Err(Ok(line))` is a file
/// that is not UTF-8 at that line.
pub fn apply_patch(text: &Text<'_>, hunks: &[Hunk]) -> Result<Located, Result<NotFound, usize>> {
    let lines = patch_lines(text).map_err(Err)?;
    let seeker = Seeker::new(&lines);
    let mut out = Located {
        keep_last_break: true,
        ..Located::default()
    };
    let mut cursor = 0usize;
    for (i, h) in hunks.iter().enumerate() {
        if let Some(anchor) = &h.anchor {
            cursor =
                find_anchor(&seeker, anchor, cursor, &h.name(i), &mut out.warnings).map_err(Ok)?;
        }
        let mut old: Vec<&str> = h.old_lines().collect();
        let new: Vec<&str> = h.new_lines().collect();
        if old.is_empty() {
            let at = if lines.last() == Some(&"") {
                lines.len() - 1
            } else {
                lines.len()
            };
            if !h.eof {
                out.warnings.push(format!(
                    "{} has no context or removed lines, so (as apply_patch does) its lines were \
                     added at the end of the file; give a line of context to place them elsewhere",
                    h.name(i)
                ));
            }
            out.edits.push(Edit {
                first: at,
                count: 0,
                new: joined(&new, text.eol),
            });
            continue;
        }
        let mut found = seeker.seek(&old, cursor, h.eof);
        let mut chunk: Vec<(Kind, &str)> = h.lines.iter().map(|(k, l)| (*k, l.as_str())).collect();
        if found.is_none() && old.last() == Some(&"") {
            // apply_patch's retry without a last empty old line (the file's final line break
            // written as a line), and without a last empty new line if there is one.
            old.pop();
            drop_last_empty(&mut chunk);
            found = seeker.seek(&old, cursor, h.eof);
        }
        let Some((at, level)) = found else {
            let place = if h.eof {
                " at the end of the file (the chunk is marked `*** End of File`)".to_string()
            } else if cursor > 0 {
                format!(" after line {cursor}")
            } else {
                String::new()
            };
            return Err(Ok(not_found(
                h,
                format!(
                    "{} was not found in the file{place}: its {} context and removed lines must \
                     match lines of the file in order",
                    h.name(i),
                    old.len()
                ),
            )));
        };
        if level != Level::Exact {
            out.warnings.push(format!(
                "{} matched {} {}; the file's context lines were kept as they are",
                h.name(i),
                lines_word(at, old.len()),
                level.tolerance()
            ));
        } else if !h.eof {
            let last = lines.len() - old.len();
            if let Some(again) = seeker.first(&old, at + 1, last, Level::Exact) {
                out.warnings.push(format!(
                    "{}'s lines also occur at {}; the first occurrence ({}) was changed, as \
                     apply_patch changes the first after the chunk before it (an `@@` line \
                     naming a line above the one you mean picks another)",
                    h.name(i),
                    lines_word(again, old.len()),
                    lines_word(at, old.len())
                ));
            }
        }
        out.edits.push(Edit {
            first: at,
            count: old.len(),
            new: chunk_new(text, &chunk, at),
        });
        cursor = at + old.len();
    }
    out.edits.sort_by_key(|e| e.first);
    Ok(out)
}

/// apply_patch's retry of a chunk whose old lines end with an empty one: that line leaves the
/// old side, and the new side's last line leaves it too if it is empty (each side on its own,
/// as Codex cuts its two lists: a context line kept on one side becomes a removed or added
/// line).
fn drop_last_empty(chunk: &mut Vec<(Kind, &str)>) {
    let last_old = chunk.iter().rposition(|(k, _)| *k != Kind::Added);
    let last_new = chunk.iter().rposition(|(k, _)| *k != Kind::Removed);
    let new_goes = last_new.is_some_and(|j| chunk[j].1.is_empty());
    match (last_old, last_new) {
        (Some(o), Some(n)) if o == n && new_goes => {
            chunk.remove(o);
        }
        (Some(o), n) => {
            let removed = chunk[o].0 != Kind::Context;
            if removed {
                chunk.remove(o);
            } else {
                chunk[o].0 = Kind::Added;
            }
            // The new side's last line, where it is now.
            let n = n.map(|n| if removed && n > o { n - 1 } else { n });
            if let Some(n) = n.filter(|_| new_goes) {
                if chunk[n].0 == Kind::Context {
                    chunk[n].0 = Kind::Removed;
                } else {
                    chunk.remove(n);
                }
            }
        }
        (None, _) => {}
    }
}

/// The new lines of a chunk placed at `at`, as apply_patch writes them: context lines as the
/// file has them, removed lines gone, added lines with the file's line break.
fn chunk_new(text: &Text<'_>, chunk: &[(Kind, &str)], at: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let mut k = at;
    for (kind, l) in chunk {
        match kind {
            Kind::Context => {
                let full = text.full(k);
                out.extend_from_slice(full);
                if !full.ends_with(b"\n") {
                    out.extend_from_slice(text.eol);
                }
                k += 1;
            }
            Kind::Removed => k += 1,
            Kind::Added => {
                out.extend_from_slice(l.as_bytes());
                out.extend_from_slice(text.eol);
            }
        }
    }
    out
}

fn joined(lines: &[&str], eol: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for l in lines {
        out.extend_from_slice(l.as_bytes());
        out.extend_from_slice(eol);
    }
    out
}
