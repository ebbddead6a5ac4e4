//! Which lines of a file's new version a change wrote, and how lines carry from one version
//! of a file to the next, by a line diff (as git counts lines: a last line without a newline
//! is a line). Binary content (a NUL byte) has no lines to attribute.

use std::time::{Duration, Instant};

use similar::{Algorithm, DiffOp};

use super::ranges::LineSet;

/// Beyond this a diff gives up on the minimal answer and calls the rest changed: the lines
/// inside one changed region then count as written (never lines outside it).
const DIFF_BUDGET: Duration = Duration::from_secs(2);

/// The lines of `text` as git counts them (a last line without a newline is a line).
pub fn split(text: &[u8]) -> Vec<&[u8]> {
    if text.is_empty() {
        return Vec::new();
    }
    let body = text.strip_suffix(b"\n").unwrap_or(text);
    body.split(|&b| b == b'\n').collect()
}

/// Whether `text` is binary as git judges it for diffs (a NUL in its first 8,000 bytes).
pub fn is_binary(text: &[u8]) -> bool {
    text.iter().take(8000).any(|&b| b == 0)
}

fn ops(old: &[&[u8]], new: &[&[u8]]) -> Vec<DiffOp> {
    similar::capture_diff_slices_deadline(
        Algorithm::Myers,
        old,
        new,
        Some(Instant::now() + DIFF_BUDGET),
    )
}

/// The lines of `new` that are not `old`'s unchanged lines: what a change from `old` to `new`
/// added or changed (1-based). `old` is `None` for a new file.
pub fn written_lines(old: Option<&[u8]>, new: &[u8]) -> LineSet {
    if is_binary(new) {
        return LineSet::new();
    }
    let new_lines = split(new);
    let old_lines = match old {
        Some(o) if !is_binary(o) => split(o),
        _ => Vec::new(),
    };
    let mut set = LineSet::new();
    for op in ops(&old_lines, &new_lines) {
        match op {
            DiffOp::Equal { .. } | DiffOp::Delete { .. } => {}
            DiffOp::Insert {
                new_index, new_len, ..
            }
            | DiffOp::Replace {
                new_index, new_len, ..
            } => {
                for i in new_index..new_index + new_len {
                    set.push(line_number(i));
                }
            }
        }
    }
    set
}

fn line_number(index: usize) -> u32 {
    u32::try_from(index + 1).unwrap_or(u32::MAX)
}

/// For every line of `old` (index 0 = line 1), the line of `new` it is unchanged as, if any.
pub fn carry(old: &[u8], new: &[u8]) -> Vec<Option<u32>> {
    let old_lines = split(old);
    let new_lines = split(new);
    let mut map = vec![None; old_lines.len()];
    if is_binary(old) || is_binary(new) {
        return map;
    }
    for op in ops(&old_lines, &new_lines) {
        if let DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            for k in 0..len {
                map[old_index + k] = Some(line_number(new_index + k));
            }
        }
    }
    map
}

/// `lines` (of `old`) as the lines of `new` they are unchanged as; lines changed or removed
/// on the way drop out.
pub fn carry_set(lines: &LineSet, map: &[Option<u32>]) -> LineSet {
    LineSet::from_lines(
        lines
            .iter()
            .filter_map(|l| map.get(l as usize - 1).copied().flatten()),
    )
}

/// Whether the change from `a_old` to `a_new` removes and adds the same lines, in the same
/// order, as the change from `b_old` to `b_new` (what `git patch-id` compares, without its
/// whitespace tolerance: a stricter match only ever means a gap, never a wrong match).
pub fn same_change(a: (Option<&[u8]>, Option<&[u8]>), b: (Option<&[u8]>, Option<&[u8]>)) -> bool {
    change_lines(a) == change_lines(b)
}

/// The removed (`false`) and added (`true`) lines of a change, in diff order; a binary side
/// is its bytes whole.
fn change_lines<'a>((old, new): (Option<&'a [u8]>, Option<&'a [u8]>)) -> Vec<(bool, &'a [u8])> {
    let old = old.unwrap_or_default();
    let new = new.unwrap_or_default();
    if is_binary(old) || is_binary(new) {
        return vec![(false, old), (true, new)];
    }
    let (old_lines, new_lines) = (split(old), split(new));
    let mut out = Vec::new();
    for op in ops(&old_lines, &new_lines) {
        let (o, n) = (op.old_range(), op.new_range());
        if matches!(op, DiffOp::Equal { .. }) {
            continue;
        }
        out.extend(old_lines[o].iter().map(|l| (false, *l)));
        out.extend(new_lines[n].iter().map(|l| (true, *l)));
    }
    out
}

/// The number of lines of `text`.
pub fn count(text: &[u8]) -> usize {
    split(text).len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_lines_are_the_added_and_changed_ones() {
        let old = b"a\nb\nc\nd\n";
        let new = b"a\nB\nc\nnew\nd\ntail";
        assert_eq!(written_lines(Some(old), new).to_string(), "2,4,6");
        assert_eq!(written_lines(None, b"x\ny\n").to_string(), "1-2");
        assert!(written_lines(Some(old), b"a\nb\n").is_empty());
        assert!(written_lines(None, b"\0bin").is_empty());
    }

    #[test]
    fn the_same_change_on_another_base_matches() {
        let a = (Some(&b"x\nold\ny\n"[..]), Some(&b"x\nnew\ny\n"[..]));
        let b = (
            Some(&b"top\nx\nold\ny\n"[..]),
            Some(&b"top\nx\nnew\ny\n"[..]),
        );
        assert!(same_change(a, b));
        let c = (Some(&b"x\nold\ny\n"[..]), Some(&b"x\nnewer\ny\n"[..]));
        assert!(!same_change(a, c));
        assert!(!same_change((None, Some(b"a\n")), (None, Some(b"b\n"))));
    }

    #[test]
    fn lines_carry_through_a_later_change() {
        let v1 = b"a\nb\nc\n";
        let v2 = b"top\na\nc\n";
        let map = carry(v1, v2);
        assert_eq!(map, vec![Some(2), None, Some(3)]);
        let ai = LineSet::from_lines([1, 2, 3]);
        assert_eq!(carry_set(&ai, &map).to_string(), "2-3");
    }
}
