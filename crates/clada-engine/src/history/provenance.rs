//! `git clada provenance backfill`: authorship logs (`refs/notes/ai`) for the AI commits made
//! before git-clada wrote them. Each recorded AI commit of the range without a log gets the log
//! an apply writes today: the lines of its files that differ from its parent's, under the
//! session of its `Clada-Session` (else its reply's blob id), agent `git-clada`, model
//! `unknown`. Commits with any log (git-clada's or another tool's) are left as they are.

use serde::Serialize;

use crate::record::provenance::{self, Agent};
use crate::record::{trailer, CladaCommit};
use clada_git::{ObjectId, Repo};

use super::common::HistoryError;
use super::recorded::Recorded;

/// How far back a range without a start is walked.
const WALK_LIMIT: usize = 100_000;

/// What a backfill did.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BackfillReport {
    /// The commits that got a log, oldest first.
    pub written: Vec<String>,
    /// AI commits of the range that already had a log.
    pub had_log: usize,
    /// AI commits of the range with nothing to attest (no line changed).
    pub empty: usize,
    pub dry_run: bool,
}

/// Writes the missing logs of the AI commits in `range` (`A..B` or `B`; the first-parent
/// history of B down to A, or to the root), HEAD when `None`.
pub fn backfill(
    repo: &Repo,
    range: Option<&str>,
    dry_run: bool,
) -> Result<BackfillReport, HistoryError> {
    let range = range.unwrap_or("HEAD");
    let (stop, tip) = match range.split_once("..") {
        Some((a, b)) => (
            Some(repo.resolve_commit(if a.is_empty() { "HEAD" } else { a })?),
            repo.resolve_commit(if b.is_empty() { "HEAD" } else { b })?,
        ),
        None => (None, repo.resolve_commit(range)?),
    };
    let recorded = Recorded::read(repo)?;
    let mut book = repo.note_book(provenance::AI_NOTES_REF)?;
    let mut report = BackfillReport {
        written: Vec::new(),
        had_log: 0,
        empty: 0,
        dry_run,
    };
    let mut chain = repo.first_parent_chain(tip, WALK_LIMIT)?;
    if let Some(stop) = stop {
        if let Some(end) = chain.iter().position(|c| c.id == stop) {
            chain.truncate(end);
        }
    }
    chain.reverse();
    let agent = Agent::default();
    for info in &chain {
        if recorded.kind(info)? != Some(CladaCommit::Apply) {
            continue;
        }
        if book.get(info.id)?.is_some() {
            report.had_log += 1;
            continue;
        }
        let reply = info
            .trailer(trailer::REPLY)
            .and_then(|r| ObjectId::from_hex(r.trim().as_bytes()).ok())
            .unwrap_or_else(|| repo.blob_id(b""));
        let session_trailer = info.trailer(trailer::SESSION);
        let human = format!("{} <{}>", info.committer.name, info.committer.email);
        let session = agent.session(session_trailer.as_deref(), reply, &human);
        let parent_tree = match info.parents.first() {
            Some(p) => repo.tree_of(*p)?,
            None => repo.empty_tree(),
        };
        let log =
            provenance::commit_log(repo, info.id, parent_tree, info.tree, &session, &Vec::new())?;
        if log.is_empty() {
            report.empty += 1;
            continue;
        }
        book.stage(info.id, log.serialize().as_bytes())?;
        report.written.push(info.id.to_string());
    }
    if !dry_run {
        book.commit("clada: authorship logs backfilled")?;
    }
    Ok(report)
}

/// The report for people.
pub fn render(report: &BackfillReport) -> String {
    let verb = if report.dry_run {
        "would write"
    } else {
        "wrote"
    };
    let mut out = format!(
        "{verb} {} authorship log(s) in refs/notes/ai",
        report.written.len()
    );
    if report.had_log > 0 {
        out.push_str(&format!(
            "; {} AI commit(s) already had one",
            report.had_log
        ));
    }
    if report.empty > 0 {
        out.push_str(&format!("; {} changed no line", report.empty));
    }
    out.push('\n');
    for c in &report.written {
        out.push_str(&format!("  {}\n", &c[..c.len().min(12)]));
    }
    out
}
