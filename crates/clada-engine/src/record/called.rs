//! Worktree files a git hook calls by path (`sandbox::protected::Called`: named in a hook, or
//! one level down through the `npm run` script it names) that a reply changed (issue 51.2).
//! They are not protected — a reply fixes the project's lint script as often as anything —
//! but the user's own next `git commit` runs them outside any sandbox, so such an apply
//! commits nothing (⏸) and says which file and which hook, and `git clada status` keeps
//! saying it while the file still holds what the reply left and is not committed, until the
//! user commits it or marks it reviewed (`git clada status --ack PATH`).
//!
//! The marks live in `.git/clada/hook-called.json`: path, hook, and the blob id of the content
//! the reply left.

use serde::{Deserialize, Serialize};

use crate::sandbox::protected::Called;
use clada_git::{ByteSlice, Repo, RepoError};

/// One file a reply changed that a hook calls.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mark {
    pub path: String,
    /// The hook that calls it (`.githooks/pre-commit`).
    pub from: String,
    /// The blob id of what the reply left there.
    pub blob: String,
}

fn file(repo: &Repo) -> std::path::PathBuf {
    repo.git_dir().join("clada").join("hook-called.json")
}

fn load(repo: &Repo) -> Vec<Mark> {
    std::fs::read(file(repo))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

fn store(repo: &Repo, marks: &[Mark]) -> Result<(), RepoError> {
    let path = file(repo);
    let text = serde_json::to_vec_pretty(marks)
        .map_err(|e| RepoError::Invalid(format!("cannot write {}: {e}", path.display())))?;
    clada_base::fsutil::write_atomic_creating_dir(
        &path,
        &text,
        clada_base::fsutil::Perm::Executable(false),
    )
    .map_err(clada_git::io_err_pub("cannot write", &path))
}

/// The files of `called` among `changed` (root-relative): what an apply must not commit
/// without the user.
pub fn among<'a>(called: &'a [Called], changed: &[String]) -> Vec<&'a Called> {
    called.iter().filter(|c| changed.contains(&c.rel)).collect()
}

/// Remembers `hits` with what the worktree holds now (replacing older marks of the paths).
pub fn remember(repo: &Repo, hits: &[&Called]) -> Result<(), RepoError> {
    let mut marks = load(repo);
    let mut hasher = repo.hasher()?;
    for c in hits {
        let Some((entry, _)) = hasher.hash(c.rel.as_bytes().as_bstr())? else {
            continue;
        };
        marks.retain(|m| m.path != c.rel);
        marks.push(Mark {
            path: c.rel.clone(),
            from: c.from.clone(),
            blob: entry.id.to_string(),
        });
    }
    store(repo, &marks)
}

/// The marks still standing: the file holds what the reply left, and HEAD does not.
pub fn outstanding(repo: &Repo) -> Result<Vec<Mark>, RepoError> {
    let marks = load(repo);
    if marks.is_empty() {
        return Ok(marks);
    }
    let head_tree = match repo.head()?.commit() {
        Some(c) => Some(repo.tree_of(c)?),
        None => None,
    };
    let mut hasher = repo.hasher()?;
    let mut out = Vec::new();
    for m in marks {
        let path = m.path.as_bytes().as_bstr();
        let now = hasher.hash(path)?.map(|(e, _)| e.id.to_string());
        let committed = match head_tree {
            Some(t) => repo.tree_entry(t, path)?.map(|e| e.id.to_string()),
            None => None,
        };
        if now.as_deref() == Some(m.blob.as_str()) && committed.as_deref() != Some(&m.blob) {
            out.push(m);
        }
    }
    Ok(out)
}

/// Marks `path` reviewed: its marks are dropped. `false` when it had none.
pub fn ack(repo: &Repo, path: &str) -> Result<bool, RepoError> {
    let path = path.trim_start_matches("./");
    let mut marks = load(repo);
    let before = marks.len();
    marks.retain(|m| m.path != path);
    if marks.len() == before {
        return Ok(false);
    }
    store(repo, &marks)?;
    Ok(true)
}

/// The sentence for a report or `status`: `scripts/lint.sh, from .githooks/pre-commit`.
pub fn describe<'a>(items: impl Iterator<Item = (&'a str, &'a str)>) -> String {
    let parts: Vec<String> = items
        .map(|(path, from)| {
            clada_base::term::escape(
                &format!("{path}, from {from}"),
                clada_base::term::Rule::Name,
            )
            .into_owned()
        })
        .collect();
    format!(
        "your next `git commit` runs code this reply changed: {}",
        parts.join("; ")
    )
}
