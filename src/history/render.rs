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
