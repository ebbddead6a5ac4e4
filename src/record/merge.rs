//! A conservative line-based three-way merge of file contents, used to put the AI's change to
//! a file on top of HEAD's version when the user has uncommitted changes to the same file
//! (DESIGN §6.3): base = the user's version before the apply, ours = HEAD's, theirs = the AI's
//! result.
//!
//! Conservative on purpose: changes that overlap or touch (adjacent lines, insertions at the
//! same point) are a conflict unless both sides made the identical change, and binary content
//! (a NUL byte) never merges. A conflict is not an error: the caller falls back to recording
//! the user's work in a snapshot commit, which is always correct.

use similar::{capture_diff_slices, Algorithm, DiffOp};

/// One change of a side relative to the base: base lines `start..end` become `lines`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Hunk<'a> {
    start: usize,
    end: usize,
    lines: Vec<&'a [u8]>,
}

fn split_lines(data: &[u8]) -> Vec<&[u8]> {
    data.split_inclusive(|&b| b == b'\n').collect()
}

fn hunks<'a>(base: &[&'a [u8]], side: &[&'a [u8]]) -> Vec<Hunk<'a>> {
    let mut out: Vec<Hunk<'a>> = Vec::new();
    for op in capture_diff_slices(Algorithm::Myers, base, side) {
        let (start, end, new) = match op {
            DiffOp::Equal { .. } => continue,
            DiffOp::Delete {
                old_index, old_len, ..
            } => (old_index, old_index + old_len, &side[0..0]),
            DiffOp::Insert {
                old_index,
                new_index,
                new_len,
            } => (old_index, old_index, &side[new_index..new_index + new_len]),
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => (
                old_index,
                old_index + old_len,
                &side[new_index..new_index + new_len],
            ),
        };
        // Consecutive operations form one hunk.
        match out.last_mut() {
            Some(last) if last.end == start => {
                last.end = end;
                last.lines.extend_from_slice(new);
            }
            _ => out.push(Hunk {
                start,
                end,
                lines: new.to_vec(),
            }),
        }
    }
    out
}

/// Whether `a` (made from `w`) still holds every line `w` changed from `h`: the edits
/// from `w` to `a` touch none of the lines the user's change (`h` to `w`) added or replaced
/// (edits next to them are fine). A three-way merge refuses such neighbours as conflicts,
/// yet the user's change is all there.
pub fn lines_intact(h: &[u8], w: &[u8], a: &[u8]) -> bool {
    use similar::{DiffOp, TextDiff};
    let (h, w, a) = (
        String::from_utf8_lossy(h),
        String::from_utf8_lossy(w),
        String::from_utf8_lossy(a),
    );
    // The user's change, as ranges of `w`'s lines (an empty range: a deletion there).
    let users: Vec<std::ops::Range<usize>> = TextDiff::from_lines(h.as_ref(), w.as_ref())
        .ops()
        .iter()
        .filter(|op| !matches!(op, DiffOp::Equal { .. }))
        .map(|op| op.new_range())
        .collect();
    // The AI's edits, as ranges of `w`'s lines they replace.
    TextDiff::from_lines(w.as_ref(), a.as_ref())
        .ops()
        .iter()
        .filter(|op| !matches!(op, DiffOp::Equal { .. }))
        .map(|op| op.old_range())
        .all(|ai| {
            users.iter().all(|u| {
                let overlap = ai.start < u.end && u.start < ai.end;
                // Removing the line a deletion sat between still loses nothing of the user's.
                let inside = u.is_empty() && ai.start < u.start && u.start < ai.end;
                !overlap && !inside
            })
        })
}

/// Merges `ours` and `theirs`, both derived from `base`; `None` when the changes conflict or
/// any side is binary.
pub fn merge3(base: &[u8], ours: &[u8], theirs: &[u8]) -> Option<Vec<u8>> {
    if [base, ours, theirs].iter().any(|d| d.contains(&0)) {
        return None;
    }
    if ours == base {
        return Some(theirs.to_vec());
    }
    if theirs == base || ours == theirs {
        return Some(ours.to_vec());
    }
    let b = split_lines(base);
    let o = hunks(&b, &split_lines(ours));
    let t = hunks(&b, &split_lines(theirs));
    let mut merged: Vec<&Hunk<'_>> = Vec::with_capacity(o.len() + t.len());
    let (mut i, mut j) = (0, 0);
    while i < o.len() || j < t.len() {
        match (o.get(i), t.get(j)) {
            (Some(x), Some(y)) => {
                if x == y {
                    merged.push(x);
                    i += 1;
                    j += 1;
                } else if x.start <= y.end && y.start <= x.end {
                    // Overlapping or touching, and different.
                    return None;
                } else if x.start < y.start {
                    merged.push(x);
                    i += 1;
                } else {
                    merged.push(y);
                    j += 1;
                }
            }
            (Some(x), None) => {
                merged.push(x);
                i += 1;
            }
            (None, Some(y)) => {
                merged.push(y);
                j += 1;
            }
            (None, None) => break,
        }
    }
    // The hunks of one side never touch each other, and those of different sides were just
    // checked not to, so they apply in order.
    let mut out = Vec::with_capacity(ours.len().max(theirs.len()));
    let mut pos = 0;
    for h in merged {
        if h.start < pos {
            return None;
        }
        for line in &b[pos..h.start] {
            out.extend_from_slice(line);
        }
        for line in &h.lines {
            out.extend_from_slice(line);
        }
        pos = h.end;
    }
    for line in &b[pos..] {
        out.extend_from_slice(line);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::merge3;

    fn m(base: &str, ours: &str, theirs: &str) -> Option<String> {
        merge3(base.as_bytes(), ours.as_bytes(), theirs.as_bytes())
            .map(|v| String::from_utf8(v).unwrap_or_default())
    }

    #[test]
    fn separate_changes_both_land() {
        let base = "a\nb\nc\nd\ne\nf\n";
        let ours = "A\nb\nc\nd\ne\nf\n";
        let theirs = "a\nb\nc\nd\ne\nF\n";
        assert_eq!(m(base, ours, theirs).as_deref(), Some("A\nb\nc\nd\ne\nF\n"));
    }

    #[test]
    fn one_sided_changes_are_taken() {
        assert_eq!(m("x\n", "x\n", "y\n").as_deref(), Some("y\n"));
        assert_eq!(m("x\n", "y\n", "x\n").as_deref(), Some("y\n"));
        assert_eq!(m("x\n", "y\n", "y\n").as_deref(), Some("y\n"));
    }

    #[test]
    fn overlapping_or_adjacent_changes_conflict() {
        assert_eq!(m("a\nb\nc\n", "a\nB\nc\n", "a\nb2\nc\n"), None);
        // Adjacent lines: git conflicts here too.
        assert_eq!(m("a\nb\nc\nd\n", "a\nB\nc\nd\n", "a\nb\nC\nd\n"), None);
        // Insertions at the same point.
        assert_eq!(m("a\nb\n", "a\nx\nb\n", "a\ny\nb\n"), None);
    }

    #[test]
    fn identical_hunks_merge_once() {
        let base = "a\nb\nc\nd\ne\nf\n";
        let ours = "a\nB\nc\nd\ne\nf\n";
        let theirs = "a\nB\nc\nd\ne\nF\n";
        assert_eq!(m(base, ours, theirs).as_deref(), Some("a\nB\nc\nd\ne\nF\n"));
    }

    #[test]
    fn insertions_and_deletions_far_apart() {
        let base = "1\n2\n3\n4\n5\n6\n7\n";
        let ours = "0\n1\n2\n3\n4\n5\n6\n7\n";
        let theirs = "1\n2\n3\n4\n5\n7\n";
        assert_eq!(
            m(base, ours, theirs).as_deref(),
            Some("0\n1\n2\n3\n4\n5\n7\n")
        );
    }

    #[test]
    fn missing_final_newline_is_kept() {
        let base = "a\nb\nc\nd\ne";
        let ours = "A\nb\nc\nd\ne";
        let theirs = "a\nb\nc\nd\nE";
        assert_eq!(m(base, ours, theirs).as_deref(), Some("A\nb\nc\nd\nE"));
    }

    #[test]
    fn binary_never_merges() {
        assert_eq!(merge3(b"a\0\n", b"b\0\n", b"a\0\nc\n"), None);
    }
}
