//! Original line numbering (DESIGN §4): all `file_replace_lines` blocks of one reply refer to
//! the file as the LLM saw it when it wrote the reply, not as earlier blocks left it.
//!
//! For each file an edit map records how the current lines relate to that base version: runs of
//! untouched original lines and runs of lines written by a block (tagged with the block). Every
//! text edit of the reply (replace_text, edit, replace_lines, append…) updates the map, so a
//! later `file_replace_lines` can translate its original range to current line numbers, and
//! refuse a range that an earlier block already changed — naming that block. A full rewrite
//! (file_write/file_create) makes the written content the new base, because the LLM then refers
//! to the text it wrote itself.
//!
//! Lines here are the pieces of the text split on LF (a text ending in LF has an empty last
//! piece), which makes byte edits translate uniformly into line edits.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The block that wrote some lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tag {
    pub block_id: String,
    pub action: String,
}

#[derive(Debug, Clone)]
enum Seg {
    /// Original lines `start ..= start + len - 1`, untouched.
    Orig { start: usize, len: usize },
    /// `len` lines written by `tag`.
    New { len: usize, tag: Tag },
}

impl Seg {
    fn len(&self) -> usize {
        match self {
            Seg::Orig { len, .. } | Seg::New { len, .. } => *len,
        }
    }

    /// The part at offsets `from .. to` of this segment.
    fn slice(&self, from: usize, to: usize) -> Seg {
        match self {
            Seg::Orig { start, .. } => Seg::Orig {
                start: start + from,
                len: to - from,
            },
            Seg::New { tag, .. } => Seg::New {
                len: to - from,
                tag: tag.clone(),
            },
        }
    }
}

/// How the current lines of one file relate to its base version.
#[derive(Debug, Clone)]
pub struct LineMap {
    segs: Vec<Seg>,
    /// The sum of the segments' lengths: the pieces of the current text.
    lines: usize,
    /// Original line ranges changed (replaced or deleted) and by whom.
    changed: Vec<(usize, usize, Tag)>,
}

/// A requested original range that an earlier block already changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    pub tag: Tag,
    /// The original lines that block changed (`None` for lines it inserted inside the range).
    pub covered: Option<(usize, usize)>,
}

/// Where an original range is now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mapped {
    pub start: usize,
    /// Blocks whose edits above the range shifted it, with the net number of lines each added
    /// there (never 0: a block that replaced lines by as many lines moved nothing).
    pub shifted_by: Vec<(Tag, isize)>,
}

fn pieces(text: &[u8]) -> usize {
    text.iter().filter(|&&b| b == b'\n').count() + 1
}

impl LineMap {
    fn new(base: &[u8]) -> LineMap {
        let lines = pieces(base);
        LineMap {
            segs: vec![Seg::Orig {
                start: 1,
                len: lines,
            }],
            lines,
            changed: Vec::new(),
        }
    }

    /// Replaces current lines `start ..= start + old_len - 1` by `new_len` lines from `tag`.
    fn replace(&mut self, start: usize, old_len: usize, new_len: usize, tag: &Tag) {
        let end = start + old_len; // exclusive, current numbering
                                   // Segments that end at or before `start` stay as they are. They are found from the
                                   // end, so an edit near the end of the file (an append) costs O(1), not O(segments).
        let mut keep = self.segs.len();
        let mut pos = self.lines + 1;
        while keep > 0 && pos > start {
            pos -= self.segs[keep - 1].len();
            keep -= 1;
        }
        let prefix = pos - 1;
        let tail = self.segs.split_off(keep);
        let mut before = Vec::new();
        let mut after = Vec::new();
        for seg in tail {
            let len = seg.len();
            let (s0, s1) = (pos, pos + len);
            pos = s1;
            if s0 < start {
                before.push(seg.slice(0, start.min(s1) - s0));
            }
            let (i0, i1) = (start.max(s0), end.min(s1));
            if i0 < i1 {
                if let Seg::Orig { start: o, .. } = seg {
                    self.changed
                        .push((o + (i0 - s0), o + (i1 - s0) - 1, tag.clone()));
                }
            }
            if s1 > end {
                after.push(seg.slice(end.max(s0) - s0, len));
            }
        }
        self.segs.extend(before);
        if new_len > 0 {
            self.segs.push(Seg::New {
                len: new_len,
                tag: tag.clone(),
            });
        }
        self.segs.extend(after);
        self.lines = prefix + self.segs[keep..].iter().map(Seg::len).sum::<usize>();
    }

    /// Where original lines `start ..= end` are now, if no block of this reply changed them or
    /// inserted lines between them.
    fn map(&self, start: usize, end: usize) -> Result<Mapped, Vec<Conflict>> {
        let mut conflicts: Vec<Conflict> = self
            .changed
            .iter()
            .filter(|(a, b, _)| *a <= end && *b >= start)
            .map(|(a, b, tag)| Conflict {
                tag: tag.clone(),
                covered: Some((*a, *b)),
            })
            .collect();
        let mut pos = 1;
        let mut shifted_by: Vec<(Tag, isize)> = Vec::new();
        let mut add = |tag: &Tag, n: isize| match shifted_by.iter_mut().find(|(t, _)| t == tag) {
            Some((_, net)) => *net += n,
            None => shifted_by.push((tag.clone(), n)),
        };
        let mut found: Option<usize> = None;
        for seg in &self.segs {
            match seg {
                Seg::Orig { start: o, len } => {
                    if found.is_none() && start >= *o && start < o + len {
                        found = Some(pos + (start - o));
                    }
                    if found.is_some() && end < o + len {
                        break;
                    }
                }
                Seg::New { tag, len } => {
                    if found.is_some() {
                        conflicts.push(Conflict {
                            tag: tag.clone(),
                            covered: None,
                        });
                        break;
                    }
                    add(tag, *len as isize);
                }
            }
            pos += seg.len();
        }
        if !conflicts.is_empty() {
            conflicts.dedup();
            return Err(conflicts);
        }
        for (a, b, tag) in &self.changed {
            if *b < start {
                add(tag, -((b - a + 1) as isize));
            }
        }
        shifted_by.retain(|(_, net)| *net != 0);
        match found {
            Some(p) => Ok(Mapped {
                start: p,
                shifted_by,
            }),
            // Beyond the base's end: the caller checks bounds against the base first.
            None => Ok(Mapped {
                start: pos,
                shifted_by,
            }),
        }
    }
}

/// Edit maps of every file edited in this reply.
#[derive(Debug, Default)]
pub struct LineTracker {
    maps: HashMap<PathBuf, (LineMap, usize)>,
}

/// Lines of a text as `file_replace_lines` counts them (a final line break does not start a
/// line).
pub fn count_lines(text: &[u8]) -> usize {
    if text.is_empty() {
        return 0;
    }
    let n = pieces(text);
    if text.ends_with(b"\n") {
        n - 1
    } else {
        n
    }
}

impl LineTracker {
    fn entry(&mut self, path: &Path, current: &[u8]) -> &mut (LineMap, usize) {
        self.maps
            .entry(path.to_path_buf())
            .or_insert_with(|| (LineMap::new(current), count_lines(current)))
    }

    /// The line count of the file's base version (for bounds messages).
    pub fn base_lines(&mut self, path: &Path, current: &[u8]) -> usize {
        self.entry(path, current).1
    }

    /// Records a byte edit: `content[at .. at + removed.len()]` replaced by `inserted`.
    pub fn record_bytes(
        &mut self,
        path: &Path,
        content: &[u8],
        at: usize,
        removed: &[u8],
        inserted: &[u8],
        tag: &Tag,
    ) {
        let first = pieces(&content[..at]);
        let at_line_start = at == 0 || content[at - 1] == b'\n';
        let whole_lines = at_line_start
            && (removed.is_empty() || removed.ends_with(b"\n"))
            && (inserted.is_empty() || inserted.ends_with(b"\n"));
        let nl_r = pieces(removed) - 1;
        let nl_n = pieces(inserted) - 1;
        let (old_len, new_len) = if whole_lines {
            (nl_r, nl_n)
        } else {
            (nl_r + 1, nl_n + 1)
        };
        self.entry(path, content)
            .0
            .replace(first, old_len, new_len, tag);
    }

    /// Records that `inserted` was appended to `old` (the content before). Once the file has
    /// a map this costs O(`inserted`), not O(`old`): appends only touch the map's end.
    pub fn record_append(&mut self, path: &Path, old: &[u8], inserted: &[u8], tag: &Tag) {
        let at_line_start = old.is_empty() || old.ends_with(b"\n");
        let nl = pieces(inserted) - 1;
        let (old_len, new_len) =
            if at_line_start && (inserted.is_empty() || inserted.ends_with(b"\n")) {
                (0, nl)
            } else {
                (1, nl + 1)
            };
        let map = &mut self.entry(path, old).0;
        let first = map.lines;
        map.replace(first, old_len, new_len, tag);
    }

    /// Records that current lines `start ..= start + old_len - 1` became `new_len` lines.
    pub fn record_lines(
        &mut self,
        path: &Path,
        content: &[u8],
        start: usize,
        old_len: usize,
        new_len: usize,
        tag: &Tag,
    ) {
        self.entry(path, content)
            .0
            .replace(start, old_len, new_len, tag);
    }

    /// Translates original lines `start ..= end` to current numbering.
    pub fn map(
        &mut self,
        path: &Path,
        current: &[u8],
        start: usize,
        end: usize,
    ) -> Result<Mapped, Vec<Conflict>> {
        self.entry(path, current).0.map(start, end)
    }

    /// Records that the content `old` became `new`, as one edit of the region between their
    /// common beginning and end (whole lines when both differ only in whole lines).
    pub fn record_change(&mut self, path: &Path, old: &[u8], new: &[u8], tag: &Tag) {
        let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
        let room = old.len().min(new.len()) - prefix;
        let suffix = old
            .iter()
            .rev()
            .zip(new.iter().rev())
            .take(room)
            .take_while(|(a, b)| a == b)
            .count();
        // Start at a line start, so a changed line counts as replaced, not split.
        let start = old[..prefix]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        self.record_bytes(
            path,
            old,
            start,
            &old[start..old.len() - suffix],
            &new[start..new.len() - suffix],
            tag,
        );
    }

    /// The file was rewritten whole: its new content is the base from now on.
    pub fn reset(&mut self, path: &Path) {
        self.maps.remove(path);
    }

    /// The file moved; its numbering goes with it.
    pub fn rename(&mut self, from: &Path, to: &Path) {
        self.maps.remove(to);
        if let Some(m) = self.maps.remove(from) {
            self.maps.insert(to.to_path_buf(), m);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tag(id: &str) -> Tag {
        Tag {
            block_id: id.into(),
            action: "file_replace_lines".into(),
        }
    }

    #[test]
    fn later_ranges_shift_by_earlier_growth() {
        let base = b"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";
        let mut m = LineMap::new(base);
        // Line 2 becomes three lines.
        m.replace(2, 1, 3, &tag("a"));
        let r = m.map(8, 9).unwrap();
        assert_eq!(r.start, 10);
        assert_eq!(r.shifted_by, vec![(tag("a"), 2)]);
        // Lines above the edit do not move.
        assert_eq!(m.map(1, 1).unwrap().start, 1);
        // Line 4-5 removed entirely (current 6-7 after the growth).
        m.replace(6, 2, 0, &tag("b"));
        assert_eq!(m.map(8, 8).unwrap().start, 8);
    }

    #[test]
    fn blocks_that_moved_nothing_are_not_named() {
        let base: Vec<u8> = (1..=40)
            .flat_map(|i| format!("{i}\n").into_bytes())
            .collect();
        let mut m = LineMap::new(&base);
        // Fourteen hunks above, each replacing a line by one line: nothing moved.
        for i in 0..14 {
            m.replace(1 + 2 * i, 1, 1, &tag(&format!("h{i}")));
        }
        let r = m.map(35, 35).unwrap();
        assert_eq!(r.start, 35);
        assert!(r.shifted_by.is_empty(), "{:?}", r.shifted_by);
        // One that grew and one that shrank by as much: both named, with their net change.
        m.replace(30, 1, 3, &tag("grow"));
        m.replace(34, 3, 1, &tag("shrink"));
        let r = m.map(38, 38).unwrap();
        assert_eq!(r.start, 38);
        assert_eq!(r.shifted_by, vec![(tag("grow"), 2), (tag("shrink"), -2)]);
    }

    #[test]
    fn overlaps_name_the_earlier_block() {
        let mut m = LineMap::new(b"a\nb\nc\nd\ne\n");
        m.replace(2, 2, 1, &tag("x"));
        let c = m.map(3, 4).unwrap_err();
        assert_eq!(c[0].tag, tag("x"));
        assert_eq!(c[0].covered, Some((2, 3)));
        // Deleted lines are remembered too.
        m.replace(3, 1, 0, &tag("y"));
        let c = m.map(4, 4).unwrap_err();
        assert_eq!(c[0].tag, tag("y"));
    }

    #[test]
    fn insertion_inside_a_range_conflicts() {
        let mut m = LineMap::new(b"a\nb\nc\nd\n");
        m.replace(3, 0, 2, &tag("ins"));
        assert!(m.map(2, 3).is_err());
        assert_eq!(m.map(3, 4).unwrap().start, 5);
    }

    #[test]
    fn appends_map_like_the_byte_edits_they_are() {
        let p = Path::new("/f");
        for (base, adds) in [
            (
                &b"a\nb\n"[..],
                &[&b"c\n"[..], b"d", b"e\nf\n", b"", b"\n"][..],
            ),
            (b"", &[b"x", b"y\n", b"z\n"]),
            (b"no newline", &[b"\nmore\n", b"tail"]),
        ] {
            let (mut by_bytes, mut by_append) = (LineTracker::default(), LineTracker::default());
            let mut content = base.to_vec();
            for (i, add) in adds.iter().enumerate() {
                let t = tag(&format!("b{i}"));
                by_bytes.record_bytes(p, &content, content.len(), b"", add, &t);
                by_append.record_append(p, &content, add, &t);
                content.extend_from_slice(add);
            }
            let lines = count_lines(base).max(1);
            for start in 1..=lines {
                for end in start..=lines {
                    assert_eq!(
                        by_bytes.map(p, base, start, end),
                        by_append.map(p, base, start, end),
                        "{base:?} + {adds:?}: {start}-{end}"
                    );
                }
            }
            let (a, b) = (&by_bytes.maps[p].0, &by_append.maps[p].0);
            assert_eq!(a.lines, pieces(&content));
            assert_eq!(b.lines, pieces(&content));
        }
    }

    #[test]
    fn edits_keep_the_line_total() {
        let mut m = LineMap::new(b"1\n2\n3\n4\n5\n");
        m.replace(2, 2, 5, &tag("a"));
        assert_eq!(m.lines, 6 - 2 + 5);
        m.replace(1, 1, 0, &tag("b"));
        assert_eq!(m.lines, 8);
        assert_eq!(m.lines, m.segs.iter().map(Seg::len).sum::<usize>());
        m.replace(100, 0, 2, &tag("c"));
        assert_eq!(m.lines, m.segs.iter().map(Seg::len).sum::<usize>());
    }

    #[test]
    fn byte_edits_become_line_edits() {
        let mut t = LineTracker::default();
        let p = Path::new("/f");
        let c = b"l1\nl2\nl3\nl4\n";
        // Replace whole line 2 with two lines.
        t.record_bytes(p, c, 3, b"l2\n", b"x\ny\n", &tag("r"));
        assert_eq!(t.map(p, c, 3, 3).unwrap().start, 4);
        assert!(t.map(p, c, 2, 2).is_err());
        // Mid-line edit touches only its line.
        let mut t = LineTracker::default();
        t.record_bytes(p, c, 4, b"2", b"two", &tag("m"));
        assert_eq!(t.map(p, c, 3, 4).unwrap().start, 3);
        assert!(t.map(p, c, 2, 2).is_err());
    }
}
