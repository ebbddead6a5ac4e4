//! The authorship logs shared with a repository's remotes (docs/provenance.md, "Sharing"):
//! which remotes share them (a fetch refspec `git clada hooks install` adds), the merge of a
//! remote's fetched logs (`refs/notes/remotes/<remote>/ai`) into `refs/notes/ai`, and the
//! push of `refs/notes/ai` that git-clada's pre-push hook makes, fetching, merging and
//! pushing again when another clone pushed first.
//!
//! The merge never forces and never loses a log: logs of different commits both stay; for
//! one commit, a valid fetched log is taken where we have none, two git-clada logs are merged
//! line by line (the later wins a line both attest, as in a squash), and any other pair keeps
//! ours. A fetched note that is no valid log of its commit is never taken. The merge commit
//! has the fetched notes commit as a parent, so the next push is a fast-forward.

use std::collections::BTreeMap;

use crate::authorship::squash::overlay;
use crate::authorship::Log;
use clada_git::{Expected, NotesPush, ObjectId, Repo, RepoError};

use super::provenance::AI_NOTES_REF;

/// How often a push of the logs that the remote's moving logs rejected is retried (each time
/// after a fetch and a merge).
const PUSH_ATTEMPTS: usize = 3;

/// What merging one remote's fetched logs did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Merged {
    pub remote: String,
    /// Logs of commits we had none for.
    pub taken: usize,
    /// Commits whose two git-clada logs were merged line by line.
    pub joined: usize,
    /// Fetched notes that are no valid log of their commit, left out.
    pub invalid: usize,
    /// Commits where we kept our log over a different fetched one (another tool's on either
    /// side).
    pub kept: usize,
}

/// Whether `name` can stand in a ref name as one remote's folder (a remote git itself would
/// accept; a refspec cannot hold a `*`, space or `:` in it).
fn usable_remote(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(['-', '.', '/'])
        && !name.ends_with(['/', '.'])
        && !name.contains("..")
        && !name.contains("//")
        && !name.ends_with(".lock")
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./+@".contains(c))
}

/// Each remote and whether its logs are shared (its fetch refspecs hold git-clada's).
pub fn sharing(repo: &Repo) -> Result<Vec<(String, bool)>, RepoError> {
    let mut out = Vec::new();
    for remote in repo.remote_names()? {
        let spec = clada_git::fetch_refspec(&remote);
        let shared = repo.fetch_refspecs(&remote)?.contains(&spec);
        out.push((remote, shared));
    }
    Ok(out)
}

/// Sets up sharing with every remote (the fetch refspec); the lines to print.
pub fn set_up(repo: &Repo, dry_run: bool) -> Result<Vec<String>, RepoError> {
    let will = if dry_run { "would share" } else { "shares" };
    let mut lines = Vec::new();
    for (remote, shared) in sharing(repo)? {
        if !usable_remote(&remote) {
            lines.push(format!(
                "remote `{remote}`: its name cannot stand in a refspec; its logs are not shared"
            ));
            continue;
        }
        if !shared && !dry_run {
            repo.add_fetch_refspec(&remote, &clada_git::fetch_refspec(&remote))?;
        }
        let url = repo.remote_url(&remote).unwrap_or_default();
        lines.push(format!(
            "{remote} ({url}): {will} the AI attribution logs (refs/notes/ai, no prompt, reply or file text): pushed with every `git push {remote}`, fetched with every `git fetch`/`git pull` into {} and merged",
            clada_git::tracking_ref(&remote)
        ));
    }
    if lines.is_empty() {
        lines.push("no remote yet: after `git remote add`, run `git clada hooks install` again to share the AI attribution logs with it".into());
    }
    Ok(lines)
}

/// Removes git-clada's fetch refspec from every remote; the lines to print.
pub fn remove(repo: &Repo, dry_run: bool) -> Result<Vec<String>, RepoError> {
    let verb = if dry_run { "would stop" } else { "stopped" };
    let mut lines = Vec::new();
    for (remote, shared) in sharing(repo)? {
        if !shared {
            continue;
        }
        if !dry_run {
            repo.remove_fetch_refspec(&remote, &clada_git::fetch_refspec(&remote))?;
        }
        lines.push(format!(
            "{remote}: {verb} sharing the AI attribution logs (fetched ones stay in {})",
            clada_git::tracking_ref(&remote)
        ));
    }
    Ok(lines)
}

/// Merges every remote's fetched logs not merged yet (a cheap check when there are none).
pub fn merge_fetched(repo: &Repo) -> Result<Vec<Merged>, RepoError> {
    let mut out = Vec::new();
    for (name, _) in repo.refs_with_prefix("refs/notes/remotes/")? {
        let Some(remote) = name
            .strip_prefix("refs/notes/remotes/")
            .and_then(|r| r.strip_suffix("/ai"))
        else {
            continue;
        };
        if let Some(m) = merge_remote(repo, remote)? {
            out.push(m);
        }
    }
    Ok(out)
}

/// [`merge_fetched`] for a command that reads the logs (blame, stats, show): a problem is one
/// line on stderr, and the command reads what `refs/notes/ai` holds.
pub fn merge_on_read(repo: &Repo) {
    if let Err(e) = merge_fetched(repo) {
        eprintln!("git-clada: the fetched AI attribution logs were not merged ({e}); showing this clone's own");
    }
}

/// The notes of notes commit `commit`: annotated object → note blob.
fn notes_of(repo: &Repo, commit: ObjectId) -> Result<BTreeMap<ObjectId, ObjectId>, RepoError> {
    let files = repo.tree_files(repo.tree_of(commit)?)?;
    Ok(files
        .into_iter()
        .filter_map(|(path, entry)| {
            let hex: Vec<u8> = path.iter().copied().filter(|&b| b != b'/').collect();
            ObjectId::from_hex(&hex).ok().map(|id| (id, entry.id))
        })
        .collect())
}

/// The note `data` as a log of `target`, if it is a valid one.
fn valid(data: &[u8], target: ObjectId) -> Option<Log> {
    std::str::from_utf8(data)
        .ok()
        .and_then(|t| Log::for_commit(t, &target.to_string()))
}

/// Merges `remote`'s fetched logs into `refs/notes/ai`; `None` when there are none or they
/// are merged already.
pub fn merge_remote(repo: &Repo, remote: &str) -> Result<Option<Merged>, RepoError> {
    let Some(theirs) = repo.read_ref(&clada_git::tracking_ref(remote))? else {
        return Ok(None);
    };
    let ours = repo.read_ref(AI_NOTES_REF)?;
    if let Some(o) = ours {
        if repo.is_ancestor(theirs, o)? {
            return Ok(None);
        }
    }
    let base = match ours {
        Some(o) => repo.merge_base(o, theirs)?,
        None => None,
    };
    let base_notes = match base {
        Some(b) => notes_of(repo, b)?,
        None => BTreeMap::new(),
    };
    // Which side wrote its logs later: the one whose notes commit is newer (fetched on a tie).
    let theirs_later = match ours {
        Some(o) => {
            repo.commit_info(theirs)?.committer.seconds >= repo.commit_info(o)?.committer.seconds
        }
        None => true,
    };
    let mut merged = Merged {
        remote: remote.to_string(),
        ..Merged::default()
    };
    let mut book = repo.note_book(AI_NOTES_REF)?;
    for (target, blob) in notes_of(repo, theirs)? {
        if base_notes.get(&target) == Some(&blob) {
            continue; // not changed on their side: ours stands
        }
        let data = repo.read_blob(blob)?;
        let Some(their_log) = valid(&data, target) else {
            merged.invalid += 1;
            continue;
        };
        let Some(mine) = book.get(target)? else {
            book.stage(target, &data)?;
            merged.taken += 1;
            continue;
        };
        if mine == data {
            continue;
        }
        let unchanged_here = match base_notes.get(&target) {
            Some(b) => repo.read_blob(*b)? == mine,
            None => false,
        };
        if unchanged_here {
            book.stage(target, &data)?;
            merged.taken += 1;
            continue;
        }
        match valid(&mine, target) {
            Some(my_log) if my_log.is_claded() && their_log.is_claded() => {
                let joined = if theirs_later {
                    overlay(&my_log, &their_log)
                } else {
                    overlay(&their_log, &my_log)
                };
                book.stage(target, joined.serialize().as_bytes())?;
                merged.joined += 1;
            }
            _ => merged.kept += 1,
        }
    }
    let fast_forward = merged.invalid == 0 && merged.joined == 0 && merged.kept == 0;
    if fast_forward && (ours.is_none() || base == ours) {
        let expected = match ours {
            Some(o) => Expected::Value(o),
            None => Expected::MustNotExist,
        };
        repo.update_ref(
            AI_NOTES_REF,
            theirs,
            expected,
            &format!("notes: clada: the logs fetched from {remote}"),
        )?;
    } else {
        book.commit_merge(
            &format!("clada: the logs fetched from {remote} merged"),
            theirs,
        )?;
    }
    Ok(Some(merged))
}

/// Pushes `refs/notes/ai` to `remote` if its logs are shared (git-clada's pre-push hook):
/// what was fetched is merged first; a push the remote's moving logs reject is fetched,
/// merged and pushed again, at most [`PUSH_ATTEMPTS`] times. The line to print when the logs
/// were not pushed; `None` when they were, or when there was nothing to push.
pub fn push_logs(repo: &Repo, remote: &str) -> Result<Option<String>, RepoError> {
    if !usable_remote(remote)
        || !repo
            .fetch_refspecs(remote)?
            .contains(&clada_git::fetch_refspec(remote))
    {
        return Ok(None);
    }
    merge_remote(repo, remote)?;
    if repo.read_ref(AI_NOTES_REF)?.is_none() {
        return Ok(None);
    }
    let not =
        format!("git-clada: the AI attribution logs (refs/notes/ai) were not pushed to {remote}");
    for _ in 0..PUSH_ATTEMPTS {
        match repo.push_notes(remote)? {
            NotesPush::Done => return Ok(None),
            NotesPush::Behind => {
                repo.fetch_notes(remote)?;
                merge_remote(repo, remote)?;
            }
            NotesPush::Refused(why) => {
                return Ok(Some(format!("{not}: the remote refused them ({why}); your push is not affected")))
            }
            NotesPush::NoCredentials(why) => {
                return Ok(Some(format!("{not}: that would ask for credentials again ({why}); push them with `git push {remote} refs/notes/ai`")))
            }
            NotesPush::Failed(why) => return Ok(Some(format!("{not}: {why}"))),
        }
    }
    Ok(Some(format!(
        "{not}: other clones kept pushing theirs ({PUSH_ATTEMPTS} attempts); the next push tries again"
    )))
}

#[cfg(test)]
mod tests {
    use super::usable_remote;

    #[test]
    fn remote_names_that_cannot_stand_in_a_refspec() {
        for ok in ["origin", "up-stream", "team/alice", "a.b"] {
            assert!(usable_remote(ok), "{ok}");
        }
        for bad in ["", "a b", "a*", "a:b", "-x", "a..b", "a/", "x.lock", "é"] {
            assert!(!usable_remote(bad), "{bad}");
        }
    }
}
