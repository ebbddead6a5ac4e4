//! Several commits' logs as the log of the one commit that replaces them (a squash): each
//! commit's attested lines carried forward through the later versions of the file, the last
//! session winning where two attest the same line (the standard's squash rule), and only the
//! lines the squashed commit itself writes kept. Sessions and other metadata are merged, the
//! first record of an id kept.

use super::carry::{carry, count, written_lines};
use super::log::{Log, Metadata};
use super::ranges::LineSet;

/// One commit's version of a file: its content (`None`: the file is not there) and the
/// entries its log attests for the file.
pub struct Step<'a> {
    pub content: Option<&'a [u8]>,
    pub entries: Vec<(String, LineSet)>,
}

/// The entries of one file in the squashed commit, from the version before the first commit
/// (`base`) and every commit's version in order; the last step's content is the result.
pub fn squash_file(base: Option<&[u8]>, steps: &[Step<'_>]) -> Vec<(String, LineSet)> {
    let mut keys: Vec<String> = Vec::new();
    let mut owner: Vec<Option<usize>> = vec![None; base.map_or(0, count)];
    let mut prev: Option<&[u8]> = base;
    for step in steps {
        owner = match (prev, step.content) {
            (_, None) => Vec::new(),
            (None, Some(now)) => vec![None; count(now)],
            (Some(before), Some(now)) => {
                let map = carry(before, now);
                let mut next = vec![None; count(now)];
                for (i, who) in owner.iter().enumerate() {
                    if let (Some(who), Some(Some(to))) = (who, map.get(i)) {
                        next[*to as usize - 1] = Some(*who);
                    }
                }
                next
            }
        };
        for (key, lines) in &step.entries {
            let k = match keys.iter().position(|x| x == key) {
                Some(k) => k,
                None => {
                    keys.push(key.clone());
                    keys.len() - 1
                }
            };
            for l in lines.iter() {
                if let Some(slot) = owner.get_mut(l as usize - 1) {
                    *slot = Some(k);
                }
            }
        }
        prev = step.content;
    }
    let Some(result) = prev else {
        return Vec::new();
    };
    let written = written_lines(base, result);
    let mut out: Vec<(String, LineSet)> =
        keys.iter().map(|k| (k.clone(), LineSet::new())).collect();
    for l in written.iter() {
        if let Some(Some(k)) = owner.get(l as usize - 1) {
            out[*k].1.push(l);
        }
    }
    out.retain(|(_, lines)| !lines.is_empty());
    out
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
