//! `git clada stats`: for the commits of a range (every parent's, as blame sees them), the
//! lines they added and the lines of theirs still in the range's last version, by who wrote
//! them (the AI, per agent and model; a human; unknown), per commit, file and week, from the
//! authorship logs (`refs/notes/ai`) as `git clada blame` reads them. Only the files whose
//! history a log or a snapshot names (followed through renames) are blamed for a whole
//! history; every line of the others is unknown without asking. `stats_page` renders it.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use serde::Serialize;

use crate::authorship::Log;
use clada_git::{EntryKind, ObjectId, RangeCommit, Repo};

use super::blame::{agent_model, resolve, Origins};
use super::common::HistoryError;

/// Lines by origin.
#[derive(Debug, Default, Clone, Copy, Serialize)]
pub struct Counts {
    pub ai: u64,
    pub human: u64,
    pub unknown: u64,
}

impl Counts {
    fn add(&mut self, origin: &str, n: u64) {
        match origin {
            "ai" => self.ai += n,
            "human" => self.human += n,
            _ => self.unknown += n,
        }
    }

    pub fn all(&self) -> u64 {
        self.ai + self.human + self.unknown
    }
}

/// One commit's lines still present at the tip.
#[derive(Debug, Serialize)]
pub struct CommitStats {
    pub commit: String,
    pub subject: String,
    #[serde(flatten)]
    pub lines: Counts,
}

/// One agent and model's AI lines: added by the range, and still at the tip.
#[derive(Debug, Serialize)]
pub struct AgentStats {
    pub agent: String,
    pub model: String,
    pub added: u64,
    pub surviving: u64,
}

/// AI lines of one agent and model, in a file or a week.
#[derive(Debug, Serialize)]
pub struct AgentLines {
    pub agent: String,
    pub model: String,
    pub lines: u64,
}

/// One file's lines at the tip written by the range's commits.
#[derive(Debug, Serialize)]
pub struct FileStats {
    pub path: String,
    #[serde(flatten)]
    pub lines: Counts,
    pub agents: Vec<AgentLines>,
}

/// The lines added by the range's commits authored in one week (its Monday, UTC).
#[derive(Debug, Serialize)]
pub struct WeekStats {
    pub week: String,
    #[serde(flatten)]
    pub added: Counts,
    pub agents: Vec<AgentLines>,
}

/// The stats of a range.
#[derive(Debug, Serialize)]
pub struct StatsReport {
    pub rev: String,
    /// The range's start (`BASE` of `BASE..HEAD`), if it has one.
    pub base: Option<String>,
    /// Newest first; commits with no line left in a blamed file are left out.
    pub commits: Vec<CommitStats>,
    /// The range's lines still at the tip.
    pub total: Counts,
    /// The lines the range's commits added (a merge adds none of its own).
    pub added: Counts,
    pub agents: Vec<AgentStats>,
    pub files: Vec<FileStats>,
    pub weeks: Vec<WeekStats>,
}

type Agent = (String, String);

/// What the walk gathers before it becomes the report.
#[derive(Default)]
struct Tally {
    per_commit: Vec<Counts>,
    total: Counts,
    added: Counts,
    agents: BTreeMap<Agent, (u64, u64)>,
    files: BTreeMap<String, (Counts, BTreeMap<Agent, u64>)>,
    weeks: BTreeMap<String, (Counts, BTreeMap<Agent, u64>)>,
}

/// Stats of `range`: `BASE..TIP` (the commits reachable from TIP and not from BASE, as
/// `git log BASE..TIP`) or `TIP` (every commit reachable from it); default HEAD.
pub fn stats(repo: &Repo, range: Option<&str>) -> Result<StatsReport, HistoryError> {
    // Logs a fetch brought in count as soon as they are read.
    crate::record::shared_logs::merge_on_read(repo);
    let range = range.unwrap_or("HEAD");
    let (stop, tip) = match range.split_once("..") {
        Some((a, b)) if !b.starts_with('.') => (
            Some(resolve(repo, Some(if a.is_empty() { "HEAD" } else { a }))?),
            resolve(repo, Some(if b.is_empty() { "HEAD" } else { b }))?,
        ),
        Some(_) => {
            return Err(HistoryError::Refused(format!(
                "`{range}`: stats takes BASE..HEAD (two dots) or one revision"
            )))
        }
        None => (None, resolve(repo, Some(range))?),
    };
    let commits = repo.range_commits(tip, stop)?;
    let mut origins = Origins::new(repo)?;
    let mut tally = Tally {
        per_commit: vec![Counts::default(); commits.len()],
        ..Tally::default()
    };
    let mut named: HashSet<String> = HashSet::new();
    for c in &commits {
        let (log, snapshot) = origins.log_of(c.id)?;
        if log.is_some() || snapshot {
            named.extend(c.files.iter().map(|f| f.path.clone()));
            named.extend(
                log.iter()
                    .flat_map(|l| l.files.iter().map(|f| f.path.clone())),
            );
        }
        if c.parents.len() <= 1 {
            added_by(c, log, snapshot, &mut tally);
        }
    }
    // A named file renamed later is read at its new path (oldest commit first).
    for c in commits.iter().rev() {
        for f in &c.files {
            if f.from.as_ref().is_some_and(|from| named.contains(from)) {
                named.insert(f.path.clone());
            }
        }
    }
    let touched: BTreeSet<&str> = commits
        .iter()
        .flat_map(|c| c.files.iter().map(|f| f.path.as_str()))
        .collect();
    let in_range: HashMap<ObjectId, usize> =
        commits.iter().enumerate().map(|(i, c)| (c.id, i)).collect();
    let tip_tree = repo.tree_of(tip)?;
    for path in touched {
        let Some(entry) = repo.tree_entry(tip_tree, path.as_bytes().into())? else {
            continue;
        };
        if entry.kind == EntryKind::Commit {
            continue;
        }
        // Without a start every line at the tip is the range's: a file no log or snapshot
        // names is all unknown, counted without a blame.
        if stop.is_none() && !named.contains(path) {
            let n = line_count(&repo.read_blob(entry.id)?);
            tally.total.unknown += n;
            tally.files.entry(path.to_string()).or_default().0.unknown += n;
            continue;
        }
        for b in repo.blame(tip, path, None)? {
            let Some(&i) = in_range.get(&b.commit) else {
                continue;
            };
            let line = origins.of(b)?;
            tally.per_commit[i].add(line.origin, 1);
            tally.total.add(line.origin, 1);
            let file = tally.files.entry(path.to_string()).or_default();
            file.0.add(line.origin, 1);
            if line.origin == "ai" {
                let who = name(line.agent, line.model);
                *file.1.entry(who.clone()).or_default() += 1;
                tally.agents.entry(who).or_default().1 += 1;
            }
        }
    }
    report(repo, tip, stop, &commits, tally)
}

/// The lines commit `c` added, by origin as blame would give them at `c`.
fn added_by(c: &RangeCommit, log: Option<&Log>, snapshot: bool, tally: &mut Tally) {
    let week = tally.weeks.entry(week_of(c.author_time)).or_default();
    for f in &c.files {
        let mut n = Counts::default();
        match log {
            _ if snapshot => n.human = f.added,
            None => n.unknown = f.added,
            Some(log) => {
                let entries = log.files.iter().filter(|l| l.path == f.path);
                for e in entries.flat_map(|l| l.entries.iter()) {
                    let lines = e.lines.len();
                    if e.key.starts_with("h_") {
                        n.human += lines;
                        continue;
                    }
                    n.ai += lines;
                    let (agent, model) = agent_model(log, &e.key);
                    let who = name(agent, model);
                    *week.1.entry(who.clone()).or_default() += lines;
                    tally.agents.entry(who).or_default().0 += lines;
                }
                let rest = f.added.saturating_sub(n.ai + n.human);
                // git-clada's own log claims every line its AI wrote: the others were yours.
                n.add(if log.is_claded() { "human" } else { "unknown" }, rest);
            }
        }
        for (origin, k) in [("ai", n.ai), ("human", n.human), ("unknown", n.unknown)] {
            tally.added.add(origin, k);
            week.0.add(origin, k);
        }
    }
}

fn report(
    repo: &Repo,
    tip: ObjectId,
    stop: Option<ObjectId>,
    commits: &[RangeCommit],
    tally: Tally,
) -> Result<StatsReport, HistoryError> {
    let mut rows = Vec::new();
    for (c, n) in commits.iter().zip(&tally.per_commit) {
        if n.all() > 0 {
            let info = repo.commit_info(c.id)?;
            rows.push(CommitStats {
                commit: c.id.to_string(),
                subject: info.subject().to_string(),
                lines: *n,
            });
        }
    }
    let lines = |m: BTreeMap<Agent, u64>| {
        m.into_iter()
            .map(|((agent, model), lines)| AgentLines {
                agent,
                model,
                lines,
            })
            .collect()
    };
    Ok(StatsReport {
        rev: tip.to_string(),
        base: stop.map(|s| s.to_string()),
        commits: rows,
        total: tally.total,
        added: tally.added,
        agents: tally
            .agents
            .into_iter()
            .map(|((agent, model), (added, surviving))| AgentStats {
                agent,
                model,
                added,
                surviving,
            })
            .collect(),
        files: tally
            .files
            .into_iter()
            .map(|(path, (lines_, agents))| FileStats {
                path,
                lines: lines_,
                agents: lines(agents),
            })
            .collect(),
        weeks: tally
            .weeks
            .into_iter()
            .filter(|(_, (n, _))| n.all() > 0)
            .map(|(week, (added, agents))| WeekStats {
                week,
                added,
                agents: lines(agents),
            })
            .collect(),
    })
}

fn name(agent: Option<String>, model: Option<String>) -> Agent {
    (
        agent.unwrap_or_else(|| "unknown".into()),
        model.unwrap_or_else(|| "unknown".into()),
    )
}

/// Lines as blame counts them: a last line without a newline is a line.
fn line_count(data: &[u8]) -> u64 {
    let newlines = data.iter().filter(|&&b| b == b'\n').count() as u64;
    newlines + u64::from(data.last().is_some_and(|&b| b != b'\n'))
}

/// The Monday (UTC) of the week holding `seconds`, as `YYYY-MM-DD`.
fn week_of(seconds: i64) -> String {
    let days = seconds.div_euclid(86_400);
    // 1970-01-01 was a Thursday: three days after a Monday.
    let monday = days - (days + 3).rem_euclid(7);
    let (y, m, d) = clada_base::clock::civil_from_days(monday);
    format!("{y:04}-{m:02}-{d:02}")
}

/// A bar of `width` cells: human and unknown lines (`█`) on the left, AI lines (`░`) right.
fn bar(c: &Counts, width: usize) -> String {
    let all = c.all();
    let ai = match all {
        0 => 0,
        _ => ((c.ai * width as u64 + all / 2) / all) as usize,
    };
    format!("you {}{} ai", "█".repeat(width - ai), "░".repeat(ai))
}

/// The report for people: one line per commit, the total at the tip, the lines the range
/// added, then each agent and model's AI lines.
pub fn render(report: &StatsReport) -> String {
    use clada_base::term::{escape, Rule};
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
        let subject = escape(&c.subject, Rule::Name);
        out.push_str(&format!(
            "{}  {}  {subject}\n",
            &c.commit[..8],
            line(&c.lines)
        ));
    }
    out.push_str(&format!("total     {}\n", line(&report.total)));
    out.push_str(&format!("added     {}\n", line(&report.added)));
    for a in &report.agents {
        let who = format!("{}/{}", a.agent, a.model);
        let who = escape(&who, Rule::Name);
        out.push_str(&format!(
            "  {who}: {} AI lines added, {} at the tip\n",
            a.added, a.surviving
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weeks_start_on_monday() {
        assert_eq!(week_of(0), "1969-12-29");
        // 2024-02-29 (a Thursday) 12:00 UTC.
        assert_eq!(week_of(1_709_208_000), "2024-02-26");
        assert_eq!(week_of(1_709_208_000 - 4 * 86_400), "2024-02-19");
        assert_eq!(line_count(b"a\nb"), 2);
        assert_eq!(line_count(b"a\nb\n"), 2);
        assert_eq!(line_count(b""), 0);
    }
}
