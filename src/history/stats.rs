//! `git clada stats`: per commit of a range and in total, how many of its lines are still in
//! the range's last version and who wrote them (the AI, a human, unknown), from git's blame at
//! the tip and the authorship logs (`refs/notes/ai`), as `git clada blame` reads them.

use std::collections::{BTreeSet, HashMap};

use serde::Serialize;

use crate::repo::{ObjectId, Repo};

use super::blame::{resolve, Origins};
use super::common::HistoryError;

/// How far back a range without a start is walked.
const WALK_LIMIT: usize = 100_000;

/// Lines by origin.
#[derive(Debug, Default, Clone, Copy, Serialize)]
pub struct Counts {
    pub ai: u64,
    pub human: u64,
    pub unknown: u64,
}

/// One commit's lines still present at the tip.
#[derive(Debug, Serialize)]
pub struct CommitStats {
    pub commit: String,
    pub subject: String,
    #[serde(flatten)]
    pub lines: Counts,
}

/// The stats of a range.
#[derive(Debug, Serialize)]
pub struct StatsReport {
    pub rev: String,
    /// Newest first; commits with no line left are left out.
    pub commits: Vec<CommitStats>,
    pub total: Counts,
}

/// Stats of `range` (`A..B` or `B`, first-parent; default HEAD).
pub fn stats(repo: &Repo, range: Option<&str>) -> Result<StatsReport, HistoryError> {
    // Logs a fetch brought in count as soon as they are read.
    crate::record::shared_logs::merge_on_read(repo);
    let range = range.unwrap_or("HEAD");
    let (stop, tip) = match range.split_once("..") {
        Some((a, b)) => (
            Some(resolve(repo, Some(if a.is_empty() { "HEAD" } else { a }))?),
            resolve(repo, Some(if b.is_empty() { "HEAD" } else { b }))?,
        ),
        None => (None, resolve(repo, Some(range))?),
    };
    let mut chain = repo.first_parent_chain(tip, WALK_LIMIT)?;
    if let Some(end) = stop.and_then(|s| chain.iter().position(|c| c.id == s)) {
        chain.truncate(end);
    }
    let tip_tree = repo.tree_of(tip)?;
    let mut paths = BTreeSet::new();
    for c in &chain {
        let parent_tree = match c.parents.first() {
            Some(p) => repo.tree_of(*p)?,
            None => repo.empty_tree(),
        };
        for d in repo.diff_trees(parent_tree, c.tree)? {
            if d.new.is_some() {
                paths.insert(d.path);
            }
        }
    }
    let in_range: HashMap<ObjectId, usize> =
        chain.iter().enumerate().map(|(i, c)| (c.id, i)).collect();
    let mut per: Vec<Counts> = vec![Counts::default(); chain.len()];
    let mut origins = Origins::new(repo)?;
    for path in paths {
        let Ok(path) = String::from_utf8(path.to_vec()) else {
            continue;
        };
        if repo.tree_entry(tip_tree, path.as_bytes().into())?.is_none() {
            continue;
        }
        for b in repo.blame(tip, &path, None)? {
            let Some(&i) = in_range.get(&b.commit) else {
                continue;
            };
            let slot = &mut per[i];
            match origins.of(b)?.origin {
                "ai" => slot.ai += 1,
                "human" => slot.human += 1,
                _ => slot.unknown += 1,
            }
        }
    }
    let mut total = Counts::default();
    let mut commits = Vec::new();
    for (c, n) in chain.iter().zip(per) {
        total.ai += n.ai;
        total.human += n.human;
        total.unknown += n.unknown;
        if n.ai + n.human + n.unknown > 0 {
            commits.push(CommitStats {
                commit: c.id.to_string(),
                subject: c.subject().to_string(),
                lines: n,
            });
        }
    }
    Ok(StatsReport {
        rev: tip.to_string(),
        commits,
        total,
    })
}

/// A bar of `width` cells: human and unknown lines (`█`) on the left, AI lines (`░`) right.
fn bar(c: &Counts, width: usize) -> String {
    let all = c.ai + c.human + c.unknown;
    let ai = match all {
        0 => 0,
        _ => ((c.ai * width as u64 + all / 2) / all) as usize,
    };
    format!("you {}{} ai", "█".repeat(width - ai), "░".repeat(ai))
}

/// The report for people: one line per commit, then the total.
pub fn render(report: &StatsReport) -> String {
    let mut out = String::new();
    let line = |c: &Counts| {
        format!(
            "{} ai {:>6}  human {:>6}  unknown {:>6}",
            bar(c, 20),
            c.ai,
            c.human,
            c.unknown
        )
    };
    for c in &report.commits {
        let subject = crate::base::term::escape(&c.subject, crate::base::term::Rule::Name);
        out.push_str(&format!(
            "{}  {}  {subject}\n",
            &c.commit[..8],
            line(&c.lines)
        ));
    }
    out.push_str(&format!("total     {}\n", line(&report.total)));
    out
}
