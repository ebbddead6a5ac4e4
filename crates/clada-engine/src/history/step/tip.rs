//! Returning to the tip after steps back: the parked work brought back, the untracked files
//! the walk moved aside restored, and what is in the way refused.

use super::*;

/// The last step-forward of a walk, which returned to the tip: kept under [`RETURNED_REF`]
/// so `git clada undo` can step back to where it came from while nothing else happened.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct Returned {
    pub branch: String,
    pub tip: String,
    /// The walk's positions, the tip first and last.
    pub trail: Vec<String>,
    /// The uncommitted-apply record at the time (an apply since changes it).
    pub pending: Option<String>,
}

impl Returned {
    pub(in crate::history) fn new(
        repo: &Repo,
        state: &StepState,
    ) -> Result<Returned, HistoryError> {
        Ok(Returned {
            branch: state.branch.clone(),
            tip: state.tip.to_string(),
            trail: read_trail(repo, state)?
                .iter()
                .map(|c| c.to_string())
                .collect(),
            pending: repo
                .read_ref(&crate::record::apply::pending_ref(Some(&state.branch)))?
                .map(|c| c.to_string()),
        })
    }
}

/// The last return to the tip of `branch`, when it is still the last thing that happened
/// there (HEAD on the branch at the same tip, no apply since).
pub fn returned(
    repo: &Repo,
    branch: &str,
    tip: ObjectId,
) -> Result<Option<Returned>, HistoryError> {
    let Ok(data) = std::fs::read(repo.git_dir().join(RETURNED_FILE)) else {
        return Ok(None);
    };
    let Ok(r) = serde_json::from_slice::<Returned>(&data) else {
        return Ok(None);
    };
    let pending = repo
        .read_ref(&crate::record::apply::pending_ref(Some(branch)))?
        .map(|c| c.to_string());
    Ok((r.branch == branch
        && ObjectId::from_hex(r.tip.as_bytes()).ok() == Some(tip)
        && r.pending == pending)
        .then_some(r))
}

/// The last step forward: back on the branch at its tip, with the parked work restored.
pub(in crate::history) fn return_to_tip(
    repo: &Repo,
    state: &StepState,
    position: &CommitInfo,
    mut report: StepReport,
    returned: Option<Returned>,
) -> Result<Move, HistoryError> {
    let tip_info = repo.commit_info(state.tip)?;
    let (w_tree, i_tree, untracked) = match state.stash {
        Some(w) => {
            let stash = repo.commit_info(w)?;
            let i_tree = match stash.parents.get(1) {
                Some(i) => repo.tree_of(*i)?,
                None => stash.tree,
            };
            let untracked = match stash.parents.get(2) {
                Some(u) => repo.tree_files(repo.tree_of(*u)?)?,
                None => Default::default(),
            };
            (stash.tree, i_tree, untracked)
        }
        None => (tip_info.tree, tip_info.tree, Default::default()),
    };
    let plan = repo.plan_checkout(position.tree, w_tree)?;
    let mut conflicts = repo.checkout_conflicts(position.tree, &plan)?;
    for (path, entry) in &untracked {
        if let Some(c) = untracked_conflict(repo, path.as_bstr(), entry, &plan)? {
            conflicts.push(c);
        }
    }
    if !conflicts.is_empty() {
        return Err(conflict_refusal(
            "returning to the tip and restoring your parked work",
            &conflicts,
        ));
    }
    report.to = state.tip.to_string();
    report.subject = tip_info.subject().to_string();
    report.behind = 0;
    report.returned = true;
    report.paths = plan.paths().iter().map(|p| p.to_string()).collect();
    if let Some(w) = state.stash {
        let mut restored: BTreeSet<String> = repo
            .diff_trees(tip_info.tree, w_tree)?
            .into_iter()
            .map(|d| d.path.to_string())
            .collect();
        restored.extend(
            repo.diff_trees(tip_info.tree, i_tree)?
                .into_iter()
                .map(|d| d.path.to_string()),
        );
        report.restored_files = restored.into_iter().collect();
        report
            .restored_files
            .extend(untracked.keys().map(|p| p.to_string()));
        let _ = w;
    }
    if report.dry_run {
        return Ok(Move::dry(report));
    }
    write_orig_head(repo, position.id)?;
    let untracked_paths: Vec<JournalPath> = untracked
        .iter()
        .filter_map(|(path, entry)| {
            let before = match entry.kind {
                EntryKind::Link => Before::Link {
                    id: entry.id.to_string(),
                },
                EntryKind::Blob | EntryKind::Executable => Before::Blob {
                    id: entry.id.to_string(),
                    executable: entry.kind == EntryKind::Executable,
                },
                EntryKind::Commit | EntryKind::Tree => return None,
            };
            Some(JournalPath {
                path: path.to_string(),
                before,
            })
        })
        .collect();
    let short_branch = state
        .branch
        .strip_prefix("refs/heads/")
        .unwrap_or(&state.branch);
    let mut restore_plan = RestorePlan::new(
        format!("step-forward to the tip of {short_branch}"),
        state.tip,
        Some(state.branch.clone()),
        w_tree,
        i_tree,
        report.paths.clone(),
    );
    restore_plan.untracked = untracked_paths;
    restore_plan.flags = state.flags.clone();
    restore_plan.head_from = vec![state.tip.to_string()];
    // The state goes once HEAD is back, the tip first: once it is gone nothing refuses any
    // more.
    restore_plan.refs_after = vec![
        RefChange::delete(STATE_REF),
        RefChange::delete(POSITION_REF),
        RefChange::delete(BRANCH_REF),
        RefChange::delete(FLAGS_REF),
        RefChange::delete(stash_ref(state.tip)),
        RefChange::delete(TRAIL_REF),
    ];
    let reflog = format!(
        "clada: step-forward to the tip {}: back on {short_branch}",
        Repo::short(state.tip)
    );
    let mut mv = Move::planned(report, restore_plan, reflog);
    mv.returned = returned;
    Ok(mv)
}

/// The untracked files to park: a tree of their raw bytes (links as their target), and
/// their paths. `None` when there are none. Only files and symlinks are parked; anything
/// else (a nested repository, a socket) stays where it is.
pub(super) fn untracked_tree(
    repo: &Repo,
    untracked: &[BString],
) -> Result<(Option<ObjectId>, Vec<BString>), HistoryError> {
    let mut changes = Vec::new();
    let mut parked = Vec::new();
    for rel in untracked {
        // Read through directory handles from the root: what goes into the stash commit is
        // never read through a directory swapped for a link.
        let entry = match repo.worktree_content(rel.as_bstr())? {
            Some((Content::Link(target), _)) => Entry {
                kind: EntryKind::Link,
                id: repo.write_blob(&target)?,
            },
            Some((Content::File(data), md)) => Entry {
                kind: if md.is_executable() {
                    EntryKind::Executable
                } else {
                    EntryKind::Blob
                },
                id: repo.write_blob(&data)?,
            },
            None => continue,
        };
        changes.push(TreeChange {
            path: rel.clone(),
            entry: Some(entry),
        });
        parked.push(rel.clone());
    }
    if changes.is_empty() {
        return Ok((None, parked));
    }
    Ok((Some(repo.edit_tree(repo.empty_tree(), &changes)?), parked))
}

/// Whether a checkout conflict disappears once the parked untracked files are removed: the
/// path itself is parked, or it is a directory holding only parked files and files the
/// checkout deletes.
pub(super) fn goes_away(
    repo: &Repo,
    path: &BStr,
    parked: &BTreeSet<&BStr>,
    plan: &CheckoutPlan,
) -> bool {
    if parked.contains(path) {
        return true;
    }
    let Ok(root) = repo.worktree() else {
        return false;
    };
    let deleted: BTreeSet<&BStr> = plan.deletes.iter().map(|p| p.as_bstr()).collect();
    let mut stack: Vec<BString> = vec![path.to_owned()];
    while let Some(dir) = stack.pop() {
        let listed = root
            .dir(std::path::Path::new(std::ffi::OsStr::from_bytes(&dir)))
            .and_then(|d| d.list());
        let Ok(entries) = listed else {
            return false;
        };
        for (name, meta) in entries {
            let mut rel = dir.clone();
            rel.push(b'/');
            rel.extend_from_slice(name.as_bytes());
            if meta.is_dir() {
                stack.push(rel);
            } else if !parked.contains(rel.as_bstr()) && !deleted.contains(rel.as_bstr()) {
                return false;
            }
        }
    }
    true
}

/// Whether restoring the parked untracked file `path` would overwrite something that is
/// there now (created while stepped back, or ignored); the same content is no conflict.
pub(super) fn untracked_conflict(
    repo: &Repo,
    path: &BStr,
    entry: &Entry,
    plan: &CheckoutPlan,
) -> Result<Option<PathConflict>, HistoryError> {
    let deleted: BTreeSet<&BStr> = plan.deletes.iter().map(|p| p.as_bstr()).collect();
    let mut parent = path;
    while let Some(pos) = parent.rfind_byte(b'/') {
        parent = parent[..pos].as_bstr();
        if let Some(md) = repo.worktree_metadata(parent)? {
            if !md.is_dir() && !deleted.contains(parent) {
                return Ok(Some(PathConflict {
                    path: parent.to_owned(),
                    reason: format!(
                        "a file stands where the directory of your parked '{path}' goes"
                    ),
                }));
            }
        }
    }
    let Some(md) = repo.worktree_metadata(path)? else {
        return Ok(None);
    };
    // What the checkout removes first (a file tracked here but not at the tip, a directory
    // of such files) is not in the way.
    if deleted.contains(path) || (md.is_dir() && goes_away(repo, path, &BTreeSet::new(), plan)) {
        return Ok(None);
    }
    if md.is_dir() {
        return Ok(Some(PathConflict {
            path: path.to_owned(),
            reason: "a directory stands where your parked untracked file goes".into(),
        }));
    }
    let same = match repo.worktree_content(path).ok().flatten() {
        Some((Content::Link(t), _)) => {
            entry.kind == EntryKind::Link && t == repo.read_blob(entry.id)?
        }
        Some((Content::File(b), _)) => {
            entry.kind != EntryKind::Link && b == repo.read_blob(entry.id)?
        }
        None => false,
    };
    if same {
        return Ok(None);
    }
    Ok(Some(PathConflict {
        path: path.to_owned(),
        reason: "a different file stands where your parked untracked file goes".into(),
    }))
}
