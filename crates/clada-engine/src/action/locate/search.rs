//! The linear-time search both hunk styles turn to when searching position by position gets
//! expensive (a long chunk that nearly matches at many places): Knuth–Morris–Pratt over lines,
//! so no input makes a search quadratic.

/// Line comparisons a search makes position by position, per line of the file and the
/// chunk, before it turns to a linear-time search.
pub(super) const DIRECT_WORK: usize = 8;

/// Every start of `needle` in `hay`, overlapping ones included, in one pass
/// (Knuth–Morris–Pratt); only the first with `first_only`.
pub(in crate::action) fn occurrences<T: PartialEq>(
    hay: &[T],
    needle: &[T],
    first_only: bool,
) -> Vec<usize> {
    let m = needle.len();
    let mut out = Vec::new();
    if m == 0 || m > hay.len() {
        return out;
    }
    // fail[i]: the length of the longest proper prefix of needle[..=i] that is also its suffix.
    let mut fail = vec![0usize; m];
    let mut j = 0;
    for i in 1..m {
        while j > 0 && needle[i] != needle[j] {
            j = fail[j - 1];
        }
        if needle[i] == needle[j] {
            j += 1;
        }
        fail[i] = j;
    }
    let mut j = 0;
    for (i, x) in hay.iter().enumerate() {
        while j > 0 && *x != needle[j] {
            j = fail[j - 1];
        }
        if *x == needle[j] {
            j += 1;
        }
        if j == m {
            out.push(i + 1 - m);
            if first_only {
                break;
            }
            j = fail[j - 1];
        }
    }
    out
}
