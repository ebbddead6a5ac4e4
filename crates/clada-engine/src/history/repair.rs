//! `git clada repair-index`: puts right what an earlier git-clada wrote wrong in git's index
//! — a cache-tree extension that disagrees with the entries (issue 33: counted beside an
//! intent-to-add entry, it made git commit trees with duplicate entries that lost files). The
//! entries, flags and other extensions stay as they are; only the cache-tree is dropped, and
//! git rebuilds it at the next commit or `write-tree`.

use clada_git::Repo;

use super::HistoryError;

/// What `repair-index` found and did.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RepairReport {
    /// What was wrong, when something was.
    pub problem: Option<String>,
    /// Whether the index was rewritten (not on a dry run, nor when nothing was wrong).
    pub repaired: bool,
}

/// Checks the index's cache-tree against its entries and, unless `dry_run`, drops a wrong
/// one under git's index lock.
pub fn repair_index(repo: &Repo, dry_run: bool) -> Result<RepairReport, HistoryError> {
    let lock = match dry_run {
        true => None,
        false => Some(repo.lock_index()?),
    };
    let mut index = repo.read_index()?;
    let problem = index.cache_tree_problem();
    let repaired = match (problem.is_some(), lock) {
        (true, Some(lock)) => {
            index.drop_cache_tree();
            lock.commit(&index)?;
            true
        }
        _ => false,
    };
    Ok(RepairReport { problem, repaired })
}
