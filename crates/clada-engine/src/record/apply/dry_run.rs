//! `--dry-run`: the same parse, plan and state read as a real apply (phases 1 and 3, without
//! the lock), then the engine runs against an in-memory overlay. Nothing on disk changes,
//! not even `.git`; the report and the diff that would be committed come back.

use std::collections::BTreeMap;

use crate::action::{self, FileState};
use crate::sandbox::Sandbox;
use clada_git::Status;

use super::super::snapshot;
use super::{uncommitted, ApplyError, ApplyOptions, ApplyOutcome};

/// `--dry-run`: the engine runs against an in-memory overlay; the report and the diff that
/// would be committed come back, and nothing on disk (not even `.git`) changes.
pub(super) fn dry_run(
    plan: &action::Plan,
    sandbox: &Sandbox,
    opts: &ApplyOptions,
    status: &Status,
) -> Result<ApplyOutcome, ApplyError> {
    let mut execution = action::execute(plan, sandbox, &opts.engine);
    let mut diff = String::new();
    let mut seen = BTreeMap::new();
    for c in &execution.changes {
        if let Some(rel) = &c.rel {
            seen.insert(rel.clone(), (c.before.clone(), c.after.clone()));
        }
    }
    for (rel, (before, after)) in &seen {
        diff.push_str(&unified_diff(rel, before, after));
    }
    if status.is_dirty() {
        execution.result.warnings.push(format!(
            "your uncommitted changes ({}) stay uncommitted (where the AI changes a file you changed too, both changes are kept)",
            snapshot::describe_paths(&status.dirty_paths(), 5)
        ));
    }
    execution
        .result
        .warnings
        .push("dry run: nothing was changed".into());
    Ok(ApplyOutcome {
        diff: Some(diff),
        ..uncommitted(execution)
    })
}

fn unified_diff(rel: &str, before: &FileState, after: &FileState) -> String {
    let text = |s: &FileState| -> Option<String> {
        match s {
            FileState::File { bytes, .. } => Some(String::from_utf8_lossy(bytes).into_owned()),
            FileState::Symlink { target } => Some(format!("{}\n", target.display())),
            _ => None,
        }
    };
    let (a, b) = (text(before), text(after));
    if a == b {
        return String::new();
    }
    let old_name = if a.is_some() {
        format!("a/{rel}")
    } else {
        "/dev/null".into()
    };
    let new_name = if b.is_some() {
        format!("b/{rel}")
    } else {
        "/dev/null".into()
    };
    let a = a.unwrap_or_default();
    let b = b.unwrap_or_default();
    let diff = similar::TextDiff::from_lines(&a, &b);
    let mut out = format!("diff --git a/{rel} b/{rel}\n");
    out.push_str(
        &diff
            .unified_diff()
            .context_radius(3)
            .header(&old_name, &new_name)
            .to_string(),
    );
    out
}
