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

/// A failed match (or a missing path), explained (serialised into a result's `hint`).
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
    /// old_text is not in the file but new_text is: the block most likely took effect before
    /// (a re-sent block).
    #[serde(rename_all = "camelCase")]
    AlreadyApplied {
        path: String,
        /// First line of each occurrence of new_text.
        lines: Vec<usize>,
        /// How many lines one occurrence spans.
        line_count: usize,
    },
    /// The path does not exist, but entries with its file name do elsewhere in the tree
    /// (`candidates`), or entries with a close name (`similar`, the same folder first).
    MissingPath {
        path: String,
        candidates: Vec<String>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        similar: Vec<String>,
    },
}

/// The region of the file most similar to old_text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Closest {
    pub start_line: usize,
    pub end_line: usize,
    /// Character-level similarity in [0, 1], rounded down to two decimals: only identical
    /// text is 1.0.
    pub similarity: f64,
    /// Unified diff from old_text to those lines. Lines that differ only in whitespace show a
    /// space as `·` and a tab as `→`.
    pub diff: String,
    /// Set when old_text and the region differ only in whitespace: what kind (`tabs vs
    /// spaces`, `indentation`, `trailing whitespace`, `spacing inside lines`, `line endings
    /// (CRLF vs LF)`, several joined with `, `).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub whitespace_only: Option<String>,
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

/// Shortest new_text (trimmed, in characters) whose presence is taken as a sign that a block
/// took effect before: shorter texts (`}`, `x = 1`) turn up by chance.
const MIN_APPLIED_EVIDENCE: usize = 8;

/// The hint for an old_text that does not occur in `content`: `already_applied` when new_text
/// is there instead (and is not just part of old_text), else the closest region.
pub fn not_found_hint(content: &[u8], old: &str, new: &str, path: &str) -> Hint {
    if new.trim().chars().count() >= MIN_APPLIED_EVIDENCE && !old.contains(new) {
        let found = locate(content, new.as_bytes());
        if !found.positions.is_empty() {
            return Hint::AlreadyApplied {
                path: path.to_string(),
                lines: lines_of(content, &found.positions),
                line_count: split_lines(new.trim_end_matches('\n')).len(),
            };
        }
    }
    Hint::NotFound {
        path: path.to_string(),
        closest: closest(content, old),
    }
}

/// Characters the two texts have in common in a minimal diff, and their total length, computed
/// until `deadline`. A diff cut short by the deadline is not minimal, so the count can only
/// come out lower than the true one; that happens only for texts so different (edit distance in
/// the thousands) that they are far below [`MIN_SIMILARITY`] anyway, while near misses diff in
/// microseconds.
fn char_matches(a: &str, b: &str, deadline: Option<Instant>) -> (usize, usize) {
    let mut config = similar::TextDiff::configure();
    if let Some(d) = deadline {
        config.deadline(d);
    }
    let diff = config.diff_chars(a, b);
    let matched = diff
        .ops()
        .iter()
        .map(|op| match op {
            similar::DiffOp::Equal { len, .. } => *len,
            _ => 0,
        })
        .sum();
    (matched, a.chars().count() + b.chars().count())
}

/// The ratio `2·matched / total` rounded down to two decimals (only identical texts reach 1).
fn similarity((matched, total): (usize, usize)) -> f64 {
    if total == 0 {
        return 1.0;
    }
    ((200 * matched) / total) as f64 / 100.0
}

/// How many windows get the exact character comparison after the prefilter.
const CANDIDATES: usize = 12;
/// Texts up to this many bytes together are always compared in full: the result must not
/// depend on how busy the machine is (the worst case, two unrelated texts, costs a few ms).
const EXACT_ALWAYS: usize = 1024;
/// Time allowed for one larger comparison (DESIGN §8: a hint well under 100 ms in all). A near
/// miss diffs in microseconds; only texts far below [`MIN_SIMILARITY`] reach the limit.
const EXACT_BUDGET: Duration = Duration::from_millis(4);

/// How many lines more or fewer than old_text a region may have: old_text written on one line
/// where the file wraps it over three (or the other way round) is still found.
const SIZE_SLACK: usize = 2;
/// How much of old_text a window holds (the characters a minimal diff keeps, over old_text's),
/// less a twentieth of what else it holds: `(matched, total)` as [`char_matches`] counts them.
fn held((matched, total): (usize, usize), old_chars: usize) -> f64 {
    if old_chars == 0 {
        return 0.0;
    }
    let kept = matched as f64;
    let extra = (total - old_chars) as f64 - kept;
    ((kept - 0.05 * extra.max(0.0)) / old_chars as f64).max(0.0)
}

/// How much more of old_text a window of another size must hold to beat old_text's own size
/// (ties go to the own size).
const OTHER_SIZE_MARGIN: f64 = 1e-9;
/// Windows of another size than old_text's that get the exact comparison, per size.
const OTHER_SIZE_CANDIDATES: usize = 4;

/// The region of `content` most similar to old_text, if at least [`MIN_SIMILARITY`]: a window
/// of as many lines as old_text, or up to [`SIZE_SLACK`] lines more or fewer (a signature
/// wrapped differently). CRs are ignored; ties go to the window of old_text's own size, then
/// to the earliest.
///
/// Speed: every window is first ranked, in one sliding pass each, by two cheap estimates: the
/// character-trigram overlap with old_text (which finds a near miss even when every line of it
/// differs a little), and old_text's lines it contains, each weighted by its rarity in the
/// file (so a region sharing a rare line outranks the many sharing only `}` or a blank line).
/// The best few of each get the exact character-level ratio, most promising first, within a
/// fixed time budget.
pub fn closest(content: &[u8], old: &str) -> Option<Closest> {
    let text = String::from_utf8_lossy(content).replace('\r', "");
    let old_nocr = old.replace('\r', "");
    let file_lines = split_lines(&text);
    let old_lines = split_lines(&old_nocr);
    if old_nocr.trim().is_empty() || text.is_empty() {
        return None;
    }
    // Windows are joined without a final line break, so old_text is compared without one.
    let old_body = old_nocr.strip_suffix('\n').unwrap_or(&old_nocr);
    let own = old_lines.len().min(file_lines.len()).max(1);
    let sizes = (own.saturating_sub(SIZE_SLACK).max(1)..=(own + SIZE_SLACK).min(file_lines.len()))
        // Own size first: it wins ties.
        .filter(|&w| w != own);
    let window_text = |i: usize, w: usize| file_lines[i..i + w].join("\n");

    let compare = |i: usize, w: usize| {
        let window = window_text(i, w);
        let deadline =
            (old_body.len() + window.len() > EXACT_ALWAYS).then(|| Instant::now() + EXACT_BUDGET);
        char_matches(old_body, &window, deadline)
    };
    // How much of old_text a window holds is judged without whitespace: a signature wrapped
    // differently holds all of it.
    let squeeze = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
    let old_squeezed = squeeze(old_body);
    let old_chars = old_squeezed.chars().count();
    let held_by = |i: usize, w: usize| {
        let window = squeeze(&window_text(i, w));
        let deadline = (old_squeezed.len() + window.len() > EXACT_ALWAYS)
            .then(|| Instant::now() + EXACT_BUDGET);
        held(char_matches(&old_squeezed, &window, deadline), old_chars)
    };
    // Old_text's own size: the most similar window (character ratio; ties to the earliest).
    let mut best: Option<(usize, (usize, usize))> = None;
    for i in candidates(&file_lines, &old_lines, own, CANDIDATES) {
        let m = compare(i, own);
        // m.0 / m.1 > b.0 / b.1, in integers; an equal ratio keeps the earlier pick.
        let better = match best {
            None => true,
            Some((bi, b)) => {
                let (l, r) = (m.0 * b.1, b.0 * m.1);
                l > r || (l == r && i < bi)
            }
        };
        if better {
            best = Some((i, m));
        }
    }
    // Other sizes: the window holding most of old_text, less what else it holds. A character
    // ratio would favour any short line over old_text wrapped (or annotated) over three.
    let mut other: Option<(usize, usize, f64)> = None;
    for w in sizes {
        for i in candidates(&file_lines, &old_lines, w, OTHER_SIZE_CANDIDATES) {
            let h = held_by(i, w);
            if other.is_none_or(|(oi, ow, oh)| h > oh || (h == oh && (w, i) < (ow, oi))) {
                other = Some((i, w, h));
            }
        }
    }
    let own_held = best.map_or(0.0, |(i, _)| held_by(i, own));
    let (i, w, mut sim) = match (best, other) {
        (_, Some((i, w, h))) if h >= MIN_SIMILARITY && h >= own_held + OTHER_SIZE_MARGIN => {
            (i, w, (h * 100.0).floor() / 100.0)
        }
        (Some((i, m)), _) => (i, own, similarity(m)),
        (None, _) => return None,
    };
    if sim < MIN_SIMILARITY {
        return None;
    }
    let region = window_text(i, w);
    let whitespace_only = whitespace_difference(&old_lines, &file_lines[i..i + w])
        .or_else(|| {
            // Equal once CRs and a final line break are dropped: one of those is the difference.
            (old_body == region).then(|| {
                if content.contains(&b'\r') || old.contains('\r') {
                    "line endings (CRLF vs LF)".to_string()
                } else {
                    "the line break at the end (the file does not end with one)".to_string()
                }
            })
        })
        .or_else(|| {
            // The same lines once blank ones are dropped: only empty lines differ.
            let non_blank = |ls: &[&str]| -> Vec<String> {
                ls.iter()
                    .filter(|l| !l.trim().is_empty())
                    .map(|l| l.to_string())
                    .collect()
            };
            (w != old_lines.len() && non_blank(&old_lines) == non_blank(&file_lines[i..i + w]))
                .then(|| "blank lines (the file has more or fewer empty lines here)".to_string())
        })
        .or_else(|| {
            (w != old_lines.len() && squeeze(old_body) == squeeze(&region))
                .then(|| "line breaks and indentation (the file wraps it differently)".to_string())
        });
    if whitespace_only.is_some() || region != old_body {
        // Not identical: never shown as 100 %.
        sim = sim.min(0.99);
    }
    Some(Closest {
        start_line: i + 1,
        end_line: i + w,
        similarity: sim,
        diff: short_diff(&old_nocr, &region, i + 1, i + w),
        whitespace_only,
    })
}

/// The starts of the windows of `w` lines worth an exact comparison: all of them when there
/// are few, else the `k` best by each estimate, interleaved.
fn candidates(file_lines: &[&str], old_lines: &[&str], w: usize, k: usize) -> Vec<usize> {
    let n_windows = file_lines.len() + 1 - w;
    if n_windows <= k {
        return (0..n_windows).collect();
    }
    let by_grams = top(&gram_scores(file_lines, old_lines, w), k);
    let by_lines = top(&rare_line_scores(file_lines, old_lines, w), k);
    let mut order = Vec::with_capacity(k);
    for i in interleave(&by_grams, &by_lines) {
        if order.len() == k {
            break;
        }
        if !order.contains(&i) {
            order.push(i);
        }
    }
    order
}

/// The indices of the `k` highest positive scores, best first, ties to the lower index.
fn top(scores: &[u64], k: usize) -> Vec<usize> {
    let mut best: Vec<usize> = Vec::with_capacity(k + 1);
    for (i, &s) in scores.iter().enumerate() {
        if s == 0 || (best.len() == k && best.last().is_some_and(|&b| scores[b] >= s)) {
            continue;
        }
        let at = best.partition_point(|&b| scores[b] >= s);
        best.insert(at, i);
        best.truncate(k);
    }
    best
}

/// a[0], b[0], a[1], b[1], …
fn interleave<'a>(a: &'a [usize], b: &'a [usize]) -> impl Iterator<Item = usize> + 'a {
    (0..a.len().max(b.len())).flat_map(move |k| a.get(k).into_iter().chain(b.get(k)).copied())
}

/// Slides a window of `w` lines over `file_lines`, keeping per-key counts: `key(line, f)` calls
/// `f` with each key the line contributes; `want[key]` is how often old_text has it and
/// `weight[key]` what one shared occurrence is worth. Returns, per window start, the sum over
/// keys of `min(have, want) · weight`.
fn sliding_overlap(
    file_lines: &[&str],
    w: usize,
    want: &[u32],
    weight: impl Fn(usize) -> u64,
    key: impl Fn(&str, &mut dyn FnMut(usize)),
) -> Vec<u64> {
    let mut have = vec![0u32; want.len()];
    let mut shared: u64 = 0;
    let mut update = |line: &str, add: bool, shared: &mut u64| {
        key(line, &mut |k| {
            if add {
                if have[k] < want[k] {
                    *shared += weight(k);
                }
                have[k] += 1;
            } else {
                have[k] -= 1;
                if have[k] < want[k] {
                    *shared -= weight(k);
                }
            }
        })
    };
    let n_windows = file_lines.len() + 1 - w;
    let mut out = Vec::with_capacity(n_windows);
    for l in &file_lines[..w] {
        update(l, true, &mut shared);
    }
    out.push(shared);
    for i in 1..n_windows {
        update(file_lines[i - 1], false, &mut shared);
        update(file_lines[i + w - 1], true, &mut shared);
        out.push(shared);
    }
    out
}

/// Trigram buckets: collisions only make the estimate a little generous.
const GRAM_BITS: u32 = 16;

/// The trigram buckets of a line's trimmed text, padded at both ends so a short line (`}`)
/// still has one.
fn grams(line: &str, f: &mut dyn FnMut(usize)) {
    let t = line.trim().as_bytes();
    let at = |i: usize| -> u32 {
        match i {
            0 => 2,
            _ if i > t.len() => 3,
            _ => u32::from(t[i - 1]),
        }
    };
    for i in 0..t.len() {
        let g = (at(i) << 16) | (at(i + 1) << 8) | at(i + 2);
        f((g.wrapping_mul(0x9E37_79B1) >> (32 - GRAM_BITS)) as usize);
    }
}

/// Per window, the Dice coefficient of its trigrams and old_text's, scaled to an integer.
fn gram_scores(file_lines: &[&str], old_lines: &[&str], w: usize) -> Vec<u64> {
    let mut want = vec![0u32; 1 << GRAM_BITS];
    let mut old_total = 0u64;
    for l in old_lines {
        grams(l, &mut |k| {
            want[k] += 1;
            old_total += 1;
        });
    }
    let shared = sliding_overlap(file_lines, w, &want, |_| 1, grams);
    // Window sizes in trigrams, slid the same way.
    let len = |l: &str| l.trim().len() as u64;
    let mut size: u64 = file_lines[..w].iter().map(|l| len(l)).sum();
    let mut out = Vec::with_capacity(shared.len());
    for (i, s) in shared.into_iter().enumerate() {
        if i > 0 {
            size = size + len(file_lines[i + w - 1]) - len(file_lines[i - 1]);
        }
        out.push((s << 20) / (old_total + size).max(1));
    }
    out
}

/// Per window, old_text's (trimmed, non-blank) lines it contains, counted as a multiset, each
/// worth `1 / (its occurrences in the file)`: a line that occurs once in the file is strong
/// evidence of the right region, a `}` that occurs 500 times almost none.
fn rare_line_scores(file_lines: &[&str], old_lines: &[&str], w: usize) -> Vec<u64> {
    use std::collections::HashMap;
    let mut ids: HashMap<&str, usize> = HashMap::new();
    let mut want: Vec<u32> = Vec::new();
    for l in old_lines {
        let t = l.trim();
        if t.is_empty() {
            continue;
        }
        let n = ids.len();
        let id = *ids.entry(t).or_insert(n);
        if id == want.len() {
            want.push(0);
        }
        want[id] += 1;
    }
    let mut in_file = vec![0u64; want.len()];
    for l in file_lines {
        if let Some(&id) = ids.get(l.trim()) {
            in_file[id] += 1;
        }
    }
    let weight = |k: usize| (1u64 << 20) / in_file[k].max(1);
    let key = |l: &str, f: &mut dyn FnMut(usize)| {
        if let Some(&id) = ids.get(l.trim()) {
            f(id);
        }
    };
    sliding_overlap(file_lines, w, &want, weight, key)
}

/// When two equally long line lists differ only in whitespace (and do differ), what kind.
fn whitespace_difference(old: &[&str], region: &[&str]) -> Option<String> {
    if old.len() != region.len() {
        return None;
    }
    let squeeze = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
    let (mut tabs, mut indent, mut trailing, mut inner) = (false, false, false, false);
    for (a, b) in old.iter().zip(region) {
        if a == b {
            continue;
        }
        if squeeze(a) != squeeze(b) {
            return None;
        }
        let lead = |s: &'_ str| s.len() - s.trim_start().len();
        let (la, lb) = (&a[..lead(a)], &b[..lead(b)]);
        if la != lb {
            if la.contains('\t') != lb.contains('\t') {
                tabs = true;
            } else {
                indent = true;
            }
        }
        let (ta, tb) = (a.trim_start(), b.trim_start());
        if ta.trim_end() != tb.trim_end() {
            inner = true;
        }
        if ta[ta.trim_end().len()..] != tb[tb.trim_end().len()..] {
            trailing = true;
        }
    }
    let kinds: Vec<&str> = [
        (tabs, "tabs vs spaces"),
        (indent, "indentation"),
        (trailing, "trailing whitespace"),
        (inner, "spacing inside lines"),
    ]
    .iter()
    .filter(|(on, _)| *on)
    .map(|(_, k)| *k)
    .collect();
    (!kinds.is_empty()).then(|| kinds.join(", "))
}

/// A line with its spaces shown as `·` and tabs as `→`.
fn visible_whitespace(line: &str) -> String {
    line.chars()
        .map(|c| match c {
            ' ' => '·',
            '\t' => '→',
            c => c,
        })
        .collect()
}

/// Marks whitespace on the changed lines of a unified diff where a removed line and the added
/// line paired with it differ only in whitespace (else that difference would be invisible).
/// Returns the diff and whether anything was marked.
fn mark_whitespace(diff: &str) -> (String, bool) {
    let lines: Vec<&str> = diff.lines().collect();
    let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    let mut marked = false;
    let body = |l: &str, c: char| {
        l.strip_prefix(c)
            .filter(|_| !l.starts_with("---") && !l.starts_with("+++"))
            .is_some()
    };
    let mut i = 0;
    while i < lines.len() {
        if !body(lines[i], '-') {
            i += 1;
            continue;
        }
        let minus_start = i;
        while i < lines.len() && body(lines[i], '-') {
            i += 1;
        }
        let plus_start = i;
        while i < lines.len() && body(lines[i], '+') {
            i += 1;
        }
        let (minus, plus) = (plus_start - minus_start, i - plus_start);
        if minus != plus {
            continue;
        }
        for k in 0..minus {
            let (a, b) = (&lines[minus_start + k][1..], &lines[plus_start + k][1..]);
            if whitespace_difference(&[a], &[b]).is_some() {
                out[minus_start + k] = format!("-{}", visible_whitespace(a));
                out[plus_start + k] = format!("+{}", visible_whitespace(b));
                marked = true;
            }
        }
    }
    (out.join("\n"), marked)
}

/// Longest diff shown in a hint, in lines.
const MAX_DIFF_LINES: usize = 60;

/// A unified diff from old_text to the file region, capped in length, whitespace-only changes
/// made visible.
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
    let (text, marked) = mark_whitespace(&text);
    let lines: Vec<&str> = text.lines().collect();
    let mut s = if lines.len() > MAX_DIFF_LINES {
        let mut s = lines[..MAX_DIFF_LINES].join("\n");
        s.push_str(&format!(
            "\n… ({} more diff lines)",
            lines.len() - MAX_DIFF_LINES
        ));
        s
    } else {
        lines.join("\n")
    };
    if marked {
        s.push_str("\n(on the marked lines · is a space and → a tab)");
    }
    s
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
    fn similarity_rounds_down_and_only_identical_text_is_one() {
        let line = "x".repeat(150);
        let file = format!("{line}\n");
        let old = format!("{}y", "x".repeat(149));
        let c = closest(file.as_bytes(), &old).expect("a close match");
        // 2·149 / 300 = 0.9933…: shown as 0.99, never rounded up to 1.0.
        assert_eq!(c.similarity, 0.99);
        assert_eq!(similarity((149, 300)), 0.99);
        assert_eq!(similarity((29, 100)), 0.58);
        assert_eq!(similarity((50, 100)), 1.0);
        // Identical once CRs are dropped: still not 100 %, and the reason is named.
        let c = closest(b"a line\r\nanother line\r\n", "a line\nanother line\n").expect("close");
        assert_eq!(c.similarity, 0.99);
        assert_eq!(
            c.whitespace_only.as_deref(),
            Some("line endings (CRLF vs LF)")
        );
    }

    #[test]
    fn a_near_miss_sharing_only_common_lines_is_found_late_in_a_big_file() {
        // 4,000 small functions, each ending in `}`; old_text is the last one with every
        // other line changed a little, so `}` is the only line it shares with the file.
        let mut file = String::new();
        for i in 0..4000 {
            file.push_str(&format!(
                "fn handler_{i}(req: &Request) -> Response {{\n    let body = req.body();\n    Response::ok(body)\n}}\n\n"
            ));
        }
        file.push_str("fn upload(req: &Request) -> Response {\n    let payload = req.bytes();\n    storage::save(payload)\n}\n");
        let old = "fn upload(request: &Request) -> Response {\n    let data = request.bytes();\n    storage::save(data)\n}\n";
        let c = closest(file.as_bytes(), old).expect("the true region");
        assert_eq!((c.start_line, c.end_line), (20001, 20004));
        assert!(c.similarity >= 0.8, "{c:?}");
    }

    #[test]
    fn a_rare_shared_line_outranks_common_ones() {
        let file = ["}", "}", "}", "}", "rare", "q"];
        let s = rare_line_scores(&file, &["rare", "}"], 2);
        // Window 3 (`}`, `rare`) shares both lines; `}` is worth a quarter (4 in the file).
        assert_eq!(
            s,
            [1 << 18, 1 << 18, 1 << 18, (1 << 20) + (1 << 18), 1 << 20]
        );
        assert_eq!(top(&s, 2), [3, 4]);
        assert_eq!(top(&[0, 5, 5, 7], 3), [3, 1, 2]);
    }

    #[test]
    fn whitespace_only_differences_are_named_and_made_visible() {
        let file = "build:\n\tgo build ./...\n";
        let c = closest(file.as_bytes(), "build:\n    go build ./...\n").expect("close");
        assert_eq!(c.whitespace_only.as_deref(), Some("tabs vs spaces"));
        assert!(c.diff.contains("-····go·build·./..."), "{}", c.diff);
        assert!(c.diff.contains("+→go·build·./..."), "{}", c.diff);
        assert!(c
            .diff
            .ends_with("(on the marked lines · is a space and → a tab)"));
        let c = closest(b"a:  \nb\n", "a:\nb\n").expect("close");
        assert_eq!(c.whitespace_only.as_deref(), Some("trailing whitespace"));
        let c = closest(b"  x: 1\n  y: 2\n", "x: 1\ny: 2\n").expect("close");
        assert_eq!(c.whitespace_only.as_deref(), Some("indentation"));
        // A real difference is not whitespace-only, and only whitespace-only line pairs are
        // marked.
        let c = closest(b"let a = 1;\nlet  b = 2;\n", "let a = 9;\nlet b = 2;\n").expect("close");
        assert_eq!(c.whitespace_only, None);
        assert!(c.diff.contains("-let a = 9;"), "{}", c.diff);
    }

    #[test]
    fn a_resent_block_is_reported_as_already_applied() {
        let file = b"fn a() {\n    call(1);\n    call(2);\n}\n";
        let h = not_found_hint(file, "    call(0);\n", "    call(1);\n    call(2);\n", "p");
        assert_eq!(
            h,
            Hint::AlreadyApplied {
                path: "p".into(),
                lines: vec![2],
                line_count: 2
            }
        );
        // Too short to tell, or contained in old_text: the usual closest-match hint.
        assert!(matches!(
            not_found_hint(file, "call(9)", "}", "p"),
            Hint::NotFound { .. }
        ));
        assert!(matches!(
            not_found_hint(
                file,
                "    call(1);\n    call(2);\n    call(3);",
                "    call(1);\n    call(2);",
                "p"
            ),
            Hint::NotFound { .. }
        ));
    }

    #[test]
    fn a_one_line_old_text_finds_the_signature_wrapped_over_three_lines() {
        let file = "import x\n\ndef post(url, data=None, json=None, **kwargs):\n    return request(\"post\", url, data=data, json=json, **kwargs)\n\n\ndef get(\n    url, params=None, **kwargs\n):\n    return request(\"get\", url, params=params, **kwargs)\n";
        let c = closest(file.as_bytes(), "def get(url, params=None, **kwargs):").unwrap();
        assert_eq!((c.start_line, c.end_line), (7, 9), "{c:?}");
        assert_eq!(
            c.whitespace_only.as_deref(),
            Some("line breaks and indentation (the file wraps it differently)")
        );
        // And the other way round: old_text wrapped, the file on one line.
        let file = "def post(url, data=None):\n    pass\n\ndef get(url, params=None, **kwargs):\n    pass\n";
        let c = closest(
            file.as_bytes(),
            "def get(\n    url, params=None, **kwargs\n):",
        )
        .unwrap();
        assert_eq!((c.start_line, c.end_line), (4, 4), "{c:?}");
    }

    #[test]
    fn a_one_line_signature_finds_the_annotated_one_over_three_lines() {
        // requests' api.py: annotated signatures wrapped over three lines, and a return line
        // that shares many characters with the signature the model remembered.
        let file = "def request(\n    method: str, url: _t.UriType, **kwargs: Unpack[_t.RequestKwargs]\n) -> Response:\n    with sessions.Session() as session:\n        return session.request(method=method, url=url, **kwargs)\n\n\ndef get(\n    url: _t.UriType, params: _t.ParamsType = None, **kwargs: Unpack[_t.GetKwargs]\n) -> Response:\n    r\"\"\"Sends a GET request.\"\"\"\n\n    return request(\"get\", url, params=params, **kwargs)\n";
        let c = closest(file.as_bytes(), "def get(url, params=None, **kwargs):").unwrap();
        assert_eq!((c.start_line, c.end_line), (8, 10), "{c:?}");
    }

    #[test]
    fn an_extra_blank_line_is_named_as_the_only_difference() {
        let file = "function one() {\n  return 1;\n}\n\n\nfunction two() {\n  return 2;\n}\n";
        let c = closest(file.as_bytes(), "}\n\nfunction two() {\n").unwrap();
        assert_eq!((c.start_line, c.end_line), (3, 6), "{c:?}");
        assert_eq!(
            c.whitespace_only.as_deref(),
            Some("blank lines (the file has more or fewer empty lines here)")
        );
        assert_eq!(c.similarity, 0.99);
    }

    #[test]
    fn closest_ties_go_to_the_earliest_window() {
        let file = "alpha one\nbeta\nalpha one\n";
        let c = closest(file.as_bytes(), "alpha onx").unwrap();
        assert_eq!(c.start_line, 1);
    }
}
