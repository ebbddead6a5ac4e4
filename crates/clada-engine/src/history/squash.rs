//! squash (DESIGN §7.3): collapse runs of AI commits into one commit each.
//!
//! The selection is made on a *window*: the current branch's first-parent history from the
//! tip down to (not including) the first merge commit, or to the root, cut where published
//! history (reachable from a remote-tracking branch or a tag) begins. Nothing outside the
//! window is ever rewritten.
//!
//! In the window, commits are selected by the mode, every mode only among the commits
//! git-clada's records hold (`recorded.rs`: a human commit that copies an AI subject or its
//! trailers is never squashed). A snapshot commit (the user's uncommitted work that `--wip
//! commit` recorded before an apply) is the user's, never the AI's: no mode selects it, so it
//! is never folded into an AI commit — runs stop at it (`auto_ai`'s run ends there), and a
//! gathering squash replays it like a human commit.
//!
//! - contiguous (the default): each run of ≥ 2 adjacent selected commits becomes one commit
//!   whose tree is the run's last tree; commits above are copied with new parents only (same
//!   tree, message, author, committer), so every tree of the branch stays what it was.
//! - `--no-contiguous-only`: all selected commits become one commit at the place of the
//!   oldest of them; the commits in between are replayed on top of it with their own changes.
//!   This is allowed only when nothing needs resolving: each replayed commit's changes must
//!   apply to exactly the content they were made on, and the final tree must be identical.
//!   Otherwise the squash is refused, naming the commits and paths that conflict.
//!
//! The branch moves with compare-and-swap; `refs/clada/squash/<new tip>` records the old tip
//! (so `git clada undo` takes the squash back), as does `ORIG_HEAD`. Notes of the squashed
//! commits are merged into one note on the new commit, notes of copied commits are copied.
//! The final tree is identical by construction and checked before the branch moves, so the
//! index and the worktree are never touched — which is why a dirty worktree is no reason to
//! refuse.

use std::collections::{BTreeSet, HashMap};
use std::fmt::Write as _;

use serde::Serialize;
use serde_json::Value;

use crate::record::{trailer, CladaCommit, REPLY_NOTES_REF};
use clada_git::{
    BString, ByteSlice, CommitInfo, Expected, ObjectId, RefUpdate, Repo, TreeChange, NOTES_REF,
};

use super::common::{
    current_branch, refuse_busy, refuse_stepped_back, squash_index_ref, squash_ref,
    write_orig_head, HistoryError,
};
use super::log::sessions_of;
use super::recorded::Recorded;

mod message;
use message::*;

/// Which commits to select (the seeds' `git_squash` modes, with their parameter).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selection {
    /// The run of git-clada commits (applies, squashes) at the tip, down to the first commit
    /// that is not one (or a snapshot commit).
    AutoAi,
    /// git-clada commits whose subject starts with `AI:`.
    AiMessages,
    /// git-clada commits whose committer time is within the last N hours.
    Hours(u64),
    /// git-clada commits whose committer time is within the last N days.
    Days(u64),
    /// git-clada commits whose message contains the text.
    MsgContains(String),
    /// git-clada commits of one session (`Clada-Session` trailer: an MCP session's calls, an
    /// agent's turns); `None`: the session of the newest such commit.
    Session(Option<String>),
}

impl Selection {
    /// The mode's name as the command line spells it.
    pub fn mode(&self) -> &'static str {
        match self {
            Selection::AutoAi => "auto_ai",
            Selection::AiMessages => "ai_messages",
            Selection::Hours(_) => "hours",
            Selection::Days(_) => "days",
            Selection::MsgContains(_) => "msg_contains",
            Selection::Session(_) => "session",
        }
    }

    fn describe(&self) -> String {
        match self {
            Selection::AutoAi => "--mode auto_ai".into(),
            Selection::AiMessages => "--mode ai_messages (subject starting with `AI:`)".into(),
            Selection::Hours(h) => format!("--mode hours --hours {h}"),
            Selection::Days(d) => format!("--mode days --days {d}"),
            Selection::MsgContains(s) => format!("--mode msg_contains --msg-target {s:?}"),
            Selection::Session(Some(s)) => format!("--mode session --session {s}"),
            Selection::Session(None) => "--mode session".into(),
        }
    }
}

/// How to squash.
#[derive(Debug, Clone)]
pub struct SquashOptions {
    pub selection: Selection,
    /// Replaces the combined subject of every squashed commit.
    pub message: Option<String>,
    /// Squash each contiguous run in place (default) instead of gathering all selected
    /// commits into one.
    pub contiguous_only: bool,
    pub dry_run: bool,
    /// "Now" for `hours`/`days`, in Unix seconds.
    pub now: i64,
}

/// A commit as the report names it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CommitSummary {
    pub commit: String,
    pub subject: String,
    /// `apply`, `snapshot`, `squash` or `other`.
    pub kind: String,
}

/// One new commit made of several old ones.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SquashedGroup {
    /// The new commit (with `--dry-run`: the commit that would be written now).
    pub commit: String,
    pub subject: String,
    /// The commits it replaces, oldest first.
    pub squashed: Vec<CommitSummary>,
    /// Snapshot commits of the user's own work folded into it: always empty (a snapshot is
    /// never squashed), kept so the report keeps its shape.
    pub snapshots: Vec<String>,
}

/// A selected commit that was not squashed, and why.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LeftAlone {
    pub commit: String,
    pub subject: String,
    pub reason: String,
}

/// What squash did (or would do, with `dryRun`).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SquashReport {
    pub mode: String,
    pub branch: String,
    /// The tip before and after.
    pub from: String,
    pub to: String,
    pub groups: Vec<SquashedGroup>,
    /// Commits copied with new parents (human commits, unselected AI commits), oldest first.
    pub replayed: Vec<CommitSummary>,
    pub left_alone: Vec<LeftAlone>,
    pub dry_run: bool,
}

fn kind_name(kind: Option<CladaCommit>) -> &'static str {
    match kind {
        Some(CladaCommit::Apply) => "apply",
        Some(CladaCommit::Snapshot) => "snapshot",
        Some(CladaCommit::Squash) => "squash",
        None => "other",
    }
}

fn summary(c: &Candidate) -> CommitSummary {
    CommitSummary {
        commit: c.info.id.to_string(),
        subject: c.info.subject().to_string(),
        kind: kind_name(c.kind).into(),
    }
}

/// A commit of the window.
struct Candidate {
    info: CommitInfo,
    kind: Option<CladaCommit>,
    selected: bool,
}

/// Why the window ends where it ends.
enum WindowEnd {
    Root,
    Merge(Box<CommitInfo>),
    /// auto_ai: the first commit that is not git-clada's.
    NotClada,
    /// auto_ai: a snapshot commit (the user's work, never squashed).
    Snapshot(Box<CommitInfo>),
}

/// `git clada squash`.
pub fn squash(repo: &Repo, opts: &SquashOptions) -> Result<SquashReport, HistoryError> {
    let _lock = if opts.dry_run {
        None
    } else {
        Some(repo.lock()?)
    };
    refuse_busy(repo)?;
    refuse_stepped_back(repo)?;
    let (branch, tip) = current_branch(repo, "squash")?;
    clada_base::trace::phase("squash: checks");

    // The window, newest first.
    let (mut window, end) = read_window(repo, tip, &opts.selection)?;
    let resolved;
    let opts = match newest_session(&opts.selection, &window)? {
        Some(session) => {
            resolved = SquashOptions {
                selection: Selection::Session(Some(session)),
                ..opts.clone()
            };
            &resolved
        }
        None => opts,
    };
    select(&mut window, &opts.selection, opts.now);
    clada_base::trace::phase("squash: walk");

    // Published history is never rewritten: cut the window where it begins.
    let (mut left_alone, published_ref) = cut_published(repo, &mut window, opts.contiguous_only)?;
    clada_base::trace::phase("squash: published");

    // Oldest first from here on.
    window.reverse();
    let groups = group(&window, opts.contiguous_only, &mut left_alone);
    if groups.is_empty() {
        return Err(nothing_to_squash(
            repo,
            tip,
            &window,
            &end,
            published_ref.as_deref(),
            opts,
        )?);
    }

    // Build in memory for a dry run, so it computes exactly what a real run would write;
    // and first in memory when gathering across other commits, which may turn out to need
    // conflict resolution: a refusal then leaves not even an unreachable object behind.
    // (Runs squashed in place cannot conflict: their trees are the trees they had.)
    let memory = repo.with_object_memory();
    let tip_tree = repo.tree_of(tip)?;
    let try_first = opts.dry_run || !opts.contiguous_only;
    let build_repo = if opts.dry_run { &memory } else { repo };
    let mut built = build(
        if try_first { &memory } else { repo },
        &window,
        &groups,
        opts,
        tip,
    )?;
    if try_first && !opts.dry_run && built.conflicts.is_empty() && built.tree == tip_tree {
        built = build(repo, &window, &groups, opts, tip)?;
    }
    if !built.conflicts.is_empty() || built.tree != tip_tree {
        return Err(conflict_refusal(&memory, &window, &groups, &built)?);
    }
    clada_base::trace::phase("squash: commits");

    let report = squash_report(opts, &branch, tip, &window, &groups, &built, left_alone);
    let mut updates = merge_notes(build_repo, &window, &groups, &built, opts.dry_run)?;
    clada_base::trace::phase("squash: notes");
    if opts.dry_run {
        return Ok(report);
    }

    // The merged notes, the squash record and the branch move in one transaction: all of
    // them or, if the branch moved meanwhile, none.
    write_orig_head(repo, tip)?;
    let squashed: usize = groups.iter().map(Vec::len).sum();
    updates.push(RefUpdate {
        name: squash_ref(built.tip),
        new: tip,
        expected: Expected::Any,
        reflog: format!("clada: squash record (tip before: {tip})"),
    });
    // What was staged stays staged: undo tells it from what is staged after the squash.
    let index_tree = repo.tree_of_index(tip_tree, &repo.read_index()?)?;
    if index_tree != tip_tree {
        updates.push(RefUpdate {
            name: squash_index_ref(built.tip),
            new: index_tree,
            expected: Expected::Any,
            reflog: "clada: the index at the squash".into(),
        });
    }
    updates.push(RefUpdate {
        name: "HEAD".into(),
        new: built.tip,
        expected: Expected::Value(tip),
        reflog: format!(
            "clada: squash --mode {}: {squashed} commits into {}",
            opts.selection.mode(),
            groups.len()
        ),
    });
    // Every object written, no ref moved yet: a crash here must leave the squash undone.
    clada_base::failpoint::hit("squash:before-refs");
    repo.update_refs(&updates)?;
    clada_base::trace::phase("squash: refs");
    Ok(report)
}

/// The report of a squash that built `built` from the `groups` of `window`.
fn squash_report(
    opts: &SquashOptions,
    branch: &str,
    tip: ObjectId,
    window: &[Candidate],
    groups: &[Vec<usize>],
    built: &Built,
    left_alone: Vec<LeftAlone>,
) -> SquashReport {
    let mut report = SquashReport {
        mode: opts.selection.mode().into(),
        branch: branch.to_string(),
        from: tip.to_string(),
        to: built.tip.to_string(),
        groups: Vec::new(),
        replayed: built
            .replayed
            .iter()
            .map(|&i| summary(&window[i]))
            .collect(),
        left_alone,
        dry_run: opts.dry_run,
    };
    for (g, new) in groups.iter().zip(&built.group_commits) {
        report.groups.push(SquashedGroup {
            commit: new.0.to_string(),
            subject: new.1.clone(),
            squashed: g.iter().map(|&i| summary(&window[i])).collect(),
            snapshots: Vec::new(),
        });
    }

    report
}

/// Cuts the window (newest first) where published history begins; returns the selected
/// commits left alone for it and the ref that published them.
fn cut_published(
    repo: &Repo,
    window: &mut Vec<Candidate>,
    contiguous_only: bool,
) -> Result<(Vec<LeftAlone>, Option<String>), HistoryError> {
    let mut left_alone = Vec::new();
    let mut published_ref = None;
    if let Some(oldest) = oldest_rewritten(window, contiguous_only) {
        if repo.published_by(window[oldest].info.id)?.is_some() {
            let cut = first_published(repo, window, oldest)?;
            published_ref = repo.published_by(window[cut].info.id)?;
            for c in window[cut..].iter().filter(|c| c.selected) {
                left_alone.push(LeftAlone {
                    commit: c.info.id.to_string(),
                    subject: c.info.subject().to_string(),
                    reason: format!(
                        "already published (reachable from {})",
                        published_ref
                            .as_deref()
                            .unwrap_or("a remote-tracking branch or tag")
                    ),
                });
            }
            window.truncate(cut);
        }
    }
    Ok((left_alone, published_ref))
}

/// Reads the window from `tip`: first-parent commits down to a merge (excluded) or the root;
/// for auto_ai only the run of git-clada commits at the tip.
fn read_window(
    repo: &Repo,
    tip: ObjectId,
    selection: &Selection,
) -> Result<(Vec<Candidate>, WindowEnd), HistoryError> {
    let mut out: Vec<Candidate> = Vec::new();
    let recorded = Recorded::read(repo)?;
    let mut next = Some(tip);
    while let Some(id) = next {
        let info = repo.walk_commit_info(id)?;
        if info.parents.len() > 1 {
            return Ok((out, WindowEnd::Merge(Box::new(info))));
        }
        // Only what git-clada's records hold: a snapshot only as the parent of a recorded AI
        // commit, whose transaction made it (or of the squash that took that commit's place).
        let kind = match recorded.kind(&info)? {
            Some(CladaCommit::Snapshot)
                if !matches!(
                    out.last().and_then(|c| c.kind),
                    Some(CladaCommit::Apply | CladaCommit::Squash)
                ) =>
            {
                None
            }
            kind => kind,
        };
        if *selection == Selection::AutoAi {
            match kind {
                None => return Ok((out, WindowEnd::NotClada)),
                Some(CladaCommit::Snapshot) => {
                    return Ok((out, WindowEnd::Snapshot(Box::new(info))))
                }
                Some(_) => {}
            }
        }
        next = info.parents.first().copied();
        out.push(Candidate {
            info,
            kind,
            selected: false,
        });
    }
    Ok((out, WindowEnd::Root))
}

/// Marks the selected commits of `window` (newest first). A snapshot commit never is: it
/// holds the user's work.
fn select(window: &mut [Candidate], selection: &Selection, now: i64) {
    for c in window.iter_mut() {
        let selected = if c.kind == Some(CladaCommit::Snapshot) {
            false
        } else {
            match selection {
                Selection::AutoAi => c.kind.is_some(),
                Selection::AiMessages => c.kind.is_some() && c.info.subject().starts_with("AI:"),
                Selection::Hours(h) => {
                    c.kind.is_some()
                        && c.info.committer.seconds
                            >= now.saturating_sub((*h as i64).saturating_mul(3600))
                }
                Selection::Days(d) => {
                    c.kind.is_some()
                        && c.info.committer.seconds
                            >= now.saturating_sub((*d as i64).saturating_mul(86_400))
                }
                Selection::MsgContains(s) => {
                    c.kind.is_some() && c.info.message.contains(s.as_str())
                }
                Selection::Session(s) => {
                    c.kind.is_some() && s.as_ref().is_some_and(|s| sessions_of(&c.info).contains(s))
                }
            }
        };
        c.selected = selected;
    }
}

/// For `--mode session` without `--session`: the session of the newest commit of the window
/// (newest first) that names one (an agent's turn, a `git clada mcp` call); a refusal when
/// there is none. `None` for every other selection.
fn newest_session(
    selection: &Selection,
    window: &[Candidate],
) -> Result<Option<String>, HistoryError> {
    if *selection != Selection::Session(None) {
        return Ok(None);
    }
    window
        .iter()
        .filter(|c| c.kind.is_some())
        .find_map(|c| sessions_of(&c.info).into_iter().next())
        .map(Some)
        .ok_or_else(|| {
            HistoryError::Refused(
                "no commit on this branch (above the first merge) is an agent's turn or was made through `git clada mcp` (none has a Clada-Session trailer); nothing to squash"
                    .into(),
            )
        })
}

/// Index (newest first) of the oldest commit the squash would rewrite, if any.
fn oldest_rewritten(window: &[Candidate], contiguous: bool) -> Option<usize> {
    let mut oldest = None;
    for i in 0..window.len() {
        if !window[i].selected {
            continue;
        }
        let neighbour =
            (i > 0 && window[i - 1].selected) || (i + 1 < window.len() && window[i + 1].selected);
        if !contiguous || neighbour {
            oldest = Some(i);
        }
    }
    if !contiguous && window.iter().filter(|c| c.selected).count() < 2 {
        return None;
    }
    oldest
}

/// The newest published commit of `window` (newest first), knowing `window[oldest]` is
/// published. Published commits form a suffix of a first-parent chain (an ancestor of a
/// published commit is published), so a binary search finds the boundary.
fn first_published(
    repo: &Repo,
    window: &[Candidate],
    oldest: usize,
) -> Result<usize, HistoryError> {
    let (mut lo, mut hi) = (0usize, oldest);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if repo.published_by(window[mid].info.id)?.is_some() {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Ok(lo)
}

/// The groups of commits (indices into the oldest-first window) that become one commit each.
fn group(
    window: &[Candidate],
    contiguous: bool,
    left_alone: &mut Vec<LeftAlone>,
) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    if contiguous {
        let mut run: Vec<usize> = Vec::new();
        for i in 0..=window.len() {
            if i < window.len() && window[i].selected {
                run.push(i);
                continue;
            }
            match run.len() {
                0 => {}
                1 => {
                    let c = &window[run[0]];
                    left_alone.push(LeftAlone {
                        commit: c.info.id.to_string(),
                        subject: c.info.subject().to_string(),
                        reason: "no selected commit next to it to squash it with".into(),
                    });
                }
                _ => groups.push(run.clone()),
            }
            run.clear();
        }
    } else {
        let all: Vec<usize> = (0..window.len()).filter(|&i| window[i].selected).collect();
        if all.len() >= 2 {
            groups.push(all);
        }
    }
    groups
}

/// The explanation when there is nothing to squash (a refusal: nothing changed).
fn nothing_to_squash(
    repo: &Repo,
    tip: ObjectId,
    window: &[Candidate],
    end: &WindowEnd,
    published: Option<&str>,
    opts: &SquashOptions,
) -> Result<HistoryError, HistoryError> {
    let short = |c: &CommitInfo| format!("{} \"{}\"", Repo::short(c.id), c.subject());
    if let Some(r) = published {
        return Ok(HistoryError::Refused(format!(
            "the commits {} selects are already published (reachable from {r}); squashing them would rewrite shared history, so nothing was changed. Squash before pushing, or leave them as they are",
            opts.selection.describe()
        )));
    }
    if opts.selection == Selection::AutoAi {
        let info = repo.commit_info(tip)?;
        if window.is_empty() {
            return Ok(HistoryError::Refused(match end {
                WindowEnd::Merge(_) => format!(
                    "HEAD ({}) is a merge commit; squash never rewrites across a merge, so nothing was changed",
                    short(&info)
                ),
                _ => format!(
                    "HEAD ({}) is not a git-clada commit; --mode auto_ai squashes the run of AI commits at the tip, so there is nothing to squash (`git clada log` lists AI commits; other modes select differently)",
                    short(&info)
                ),
            }));
        }
        return Ok(HistoryError::Refused(match end {
            WindowEnd::Snapshot(s) => format!(
                "only one git-clada commit at the tip ({}) above the snapshot commit {} of your own work, which squash never folds into an AI commit; there is nothing to squash it with",
                short(&window[0].info),
                short(s)
            ),
            _ => format!(
                "only one git-clada commit at the tip ({}); there is nothing to squash it with",
                short(&window[0].info)
            ),
        }));
    }
    let selected: Vec<&Candidate> = window.iter().filter(|c| c.selected).collect();
    let below_merge = match end {
        WindowEnd::Merge(m) => format!(
            " (history below merge commit {} is never rewritten; squash never crosses a merge)",
            short(m)
        ),
        _ => String::new(),
    };
    Ok(HistoryError::Refused(match selected.len() {
        0 => format!(
            "no commit on this branch matches {}{below_merge}; nothing to squash",
            opts.selection.describe()
        ),
        1 => format!(
            "only one commit matches {} ({}){below_merge}; nothing to squash it with",
            opts.selection.describe(),
            short(&selected[0].info)
        ),
        n => format!(
            "{n} commits match {}, but no two of them are adjacent (human or snapshot commits lie between them); they were left as they are. `--no-contiguous-only` gathers them into one commit when that needs no conflict resolution",
            opts.selection.describe()
        ),
    }))
}

/// The new commits.
struct Built {
    tip: ObjectId,
    tree: ObjectId,
    /// Per group: the new commit and its subject.
    group_commits: Vec<(ObjectId, String)>,
    /// Window indices of the copied commits, oldest first, and their copies.
    replayed: Vec<usize>,
    copies: Vec<(ObjectId, ObjectId)>,
    /// Replayed commits whose changes would not apply to the content they were made on:
    /// (window index, path).
    conflicts: Vec<(usize, BString)>,
}

/// Writes the squashed commits and the copies of the commits above them.
fn build(
    repo: &Repo,
    window: &[Candidate],
    groups: &[Vec<usize>],
    opts: &SquashOptions,
    old_tip: ObjectId,
) -> Result<Built, HistoryError> {
    let identity = repo.identity()?;
    let mut group_of: HashMap<usize, usize> = HashMap::new();
    for (g, members) in groups.iter().enumerate() {
        for &i in members {
            group_of.insert(i, g);
        }
    }
    let start = groups
        .iter()
        .filter_map(|g| g.first())
        .min()
        .copied()
        .unwrap_or(0);
    let orig_parent_tree = |i: usize| orig_parent(repo, window, i);
    let mut parent: Option<ObjectId> = window[start].info.parents.first().copied();
    let mut parent_tree = orig_parent_tree(start)?;
    let mut built = Built {
        tip: old_tip,
        tree: parent_tree,
        group_commits: vec![(old_tip, String::new()); groups.len()],
        replayed: Vec::new(),
        copies: Vec::new(),
        conflicts: Vec::new(),
    };
    for i in start..window.len() {
        let c = &window[i];
        if let Some(&g) = group_of.get(&i) {
            if groups[g].first() != Some(&i) {
                continue; // folded into its group's commit
            }
            let members = &groups[g];
            let adjacent = members.windows(2).all(|w| w[1] == w[0] + 1);
            let tree = if adjacent && parent_tree == orig_parent_tree(i)? {
                // A run squashed in place ends exactly where its last commit ended.
                window[members[members.len() - 1]].info.tree
            } else {
                let mut t = parent_tree;
                for &m in members {
                    let changes: Vec<TreeChange> = repo
                        .diff_trees(orig_parent_tree(m)?, window[m].info.tree)?
                        .into_iter()
                        .map(|d| TreeChange {
                            path: d.path,
                            entry: d.new,
                        })
                        .collect();
                    t = repo.edit_tree(t, &changes)?;
                }
                t
            };
            let (subject, message) = squash_message(window, members, opts, old_tip)?;
            let author = &window[members[0]].info.author;
            let parents: Vec<ObjectId> = parent.into_iter().collect();
            let id = repo.write_branch_commit(tree, &parents, &message, author, &identity.1)?;
            built.group_commits[g] = (id, subject);
            parent = Some(id);
            parent_tree = tree;
            continue;
        }
        // Copied with new parents; its own changes re-applied if what lies below changed.
        let old_pt = orig_parent_tree(i)?;
        let tree = if parent_tree == old_pt {
            c.info.tree
        } else {
            let diff = repo.diff_trees(old_pt, c.info.tree)?;
            let mut changes = Vec::with_capacity(diff.len());
            for d in diff {
                if repo.tree_entry(parent_tree, d.path.as_bstr())? != d.old {
                    built.conflicts.push((i, d.path.clone()));
                }
                changes.push(TreeChange {
                    path: d.path,
                    entry: d.new,
                });
            }
            repo.edit_tree(parent_tree, &changes)?
        };
        let parents: Vec<ObjectId> = parent.into_iter().collect();
        let id = repo.replay_commit(c.info.id, tree, &parents)?;
        built.replayed.push(i);
        built.copies.push((c.info.id, id));
        parent = Some(id);
        parent_tree = tree;
    }
    built.tip = parent.unwrap_or(old_tip);
    built.tree = parent_tree;
    Ok(built)
}

/// The notes of each squashed group: its report note lists the squashed commits and its reply
/// note names where each reply is. The reports and replies themselves stay where they are, as
/// the notes of the squashed commits (the squash record keeps those commits reachable, and
/// `git clada show` reads them from there): copying them made a squash of 1,000 commits read
/// 2,000 notes and write a megabyte note. Only nested squashes' notes are read, to flatten them.
/// The notes commits are written, and their refs' moves returned, to be made in the same
/// transaction as the branch's.
fn merge_notes(
    repo: &Repo,
    window: &[Candidate],
    groups: &[Vec<usize>],
    built: &Built,
    dry_run: bool,
) -> Result<Vec<RefUpdate>, HistoryError> {
    let mut reports = repo.note_book(NOTES_REF)?;
    let mut replies = repo.note_book(REPLY_NOTES_REF)?;
    for (members, (new_commit, _)) in groups.iter().zip(&built.group_commits) {
        let mut note = MergedNote::default();
        let mut reply_text = String::new();
        for &i in members {
            let c = &window[i];
            if c.kind == Some(CladaCommit::Squash) {
                let report = reports.get(c.info.id)?;
                if !note.flatten(report.as_deref()) {
                    note.entry(c);
                }
                if let Some(r) = replies.get(c.info.id)? {
                    reply_text.push_str(&String::from_utf8_lossy(&r));
                    if !reply_text.ends_with('\n') {
                        reply_text.push('\n');
                    }
                }
                continue;
            }
            note.entry(c);
            if c.kind == Some(CladaCommit::Apply) {
                let _ = writeln!(
                    reply_text,
                    "=== git-clada reply of {} \"{}\": git notes --ref=clada-reply show {} ===",
                    Repo::short(c.info.id),
                    c.info.subject(),
                    c.info.id
                );
            }
        }
        reports.stage(*new_commit, &note.finish())?;
        if !reply_text.is_empty() {
            replies.stage(*new_commit, reply_text.as_bytes())?;
        }
    }
    for (old, new) in &built.copies {
        if let Some(n) = reports.get(*old)? {
            reports.stage(*new, &n)?;
        }
        if let Some(n) = replies.get(*old)? {
            replies.stage(*new, &n)?;
        }
    }
    if dry_run {
        return Ok(Vec::new());
    }
    let message = "Notes merged by 'git clada squash'";
    let ai = squash_ai_logs(repo, window, groups, built)?;
    Ok([reports.write(message)?, replies.write(message)?, ai]
        .into_iter()
        .flatten()
        .collect())
}

/// The authorship logs (`refs/notes/ai`) of the squashed commits and the copies, written as
/// one notes commit whose ref move is returned.
fn squash_ai_logs(
    repo: &Repo,
    window: &[Candidate],
    groups: &[Vec<usize>],
    built: &Built,
) -> Result<Option<RefUpdate>, HistoryError> {
    use crate::record::provenance;
    let mut book = repo.note_book(provenance::AI_NOTES_REF)?;
    let mut logs = Vec::new();
    for (members, (new_commit, _)) in groups.iter().zip(&built.group_commits) {
        let info = repo.commit_info(*new_commit)?;
        let base_tree = match info.parents.first() {
            Some(p) => repo.tree_of(*p)?,
            None => repo.empty_tree(),
        };
        let trees: Vec<(ObjectId, ObjectId)> = members
            .iter()
            .map(|&i| (window[i].info.id, window[i].info.tree))
            .collect();
        let log =
            provenance::squash_log(repo, &mut book, base_tree, &trees, (*new_commit, info.tree))?;
        logs.extend(log.map(|l| (*new_commit, l)));
    }
    for (&i, (old, new)) in built.replayed.iter().zip(&built.copies) {
        if let Some(log) = provenance::log_in(&mut book, *old)? {
            let new_tree = repo.tree_of(*new)?;
            let log = provenance::carry_log(repo, &log, window[i].info.tree, (*new, new_tree))?;
            logs.push((*new, log));
        }
    }
    for (commit, log) in logs {
        if !log.is_empty() && !provenance::has_foreign_log(&mut book, commit)? {
            book.stage(commit, log.serialize().as_bytes())?;
        }
    }
    Ok(book.write("Authorship logs of 'git clada squash'")?)
}

/// The merged report note of one squashed group, `{"squashed": [{commit, subject, kind}, …]}`:
/// each entry names a squashed commit, whose own notes hold its reply and report. Entries of
/// notes written before this format also hold `reply` and `report` inline; flattening a nested
/// squash copies its entries as they are, so both kinds can meet in one note.
#[derive(Default)]
struct MergedNote {
    text: Vec<u8>,
    entries: usize,
}

impl MergedNote {
    fn push(&mut self, entry: &[u8]) {
        self.text.extend_from_slice(if self.entries == 0 {
            b"\n    "
        } else {
            b",\n    "
        });
        self.text.extend_from_slice(entry);
        self.entries += 1;
    }

    /// The entries of a squash's note (nested squashes come out flat); false when `report`
    /// is not such a note.
    fn flatten(&mut self, report: Option<&[u8]>) -> bool {
        let Some(bytes) = report else { return false };
        let Ok(value) = serde_json::from_slice::<Value>(bytes) else {
            return false;
        };
        let Some(nested) = value.get("squashed").and_then(Value::as_array) else {
            return false;
        };
        for e in nested {
            if let Ok(text) = serde_json::to_vec(e) {
                self.push(&text);
            }
        }
        true
    }

    /// The entry naming commit `c`.
    fn entry(&mut self, c: &Candidate) {
        // The keys in this order, as the notes have always had them.
        #[derive(Serialize)]
        struct Entry<'a> {
            commit: String,
            subject: &'a str,
            kind: &'a str,
        }
        let entry = Entry {
            commit: c.info.id.to_string(),
            subject: c.info.subject(),
            kind: kind_name(c.kind),
        };
        if let Ok(text) = serde_json::to_vec(&entry) {
            self.push(&text);
        }
    }

    fn finish(mut self) -> Vec<u8> {
        let mut out = b"{\n  \"squashed\": [".to_vec();
        out.append(&mut self.text);
        out.extend_from_slice(if self.entries == 0 {
            b"]\n}\n"
        } else {
            b"\n  ]\n}\n"
        });
        out
    }
}

/// The refusal of a `--no-contiguous-only` squash that would need conflict resolution.
fn conflict_refusal(
    repo: &Repo,
    window: &[Candidate],
    groups: &[Vec<usize>],
    built: &Built,
) -> Result<HistoryError, HistoryError> {
    let mut lines = Vec::new();
    for (i, path) in &built.conflicts {
        let h = &window[*i];
        // The selected commits above it that change the same path (or one above/below it).
        let mut movers = Vec::new();
        for g in groups {
            for &m in g.iter().filter(|&&m| m > *i) {
                let touched = repo
                    .diff_trees(orig_parent(repo, window, m)?, window[m].info.tree)?
                    .into_iter()
                    .any(|d| paths_overlap(d.path.as_bstr(), path.as_bstr()));
                if touched {
                    movers.push(Repo::short(window[m].info.id));
                }
            }
        }
        lines.push(format!(
            "{} \"{}\" changes {path}{}",
            Repo::short(h.info.id),
            h.info.subject(),
            if movers.is_empty() {
                String::new()
            } else {
                format!(
                    ", which {} (moved below it) also change(s)",
                    movers.join(", ")
                )
            }
        ));
    }
    let mut seen = BTreeSet::new();
    lines.retain(|l| seen.insert(l.clone()));
    let detail = if lines.is_empty() {
        "the result would not have the same final tree".to_string()
    } else {
        lines.join("; ")
    };
    Ok(HistoryError::Refused(format!(
        "gathering the selected commits across the commits between them would need conflict resolution: {detail}. Nothing was changed; squash without --no-contiguous-only (each run in place) instead"
    )))
}

fn paths_overlap(a: &clada_git::BStr, b: &clada_git::BStr) -> bool {
    let under = |x: &clada_git::BStr, y: &clada_git::BStr| {
        x.len() > y.len() && x.starts_with(y.as_bytes()) && x[y.len()] == b'/'
    };
    a == b || under(a, b) || under(b, a)
}

#[cfg(test)]
mod tests;
