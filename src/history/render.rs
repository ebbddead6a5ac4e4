//! Human-readable lines for the history commands' reports (JSON is their serde form).

use super::undo::UndoReport;

fn short(hex: &str) -> &str {
    hex.get(..7).unwrap_or(hex)
}

/// `Undid apply 1a2b3c4 "AI: edit a.txt": main is back at 9f8e7d6; …`
pub fn undo_report(r: &UndoReport) -> String {
    let verb = match (r.operation.as_str(), r.dry_run) {
        ("undo", false) => "Undid",
        ("undo", true) => "Would undo",
        ("redo", false) => "Redid",
        ("redo", true) => "Would redo",
        (_, false) => "Finished",
        (_, true) => "Would finish",
    };
    let what = match (&r.commit, &r.subject) {
        (Some(c), Some(s)) if r.operation != "recover" => {
            format!("{} {} \"{s}\"", r.kind, short(c))
        }
        (_, Some(s)) => s.clone(),
        _ => r.kind.clone(),
    };
    let mut out = format!(
        "{verb} {what}: HEAD {} at {}",
        if r.dry_run { "would be" } else { "is now" },
        short(&r.to)
    );
    out.push('\n');
    if !r.paths.is_empty() {
        out.push_str(&format!(
            "{} path(s) {}: {}\n",
            r.paths.len(),
            if r.dry_run {
                "would be rewritten"
            } else {
                "rewritten"
            },
            crate::record::snapshot::describe_paths(
                &r.paths
                    .iter()
                    .map(|p| p.as_str().into())
                    .collect::<Vec<_>>(),
                8
            )
        ));
    }
    if let Some(w) = &r.restored_work {
        out.push_str(&format!(
            "your uncommitted work {} back: {} staged, {} unstaged path(s)\n",
            if r.dry_run { "would come" } else { "is" },
            w.staged,
            w.unstaged
        ));
    }
    if r.operation == "undo" && !r.dry_run {
        out.push_str("`git clada redo` re-applies it while nothing else changes\n");
    }
    out
}

/// `Squashed 3 commits into 1a2b3c4 "AI: …"` per group, then what was copied or left alone.
pub fn squash_report(r: &super::squash::SquashReport) -> String {
    let mut out = String::new();
    let (verb, moved) = if r.dry_run {
        ("Would squash", "would move")
    } else {
        ("Squashed", "moved")
    };
    for g in &r.groups {
        out.push_str(&format!(
            "{verb} {} commits into {} \"{}\":\n",
            g.squashed.len(),
            short(&g.commit),
            g.subject
        ));
        for c in &g.squashed {
            let mark = if c.kind == "snapshot" {
                "  (snapshot of your own uncommitted work, folded in)"
            } else {
                ""
            };
            out.push_str(&format!("  {} {}{mark}\n", short(&c.commit), c.subject));
        }
    }
    if !r.replayed.is_empty() {
        out.push_str(&format!(
            "{} commit(s) above {} copied with new parents (same content and message):\n",
            r.replayed.len(),
            if r.dry_run { "would be" } else { "were" }
        ));
        for c in &r.replayed {
            out.push_str(&format!("  {} {}\n", short(&c.commit), c.subject));
        }
    }
    if !r.left_alone.is_empty() {
        out.push_str("Left as they are:\n");
        for c in &r.left_alone {
            out.push_str(&format!(
                "  {} {} ({})\n",
                short(&c.commit),
                c.subject,
                c.reason
            ));
        }
    }
    let branch = r.branch.strip_prefix("refs/heads/").unwrap_or(&r.branch);
    out.push_str(&format!(
        "{branch} {moved} from {} to {}; the final tree, the index and your files are unchanged\n",
        short(&r.from),
        short(&r.to)
    ));
    if !r.dry_run {
        out.push_str("`git clada undo` takes the squash back\n");
    }
    out
}

/// What a step-back or step-forward did.
pub fn step_report(r: &super::step::StepReport) -> String {
    let mut out = String::new();
    let branch = r.branch.strip_prefix("refs/heads/").unwrap_or(&r.branch);
    let would = |done: &'static str, planned: &'static str| if r.dry_run { planned } else { done };
    let list = |v: &[String]| {
        crate::record::snapshot::describe_paths(
            &v.iter().map(|p| p.as_str().into()).collect::<Vec<_>>(),
            8,
        )
    };
    if !r.stashed_files.is_empty() {
        out.push_str(&format!(
            "{} your uncommitted work ({} file(s): {}){}\n",
            would("Parked", "Would park"),
            r.stashed_files.len(),
            list(&r.stashed_files),
            match (&r.stash, &r.stash_ref, r.dry_run) {
                (Some(s), Some(name), false) => format!(" in {name} ({})", short(s)),
                _ => String::new(),
            }
        ));
    }
    if r.returned {
        out.push_str(&format!(
            "{} on {branch} at {} \"{}\"\n",
            would("Back", "Would be back"),
            short(&r.to),
            r.subject
        ));
        if !r.restored_files.is_empty() {
            out.push_str(&format!(
                "your parked work {} ({} file(s): {})\n",
                would("is restored", "would be restored"),
                r.restored_files.len(),
                list(&r.restored_files)
            ));
        }
    } else {
        let verb = if r.operation == "step-back" {
            would("Stepped back", "Would step back")
        } else {
            would("Stepped forward", "Would step forward")
        };
        out.push_str(&format!(
            "{verb} to {} \"{}\": {} commit(s) behind {branch}, HEAD detached\n",
            short(&r.to),
            r.subject,
            r.behind
        ));
    }
    if !r.paths.is_empty() {
        out.push_str(&format!(
            "{} path(s) {}: {}\n",
            r.paths.len(),
            would("rewritten", "would be rewritten"),
            list(&r.paths)
        ));
    }
    if !r.returned && !r.dry_run {
        out.push_str(&format!(
            "`git clada step-forward` goes one commit forward, `git clada step-forward --all` returns to {branch}{}\n",
            if r.stash.is_some() { " and restores your work" } else { "" }
        ));
    }
    out
}
