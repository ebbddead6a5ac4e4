//! Line sets as the Git AI Standard writes them: 1-based, ascending, consecutive lines joined
//! into ranges (`1-4,9,12-20`).

use std::fmt;

/// A set of 1-based line numbers, kept as sorted, disjoint, non-adjacent inclusive ranges.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LineSet {
    ranges: Vec<(u32, u32)>,
}

impl LineSet {
    pub fn new() -> LineSet {
        LineSet::default()
    }

    /// The set of the given lines (any order, duplicates allowed; 0 is ignored).
    pub fn from_lines(lines: impl IntoIterator<Item = u32>) -> LineSet {
        let mut all: Vec<u32> = lines.into_iter().filter(|&l| l > 0).collect();
        all.sort_unstable();
        all.dedup();
        let mut set = LineSet::new();
        for l in all {
            set.push(l);
        }
        set
    }

    /// Adds `line`, which must not be below the highest line already in the set (the fast
    /// path of building a set in order); a lower line is inserted the slow way.
    pub fn push(&mut self, line: u32) {
        if line == 0 {
            return;
        }
        match self.ranges.last_mut() {
            Some((_, end)) if *end + 1 == line => *end = line,
            Some((_, end)) if *end >= line => {
                if !self.contains(line) {
                    let mut all: Vec<u32> = self.iter().collect();
                    all.push(line);
                    *self = LineSet::from_lines(all);
                }
            }
            _ => self.ranges.push((line, line)),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// Number of lines in the set.
    pub fn len(&self) -> u64 {
        self.ranges.iter().map(|&(a, b)| u64::from(b - a) + 1).sum()
    }

    pub fn contains(&self, line: u32) -> bool {
        let i = self.ranges.partition_point(|&(_, end)| end < line);
        self.ranges.get(i).is_some_and(|&(start, _)| start <= line)
    }

    /// The inclusive ranges, ascending.
    pub fn ranges(&self) -> &[(u32, u32)] {
        &self.ranges
    }

    /// Every line, ascending.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.ranges.iter().flat_map(|&(a, b)| a..=b)
    }

    /// Parses `N`, `A-B`, comma-joined: positive, ascending, no overlap, no spaces.
    pub fn parse(text: &str) -> Result<LineSet, String> {
        if text.is_empty() {
            return Err("the line ranges are empty".into());
        }
        let mut set = LineSet::new();
        for part in text.split(',') {
            let (a, b) = match part.split_once('-') {
                Some((a, b)) => (number(a, part)?, number(b, part)?),
                None => {
                    let n = number(part, part)?;
                    (n, n)
                }
            };
            if a > b {
                return Err(format!("range `{part}` ends before it starts"));
            }
            if let Some(&(_, end)) = set.ranges.last() {
                if a <= end {
                    return Err(format!(
                        "range `{part}` is not after the one before it (line ranges must be ascending and disjoint)"
                    ));
                }
                if a == end + 1 {
                    // Consecutive ranges written apart are valid (a SHOULD, not a MUST).
                    if let Some(last) = set.ranges.last_mut() {
                        last.1 = b;
                    }
                    continue;
                }
            }
            set.ranges.push((a, b));
        }
        Ok(set)
    }

    /// The lines in `self` or `other`.
    pub fn union(&self, other: &LineSet) -> LineSet {
        LineSet::from_lines(self.iter().chain(other.iter()))
    }

    /// The lines in `self` and not in `other`.
    pub fn minus(&self, other: &LineSet) -> LineSet {
        LineSet::from_lines(self.iter().filter(|&l| !other.contains(l)))
    }

    /// The lines in both.
    pub fn intersect(&self, other: &LineSet) -> LineSet {
        LineSet::from_lines(self.iter().filter(|&l| other.contains(l)))
    }
}

fn number(text: &str, part: &str) -> Result<u32, String> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "`{part}` is not a line number or range (N or A-B, digits only, no spaces)"
        ));
    }
    match text.parse::<u32>() {
        Ok(0) => Err(format!("`{part}`: line numbers start at 1")),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("`{part}`: line number too large")),
    }
}

impl fmt::Display for LineSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, &(a, b)) in self.ranges.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            if a == b {
                write!(f, "{a}")?;
            } else {
                write!(f, "{a}-{b}")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_and_prints_ranges() {
        let s = LineSet::from_lines([9, 1, 2, 3, 4, 12, 14, 13, 3]);
        assert_eq!(s.to_string(), "1-4,9,12-14");
        assert_eq!(s.len(), 8);
        assert!(s.contains(13) && !s.contains(5) && !s.contains(15));
        assert_eq!(LineSet::parse("1-4,9,12-14").unwrap(), s);
        assert_eq!(LineSet::parse("1,2,3").unwrap().to_string(), "1-3");
    }

    #[test]
    fn refuses_what_the_standard_forbids() {
        for bad in [
            "", "0", "1 ,2", "3,2", "1-3,2", "5-4", "a", "1-", "-3", "1,,2", " 1",
        ] {
            assert!(LineSet::parse(bad).is_err(), "{bad:?} was accepted");
        }
    }

    #[test]
    fn set_operations() {
        let a = LineSet::parse("1-5,10").unwrap();
        let b = LineSet::parse("4-10").unwrap();
        assert_eq!(a.union(&b).to_string(), "1-10");
        assert_eq!(a.minus(&b).to_string(), "1-3");
        assert_eq!(a.intersect(&b).to_string(), "4-5,10");
        let mut c = LineSet::new();
        c.push(5);
        c.push(2);
        c.push(3);
        assert_eq!(c.to_string(), "2-3,5");
    }
}
