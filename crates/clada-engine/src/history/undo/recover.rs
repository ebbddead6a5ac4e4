//! Recovering an interrupted transaction: the locks it left that are provably its own, and
//! the journaled apply rolled back.

use super::*;

/// The report of a recovery that only cleared the lock files of a killed git-clada.
pub(super) fn recovered_locks(
    repo: &Repo,
    lock: Option<&clada_git::CladaLock>,
    dry_run: bool,
) -> Result<UndoReport, HistoryError> {
    let head = repo
        .head()?
        .commit()
        .map(|c| c.to_string())
        .unwrap_or_default();
    let subject = match lock.map(|l| l.stale()) {
        Some(stale) => format!(
            "the clean-up after a killed git-clada ({} lock file(s) of its own removed{})",
            stale.removed.len(),
            if stale.left.is_empty() {
                String::new()
            } else {
                format!(", {} left in place", stale.left.len())
            }
        ),
        None => "the clean-up after a killed git-clada (its lock files)".into(),
    };
    Ok(UndoReport {
        operation: "recover".into(),
        kind: "interrupted-transaction".into(),
        commit: None,
        subject: Some(subject),
        from: head.clone(),
        to: head,
        paths: Vec::new(),
        restored_work: None,
        dry_run,
    })
}

/// Rolls back an apply that was interrupted (the process died mid-transaction).
pub(super) fn recover_apply(
    repo: &Repo,
    journal: &Journal,
    dry_run: bool,
) -> Result<UndoReport, HistoryError> {
    let head = journal.head_id()?;
    let w = parse_id(&journal.base_tree)?;
    let i = parse_id(&journal.index_tree)?;
    // Every tracked path that now differs from the pre-apply worktree, whatever changed it
    // (file actions, exec, a half-finished transaction), plus the reply's own targets.
    let mut index = repo.index_from_tree(w)?;
    let disk_index = repo.read_index()?;
    index.carry_stat_from(&disk_index);
    let status = repo.status(w, &index, false)?;
    let mut paths: std::collections::BTreeSet<String> =
        status.unstaged.iter().map(|(p, _)| p.to_string()).collect();
    for jp in &journal.paths {
        if matches!(jp.before, Before::Tracked) {
            paths.insert(jp.path.clone());
        }
    }
    let untracked = untracked_restores(repo, Some(journal), w)?;
    let current = repo
        .head()?
        .commit()
        .map(|c| c.to_string())
        .unwrap_or_default();
    let report = UndoReport {
        operation: "recover".into(),
        kind: "interrupted-apply".into(),
        commit: journal.commit.clone(),
        subject: Some(format!("interrupted apply of {}", journal.source)),
        from: current,
        to: journal.head.clone(),
        paths: paths.iter().cloned().collect(),
        restored_work: None,
        dry_run,
    };
    if dry_run {
        return Ok(report);
    }
    let plan = RestorePlan {
        reason: format!("roll back of the interrupted apply of {}", journal.source),
        head: head.to_string(),
        branch: journal.branch.clone(),
        worktree_tree: w.to_string(),
        index_tree: i.to_string(),
        paths: paths.into_iter().collect(),
        untracked,
        flags: journal.index_flags.clone(),
        // The branch goes back only from where the apply put it (the journal names the
        // commit before the branch moves): one that moved for another reason (a commit made
        // meanwhile) keeps its commits, and the index git left with them; the restore says so.
        head_from: std::iter::once(journal.head.clone())
            .chain(journal.commit.clone())
            .collect(),
        // Refs moved with the branch (a watcher's record of its blocks) go back with it.
        refs_after: restore::refs_back(journal)?,
        finish_if_moved: true,
        ..Default::default()
    };
    let result = restore::run(
        repo,
        &plan,
        &format!("clada: roll back interrupted apply of {}", journal.source),
    );
    // A kill in the middle of an atomic write leaves its temporary file next to the target.
    if let Ok(root) = repo.worktree() {
        clada_base::beneath::remove_temp_files(
            &root,
            journal.paths.iter().map(|p| p.path.as_str()),
        );
    }
    if let Err(RestoreError::HeadMoved { .. }) = &result {
        // Everything but the branch and the index is rolled back: the apply is over.
        Journal::remove(repo)?;
    }
    result?;
    Journal::remove(repo)?;
    Ok(report)
}
