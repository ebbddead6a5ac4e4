//! Several commits' logs as the log of the one commit that replaces them (a squash, a fixup,
//! an amend): each line's origin follows the line through every member's own change — a line
//! of the version before the first member, or one a member wrote, the AI's when the member's
//! log attests it (the last session winning where two attest the same line, the standard's
//! squash rule). Only the lines the squashed commit itself writes are kept, as its own diff
//! numbers them (what `git blame` sees): where that diff pairs an AI line with an identical
//! line of the old version (two blank lines), the AI's origin goes to the identical line the
//! diff calls new, so no line is credited to someone who did not write it. Sessions and
//! other metadata are merged, the first record of an id kept.

use std::collections::HashMap;

use super::carry::{carry, count, is_binary, split, written_lines};
use super::log::{Log, Metadata};
use super::ranges::LineSet;

/// Where a line of a file's current version came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Origin {
    /// The version before the first member, carried unchanged.
    Base,
    /// Written by a member: the AI session (an index into the caller's keys) whose log
    /// attests it, or nobody's log.
    Written(Option<usize>),
}

/// One file through a squash: its version before the first member, its current version and
/// each current line's origin.
#[derive(Debug)]
pub struct Lineage {
    base: Option<Vec<u8>>,
    now: Option<Vec<u8>>,
    origin: Vec<Origin>,
}

impl Lineage {
    /// The file as it was before the first member (`None`: not there).
    pub fn new(base: Option<Vec<u8>>) -> Lineage {
        let origin = vec![Origin::Base; base.as_deref().map_or(0, count)];
        Lineage {
            now: base.clone(),
            base,
            origin,
        }
    }

    /// Carries the origins through a change of the file to `now` (`None`: removed): lines
    /// unchanged keep theirs, the others are written by nobody's log yet.
    pub fn step(&mut self, now: Option<Vec<u8>>) {
        self.origin = match (self.now.as_deref(), now.as_deref()) {
            (_, None) => Vec::new(),
            (None, Some(now)) => vec![Origin::Written(None); count(now)],
            (Some(before), Some(after)) => {
                let mut next = vec![Origin::Written(None); count(after)];
                for (i, to) in carry(before, after).into_iter().enumerate() {
                    if let (Some(to), Some(o)) = (to, self.origin.get(i)) {
                        next[to as usize - 1] = *o;
                    }
                }
                next
            }
        };
        self.now = now;
    }

    /// Lines of the current version a log attests to session `key`.
    pub fn attest(&mut self, key: usize, lines: &LineSet) {
        for l in lines.iter() {
            if let Some(slot) = self.origin.get_mut(l as usize - 1) {
                *slot = Origin::Written(Some(key));
            }
        }
    }

    /// The AI's lines of the current version that the change from the base writes, per
    /// session key (ascending keys).
    pub fn finish(&self) -> Vec<(usize, LineSet)> {
        let Some(now) = self.now.as_deref() else {
            return Vec::new();
        };
        if is_binary(now) {
            return Vec::new();
        }
        let written = written_lines(self.base.as_deref(), now);
        let mut owner: Vec<Option<usize>> = self
            .origin
            .iter()
            .map(|o| match o {
                Origin::Written(k) => *k,
                Origin::Base => None,
            })
            .collect();
        self.give_to_identical_lines(now, &written, &mut owner);
        let mut out: Vec<(usize, LineSet)> = Vec::new();
        for l in written.iter() {
            let Some(Some(k)) = owner.get(l as usize - 1) else {
                continue;
            };
            match out.iter_mut().find(|(key, _)| key == k) {
                Some((_, set)) => set.push(l),
                None => out.push((*k, LineSet::from_lines([l]))),
            }
        }
        out.sort_by_key(|(k, _)| *k);
        out
    }

    /// Where the diff from the base calls an AI line unchanged and an identical line of the
    /// base's written, the two are the same text and either is the AI's: the origin moves
    /// to the one the diff calls written (the nearest such line), so the squash's diff and
    /// its log name the same lines.
    fn give_to_identical_lines(&self, now: &[u8], written: &LineSet, owner: &mut [Option<usize>]) {
        let lines = split(now);
        let mut free: HashMap<&[u8], Vec<usize>> = HashMap::new();
        let mut orphans = Vec::new();
        for (i, o) in self.origin.iter().enumerate() {
            let is_written = written.contains(line_number(i));
            match o {
                Origin::Base if is_written => free.entry(lines[i]).or_default().push(i),
                Origin::Written(Some(_)) if !is_written => orphans.push(i),
                _ => {}
            }
        }
        for i in orphans {
            let Some(candidates) = free.get_mut(lines[i]) else {
                continue;
            };
            let Some(best) = (0..candidates.len()).min_by_key(|&c| candidates[c].abs_diff(i))
            else {
                continue;
            };
            let to = candidates.swap_remove(best);
            owner[to] = owner[i].take();
        }
    }
}

fn line_number(index: usize) -> u32 {
    u32::try_from(index + 1).unwrap_or(u32::MAX)
}

/// Session keys in the order first met, as small indices for [`Lineage`].
#[derive(Debug, Default)]
pub struct Keys(Vec<String>);

impl Keys {
    /// The index of `key`, added if new.
    pub fn index(&mut self, key: &str) -> usize {
        match self.0.iter().position(|k| k == key) {
            Some(k) => k,
            None => {
                self.0.push(key.to_string());
                self.0.len() - 1
            }
        }
    }

    pub fn name(&self, index: usize) -> &str {
        &self.0[index]
    }
}

/// Adds `from`'s sessions, humans, prompts and unknown fields to `into` where `into` has no
/// record of that id yet.
pub fn merge_metadata(into: &mut Metadata, from: &Metadata) {
    for (id, s) in &from.sessions {
        into.sessions.entry(id.clone()).or_insert_with(|| s.clone());
    }
    for (id, h) in &from.humans {
        into.humans.entry(id.clone()).or_insert_with(|| h.clone());
    }
    for (id, p) in &from.prompts {
        into.prompts.entry(id.clone()).or_insert_with(|| p.clone());
    }
    for (k, v) in &from.extra {
        into.extra.entry(k.clone()).or_insert_with(|| v.clone());
    }
}

/// Two logs of one commit (two clones' logs of it) as one, line by line as a squash of two
/// versions with the same content: `later`'s lines stand, `earlier`'s lines stay where `later`
/// attests nothing; sessions of both kept (`later`'s record of an id first).
pub fn overlay(earlier: &Log, later: &Log) -> Log {
    let mut out = Log {
        files: Vec::new(),
        meta: later.meta.clone(),
    };
    merge_metadata(&mut out.meta, &earlier.meta);
    for file in &later.files {
        for e in &file.entries {
            out.attest(&file.path, &e.key, &e.lines);
        }
    }
    for file in &earlier.files {
        let taken = later
            .files
            .iter()
            .filter(|f| f.path == file.path)
            .flat_map(|f| f.entries.iter())
            .fold(LineSet::new(), |all, e| all.union(&e.lines));
        for e in &file.entries {
            out.attest(&file.path, &e.key, &e.lines.minus(&taken));
        }
    }
    prune_metadata(&mut out);
    out
}

/// Drops from `log`'s metadata the records no entry uses any more.
pub fn prune_metadata(log: &mut Log) {
    let used: Vec<String> = log
        .files
        .iter()
        .flat_map(|f| f.entries.iter())
        .map(|e| {
            e.key
                .split_once("::")
                .map_or(e.key.as_str(), |(s, _)| s)
                .to_string()
        })
        .collect();
    log.meta.sessions.retain(|id, _| used.contains(id));
    log.meta.humans.retain(|id, _| used.contains(id));
    log.meta.prompts.retain(|id, _| used.contains(id));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One commit's version of a file: its content (`None`: the file is not there) and the
    /// entries its log attests for the file.
    struct Step<'a> {
        content: Option<&'a [u8]>,
        entries: Vec<(String, LineSet)>,
    }

    /// The entries of one file in the squashed commit, from the version before the first commit
    /// (`base`) and every commit's version in order; the last step's content is the result.
    fn squash_file(base: Option<&[u8]>, steps: &[Step<'_>]) -> Vec<(String, LineSet)> {
        let mut keys = Keys::default();
        let mut lineage = Lineage::new(base.map(<[u8]>::to_vec));
        for step in steps {
            if step.content != lineage.now.as_deref() {
                lineage.step(step.content.map(<[u8]>::to_vec));
            }
            for (key, lines) in &step.entries {
                let k = keys.index(key);
                lineage.attest(k, lines);
            }
        }
        lineage
            .finish()
            .into_iter()
            .map(|(k, lines)| (keys.name(k).to_string(), lines))
            .collect()
    }

    fn set(s: &str) -> LineSet {
        LineSet::parse(s).unwrap()
    }

    #[test]
    fn later_sessions_win_and_lines_carry() {
        let base = b"a\nb\nc\n";
        let v1 = b"a\nB1\nB2\nc\n"; // session 1 writes lines 2-3
        let v2 = b"top\na\nB1\nX\nc\n"; // session 2 writes 1 and 4 (B2 -> X)
        let steps = [
            Step {
                content: Some(v1),
                entries: vec![("s1".into(), set("2-3"))],
            },
            Step {
                content: Some(v2),
                entries: vec![("s2".into(), set("1,4"))],
            },
        ];
        let got = squash_file(Some(base), &steps);
        assert_eq!(
            got,
            vec![("s1".to_string(), set("3")), ("s2".to_string(), set("1,4"))]
        );
    }

    #[test]
    fn a_line_put_back_as_it_was_is_not_the_squashs() {
        let base = b"a\nb\n";
        let steps = [
            Step {
                content: Some(b"a\nX\n"),
                entries: vec![("s1".into(), set("2"))],
            },
            Step {
                content: Some(b"a\nb\n"),
                entries: vec![("s2".into(), set("2"))],
            },
        ];
        assert!(squash_file(Some(base), &steps).is_empty());
    }

    #[test]
    fn an_ai_blank_line_next_to_an_old_one_stays_the_ais() {
        // s1 adds a blank line after the old one; s2 writes X above both. The squash's own
        // diff calls X and the first blank line new: the AI wrote both.
        let steps = [
            Step {
                content: Some(b"a\n\n\nb\n"),
                entries: vec![("s1".into(), set("3"))],
            },
            Step {
                content: Some(b"a\nX\n\n\nb\n"),
                entries: vec![("s2".into(), set("2"))],
            },
        ];
        assert_eq!(
            written_lines(Some(b"a\n\nb\n"), b"a\nX\n\n\nb\n").to_string(),
            "2-3"
        );
        let got = squash_file(Some(b"a\n\nb\n"), &steps);
        assert_eq!(
            got,
            vec![("s1".to_string(), set("3")), ("s2".to_string(), set("2"))]
        );
    }

    #[test]
    fn a_human_line_is_never_given_an_ais_origin() {
        // s1 adds a blank line; a human (no log) adds another and X: two of the three blank
        // lines are new, one is the AI's.
        let steps = [
            Step {
                content: Some(b"a\n\n\nb\n"),
                entries: vec![("s1".into(), set("3"))],
            },
            Step {
                content: Some(b"X\n\na\n\n\nb\n"),
                entries: Vec::new(),
            },
        ];
        let got = squash_file(Some(b"a\n\nb\n"), &steps);
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(got[0].1.len(), 1, "{got:?}");
    }

    #[test]
    fn overlay_keeps_both_logs_lines_the_later_winning_where_both_attest() {
        let log = |sid: &str, lines: &str| {
            let mut l = Log {
                files: Vec::new(),
                meta: Metadata::new("c0ffee"),
            };
            let key = format!("{sid}::t_00000000000000");
            l.meta.sessions.insert(
                sid.to_string(),
                serde_json::from_value(serde_json::json!({
                    "agent_id": {"tool": "claude", "id": sid, "model": "m"}
                }))
                .unwrap(),
            );
            l.attest("a.rs", &key, &set(lines));
            l
        };
        let a = log("s_aaaaaaaaaaaaaa", "1-4");
        let b = log("s_bbbbbbbbbbbbbb", "3-6");
        let got = overlay(&a, &b);
        let lines: Vec<(String, String)> = got.files[0]
            .entries
            .iter()
            .map(|e| (e.key[..16].to_string(), e.lines.to_string()))
            .collect();
        assert_eq!(
            lines,
            vec![
                ("s_bbbbbbbbbbbbbb".to_string(), "3-6".to_string()),
                ("s_aaaaaaaaaaaaaa".to_string(), "1-2".to_string())
            ]
        );
        assert_eq!(got.meta.sessions.len(), 2);
        assert!(Log::parse(&got.serialize()).is_ok());
    }

    #[test]
    fn overlapping_lines_go_to_the_last_session() {
        let steps = [
            Step {
                content: Some(b"x\ny\n"),
                entries: vec![("s1".into(), set("1-2"))],
            },
            Step {
                content: Some(b"x\ny\n"),
                entries: vec![("s2".into(), set("2"))],
            },
        ];
        let got = squash_file(None, &steps);
        assert_eq!(
            got,
            vec![("s1".to_string(), set("1")), ("s2".to_string(), set("2"))]
        );
    }
}
