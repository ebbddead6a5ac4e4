//! redo: applying again what the last undo took back, while nothing has moved since
//! (`refs/clada/redo/<branch>`).

use super::*;

/// `git clada redo`: re-applies what the last undo took back, if nothing moved since.
pub fn redo(repo: &Repo, dry_run: bool) -> Result<UndoReport, HistoryError> {
    let _lock = if dry_run { None } else { Some(repo.lock()?) };
    if let Some(plan) = restore::pending(repo)? {
        return finish_restore(repo, plan, dry_run);
    }
    if Journal::read(repo)?.is_some() {
        return Err(HistoryError::Refused(
            "an apply was interrupted; run `git clada undo` to roll it back first".into(),
        ));
    }
    if let Some(op) = repo.in_progress() {
        return Err(HistoryError::Refused(op.describe().to_string()));
    }
    let state = crate::history::step::read_state(repo)?;
    let branch = match &state {
        Some(s) => s.branch.clone(),
        None => current_branch(repo, "redo")?.0,
    };
    let Some((_, entry)) = stack::top(repo, &branch)? else {
        return Err(HistoryError::Refused(
            "there is nothing to redo: no `git clada undo` was run on this branch since the last clada operation".into(),
        ));
    };
    stack::require_current(repo, &branch, &entry)?;
    match &entry.op {
        Op::Step { .. } => {
            crate::history::step_undo::redo_step(repo, state.as_ref(), &branch, &entry, dry_run)
        }
        _ if state.is_some() => Err(HistoryError::Refused(
            crate::record::stepped_back(repo)?.unwrap_or_default(),
        )),
        Op::UncommittedApply { record, .. } => {
            redo_pending(repo, &branch, parse_id(record)?, &entry, dry_run)
        }
        Op::AgentCall { checkpoint, state } => crate::history::agent_undo::redo_agent_call(
            repo,
            &branch,
            &entry,
            checkpoint,
            state.as_deref(),
            dry_run,
        ),
        Op::Apply { commit } | Op::Squash { commit } => {
            redo_commit(repo, &branch, parse_id(commit)?, &entry, dry_run)
        }
    }
}

/// Redo of an undone apply or squash: the branch goes to `undone` again.
pub(super) fn redo_commit(
    repo: &Repo,
    branch: &str,
    undone: ObjectId,
    entry: &stack::StackEntry,
    dry_run: bool,
) -> Result<UndoReport, HistoryError> {
    let branch = branch.to_string();
    let (_, tip) = current_branch(repo, "redo")?;
    let info = repo.commit_info(undone)?;
    let squash_before = repo.read_ref(&squash_ref(undone))?;
    let mut keep_index = false;
    let (before, after, journal) = match squash_before {
        Some(before) => {
            let t = repo.tree_of(before)?;
            // As its undo did, the redo of a squash of one tree leaves the index alone, which
            // must hold what it held at the squash.
            keep_index = t == info.tree;
            let index = match keep_index {
                true => Some(index_at_squash(repo, undone, t)?),
                false => None,
            };
            let side = |head, tree| Side {
                head,
                index: index.unwrap_or(tree),
                worktree: tree,
            };
            (side(before, t), side(undone, info.tree), None)
        }
        None => {
            let journal = read_record(repo, undone)?;
            apply_sides(repo, &info, journal)?
        }
    };
    // The pending AI changes the commit took come back with it: an agent's turn replayed
    // on what the worktree holds now, and the pending record as the commit left it.
    let took = match &journal {
        Some(j) => taken(repo, j)?,
        None => None,
    };
    let turn = took.as_ref().and_then(|(_, j)| j.turn.as_ref());
    let replay = turn.map(|t| (t, super::turn::Way::Forward, Some(undone)));
    let mut plan = redo_plan(repo, &branch, tip, before, after, journal.as_ref(), replay)?;
    plan.reason = format!("redo of {undone}");
    plan.keep_index = keep_index;
    plan.refs_after = vec![stack::pop(&branch, entry)?];
    if let Some((tree, tj)) = &took {
        plan.untracked.extend(untracked_redo(repo, Some(tj))?);
        plan.refs_after.push(super::pending_before(
            repo,
            &branch,
            *tree,
            "clada: redo of the commit that took pending AI changes",
        )?);
    }
    plan.paths.sort();
    let report = UndoReport {
        operation: "redo".into(),
        kind: match (squash_before.is_some(), turn.is_some()) {
            (true, _) => "squash",
            (false, true) => "turn",
            (false, false) => "apply",
        }
        .into(),
        commit: Some(undone.to_string()),
        subject: Some(info.subject().to_string()),
        from: tip.to_string(),
        to: undone.to_string(),
        paths: all_paths(repo, &plan)?,
        restored_work: None,
        dry_run,
    };
    if dry_run {
        return Ok(report);
    }
    write_orig_head(repo, tip)?;
    restore::run(
        repo,
        &plan,
        &format!("clada: redo {}: {}", Repo::short(undone), info.subject()),
    )?;
    Ok(report)
}

/// Redo of an undone uncommitted apply: the index and the files go to what the apply left,
/// HEAD stays, and its record is the pending one again (so undo takes it back once more).
pub(super) fn redo_pending(
    repo: &Repo,
    branch: &str,
    record: ObjectId,
    entry: &stack::StackEntry,
    dry_run: bool,
) -> Result<UndoReport, HistoryError> {
    let (_, tip) = current_branch(repo, "redo")?;
    let journal = crate::record::apply::record_journal(repo, record)?.ok_or_else(|| {
        HistoryError::Refused(format!(
            "the record of the uncommitted apply ({record}) holds no journal; it cannot be redone"
        ))
    })?;
    let (before, after) = pending_sides(&journal)?;
    let replay = journal
        .turn
        .as_ref()
        .map(|t| (t, super::turn::Way::Forward, None));
    let mut plan = redo_plan(repo, branch, tip, before, after, Some(&journal), replay)?;
    plan.reason = format!("redo of the uncommitted apply of {}", journal.source);
    plan.refs_after = vec![
        RefChange::set(
            pending_ref(Some(branch)),
            record,
            "clada: redo of an uncommitted apply",
        ),
        stack::pop(branch, entry)?,
    ];
    let report = UndoReport {
        operation: "redo".into(),
        kind: uncommitted_kind(&journal).into(),
        commit: None,
        subject: Some(uncommitted_subject(&journal)),
        from: tip.to_string(),
        to: tip.to_string(),
        paths: all_paths(repo, &plan)?,
        restored_work: None,
        dry_run,
    };
    if dry_run {
        return Ok(report);
    }
    restore::run(
        repo,
        &plan,
        &format!("clada: redo uncommitted apply of {}", journal.source),
    )?;
    Ok(report)
}

/// The restore that moves from `before` (where the undo left things) to `after` (where the
/// operation had left them), refusing when anything in the way changed since the undo.
pub(super) fn redo_plan(
    repo: &Repo,
    branch: &str,
    tip: ObjectId,
    before: Side,
    after: Side,
    journal: Option<&Journal>,
    replay: TurnMove<'_>,
) -> Result<RestorePlan, HistoryError> {
    if tip != before.head {
        return Err(HistoryError::Refused(format!(
            "the branch moved since the undo (it is at {}, the undo left it at {}); redo would lose that, so it is refused",
            Repo::short(tip),
            Repo::short(before.head)
        )));
    }
    // The index and the paths redo rewrites must be exactly as the undo left them; other
    // worktree changes (ones the undo kept) are not in the way.
    // An agent's turn is replayed on what its paths hold now (refused where the user's
    // edits since touch its lines); the rest must be as the undo left it.
    let (mut after, mut replayed) = (after, Vec::new());
    if let Some((t, way, commit)) = replay {
        let targets = super::turn::targets(repo, t, way, commit)?;
        let edits: Vec<clada_git::TreeChange> = targets
            .iter()
            .map(|(path, entry)| clada_git::TreeChange {
                path: path.clone(),
                entry: *entry,
            })
            .collect();
        after.worktree = repo.edit_tree(after.worktree, &edits)?;
        replayed = targets.into_iter().map(|(p, _)| p).collect();
    }
    let checkout = repo.plan_checkout(before.worktree, after.worktree)?;
    let conflicts = repo.checkout_conflicts(before.worktree, &checkout)?;
    // Files the apply created and undo removed may not have come back in the meantime. An
    // untracked file the apply had overwritten and undo put back is no conflict while it
    // still holds what the apply record saved: the record keeps it for the next undo.
    for c in conflicts.iter().filter(|c| !replayed.contains(&c.path)) {
        if !saved_by_record(repo, journal, c.path.as_bstr())? {
            return Err(HistoryError::Refused(format!(
                "redo would overwrite '{}' ({}); move it away first (nothing was changed)",
                c.path, c.reason
            )));
        }
    }
    let untracked = untracked_redo(repo, journal)?;
    let conflicted: Vec<&BString> = conflicts.iter().map(|c| &c.path).collect();
    // Paths an untracked file saved by the record occupies are checked above.
    let paths: Vec<BString> = repo
        .diff_trees(before.worktree, after.worktree)?
        .into_iter()
        .map(|d| d.path)
        .filter(|p| !conflicted.contains(&p) && !replayed.contains(p))
        .collect();
    require_state(repo, before.index, before.worktree, &paths, "the undo")?;
    // The replayed paths are written whatever the undo left there: their content now is
    // merged into what they get.
    let mut checkout_paths: Vec<BString> = checkout.paths();
    for p in &replayed {
        if !checkout_paths.contains(p) {
            checkout_paths.push(p.clone());
        }
    }
    let mut plan = RestorePlan {
        head: after.head.to_string(),
        branch: Some(branch.to_string()),
        worktree_tree: after.worktree.to_string(),
        index_tree: after.index.to_string(),
        paths: checkout_paths.iter().map(|p| p.to_string()).collect(),
        untracked,
        flags: restore::flags_as_written(
            &repo.read_index()?,
            checkout_paths.iter().map(|p| p.as_bstr()),
        ),
        head_from: vec![tip.to_string()],
        ..Default::default()
    };
    plan.paths.sort();
    Ok(plan)
}

/// Whether the worktree file at `path` holds exactly what the apply record saved for it
/// (an untracked file or symlink the apply overwrote).
pub(super) fn saved_by_record(
    repo: &Repo,
    journal: Option<&Journal>,
    path: &clada_git::BStr,
) -> Result<bool, HistoryError> {
    let Some(jp) = journal.and_then(|j| {
        j.paths
            .iter()
            .find(|jp| jp.path.as_bytes() == path.as_bytes())
    }) else {
        return Ok(false);
    };
    match jp.before {
        Before::Blob { .. } | Before::Link { .. } => holds(repo, path, &jp.before),
        _ => Ok(false),
    }
}

/// Whether the worktree holds `state` at `path` right now (content and kind; for a file the
/// bytes, for a symlink its target).
pub(super) fn holds(
    repo: &Repo,
    path: &clada_git::BStr,
    state: &Before,
) -> Result<bool, HistoryError> {
    use clada_git::Content;
    let md = repo.worktree_metadata(path)?;
    Ok(match (state, md) {
        (Before::Absent, md) => md.is_none(),
        (Before::Dir, Some(md)) => md.is_dir(),
        (Before::Blob { id, .. }, Some(md)) if md.is_file() => {
            matches!(repo.worktree_content(path)?, Some((Content::File(b), _)) if b == repo.read_blob(parse_id(id)?)?)
        }
        (Before::Link { id }, Some(md)) if md.is_symlink() => {
            matches!(repo.worktree_content(path)?, Some((Content::Link(t), _)) if t == repo.read_blob(parse_id(id)?)?)
        }
        _ => false,
    })
}

/// The untracked paths redo must put back as the apply left them (an untracked file the
/// reply deleted, an ignored file it wrote): each must still be as undo restored it, or the
/// redo is refused rather than lose a change made since.
pub(super) fn untracked_redo(
    repo: &Repo,
    journal: Option<&Journal>,
) -> Result<Vec<JournalPath>, HistoryError> {
    let Some(j) = journal else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for (before, after) in untracked_changes(j) {
        let rel = BString::from(after.path.as_str());
        if !holds(repo, rel.as_bstr(), &before.before)? {
            return Err(HistoryError::Refused(format!(
                "redo would change '{}', which changed since the undo; move it away first (nothing was changed)",
                after.path
            )));
        }
        out.push(after.clone());
    }
    Ok(out)
}
