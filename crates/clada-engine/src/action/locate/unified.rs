//! Unified hunks placed as `git apply` and GNU `patch` place them: at the header's line moved by
//! the offset before it, then nearest around it (forward first), anchored at the end or the
//! beginning as git anchors; exactly, then ignoring line endings, then trailing whitespace.

use std::borrow::Cow;

use super::super::hunks::{Hunk, Kind};
use super::search::{occurrences, DIRECT_WORK};
use super::{lines_word, not_found, strip_cr, trim_end_ws, Edit, Level, Located, NotFound, Text};

/// A line of the file as a unified hunk's line is compared with it at `level`: exactly with
/// its line break; without CRs and the line break; without trailing whitespace.
fn unified_key<'b>(text: &Text<'b>, i: usize, level: Level) -> &'b [u8] {
    match level {
        Level::Exact => text.full(i),
        Level::LineEndings => strip_cr(text.with_cr(i)),
        _ => trim_end_ws(text.with_cr(i)),
    }
}

/// The old side of a hunk as [`unified_key`] gives the file's lines (the last one without a
/// line break when `\ No newline at end of file` follows it).
fn unified_want<'h>(old: &[&'h str], no_eol: bool, level: Level) -> Vec<Cow<'h, [u8]>> {
    old.iter()
        .enumerate()
        .map(|(k, want)| {
            let want = want.as_bytes();
            match level {
                Level::Exact if k + 1 == old.len() && no_eol => Cow::Borrowed(want),
                Level::Exact => {
                    let mut w = want.to_vec();
                    w.push(b'\n');
                    Cow::Owned(w)
                }
                Level::LineEndings => Cow::Borrowed(strip_cr(want)),
                _ => Cow::Borrowed(trim_end_ws(want)),
            }
        })
        .collect()
}

/// Positions to try for a hunk, best first: the anchored ones, then nearest to `expected`
/// (forward first, as `git apply` searches), within `min ..= max`. Lazy: the first match ends
/// the search.
fn unified_order(
    expected: usize,
    min: usize,
    max: usize,
    anchored: Vec<usize>,
) -> impl Iterator<Item = usize> {
    let e = expected.clamp(min, max);
    anchored
        .into_iter()
        .filter(move |p| (min..=max).contains(p))
        .chain(std::iter::once(e))
        .chain((1..=max - min).flat_map(move |d| {
            let fwd = (e + d <= max).then_some(e + d);
            let back = (e >= min + d).then(|| e - d);
            fwd.into_iter().chain(back)
        }))
}

/// The new lines of a unified hunk placed at `pos`: context lines as the file has them, added
/// lines as the hunk has them (with the file's line break when matched by a tolerance).
fn unified_new(text: &Text<'_>, h: &Hunk, pos: usize, level: Level) -> Vec<u8> {
    let mut out = Vec::new();
    let mut k = 0;
    let added_last = h.lines.iter().rposition(|(kind, _)| *kind != Kind::Removed);
    for (j, (kind, line)) in h.lines.iter().enumerate() {
        match kind {
            Kind::Context => {
                out.extend_from_slice(text.full(pos + k));
                k += 1;
            }
            Kind::Removed => k += 1,
            Kind::Added => {
                let no_eol = h.new_no_eol && Some(j) == added_last;
                if level == Level::Exact {
                    out.extend_from_slice(line.as_bytes());
                    if !no_eol {
                        out.push(b'\n');
                    }
                } else {
                    out.extend_from_slice(strip_cr(line.as_bytes()));
                    if !no_eol {
                        out.extend_from_slice(text.eol);
                    }
                }
            }
        }
    }
    out
}

/// Places unified hunks (`git apply` / `patch` rules, see the module doc).
pub fn unified(text: &Text<'_>, hunks: &[Hunk]) -> Result<Located, NotFound> {
    let mut out = Located::default();
    let mut min = 0usize;
    let mut delta: isize = 0;
    for (i, h) in hunks.iter().enumerate() {
        let old: Vec<&str> = h.old_lines().collect();
        let n = old.len();
        let base = h.old.map(|(start, _)| {
            if n == 0 {
                start
            } else {
                start.saturating_sub(1)
            }
        });
        if n == 0 {
            let pos = insertion(
                text,
                h,
                i,
                base,
                (base.unwrap_or(0) as isize + delta).max(min as isize) as usize,
            )?;
            out.edits.push(Edit {
                first: pos,
                count: 0,
                new: unified_new(text, h, pos, Level::Exact),
            });
            min = pos;
            continue;
        }
        let expected = base.map_or(min, |b| (b as isize + delta).max(0) as usize);
        let Some((pos, level)) = place_unified(text, h, &old, min, base.map(|_| expected)) else {
            let after = if i > 0 {
                format!(" after line {min}, where the hunk before it ended")
            } else {
                String::new()
            };
            return Err(not_found(
                h,
                format!(
                    "{} does not apply: its {n} context and removed lines were not found in the \
                     file{after}",
                    h.name(i)
                ),
            ));
        };
        match base {
            Some(b) if pos != b => out.warnings.push(format!(
                "{} applied at {} (offset {:+} lines from its header)",
                h.name(i),
                lines_word(pos, n),
                pos as isize - b as isize
            )),
            Some(_) => {}
            None => out.warnings.push(format!(
                "{} has no line numbers; it was placed by its context, at {}",
                h.name(i),
                lines_word(pos, n)
            )),
        }
        if level != Level::Exact {
            out.keep_last_break |= level == Level::LineEndings;
            out.warnings.push(format!(
                "{} matched {} {}; the file's own lines were kept as context",
                h.name(i),
                lines_word(pos, n),
                level.tolerance()
            ));
        }
        if let Some(b) = base {
            delta = pos as isize - b as isize;
        }
        out.edits.push(Edit {
            first: pos,
            count: n,
            new: unified_new(text, h, pos, level),
        });
        min = pos + n;
    }
    Ok(out)
}

/// Where a hunk that only adds lines goes: after its header's old line (`at`, already moved by
/// the offset before it), which it must give.
fn insertion(
    text: &Text<'_>,
    h: &Hunk,
    i: usize,
    base: Option<usize>,
    at: usize,
) -> Result<usize, NotFound> {
    let Some(base) = base else {
        return Err(not_found(
            h,
            format!(
                "{} has no context or removed lines and no line numbers, so there is no telling \
                 where its lines go: give its header (`@@ -LINE,0 +LINE,COUNT @@`) or a line of \
                 context",
                h.name(i)
            ),
        ));
    };
    if at > text.len() {
        return Err(not_found(
            h,
            format!(
                "{} adds lines after line {base}, but the file has {} lines",
                h.name(i),
                text.len()
            ),
        ));
    }
    Ok(at)
}

/// The place of a hunk with old lines `old`, not before `min`: the first position, at the
/// strictest level that has one, in the order `git apply` tries them (from `expected` when the
/// header has numbers, else forward from `min`).
fn place_unified(
    text: &Text<'_>,
    h: &Hunk,
    old: &[&str],
    min: usize,
    expected: Option<usize>,
) -> Option<(usize, Level)> {
    let n = old.len();
    if n > text.len() || min > text.len() - n {
        return None;
    }
    let max = text.len() - n;
    let mut anchored = Vec::new();
    if h.trailing_context() == 0 {
        anchored.push(max);
    }
    if h.old.is_some_and(|(start, _)| start <= 1) {
        anchored.push(0);
    }
    let order = || -> Box<dyn Iterator<Item = usize>> {
        match expected {
            Some(e) => Box::new(unified_order(e, min, max, anchored.clone())),
            None => Box::new(min..=max),
        }
    };
    [Level::Exact, Level::LineEndings, Level::Trailing]
        .into_iter()
        .find_map(|level| {
            let want = unified_want(old, h.old_no_eol, level);
            // Position by position in `git apply`'s order while that is cheap (a mismatch
            // usually shows on the first line); then every match at once, in linear time.
            let budget = DIRECT_WORK * (text.len() + n);
            let mut work = 0usize;
            for p in order() {
                let same = want
                    .iter()
                    .enumerate()
                    .take_while(|(k, w)| unified_key(text, p + k, level) == w.as_ref())
                    .count();
                if same == n {
                    return Some((p, level));
                }
                work += same + 1;
                if work > budget {
                    let hay: Vec<&[u8]> = (0..text.len())
                        .map(|i| unified_key(text, i, level))
                        .collect();
                    let want: Vec<&[u8]> = want.iter().map(|w| w.as_ref()).collect();
                    let found = occurrences(&hay, &want, false);
                    return order()
                        .find(|p| found.binary_search(p).is_ok())
                        .map(|p| (p, level));
                }
            }
            None
        })
}
