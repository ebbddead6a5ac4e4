//! What may enter an AI commit: the one rule, used by the apply (`apply/collect.rs`), an
//! agent's turn commit (`agent/admitted.rs`, from `agent/turn.rs`) and what a contained git
//! hook re-staged (`apply/stage.rs`). Everything left out stays in the worktree as it is,
//! and whoever leaves it out says so.
//!
//! - **Ignored.** A path the index does not track and git's ignore rules match is never
//!   committed (`git add` refuses it too): a reply's `.env`, an agent's `.venv/pyvenv.cfg`.
//!   A tracked path under an ignore pattern is committed, as git does.
//! - **The user's untracked file.** An agent's change to a file the index does not track and
//!   that existed before the agent's first change of it (the agent did not create it) is
//!   never committed by the agent's turn: the user's private lines would go with it.
//! - **A hunk touching the user's edit.** Where the user edited a file after the agent's
//!   version of it, each hunk of the agent's (its version against the user's before it)
//!   whose line range overlaps or is adjacent to one of the user's edits (no unchanged line
//!   between them) stays out; the agent's other hunks are committed.
//! - **A hook's index.** Of what a contained `pre-commit` or `commit-msg` hook staged, only
//!   the paths the AI commit changes are taken (what a formatter re-stages); any other path
//!   stays as the user had it in the index. A protected hook file among the paths it staged
//!   (docs/hooks-sandbox.md) stops the commit for the user (⏸), unless the user's own
//!   `paths.protect_hooks: false`.

use std::collections::{BTreeMap, BTreeSet};

use crate::authorship::LineSet;
use clada_git::{BString, ByteSlice, Index, Repo, RepoError, TreeDiff};

use super::merge;

/// The paths among `paths` that the index does not track and git's ignore rules match:
/// never committed.
pub fn ignored(
    repo: &Repo,
    index: &Index,
    paths: &[BString],
) -> Result<BTreeSet<BString>, RepoError> {
    let untracked: Vec<BString> = paths
        .iter()
        .filter(|p| index.entry(p.as_bstr()).is_none())
        .cloned()
        .collect();
    Ok(repo.ignored(index, &untracked)?.into_iter().collect())
}

/// Why a path an agent changed stays out of its turn's commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeftOut {
    /// Untracked and ignored by git.
    Ignored,
    /// The user's untracked file (it existed before the agent's first change of it).
    UsersUntracked,
}

impl LeftOut {
    /// Why, for a message naming the path.
    pub fn why(self) -> &'static str {
        match self {
            LeftOut::Ignored => "ignored by git",
            LeftOut::UsersUntracked => {
                "your untracked file: your own lines in it never enter an AI commit"
            }
        }
    }
}

/// For each of an agent's changed paths (with whether it existed before the agent's first
/// change of it): why it stays out of the turn's commit, for those that do.
pub fn agent_paths(
    repo: &Repo,
    index: &Index,
    paths: &[(BString, bool)],
) -> Result<BTreeMap<BString, LeftOut>, RepoError> {
    let all: Vec<BString> = paths.iter().map(|(p, _)| p.clone()).collect();
    let ignored = ignored(repo, index, &all)?;
    let mut out = BTreeMap::new();
    for (p, existed) in paths {
        if ignored.contains(p) {
            out.insert(p.clone(), LeftOut::Ignored);
        } else if *existed && index.entry(p.as_bstr()).is_none() {
            out.insert(p.clone(), LeftOut::UsersUntracked);
        }
    }
    Ok(out)
}

/// The user's edit of a file made after the agent's version of it, carried into the user's
/// version: what [`users_edit`] returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Carried {
    /// The user's version with their edit in, and with the agent's hunks that touch it: what
    /// the file holds once the agent's committed hunks are taken out of it.
    pub user: Vec<u8>,
    /// The agent's hunks left out, if any.
    pub left: Option<LeftHunks>,
}

/// Hunks of the agent's left out of its commit because they touch the user's edit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeftHunks {
    /// The agent's version with those hunks taken back (to the user's lines before): against
    /// the agent's version, it differs in exactly those hunks.
    pub without: Vec<u8>,
    /// Where they are in the file now (1-based lines; a hunk that only deleted lines is
    /// named by the line after the place).
    pub lines: LineSet,
}

/// `agent` (the agent's version, made from `user`) edited since into `now` by someone else:
/// the user's version with that edit carried in, the agent's hunks that touch the edit left
/// in it (so they are not the agent's to commit). `None` when a version is binary: the edit
/// cannot be told from the agent's.
pub fn users_edit(agent: &[u8], now: &[u8], user: &[u8]) -> Option<Carried> {
    let merged = merge::merge3_leaving(agent, now, user)?;
    let left = (!merged.left_at.is_empty()).then(|| LeftHunks {
        without: merged.left_applied,
        lines: LineSet::from_lines(merged.left_at.iter().flat_map(|&(s, e)| {
            let first = s as u32 + 1;
            match e > s {
                true => first..=(e as u32),
                false => first..=first,
            }
        })),
    });
    Some(Carried {
        user: merged.merged,
        left,
    })
}

/// `path line 5` or `path lines 5-7, 40`, for a message.
pub fn describe_lines(path: &str, lines: &LineSet) -> String {
    let text = lines.to_string().replace(',', ", ");
    match lines.len() {
        1 => format!("{path} line {text}"),
        _ => format!("{path} lines {text}"),
    }
}

/// What to do with the index a contained hook left: [`hook_index`].
#[derive(Debug, Default)]
pub struct HookIndex {
    /// The changes it staged that the commit takes.
    pub take: Vec<TreeDiff>,
    /// Paths it staged that stay as the user had them (not the AI commit's).
    pub left_out: Vec<BString>,
    /// Protected hook files it staged, each with what it is: the commit waits for the user.
    pub hook_files: Vec<(String, String)>,
}

/// Sorts what a hook staged (`staged`: the hook's index against the tree given to it) into
/// what the AI commit takes — the paths it changes, `ai_paths` — and what it leaves out;
/// with `protect_hooks` (the default), the protected hook files among them are named.
pub fn hook_index(
    repo: &Repo,
    staged: Vec<TreeDiff>,
    ai_paths: &BTreeSet<BString>,
    protect_hooks: bool,
) -> HookIndex {
    let mut out = HookIndex::default();
    if protect_hooks {
        let names: Vec<String> = staged.iter().map(|d| d.path.to_string()).collect();
        out.hook_files = super::githooks::hook_files_among(repo, names.iter().map(String::as_str));
    }
    for d in staged {
        match ai_paths.contains(&d.path) {
            true => out.take.push(d),
            false => out.left_out.push(d.path),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_agents_hunk_next_to_the_users_edit_stays_out_and_the_far_one_is_carried() {
        let user = b"1\n2\n3\n4\n5\n6\n7\n8\n9\n";
        let agent = b"1\n2 A\n3\n4\n5\n6\n7\n8 A\n9\n";
        let now = b"1\n2 A\n3 U\n4\n5\n6\n7\n8 A\n9\n";
        let c = users_edit(agent, now, user).unwrap();
        // The user's side keeps the touching hunk; the far one is the agent's to commit.
        assert_eq!(c.user, b"1\n2 A\n3 U\n4\n5\n6\n7\n8\n9\n");
        let left = c.left.unwrap();
        assert_eq!(left.without, b"1\n2\n3\n4\n5\n6\n7\n8 A\n9\n");
        assert_eq!(describe_lines("a.txt", &left.lines), "a.txt line 2");
        // An edit with an unchanged line between touches nothing.
        let apart = b"1\n2 A\n3\n4 U\n5\n6\n7\n8 A\n9\n";
        let c = users_edit(agent, apart, user).unwrap();
        assert_eq!(c.user, b"1\n2\n3\n4 U\n5\n6\n7\n8\n9\n");
        assert!(c.left.is_none());
        assert!(users_edit(b"a\0", b"b\0", b"c\0").is_none());
    }
}
