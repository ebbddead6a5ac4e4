//! Authorship logs (`authorship/3.0.0`, see `crate::authorship`) as notes under
//! `refs/notes/ai`: which session a commit's log names, the log of an AI commit computed from
//! its parent's tree and its own, and the note written — never over a log git-clada did not
//! write (the standard allows one log per commit).

use crate::authorship::{carry, ids, AgentId, LineSet, Log, Metadata, Session};
use clada_git::{BString, EntryKind, ObjectId, RefUpdate, Repo, RepoError};

/// The notes ref of the Git AI Standard.
pub const AI_NOTES_REF: &str = "refs/notes/ai";

/// What an AI commit's log says about who wrote it, as the command and configuration know it.
#[derive(Debug, Clone, Default)]
pub struct Agent {
    /// No logs at all (`provenance: off`).
    pub off: bool,
    /// The standard's tool name (`claude`, `cursor`, …) given for this command (`--agent`,
    /// the MCP client).
    pub tool: Option<String>,
    /// The tool when none is given (`provenance.agent`); `git-clada` without it.
    pub default_tool: Option<String>,
    pub model: Option<String>,
    /// The agent's conversation id behind the session id.
    pub conversation: Option<String>,
}

/// The session one AI commit's log names: its key prefix and record.
pub struct SessionOf {
    pub id: String,
    pub record: Session,
}

impl Agent {
    /// The session: conversation = `--conversation`, else git-clada's own session
    /// (`Clada-Session`), else the reply's blob id.
    pub fn session(
        &self,
        clada_session: Option<&str>,
        reply_blob: ObjectId,
        human: &str,
    ) -> SessionOf {
        let tool = self
            .tool
            .clone()
            .or_else(|| self.default_tool.clone())
            .unwrap_or_else(|| "git-clada".into());
        let conversation = self
            .conversation
            .clone()
            .or_else(|| clada_session.map(str::to_string))
            .unwrap_or_else(|| reply_blob.to_string());
        SessionOf {
            id: ids::session_id(&tool, &conversation),
            record: Session {
                agent_id: AgentId {
                    tool,
                    id: conversation,
                    model: self.model.clone().unwrap_or_else(|| "unknown".into()),
                    extra: Default::default(),
                },
                human_author: Some(human.to_string()),
                custom_attributes: None,
                extra: Default::default(),
            },
        }
    }
}

/// A file's content at `entry`, if it is a file with lines (not a link or submodule).
fn content(repo: &Repo, entry: Option<clada_git::Entry>) -> Result<Option<Vec<u8>>, RepoError> {
    match entry {
        Some(e) if matches!(e.kind, EntryKind::Blob | EntryKind::Executable) => {
            Ok(Some(repo.read_blob(e.id)?))
        }
        _ => Ok(None),
    }
}

/// A path where the commit may hold someone else's edits on top of the AI's (a pending change
/// the user fixed before `git clada commit`): only lines still as the AI left them count, and
/// lines this reply wrote over the version before it (`before_reply`, when it changed the
/// path too).
pub struct AiVersion {
    pub path: BString,
    pub ai: Option<clada_git::Entry>,
    pub before_reply: Option<Option<clada_git::Entry>>,
    /// The path the AI moved this one from (an agent's `git mv`): its lines are counted from
    /// that path's version in the parent, not as all new.
    pub moved_from: Option<BString>,
}

/// The paths of a commit that need [`AiVersion`]'s care.
pub type AiVersions = Vec<AiVersion>;

/// The log of AI commit `commit`: every line of its files that differs from `parent_tree`
/// (the AI's change, and what fixer hooks changed in it), under one session and a new trace.
pub fn commit_log(
    repo: &Repo,
    commit: ObjectId,
    parent_tree: ObjectId,
    commit_tree: ObjectId,
    session: &SessionOf,
    ai_versions: &AiVersions,
) -> Result<Log, RepoError> {
    let mut log = Log {
        files: Vec::new(),
        meta: Metadata::new(&commit.to_string()),
    };
    let key = format!("{}::{}", session.id, ids::trace_id(commit.as_bytes()));
    for d in repo.diff_trees(parent_tree, commit_tree)? {
        let Some(new) = content(repo, d.new)? else {
            continue;
        };
        let Ok(path) = std::str::from_utf8(&d.path) else {
            continue; // a log is UTF-8 text; such a path stays unattributed
        };
        let version = ai_versions.iter().find(|v| v.path == d.path);
        let old = match (d.old, version.and_then(|v| v.moved_from.as_ref())) {
            (None, Some(from)) => content(repo, repo.tree_entry(parent_tree, from.as_ref())?)?,
            (old, _) => content(repo, old)?,
        };
        let mut written = carry::written_lines(old.as_deref(), &new);
        if let Some(v) = version {
            let mut ours = still_as_ai_left(repo, v.ai, old.as_deref(), &new, &written)?;
            if let Some(before) = v.before_reply {
                let before = content(repo, before)?;
                ours = ours.union(&carry::written_lines(before.as_deref(), &new));
            }
            written = written.intersect(&ours);
        }
        log.attest(path, &key, &written);
    }
    if !log.is_empty() {
        log.meta
            .sessions
            .insert(session.id.clone(), session.record.clone());
    }
    Ok(log)
}

/// Of `written` (lines of `new`), those that are the AI's own version's written lines carried
/// unchanged into `new`.
fn still_as_ai_left(
    repo: &Repo,
    ai: Option<clada_git::Entry>,
    old: Option<&[u8]>,
    new: &[u8],
    written: &LineSet,
) -> Result<LineSet, RepoError> {
    let Some(ai) = content(repo, ai)? else {
        return Ok(LineSet::new());
    };
    let ai_written = carry::written_lines(old, &ai);
    let carried = carry::carry_set(&ai_written, &carry::carry(&ai, new));
    Ok(written.intersect(&carried))
}

/// The log on `commit`, if it has one git-clada can read as that commit's (see
/// [`Log::for_commit`]: a copy or a concatenation that git's `notes.rewriteRef` made is none).
pub fn read_log(repo: &Repo, commit: ObjectId) -> Result<Option<Log>, RepoError> {
    let Some(data) = repo.note_at(AI_NOTES_REF, commit)? else {
        return Ok(None);
    };
    Ok(std::str::from_utf8(&data)
        .ok()
        .and_then(|t| Log::for_commit(t, &commit.to_string())))
}

/// Whether `commit` has a log git-clada did not write (which it then leaves alone).
pub fn has_foreign_log(
    book: &mut clada_git::NoteBook<'_>,
    commit: ObjectId,
) -> Result<bool, RepoError> {
    let Some(data) = book.get(commit)? else {
        return Ok(false);
    };
    let ours = std::str::from_utf8(&data)
        .ok()
        .and_then(|t| Log::parse(t).ok())
        .is_some_and(|l| l.is_claded());
    Ok(!ours)
}

/// The notes update that puts `log` on `commit` (for the caller's ref transaction), unless
/// the log is empty or the commit has a log someone else wrote.
pub fn log_update(
    repo: &Repo,
    commit: ObjectId,
    log: &Log,
) -> Result<Option<RefUpdate>, RepoError> {
    if log.is_empty() {
        return Ok(None);
    }
    let mut book = repo.note_book(AI_NOTES_REF)?;
    if has_foreign_log(&mut book, commit)? {
        return Ok(None);
    }
    book.stage(commit, log.serialize().as_bytes())?;
    book.write(&format!("clada: authorship of {}", Repo::short(commit)))
}

/// The file's content at `path` in `tree` (none for a link, submodule or missing path).
fn content_at(repo: &Repo, tree: ObjectId, path: &str) -> Result<Option<Vec<u8>>, RepoError> {
    content(repo, repo.tree_entry(tree, path.as_bytes().into())?)
}

/// The log in `book` on `commit`, if it has a valid one of its own ([`Log::for_commit`]).
pub fn log_in(
    book: &mut clada_git::NoteBook<'_>,
    commit: ObjectId,
) -> Result<Option<Log>, RepoError> {
    Ok(book
        .get(commit)?
        .and_then(|d| String::from_utf8(d).ok())
        .and_then(|t| Log::for_commit(&t, &commit.to_string())))
}

/// The log of `new_commit` (tree `new_tree`, its parent's tree `base_tree`), which replaces
/// `members` (each `(commit, tree)`, oldest first): their logs' lines carried to the new
/// version (the last session winning), kept where the new commit writes them. `None` when no
/// member has a log or nothing of theirs is left.
pub fn squash_log(
    repo: &Repo,
    book: &mut clada_git::NoteBook<'_>,
    base_tree: ObjectId,
    members: &[(ObjectId, ObjectId)],
    new: (ObjectId, ObjectId),
) -> Result<Option<Log>, RepoError> {
    let mut logs = Vec::with_capacity(members.len());
    for (commit, tree) in members {
        logs.push((log_in(book, *commit)?, *tree));
    }
    squash_logs(repo, base_tree, &logs, new)
}

/// [`squash_log`] on logs already read: each member's log (if any) and tree, oldest first.
/// One pass over the members: each one's change from the tree before it names the paths it
/// changed, and only those of the paths the logs name are read (a file no member changed is
/// read once, if a log names it).
pub fn squash_logs(
    repo: &Repo,
    base_tree: ObjectId,
    logs: &[(Option<Log>, ObjectId)],
    (new_commit, new_tree): (ObjectId, ObjectId),
) -> Result<Option<Log>, RepoError> {
    use crate::authorship::squash::{merge_metadata, prune_metadata, Keys, Lineage};
    use std::collections::btree_map::{BTreeMap, Entry as Slot};
    let named: std::collections::BTreeSet<&str> = logs
        .iter()
        .filter_map(|(l, _)| l.as_ref())
        .flat_map(|l| l.files.iter().map(|f| f.path.as_str()))
        .collect();
    if named.is_empty() {
        return Ok(None);
    }
    let mut out = Log {
        files: Vec::new(),
        meta: Metadata::new(&new_commit.to_string()),
    };
    let mut files: BTreeMap<&str, Lineage> = BTreeMap::new();
    let mut keys = Keys::default();
    let mut before = base_tree;
    let versions = logs.iter().map(|(l, t)| (l.as_ref(), *t));
    for (log, tree) in versions.chain(std::iter::once((None, new_tree))) {
        if tree != before {
            for d in repo.diff_trees(before, tree)? {
                let Some(path) = std::str::from_utf8(&d.path)
                    .ok()
                    .and_then(|p| named.get(p).copied())
                else {
                    continue;
                };
                let now = content(repo, d.new)?;
                match files.entry(path) {
                    Slot::Occupied(f) => f.into_mut().step(now),
                    Slot::Vacant(f) => f.insert(Lineage::new(content(repo, d.old)?)).step(now),
                }
            }
            before = tree;
        }
        let Some(log) = log else { continue };
        merge_metadata(&mut out.meta, &log.meta);
        for f in &log.files {
            let lineage = match files.entry(f.path.as_str()) {
                Slot::Occupied(l) => l.into_mut(),
                // No member changed it yet: it is as it was before the first.
                Slot::Vacant(l) => l.insert(Lineage::new(content_at(repo, base_tree, &f.path)?)),
            };
            for e in &f.entries {
                lineage.attest(keys.index(&e.key), &e.lines);
            }
        }
    }
    out.meta.base_commit_sha = new_commit.to_string();
    for (path, lineage) in &files {
        for (key, lines) in lineage.finish() {
            out.attest(path, keys.name(key), &lines);
        }
    }
    prune_metadata(&mut out);
    Ok((!out.is_empty()).then_some(out))
}

/// `old`'s log as the log of `new_commit`, a copy of its commit with tree `new_tree` instead
/// of `old_tree` (a commit replayed onto a changed parent): lines carried through each file's
/// change, lines changed on the way dropped.
pub fn carry_log(
    repo: &Repo,
    old: &Log,
    old_tree: ObjectId,
    (new_commit, new_tree): (ObjectId, ObjectId),
) -> Result<Log, RepoError> {
    let mut out = Log {
        files: Vec::new(),
        meta: old.meta.clone(),
    };
    out.meta.base_commit_sha = new_commit.to_string();
    for file in &old.files {
        let (Some(before), Some(after)) = (
            content_at(repo, old_tree, &file.path)?,
            content_at(repo, new_tree, &file.path)?,
        ) else {
            continue;
        };
        let map = carry::carry(&before, &after);
        for e in &file.entries {
            out.attest(&file.path, &e.key, &carry::carry_set(&e.lines, &map));
        }
    }
    crate::authorship::squash::prune_metadata(&mut out);
    Ok(out)
}
