//! Exact text matching for the text-replacing actions, the one tolerance (CRLF), and the match
//! hints of DESIGN §8 that tell the LLM where its old_text went wrong.
//!
//! Matching is byte for byte, non-overlapping, left to right; a match may start and end
//! mid-line. The only fuzziness is the CRLF rule: when a file uses CRLF and old_text (written
//! with LF) matches only after LF→CRLF translation, that translated match is used and the
//! caller translates new_text the same way. The closest-region search is for hints only and
//! never edits anything.

use std::time::{Duration, Instant};

use bstr::ByteSlice;
use serde::{Deserialize, Serialize};

/// A failed match, explained (serialised into a result's `hint`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Hint {
    NotFound {
        path: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        closest: Option<Closest>,
    },
    Ambiguous {
        path: String,
        occurrences: usize,
        lines: Vec<usize>,
    },
    CountMismatch {
        path: String,
        expected: usize,
        found: usize,
        lines: Vec<usize>,
    },
}

/// The region of the file most similar to old_text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Closest {
    pub start_line: usize,
    pub end_line: usize,
    /// Character-level similarity in [0, 1], rounded to two decimals.
    pub similarity: f64,
    /// Unified diff from old_text to those lines.
    pub diff: String,
}

/// Below this similarity `closest` is omitted: unrelated code in the same language scores
/// about 0.4–0.55 (DESIGN §8).
pub const MIN_SIMILARITY: f64 = 0.6;

/// Where old_text occurs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// Byte offsets of the non-overlapping occurrences.
    pub positions: Vec<usize>,
    /// What was actually matched: old_text, or old_text with LF→CRLF.
    pub needle: Vec<u8>,
    /// True when only the CRLF-translated old_text matched.
    pub crlf: bool,
}

/// Non-overlapping occurrences, left to right.
pub fn find_all(hay: &[u8], needle: &[u8]) -> Vec<usize> {
    if needle.is_empty() {
        return Vec::new();
    }
    hay.find_iter(needle).collect()
}

/// True when most line breaks of `content` are CRLF.
pub fn uses_crlf(content: &[u8]) -> bool {
    let crlf = content.find_iter(b"\r\n").count();
    let lf = content.iter().filter(|&&b| b == b'\n').count();
    crlf > 0 && crlf * 2 >= lf
}

/// Replaces every LF that is not already part of a CRLF by CRLF.
pub fn lf_to_crlf(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() + text.len() / 16);
    let mut prev = 0u8;
    for &b in text {
        if b == b'\n' && prev != b'\r' {
            out.push(b'\r');
        }
        out.push(b);
        prev = b;
    }
    out
}

/// Finds old_text in content, with the CRLF tolerance.
pub fn locate(content: &[u8], old: &[u8]) -> Located {
    let positions = find_all(content, old);
    if positions.is_empty() && old.contains(&b'\n') && uses_crlf(content) {
        let translated = lf_to_crlf(old);
        if translated != old {
            let positions = find_all(content, &translated);
            if !positions.is_empty() {
                return Located {
                    positions,
                    needle: translated,
                    crlf: true,
                };
            }
        }
    }
    Located {
        positions,
        needle: old.to_vec(),
        crlf: false,
    }
}

/// Replaces the occurrences at `positions` (as found by [`find_all`] for a needle of
/// `needle_len` bytes) with `new`.
pub fn splice(content: &[u8], positions: &[usize], needle_len: usize, new: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(content.len() + positions.len() * new.len());
    let mut last = 0;
    for &p in positions {
        out.extend_from_slice(&content[last..p]);
        out.extend_from_slice(new);
        last = p + needle_len;
    }
    out.extend_from_slice(&content[last..]);
    out
}

/// The original's `replaceText(content, old, new, limit?)`: replaces up to `limit` (all when
/// `None`) non-overlapping occurrences; the search resumes after each replaced occurrence in
/// the original text, so new_text containing old_text is safe.
pub fn replace_text(
    content: &str,
    old: &str,
    new: &str,
    limit: Option<usize>,
) -> Result<(String, usize), &'static str> {
    if old.is_empty() {
        return Err("old_text cannot be empty");
    }
    let mut positions = find_all(content.as_bytes(), old.as_bytes());
    if let Some(limit) = limit {
        positions.truncate(limit);
    }
    let out = splice(content.as_bytes(), &positions, old.len(), new.as_bytes());
    // Splicing valid UTF-8 at match boundaries of a valid UTF-8 needle keeps it valid.
    let text = String::from_utf8(out).map_err(|_| "replacement produced invalid UTF-8")?;
    Ok((text, positions.len()))
}

/// 1-based line number of each byte offset.
pub fn lines_of(content: &[u8], offsets: &[usize]) -> Vec<usize> {
    let mut out = Vec::with_capacity(offsets.len());
    let mut line = 1;
    let mut at = 0;
    for &o in offsets {
        line += content[at..o].iter().filter(|&&b| b == b'\n').count();
        at = o;
        out.push(line);
    }
    out
}

/// Lines of a text without their terminators; a final line break does not start another line.
fn split_lines(text: &str) -> Vec<&str> {
    let mut v: Vec<&str> = text.split('\n').collect();
    if v.len() > 1 && v.last() == Some(&"") {
        v.pop();
    }
    v
}

/// Character-level similarity of two texts, computed until `deadline`. A diff cut short by
/// the deadline is not minimal, so the ratio can only come out lower than the true one; that
/// happens only for texts so different (edit distance in the thousands) that they are far below
/// [`MIN_SIMILARITY`] anyway, while near misses diff in microseconds.
fn char_ratio(a: &str, b: &str, deadline: Instant) -> f64 {
    similar::TextDiff::configure()
        .deadline(deadline)
        .diff_chars(a, b)
        .ratio() as f64
}

/// How many windows get the exact character comparison after the line prefilter.
const CANDIDATES: usize = 12;
/// Fewer when no line of old_text occurs in the file (the ranking is then rougher and the
/// comparisons are against less similar text, so slower).
const CANDIDATES_WITHOUT_SHARED_LINES: usize = 4;
/// Time allowed for all exact comparisons of one hint (DESIGN §8: well under 100 ms).
const EXACT_BUDGET: Duration = Duration::from_millis(40);

/// The window of `content` (as many lines as old_text) most similar to old_text, if at least
/// [`MIN_SIMILARITY`]. CRs are ignored; ties go to the earliest window.
///
/// Speed: every window is first scored by how many of old_text's lines (whitespace-trimmed) it
/// contains, in one sliding pass; only the best few windows get the character-level ratio, most
/// promising first, within a fixed time budget. When no line is shared at all, windows are
/// ranked by a cheap bag-of-characters bound instead.
pub fn closest(content: &[u8], old: &str) -> Option<Closest> {
    let text = String::from_utf8_lossy(content).replace('\r', "");
    let old = old.replace('\r', "");
    let file_lines = split_lines(&text);
    let old_lines = split_lines(&old);
    if old.trim().is_empty() || text.is_empty() {
        return None;
    }
    let w = old_lines.len().min(file_lines.len()).max(1);
    let n_windows = file_lines.len() + 1 - w;
    let window_text = |i: usize| file_lines[i..i + w].join("\n");

    // Candidates in priority order.
    let candidates: Vec<usize> = if n_windows <= CANDIDATES {
        (0..n_windows).collect()
    } else {
        let scores = shared_line_scores(&file_lines, &old_lines, w);
        let best = scores.iter().copied().max().unwrap_or(0);
        let mut order: Vec<usize> = (0..n_windows).collect();
        if best > 0 {
            order.sort_by(|&a, &b| scores[b].cmp(&scores[a]).then(a.cmp(&b)));
            order.truncate(CANDIDATES);
        } else {
            let bounds = char_bag_bounds(&file_lines, &old, w);
            order.sort_by(|&a, &b| bounds[b].total_cmp(&bounds[a]).then(a.cmp(&b)));
            order.truncate(CANDIDATES_WITHOUT_SHARED_LINES);
        }
        order
    };

    let end = Instant::now() + EXACT_BUDGET;
    let mut best: Option<(usize, f64)> = None;
    for (k, &i) in candidates.iter().enumerate() {
        let now = Instant::now();
        if now >= end {
            break;
        }
        let share = (end - now) / (candidates.len() - k) as u32;
        let r = char_ratio(&old, &window_text(i), now + share);
        let better = match best {
            None => true,
            Some((bi, br)) => r > br || (r == br && i < bi),
        };
        if better {
            best = Some((i, r));
        }
    }
    let (i, ratio) = best?;
    if ratio < MIN_SIMILARITY {
        return None;
    }
    let region = window_text(i);
    Some(Closest {
        start_line: i + 1,
        end_line: i + w,
        similarity: (ratio * 100.0).round() / 100.0,
        diff: short_diff(&old, &region, i + 1, i + w),
    })
}

/// For each window start, how many of old_text's (trimmed, non-empty) lines occur in it,
/// counted as a multiset.
fn shared_line_scores(file_lines: &[&str], old_lines: &[&str], w: usize) -> Vec<usize> {
    use std::collections::HashMap;
    let mut want: HashMap<&str, isize> = HashMap::new();
    for l in old_lines {
        let t = l.trim();
        if !t.is_empty() {
            *want.entry(t).or_default() += 1;
        }
    }
    // have[l] counts l in the current window; matched = sum over l of min(have, want).
    fn add<'a>(
        l: &'a str,
        delta: isize,
        want: &HashMap<&'a str, isize>,
        have: &mut HashMap<&'a str, isize>,
        matched: &mut isize,
    ) {
        let t = l.trim();
        let Some(&cap) = want.get(t) else { return };
        let h = have.entry(t).or_default();
        let before = (*h).min(cap);
        *h += delta;
        *matched += (*h).min(cap) - before;
    }
    let mut have: HashMap<&str, isize> = HashMap::new();
    let mut matched: isize = 0;
    let n_windows = file_lines.len() + 1 - w;
    let mut scores = Vec::with_capacity(n_windows);
    for l in &file_lines[..w] {
        add(l, 1, &want, &mut have, &mut matched);
    }
    scores.push(matched as usize);
    for i in 1..n_windows {
        add(file_lines[i - 1], -1, &want, &mut have, &mut matched);
        add(file_lines[i + w - 1], 1, &want, &mut have, &mut matched);
        scores.push(matched as usize);
    }
    scores
}

/// Upper bound of the character ratio per window from character counts alone.
fn char_bag_bounds(file_lines: &[&str], old: &str, w: usize) -> Vec<f64> {
    use std::collections::HashMap;
    let mut want: HashMap<char, isize> = HashMap::new();
    for c in old.chars() {
        *want.entry(c).or_default() += 1;
    }
    let old_len = old.chars().count() as f64;
    let line_chars: Vec<Vec<char>> = file_lines.iter().map(|l| l.chars().collect()).collect();
    let mut have: HashMap<char, isize> = HashMap::new();
    let mut common: isize = 0;
    let mut len: isize = 0;
    let apply = |cs: &[char], delta: isize, have: &mut HashMap<char, isize>, common: &mut isize| {
        for c in cs {
            let cap = want.get(c).copied().unwrap_or(0);
            let h = have.entry(*c).or_default();
            let before = (*h).min(cap);
            *h += delta;
            *common += (*h).min(cap) - before;
        }
    };
    let n_windows = file_lines.len() + 1 - w;
    let mut out = Vec::with_capacity(n_windows);
    for cs in &line_chars[..w] {
        apply(cs, 1, &mut have, &mut common);
        len += cs.len() as isize + 1;
    }
    let bound =
        |common: isize, len: isize| 2.0 * common as f64 / (old_len + (len - 1) as f64).max(1.0);
    out.push(bound(common, len));
    for i in 1..n_windows {
        apply(&line_chars[i - 1], -1, &mut have, &mut common);
        len -= line_chars[i - 1].len() as isize + 1;
        apply(&line_chars[i + w - 1], 1, &mut have, &mut common);
        len += line_chars[i + w - 1].len() as isize + 1;
        out.push(bound(common, len));
    }
    out
}

/// Longest diff shown in a hint, in lines.
const MAX_DIFF_LINES: usize = 60;

/// A unified diff from old_text to the file region, capped in length.
fn short_diff(old: &str, region: &str, start: usize, end: usize) -> String {
    let mut a = old.to_string();
    let mut b = region.to_string();
    if !a.ends_with('\n') {
        a.push('\n');
    }
    if !b.ends_with('\n') {
        b.push('\n');
    }
    let diff = similar::TextDiff::from_lines(&a, &b);
    let text = diff
        .unified_diff()
        .context_radius(2)
        .header("old_text", &format!("file lines {start}-{end}"))
        .to_string();
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() > MAX_DIFF_LINES {
        let mut s = lines[..MAX_DIFF_LINES].join("\n");
        s.push_str(&format!(
            "\n… ({} more diff lines)",
            lines.len() - MAX_DIFF_LINES
        ));
        s
    } else {
        lines.join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crlf_tolerance_only_when_file_is_crlf() {
        let crlf = b"a\r\nb\r\nc\r\n";
        let l = locate(crlf, b"a\nb");
        assert!(l.crlf);
        assert_eq!(l.positions, vec![0]);
        assert_eq!(l.needle, b"a\r\nb");
        let lf = b"a\nb\n";
        assert!(!locate(lf, b"a\nb").crlf);
        assert!(locate(b"a\r\nb", b"x\ny").positions.is_empty());
    }

    #[test]
    fn lines_of_offsets() {
        let c = b"x\ny\nfoo\nfoo";
        assert_eq!(lines_of(c, &find_all(c, b"foo")), vec![3, 4]);
    }

    #[test]
    fn closest_finds_the_near_miss_and_omits_unrelated() {
        let file =
            "fn a() {\n    let x = 1;\n    x + 1\n}\n\nfn b() {\n    let y = 2;\n    y * 2\n}\n";
        let c = closest(file.as_bytes(), "fn b() {\n    let y = 3;\n    y * 2\n}").unwrap();
        assert_eq!((c.start_line, c.end_line), (6, 9));
        assert!(c.similarity > 0.9, "{c:?}");
        assert!(c.diff.contains("-    let y = 3;"), "{}", c.diff);
        assert!(c.diff.contains("+    let y = 2;"), "{}", c.diff);
        assert!(closest(file.as_bytes(), "completely different words here").is_none());
    }

    #[test]
    fn closest_ties_go_to_the_earliest_window() {
        let file = "alpha one\nbeta\nalpha one\n";
        let c = closest(file.as_bytes(), "alpha onx").unwrap();
        assert_eq!(c.start_line, 1);
    }
}
