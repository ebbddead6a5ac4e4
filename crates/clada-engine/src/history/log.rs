//! The read-only views of the history commands: `status` (where you are: branch, step-back
//! position, interrupted work, what undo would take back), `log` (the git-clada commits of
//! the branch's first-parent history) and `show` (one commit's stored reply and result
//! report). Nothing here changes the repository, not even a lock file.

use serde::Serialize;
use serde_json::Value;

use crate::action::ExecutionResult;
use crate::record::journal::Journal;
use crate::record::{classify, restore, trailer, CladaCommit, REPLY_NOTES_REF};
use clada_git::{CommitInfo, Head, ObjectId, Repo, NOTES_REF};

use super::step::{self, StepState};
use super::undo::{self, UndoReport};
use super::HistoryError;

/// `2 hours ago`, `3 days ago`, … (git's approximations).
pub fn age(now: i64, then: i64) -> String {
    let d = now - then;
    if d < 0 {
        return "in the future".into();
    }
    let plural = |n: i64, unit: &str| {
        if n == 1 {
            format!("1 {unit} ago")
        } else {
            format!("{n} {unit}s ago")
        }
    };
    match d {
        0..=89 => plural(d, "second"),
        90..=5399 => plural((d + 30) / 60, "minute"),
        5400..=129_599 => plural((d + 1800) / 3600, "hour"),
        129_600..=1_209_599 => plural((d + 43_200) / 86_400, "day"),
        1_209_600..=5_183_999 => plural((d + 302_400) / 604_800, "week"),
        5_184_000..=31_535_999 => plural((d + 1_296_000) / 2_592_000, "month"),
        _ => plural(d / 31_536_000, "year"),
    }
}

/// How reports name a git-clada commit's kind: an apply of AI changes an agent made with its
/// own tools (`Clada-Agent`) is a `turn`.
fn kind_name(kind: CladaCommit, info: &CommitInfo) -> &'static str {
    match kind {
        CladaCommit::Apply if crate::record::is_turn(info) => "turn",
        CladaCommit::Apply => "apply",
        CladaCommit::Snapshot => "snapshot",
        CladaCommit::Squash => "squash",
    }
}

/// One git-clada commit in `log`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LogEntry {
    pub commit: String,
    /// `apply`, `turn` (an agent's turn), `snapshot` or `squash`.
    pub kind: String,
    pub subject: String,
    pub author: String,
    /// Committer time, Unix seconds.
    pub date: i64,
    pub age: String,
    /// Block ids in `Clada-Blocks` / `Clada-Failed` / `Clada-Waiting` (⏸, only the user can
    /// let them run).
    pub blocks_ok: usize,
    pub blocks_failed: usize,
    #[serde(skip_serializing_if = "is_zero")]
    pub blocks_waiting: usize,
    /// Paths the reply changed whose change stayed out of the commit, in the worktree,
    /// because it overlapped the user's uncommitted change (`Clada-Uncommitted`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub uncommitted: Vec<String>,
    /// For a squash: how many commits it replaced.
    pub squashed: Option<usize>,
    /// HEAD is here (while stepped back, the log starts at the tip).
    pub current: bool,
    /// The MCP sessions (`Clada-Session`) whose tool calls made it: one for an apply made
    /// through `git clada mcp`, those of its commits for a squash; left out when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sessions: Vec<String>,
    /// The repository's hooks did not run on it (`Clada-Hooks: skipped`: `--exec deny`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub hooks_skipped: bool,
    /// For an agent's turn (or a squash of turns): the agent (`Clada-Agent`) and how many
    /// tool calls changed files (`Clada-Tool-Calls`, summed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_calls: Option<usize>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The `Clada-Tool-Calls` of a commit, summed (a squash of turns has one per turn).
pub fn tool_calls_of(info: &CommitInfo) -> Option<usize> {
    let counts: Vec<usize> = info
        .trailers()
        .into_iter()
        .filter(|(k, _)| k.eq_ignore_ascii_case(trailer::TOOL_CALLS))
        .filter_map(|(_, v)| v.trim().parse().ok())
        .collect();
    (!counts.is_empty()).then(|| counts.iter().sum())
}

/// The `Clada-Session` values of a commit, each once, in order.
pub fn sessions_of(info: &CommitInfo) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (k, v) in info.trailers() {
        if k.eq_ignore_ascii_case(trailer::SESSION) && !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

/// What `log` lists.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LogReport {
    /// The branch (short name), or `HEAD` when detached.
    pub branch: String,
    pub entries: Vec<LogEntry>,
}

fn entry(info: &CommitInfo, kind: CladaCommit, now: i64, head: Option<ObjectId>) -> LogEntry {
    let count = |name: &str| {
        info.trailer(name)
            .map(|v| v.split_whitespace().count())
            .unwrap_or(0)
    };
    let squashed = (kind == CladaCommit::Squash)
        .then(|| {
            info.message.lines().find_map(|l| {
                l.strip_prefix("Squashed ")?
                    .split_whitespace()
                    .next()?
                    .parse()
                    .ok()
            })
        })
        .flatten();
    LogEntry {
        commit: info.id.to_string(),
        kind: kind_name(kind, info).into(),
        subject: info.subject().to_string(),
        author: format!("{} <{}>", info.author.name, info.author.email),
        date: info.committer.seconds,
        age: age(now, info.committer.seconds),
        blocks_ok: count(trailer::BLOCKS),
        blocks_failed: count(trailer::FAILED),
        blocks_waiting: count(trailer::WAITING),
        uncommitted: info
            .message
            .lines()
            .filter_map(|l| l.strip_prefix(trailer::UNCOMMITTED)?.strip_prefix(": "))
            .map(str::to_string)
            .collect(),
        squashed,
        current: head == Some(info.id),
        sessions: sessions_of(info),
        hooks_skipped: info
            .trailer(trailer::HOOKS)
            .is_some_and(|v| v.trim() == "skipped"),
        agent: info.trailer(trailer::AGENT).map(|a| a.trim().to_string()),
        tool_calls: tool_calls_of(info),
    }
}

/// `git clada log`: the git-clada commits of the current branch's first-parent history,
/// newest first, at most `max`. While stepped back it lists the branch from its tip and
/// marks where HEAD is.
pub fn log(repo: &Repo, max: Option<usize>, now: i64) -> Result<LogReport, HistoryError> {
    let head = repo.head()?;
    let state = step::read_state(repo).ok().flatten();
    let (branch, start) = match (&state, &head) {
        (Some(s), _) => (short_branch(&s.branch), Some(s.tip)),
        (None, h) => (h.short_name().to_string(), h.commit()),
    };
    let mut entries = Vec::new();
    let limit = max.unwrap_or(usize::MAX);
    let mut next = start;
    while let Some(id) = next {
        if entries.len() >= limit {
            break;
        }
        let info = repo.walk_commit_info(id)?;
        if let Some(kind) = classify(&info) {
            entries.push(entry(&info, kind, now, head.commit()));
        }
        next = info.parents.first().copied();
    }
    Ok(LogReport { branch, entries })
}

fn short_branch(full: &str) -> String {
    full.strip_prefix("refs/heads/").unwrap_or(full).to_string()
}

/// One reply and its result report, as `show` prints them.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ShownReply {
    /// The commit the reply was applied in (for a squash: the original commit).
    pub commit: String,
    pub subject: String,
    pub reply: Option<String>,
    /// The stored JSON result report (the `ExecutionResult`), as stored.
    pub report: Option<Value>,
}

/// One agent's turn, as `show` lists it: the agent, its session and model, and each tool call
/// that changed files with the paths it changed.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ShownTurn {
    /// The turn's commit (for a squash: the original commit).
    pub commit: String,
    pub subject: String,
    pub agent: String,
    pub session: String,
    pub model: Option<String>,
    /// `None` when the turn's record is not in this repository (the trailers are all there
    /// is).
    pub calls: Option<Vec<crate::record::agent_turn::Call>>,
}

/// What `show` prints.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ShowReport {
    pub commit: String,
    /// `apply`, `turn`, `snapshot` or `squash`.
    pub kind: String,
    pub subject: String,
    pub author: String,
    pub date: i64,
    /// One for an apply, one per squashed apply for a squash, none for a snapshot or a turn.
    pub replies: Vec<ShownReply>,
    /// One for an agent's turn, one per squashed turn for a squash.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub turns: Vec<ShownTurn>,
    /// For a snapshot: the paths of the user's work it recorded.
    pub snapshot_paths: Vec<String>,
}

/// The turn a commit holds, from its record (the record of the pending AI changes it took),
/// else from its trailers alone; `None` when it is no agent's turn.
fn shown_turn(repo: &Repo, info: &CommitInfo) -> Result<Option<ShownTurn>, HistoryError> {
    let Some(agent) = info.trailer(trailer::AGENT) else {
        return Ok(None);
    };
    let turn = match crate::record::apply::read_record(repo, info.id)?
        .and_then(|j| j.took)
        .and_then(|t| ObjectId::from_hex(t.as_bytes()).ok())
    {
        Some(tree) => crate::record::apply::record_journal(repo, tree)?.and_then(|j| j.turn),
        None => None,
    };
    Ok(Some(ShownTurn {
        commit: info.id.to_string(),
        subject: info.subject().to_string(),
        agent: agent.trim().to_string(),
        session: info.trailer(trailer::SESSION).unwrap_or_default(),
        model: info.trailer(trailer::MODEL),
        calls: turn.map(|t| t.calls),
    }))
}

impl ShownReply {
    /// The stored report as an `ExecutionResult`, when it is one.
    pub fn result(&self) -> Option<ExecutionResult> {
        self.report
            .as_ref()
            .and_then(|r| serde_json::from_value(r.clone()).ok())
    }
}

/// `git clada show [REV]`: the reply a git-clada commit was made from and its results.
/// Refuses (nothing to show) for a commit git-clada did not make.
pub fn show(repo: &Repo, rev: &str) -> Result<ShowReport, HistoryError> {
    // Logs a fetch brought in count as soon as they are read.
    crate::record::shared_logs::merge_on_read(repo);
    // A revision that does not resolve is a usage error (exit 2), not a safety refusal.
    let id = repo.resolve_commit(rev)?;
    let info = repo.commit_info(id)?;
    let Some(kind) = classify(&info) else {
        return Err(HistoryError::Refused(format!(
            "{} \"{}\" is not a git-clada commit (it has no Clada-* trailers), so there is no stored reply to show; `git clada log` lists git-clada commits",
            Repo::short(id),
            info.subject()
        )));
    };
    let mut report = ShowReport {
        commit: id.to_string(),
        kind: kind_name(kind, &info).into(),
        subject: info.subject().to_string(),
        author: format!("{} <{}>", info.author.name, info.author.email),
        date: info.committer.seconds,
        replies: Vec::new(),
        turns: Vec::new(),
        snapshot_paths: Vec::new(),
    };
    let note: Option<Value> = repo
        .note_at(NOTES_REF, id)?
        .and_then(|b| serde_json::from_slice(&b).ok());
    match kind {
        CladaCommit::Snapshot => {
            let before = match info.parents.first() {
                Some(p) => repo.tree_of(*p)?,
                None => repo.empty_tree(),
            };
            report.snapshot_paths = repo
                .diff_trees(before, info.tree)?
                .into_iter()
                .map(|d| d.path.to_string())
                .collect();
        }
        CladaCommit::Apply if crate::record::is_turn(&info) => {
            report.turns.extend(shown_turn(repo, &info)?);
        }
        CladaCommit::Apply => {
            let reply = match repo.note_at(REPLY_NOTES_REF, id)? {
                Some(b) => Some(String::from_utf8_lossy(&b).into_owned()),
                None => reply_blob(repo, &info),
            };
            report.replies.push(ShownReply {
                commit: id.to_string(),
                subject: info.subject().to_string(),
                reply,
                report: note,
            });
        }
        CladaCommit::Squash => {
            let entries = note
                .as_ref()
                .and_then(|n| n.get("squashed"))
                .and_then(Value::as_array);
            match entries {
                Some(entries) => {
                    for e in entries {
                        if e.get("kind").and_then(Value::as_str) == Some("snapshot") {
                            continue;
                        }
                        match squashed_turn(repo, e)? {
                            Some(turn) => report.turns.push(turn),
                            None => report.replies.push(squashed_reply(repo, e)?),
                        }
                    }
                }
                // No merged note (made elsewhere, notes not fetched): the reply blobs the
                // trailers name are all there is.
                None => {
                    for (k, v) in info.trailers() {
                        if !k.eq_ignore_ascii_case(trailer::REPLY) {
                            continue;
                        }
                        let reply = ObjectId::from_hex(v.as_bytes())
                            .ok()
                            .and_then(|b| repo.read_blob(b).ok())
                            .map(|b| String::from_utf8_lossy(&b).into_owned());
                        report.replies.push(ShownReply {
                            commit: id.to_string(),
                            subject: info.subject().to_string(),
                            reply,
                            report: None,
                        });
                    }
                }
            }
        }
    }
    Ok(report)
}

/// One entry of a squash's note when the squashed commit is an agent's turn (still in this
/// repository).
fn squashed_turn(repo: &Repo, e: &Value) -> Result<Option<ShownTurn>, HistoryError> {
    let Some(id) = e
        .get("commit")
        .and_then(Value::as_str)
        .and_then(|c| ObjectId::from_hex(c.as_bytes()).ok())
    else {
        return Ok(None);
    };
    match repo.commit_info(id) {
        Ok(info) => shown_turn(repo, &info),
        Err(_) => Ok(None),
    }
}

/// One entry of a squash's note: a squashed commit, whose own notes hold its reply and report
/// (notes written before squashes referred to them hold both inline).
fn squashed_reply(repo: &Repo, e: &Value) -> Result<ShownReply, HistoryError> {
    let text = |k: &str| e.get(k).and_then(Value::as_str).map(String::from);
    let commit = text("commit").unwrap_or_default();
    let inline = e.get("reply").is_some() || e.get("report").is_some();
    let (reply, report) = match (inline, ObjectId::from_hex(commit.as_bytes())) {
        (false, Ok(id)) => (
            repo.note_at(REPLY_NOTES_REF, id)?
                .map(|b| String::from_utf8_lossy(&b).into_owned()),
            repo.note_at(NOTES_REF, id)?
                .and_then(|b| serde_json::from_slice(&b).ok()),
        ),
        _ => (
            text("reply"),
            e.get("report").filter(|r| !r.is_null()).cloned(),
        ),
    };
    Ok(ShownReply {
        subject: text("subject").unwrap_or_default(),
        commit,
        reply,
        report,
    })
}

/// The reply blob named by the `Clada-Reply` trailer, if it is still in the repository.
fn reply_blob(repo: &Repo, info: &CommitInfo) -> Option<String> {
    let hex = info.trailer(trailer::REPLY)?;
    let id = ObjectId::from_hex(hex.as_bytes()).ok()?;
    let data = repo.read_blob(id).ok()?;
    Some(String::from_utf8_lossy(&data).into_owned())
}

/// Where a step-back stands.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SteppedBack {
    pub branch: String,
    pub tip: String,
    /// Where HEAD is.
    pub position: String,
    pub subject: String,
    /// First-parent commits between HEAD and the tip.
    pub behind: usize,
    /// How far back step-back can go from the tip (to the root or a merge commit); at least
    /// this many when `totalIsLowerBound`.
    pub total: usize,
    pub total_is_lower_bound: bool,
    /// The ref holding the parked uncommitted work, if any.
    pub stash: Option<String>,
}

/// What `status` reports.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusReport {
    /// The branch (short name); `None` when detached or unborn without a name.
    pub branch: Option<String>,
    pub head: Option<String>,
    pub subject: Option<String>,
    pub detached: bool,
    pub stepped_back: Option<SteppedBack>,
    /// A git operation in progress (merge, rebase, …), described.
    pub in_progress: Option<String>,
    /// An interrupted git-clada operation, described with what to do.
    pub interrupted: Option<String>,
    /// What `git clada undo` would take back now …
    pub undo: Option<UndoReport>,
    /// … or why it would refuse.
    pub undo_refused: Option<String>,
    /// What `git clada redo` would re-apply, when an undo can be redone.
    pub redo: Option<UndoReport>,
    /// A cache-tree in the index that disagrees with its entries (`repair-index` drops it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index_problem: Option<String>,
    /// Files a git hook calls that a reply changed and the user has neither committed nor
    /// marked reviewed (`record::called`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hook_called: Vec<crate::record::called::Mark>,
}

/// How far `status` walks to count the commits step-back could go through.
const STATUS_WALK_LIMIT: usize = 10_000;

/// `git clada status`.
pub fn status(repo: &Repo) -> Result<StatusReport, HistoryError> {
    let head = repo.head()?;
    let head_commit = head.commit();
    let subject = match head_commit {
        Some(c) => Some(repo.commit_info(c)?.subject().to_string()),
        None => None,
    };
    let mut report = StatusReport {
        branch: head.branch().map(short_branch),
        head: head_commit.map(|c| c.to_string()),
        subject,
        detached: matches!(head, Head::Detached { .. }),
        stepped_back: None,
        in_progress: repo.in_progress().map(|p| p.describe().to_string()),
        interrupted: None,
        undo: None,
        undo_refused: None,
        redo: None,
        index_problem: repo.read_index()?.cache_tree_problem(),
        hook_called: crate::record::called::outstanding(repo)?,
    };
    if let Some(j) = Journal::read(repo)? {
        report.interrupted = Some(format!(
            "an apply of {} was interrupted (pid {}); `git clada undo` rolls it back",
            j.source, j.pid
        ));
    } else if let Some(plan) = restore::pending(repo)? {
        report.interrupted = Some(format!(
            "{} was interrupted; `git clada undo` finishes it",
            plan.reason
        ));
    } else if repo.stale_locks_pending() {
        report.interrupted = Some(
            "a git-clada was killed while holding git's lock files (git commands may fail on them); `git clada undo` removes them and changes nothing else".into(),
        );
    }
    match step::read_state(repo) {
        Ok(Some(state)) => report.stepped_back = Some(stepped_back(repo, &state, head_commit)?),
        Ok(None) => {}
        Err(HistoryError::Refused(msg)) => report.interrupted = Some(msg),
        Err(e) => return Err(e),
    }
    match undo::undo(repo, true) {
        Ok(r) => report.undo = Some(r),
        Err(HistoryError::Refused(msg)) => report.undo_refused = Some(msg),
        Err(e) => return Err(e),
    }
    if report.interrupted.is_none() {
        report.redo = undo::redo(repo, true).ok();
    }
    Ok(report)
}

fn stepped_back(
    repo: &Repo,
    state: &StepState,
    head: Option<ObjectId>,
) -> Result<SteppedBack, HistoryError> {
    let position = head.unwrap_or(state.position);
    let mut behind = None;
    let mut total = 0usize;
    let mut lower_bound = false;
    let mut next = Some(state.tip);
    let mut subject = String::new();
    while let Some(id) = next {
        let info = repo.commit_info(id)?;
        if id == position {
            behind = Some(total);
            subject = info.subject().to_string();
        }
        next = match info.parents.as_slice() {
            [p] => Some(*p),
            _ => None,
        };
        if next.is_none() {
            break;
        }
        if total >= STATUS_WALK_LIMIT && behind.is_some() {
            lower_bound = true;
            break;
        }
        total += 1;
    }
    Ok(SteppedBack {
        branch: short_branch(&state.branch),
        tip: state.tip.to_string(),
        position: position.to_string(),
        subject,
        behind: behind.unwrap_or(0),
        total,
        total_is_lower_bound: lower_bound,
        stash: state.stash.map(|_| step::stash_ref(state.tip)),
    })
}

#[cfg(test)]
mod tests {
    use super::age;

    #[test]
    fn ages_read_like_git() {
        assert_eq!(age(1000, 1000), "0 seconds ago");
        assert_eq!(age(1000, 999), "1 second ago");
        assert_eq!(age(10_000, 10_000 - 120), "2 minutes ago");
        assert_eq!(age(100_000, 100_000 - 2 * 3600), "2 hours ago");
        assert_eq!(age(1_000_000, 1_000_000 - 3 * 86_400), "3 days ago");
        assert_eq!(age(10_000_000, 10_000_000 - 3 * 604_800), "3 weeks ago");
        assert_eq!(
            age(100_000_000, 100_000_000 - 4 * 2_592_000),
            "4 months ago"
        );
        assert_eq!(
            age(1_000_000_000, 1_000_000_000 - 2 * 31_536_000),
            "2 years ago"
        );
        assert_eq!(age(0, 10), "in the future");
    }
}
