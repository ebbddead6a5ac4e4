//! Small text helpers the layers share: the edit distance of two short strings, the
//! closest of a set of names ("did you mean"), and a count with its noun.

/// Levenshtein distance of two short strings (by char: `strsim`'s, which counts `char`s as
/// the hand-written one here did).
pub fn edit_distance(a: &str, b: &str) -> usize {
    strsim::levenshtein(a, b)
}

/// The candidate `word` is most likely a misspelling of: the nearest by edit distance, if it
/// is near enough (at most a third of the longer name, and at most 3 edits); ties go to the
/// first. `None` for an exact match or nothing close.
pub fn closest_name<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        if c == word {
            return None;
        }
        let d = edit_distance(&word.to_lowercase(), &c.to_lowercase());
        let limit = (word.chars().count().max(c.chars().count()) / 3).clamp(1, 3);
        if d <= limit && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

/// `n` and the noun in the number it needs: `1 path`, `2 paths`, `0 paths`.
pub fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_and_near_names() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        // By char, not by byte: one edit each, whatever the UTF-8 length.
        assert_eq!(edit_distance("naïve", "naive"), 1);
        assert_eq!(edit_distance("", "日本"), 2);
        assert_eq!(edit_distance("flaw", "lawn"), 2);
        assert_eq!(
            closest_name("old_txt", ["path", "old_text", "new_text"]),
            Some("old_text")
        );
        assert_eq!(closest_name("path", ["path", "paths"]), None);
        assert_eq!(closest_name("zzz", ["path", "content"]), None);
        assert_eq!(count(1, "path", "paths"), "1 path");
        assert_eq!(count(0, "path", "paths"), "0 paths");
        assert_eq!(
            closest_name("structure.py", ["structures.py", "utils.py"]),
            Some("structures.py")
        );
    }
}
