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

/// Whether the user's change (`head` → `user`) is still in `after`, a version made from
/// `user` by the AI: no line the user added or changed was removed or replaced on the way to
/// `after`. Lines the user only deleted count as kept. Binary content is judged whole.
pub fn user_change_kept(head: &[u8], user: &[u8], after: &[u8]) -> bool {
    if [head, user, after].iter().any(|d| d.contains(&0)) {
        return user == after || head == user;
    }
    let (h, u, a) = (split_lines(head), split_lines(user), split_lines(after));
    // The user's lines: the positions in `user` that its change added or replaced.
    // and the places where it deleted lines.
    let mut mine = vec![false; u.len()];
    let mut cuts = Vec::new();
    for op in capture_diff_slices(Algorithm::Myers, &h, &u) {
        match op {
            DiffOp::Insert {
                new_index, new_len, ..
            }
            | DiffOp::Replace {
                new_index, new_len, ..
            } => mine[new_index..new_index + new_len].fill(true),
            DiffOp::Delete { new_index, .. } => cuts.push(new_index),
            DiffOp::Equal { .. } => {}
        }
    }
    // The AI's change must leave every one of them in place: no added line removed or
    // replaced, no deletion point inside a span the AI rewrote.
    capture_diff_slices(Algorithm::Myers, &u, &a)
        .into_iter()
        .all(|op| match op {
            DiffOp::Delete {
                old_index, old_len, ..
            }
            | DiffOp::Replace {
                old_index, old_len, ..
            } => {
                let (start, end) = (old_index, old_index + old_len);
                !mine[start..end].contains(&true) && !cuts.iter().any(|&p| start < p && p < end)
            }
            _ => true,
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

/// What [`merge3_leaving`] made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leaving {
    /// `ours` with every hunk of `theirs` that does not touch one of `ours`.
    pub merged: Vec<u8>,
    /// `base` with only the hunks of `theirs` that were left out.
    pub left_applied: Vec<u8>,
    /// Where each hunk left out lies in `ours`: 0-based, half-open line ranges (empty for a
    /// hunk that only deleted lines: the place where they were).
    pub left_at: Vec<(usize, usize)>,
}

/// [`merge3`] that leaves out, instead of failing on, each hunk of `theirs` that overlaps or
/// touches a different hunk of `ours` (no unchanged line of `base` between them): `ours` is
/// kept there. `None` only when a side is binary.
pub fn merge3_leaving(base: &[u8], ours: &[u8], theirs: &[u8]) -> Option<Leaving> {
    if [base, ours, theirs].iter().any(|d| d.contains(&0)) {
        return None;
    }
    let b = split_lines(base);
    let o = hunks(&b, &split_lines(ours));
    let t = hunks(&b, &split_lines(theirs));
    let touches = |y: &Hunk<'_>| {
        o.iter()
            .any(|x| x != y && x.start <= y.end && y.start <= x.end)
    };
    let (left, kept): (Vec<&Hunk<'_>>, Vec<&Hunk<'_>>) = t.iter().partition(|y| touches(y));
    // A hunk both sides made alike is applied once, as `ours`'.
    let mut merged: Vec<&Hunk<'_>> = o.iter().collect();
    merged.extend(kept.into_iter().filter(|y| !o.contains(y)));
    merged.sort_by_key(|h| (h.start, h.end));
    let left_at = left.iter().map(|y| place_in(&o, y)).collect();
    Some(Leaving {
        merged: apply_hunks(&b, &merged),
        left_applied: apply_hunks(&b, &left),
        left_at,
    })
}

/// `base` with `hunks` (in order, none touching another) applied.
fn apply_hunks(base: &[&[u8]], hunks: &[&Hunk<'_>]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut pos = 0;
    for h in hunks {
        for line in &base[pos..h.start.max(pos)] {
            out.extend_from_slice(line);
        }
        for line in &h.lines {
            out.extend_from_slice(line);
        }
        pos = pos.max(h.end);
    }
    for line in &base[pos.min(base.len())..] {
        out.extend_from_slice(line);
    }
    out
}

/// Where the base range of `y` lies in the version `ours` makes of the base: a bound inside
/// one of `ours`' hunks widens to that hunk's whole span.
fn place_in(ours: &[Hunk<'_>], y: &Hunk<'_>) -> (usize, usize) {
    let at = |p: usize, end: bool| -> usize {
        let mut shift: isize = 0;
        for x in ours {
            let grow = x.lines.len() as isize - (x.end - x.start) as isize;
            // Lines inserted at `p` come before base line `p`: before a start, after an end.
            let before = x.end < p || (x.end == p && (!end || x.start < p));
            if before {
                shift += grow;
                continue;
            }
            if x.start < p {
                let start = (x.start as isize + shift).max(0) as usize;
                return if end { start + x.lines.len() } else { start };
            }
            break;
        }
        (p as isize + shift).max(0) as usize
    };
    let start = at(y.start, false);
    (start, at(y.end, true).max(start))
}

/// Where [`merge3`] finds `ours` and `theirs` in conflict: for each pair of their changes
/// that overlap or touch, the lines of `ours` around them (1-based, inclusive; a change that
/// left no line there names the line it sits before). Empty when they merge, or when a side
/// is binary (which never merges, but has no lines to name).
pub fn conflict_lines(base: &[u8], ours: &[u8], theirs: &[u8]) -> Vec<(usize, usize)> {
    if [base, ours, theirs].iter().any(|d| d.contains(&0)) {
        return Vec::new();
    }
    let b = split_lines(base);
    let (o, t) = (
        hunks(&b, &split_lines(ours)),
        hunks(&b, &split_lines(theirs)),
    );
    // A base line's number in `ours`: shifted by what the ours hunks wholly before it added.
    let at = |line: usize| -> usize {
        let shift: isize = o
            .iter()
            .filter(|h| h.end <= line)
            .map(|h| h.lines.len() as isize - (h.end - h.start) as isize)
            .sum();
        (line as isize + shift).max(0) as usize
    };
    let mut out: Vec<(usize, usize)> = Vec::new();
    for x in &o {
        for y in &t {
            if x == y || x.start > y.end || y.start > x.end {
                continue;
            }
            let (lo, hi) = (at(x.start.min(y.start)), at(x.end.max(y.end)));
            let range = (lo + 1, hi.max(lo + 1));
            if !out.contains(&range) {
                out.push(range);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{conflict_lines, merge3, merge3_leaving, user_change_kept};

    #[test]
    fn conflicts_are_named_by_the_lines_of_ours() {
        let lines =
            |b: &str, o: &str, t: &str| conflict_lines(b.as_bytes(), o.as_bytes(), t.as_bytes());
        // Ours added a line above, then changed line 3 (now line 4); theirs changed line 3.
        assert_eq!(
            lines("1\n2\n3\n4\n", "0\n1\n2\nX\n4\n", "1\n2\nY\n4\n"),
            [(4, 4)]
        );
        // Adjacent changes: both lines named.
        assert_eq!(
            lines("a\nb\nc\nd\n", "a\nB\nc\nd\n", "a\nb\nC\nd\n"),
            [(2, 3)]
        );
        // Apart: no conflict.
        assert!(lines("a\nb\nc\nd\n", "A\nb\nc\nd\n", "a\nb\nc\nD\n").is_empty());
    }

    #[test]
    fn leaving_keeps_ours_where_theirs_touches_it_and_takes_the_rest() {
        let base = "1\n2 T\n3\n4\n5\n6\n7\n8 T\n9\n";
        // ours changes line 3, next to theirs' line 2; theirs' line 8 is far away.
        let ours = "1\n2 T\n3 O\n4\n5\n6\n7\n8 T\n9\n";
        let theirs = "1\n2\n3\n4\n5\n6\n7\n8\n9\n";
        let l = merge3_leaving(base.as_bytes(), ours.as_bytes(), theirs.as_bytes()).unwrap();
        assert_eq!(l.merged, b"1\n2 T\n3 O\n4\n5\n6\n7\n8\n9\n");
        assert_eq!(l.left_applied, b"1\n2\n3\n4\n5\n6\n7\n8 T\n9\n");
        assert_eq!(l.left_at, vec![(1, 2)]);
        // Nothing touches: the whole of theirs is taken, as merge3 would.
        let far = "1\n2 T\n3\n4\n5\n6 O\n7\n8 T\n9\n";
        let l = merge3_leaving(base.as_bytes(), far.as_bytes(), theirs.as_bytes()).unwrap();
        assert_eq!(
            Some(l.merged),
            merge3(base.as_bytes(), far.as_bytes(), theirs.as_bytes())
        );
        assert!(l.left_at.is_empty());
        assert_eq!(l.left_applied, base.as_bytes());
        // Lines inserted by ours before the hunk left out shift where it is.
        let grown = "0\n0\n1\n2 T\n2b\n3\n4\n5\n6\n7\n8 T\n9\n";
        let l = merge3_leaving(base.as_bytes(), grown.as_bytes(), theirs.as_bytes()).unwrap();
        assert_eq!(l.left_at, vec![(3, 4)]);
        assert!(merge3_leaving(b"a\0", b"b\0", b"a\0").is_none());
    }

    #[test]
    fn the_users_change_is_kept_when_the_ai_left_its_lines_in_place() {
        let kept =
            |h: &str, u: &str, a: &str| user_change_kept(h.as_bytes(), u.as_bytes(), a.as_bytes());
        // Neighbouring lines: no merge, but the user's line is still there.
        assert!(kept("l1\nl2\nl3\n", "l1\nUSER\nl3\n", "l1\nUSER\nAI\n"));
        // The AI rewrote the user's line, or the whole file: gone.
        assert!(!kept("l1\nl2\nl3\n", "l1\nUSER\nl3\n", "l1\nAI\nl3\n"));
        assert!(!kept("l1\nl2\n", "l1\nUSER\n", "new\n"));
        // A line the user deleted stays deleted unless the AI rewrote across the spot.
        assert!(kept("a\nb\nc\nd\n", "a\nc\nd\n", "a\nc\nD\n"));
        assert!(!kept("a\nb\nc\nd\n", "a\nc\nd\n", "x\ny\nz\n"));
        // Binary content is judged whole.
        assert!(kept("a\0", "b\0", "b\0"));
        assert!(!kept("a\0", "b\0", "c\0"));
    }

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
