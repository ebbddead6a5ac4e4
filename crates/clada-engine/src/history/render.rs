//! Human-readable text for the history commands' reports: undo/redo, squash, step-back/forward,
//! log, status and show (their JSON form is the serde form of the same structs).
//!
//! Subjects, paths and branch names come from replies and repositories: each function takes
//! how they are [`Shown`] (escaped for a terminal, or exact for a model) and puts every one
//! into the text through it.

use super::undo::UndoReport;
use clada_base::term::{Rule, Shown};

/// Paths for a report line, each shown as a name, the list cut after `max`.
/// A name (subject, author, branch, path, session): escaped in every format, since a name
/// read from a commit or a note reaches a terminal through any pipe (`git clada log | head`),
/// and no reader of the llm format needs a control character in one.
fn escaped_name(text: &str) -> std::borrow::Cow<'_, str> {
    clada_base::term::escape(text, Rule::Name)
}

fn paths_shown(paths: &[String], max: usize) -> String {
    crate::record::snapshot::describe_paths(
        &paths
            .iter()
            .map(|p| escaped_name(p).into_owned().into())
            .collect::<Vec<_>>(),
        max,
    )
}

fn short(hex: &str) -> &str {
    hex.get(..7).unwrap_or(hex)
}

/// What an undo or redo report is about, as a noun phrase: `the apply 1a2b3c4 "AI: edit
/// a.txt"`, `the uncommitted apply of reply.md`, `the step-back to 9f8e7d6 "fix"`, `the
/// interrupted apply of stdin`.
pub fn operation_phrase(r: &UndoReport) -> String {
    let subject = escaped_name(r.subject.as_deref().unwrap_or_default());
    let commit = r.commit.as_deref().map(short).unwrap_or_default();
    match r.kind.as_str() {
        "apply" | "squash" | "turn" => format!("the {} {commit} \"{subject}\"", r.kind),
        "uncommitted-apply" | "uncommitted-turn" | "step-back" | "step-forward" => {
            format!("the {subject}")
        }
        "interrupted-apply" => format!("the {subject}"),
        "interrupted-restore" => format!("the interrupted {subject}"),
        _ => subject.to_string(),
    }
}

/// `Undid the apply 1a2b3c4 "AI: edit a.txt": HEAD is now at 9f8e7d6`, then the paths rewritten,
/// the user's work, and what to do next.
pub fn undo_report(r: &UndoReport) -> String {
    let what = operation_phrase(r);
    let head = if r.dry_run {
        format!("HEAD would be at {}", short(&r.to))
    } else {
        format!("HEAD is now at {}", short(&r.to))
    };
    let mut out = match (r.operation.as_str(), r.kind.as_str(), r.dry_run) {
        ("undo", _, false) => format!("Undid {what}: {head}"),
        ("undo", _, true) => format!("Would undo {what}: {head}"),
        ("redo", _, false) => format!("Redid {what}: {head}"),
        ("redo", _, true) => format!("Would redo {what}: {head}"),
        (_, "interrupted-apply", false) => {
            format!(
                "Rolled back {what} (it had not finished; none of its changes are left): {head}"
            )
        }
        (_, "interrupted-apply", true) => {
            format!("Would roll back {what} (it had not finished): {head}")
        }
        (_, "interrupted-restore", false) => {
            format!("Completed {what}, which had been interrupted: {head}")
        }
        (_, "interrupted-restore", true) => format!("Would complete {what}: {head}"),
        (_, _, false) => format!("Finished {what}: {head}"),
        (_, _, true) => format!("Would finish {what}: {head}"),
    };
    out.push('\n');
    if !r.paths.is_empty() {
        out.push_str(&format!(
            "{} {}: {}\n",
            clada_read::text::count(r.paths.len(), "path", "paths"),
            if r.dry_run {
                "would be rewritten"
            } else {
                "rewritten"
            },
            paths_shown(&r.paths, 8)
        ));
    }
    if let Some(w) = &r.restored_work {
        out.push_str(&format!(
            "your uncommitted work {} back: {} staged, {} unstaged {}\n",
            if r.dry_run { "would come" } else { "is" },
            w.staged,
            w.unstaged,
            if w.staged + w.unstaged == 1 {
                "path"
            } else {
                "paths"
            }
        ));
    }
    if !r.dry_run {
        match r.operation.as_str() {
            "undo" => out.push_str(
                "`git clada redo` puts it back; `git clada undo` again takes back the operation before it\n",
            ),
            "redo" => out.push_str("`git clada undo` takes it back again\n"),
            _ => {}
        }
    }
    out
}

/// `git clada undo --list`.
pub fn stack_list(r: &super::undo::StackList, shown: Shown) -> String {
    let line = |n: usize, op: &super::undo::ListedOp| match &op.commit {
        Some(c) if !op.subject.contains(short(c)) => format!(
            "  {n}. {} {} \"{}\"\n",
            op.kind,
            short(c),
            escaped_name(&op.subject)
        ),
        _ => format!("  {n}. {}\n", escaped_name(&op.subject)),
    };
    let branch = escaped_name(&r.branch);
    let mut out = String::new();
    if r.undo.is_empty() {
        out.push_str(&format!(
            "Undo on {branch}: nothing (HEAD is not a git-clada operation)\n"
        ));
    } else {
        out.push_str(&format!(
            "Undo on {branch} (newest first; `git clada undo` takes back the first):\n"
        ));
        for (i, op) in r.undo.iter().enumerate() {
            out.push_str(&line(i + 1, op));
        }
        if r.undo_truncated {
            out.push_str("  …\n");
        }
    }
    if r.redo.is_empty() {
        out.push_str("Redo: nothing (no undo since the last operation)\n");
    } else {
        match &r.redo_stale {
            Some(why) => out.push_str(&format!("Redo (recorded, but {}):\n", shown.content(why))),
            None => out.push_str("Redo (`git clada redo` puts back the first):\n"),
        }
        for (i, op) in r.redo.iter().enumerate() {
            out.push_str(&line(i + 1, op));
        }
    }
    out
}

/// `Squashed 3 commits into 1a2b3c4 "AI: …"` per group, then what was copied or left alone.
pub fn squash_report(r: &super::squash::SquashReport, shown: Shown) -> String {
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
            escaped_name(&g.subject)
        ));
        for c in &g.squashed {
            let mark = if c.kind == "snapshot" {
                "  (snapshot of your own uncommitted work, folded in)"
            } else {
                ""
            };
            out.push_str(&format!(
                "  {} {}{mark}\n",
                short(&c.commit),
                escaped_name(&c.subject)
            ));
        }
    }
    if !r.replayed.is_empty() {
        out.push_str(&format!(
            "{} commit(s) above {} copied with new parents (same content and message):\n",
            r.replayed.len(),
            if r.dry_run { "would be" } else { "were" }
        ));
        for c in &r.replayed {
            out.push_str(&format!(
                "  {} {}\n",
                short(&c.commit),
                escaped_name(&c.subject)
            ));
        }
    }
    if !r.left_alone.is_empty() {
        out.push_str("Left as they are:\n");
        for c in &r.left_alone {
            out.push_str(&format!(
                "  {} {} ({})\n",
                short(&c.commit),
                escaped_name(&c.subject),
                shown.content(&c.reason)
            ));
        }
    }
    let branch = escaped_name(r.branch.strip_prefix("refs/heads/").unwrap_or(&r.branch));
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
    let branch = escaped_name(r.branch.strip_prefix("refs/heads/").unwrap_or(&r.branch));
    let would = |done: &'static str, planned: &'static str| if r.dry_run { planned } else { done };
    let list = |v: &[String]| paths_shown(v, 8);
    if !r.stashed_files.is_empty() {
        out.push_str(&format!(
            "{} your uncommitted work ({} file(s): {}){}\n",
            would("Parked", "Would park"),
            r.stashed_files.len(),
            list(&r.stashed_files),
            match (&r.stash, &r.stash_ref, r.dry_run) {
                (Some(s), Some(name), false) => {
                    format!(" in {} ({})", escaped_name(name), short(s))
                }
                _ => String::new(),
            }
        ));
    }
    if r.returned {
        out.push_str(&format!(
            "{} on {branch} at {} \"{}\"\n",
            would("Back", "Would be back"),
            short(&r.to),
            escaped_name(&r.subject)
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
            escaped_name(&r.subject),
            r.behind
        ));
    }
    if !r.paths.is_empty() {
        out.push_str(&format!(
            "{} {}: {}\n",
            clada_read::text::count(r.paths.len(), "path", "paths"),
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

/// One line per git-clada commit: `1a2b3c4  2 hours ago  AI: edit a.txt  [3 ok, 1 failed]`.
pub fn log_report(r: &super::log::LogReport) -> String {
    if r.entries.is_empty() {
        return format!("no git-clada commits on {}\n", escaped_name(&r.branch));
    }
    let age_width = r.entries.iter().map(|e| e.age.len()).max().unwrap_or(0);
    let mut out = String::new();
    for e in &r.entries {
        let marker = if e.current { "*" } else { " " };
        let tag = match e.kind.as_str() {
            "snapshot" => "[snapshot of your uncommitted work]".to_string(),
            _ => {
                let mut parts = Vec::new();
                if let Some(n) = e.squashed {
                    parts.push(format!("squash of {n}"));
                }
                if let Some(agent) = &e.agent {
                    let what = match e.squashed {
                        Some(_) => escaped_name(agent).into_owned(),
                        None => format!("{} turn", escaped_name(agent)),
                    };
                    parts.push(what);
                }
                if let Some(n) = e.tool_calls {
                    parts.push(clada_read::text::count(n, "tool call", "tool calls"));
                }
                if e.agent.is_none() || e.blocks_ok + e.blocks_failed > 0 {
                    parts.push(format!("{} ok", e.blocks_ok));
                }
                if e.blocks_failed > 0 {
                    parts.push(format!("{} failed", e.blocks_failed));
                }
                if e.blocks_waiting > 0 {
                    parts.push(format!("{} ⏸ waiting for you", e.blocks_waiting));
                }
                if e.hooks_skipped {
                    parts.push("hooks skipped".to_string());
                }
                if !e.sessions.is_empty() {
                    parts.push(format!("session {}", escaped_name(&e.sessions.join(" "))));
                }
                format!("[{}]", parts.join(", "))
            }
        };
        out.push_str(&format!(
            "{marker}{}  {:<age_width$}  {}  {tag}\n",
            short(&e.commit),
            e.age,
            escaped_name(&e.subject)
        ));
    }
    out
}

/// Where you are: branch, step-back position, interrupted work, what undo would do.
pub fn status_report(r: &super::log::StatusReport, shown: Shown) -> String {
    let mut out = String::new();
    let at = match (&r.head, &r.subject) {
        (Some(h), Some(s)) => format!("at {} \"{}\"", short(h), escaped_name(s)),
        _ => "with no commits yet".into(),
    };
    match (&r.stepped_back, &r.branch) {
        (Some(s), _) => {
            out.push_str(&format!(
                "Stepped back: at {} of {}{} behind {}: {} ({}, HEAD detached)\n",
                s.behind,
                s.total,
                if s.total_is_lower_bound { "+" } else { "" },
                escaped_name(&s.branch),
                escaped_name(&s.subject),
                short(&s.position)
            ));
            match &s.stash {
                Some(stash) => out.push_str(&format!(
                    "Your uncommitted work is parked in {}; `git clada step-forward --all` returns to {} and restores it\n",
                    escaped_name(stash),
                    escaped_name(&s.branch)
                )),
                None => out.push_str(&format!(
                    "`git clada step-forward --all` returns to {}\n",
                    escaped_name(&s.branch)
                )),
            }
        }
        (None, Some(b)) => out.push_str(&format!("On branch {} {at}\n", escaped_name(b))),
        (None, None) => out.push_str(&format!("HEAD detached {at}\n")),
    }
    if let Some(p) = &r.in_progress {
        out.push_str(&format!("git: {}\n", shown.content(p)));
    }
    if let Some(i) = &r.interrupted {
        out.push_str(&format!("Interrupted: {}\n", shown.content(i)));
    }
    if !r.hook_called.is_empty() {
        let said = crate::record::called::describe(
            r.hook_called
                .iter()
                .map(|m| (m.path.as_str(), m.from.as_str())),
        );
        out.push_str(&format!(
            "⏸ Hooks: {said} (read it; `git clada status --ack {}` once you have)\n",
            shown.name(&r.hook_called[0].path)
        ));
    }
    if let Some(p) = &r.index_problem {
        out.push_str(&format!(
            "Index: {}; your next commit could lose files: run `git clada repair-index` first\n",
            shown.content(p)
        ));
    }
    match (&r.undo, &r.undo_refused) {
        (Some(u), _) => {
            let what = match (u.operation.as_str(), u.kind.as_str()) {
                ("recover", "interrupted-apply") => {
                    format!("roll back {}", operation_phrase(u))
                }
                ("recover", "interrupted-restore") => {
                    format!("complete {}", operation_phrase(u))
                }
                ("recover", _) => format!("finish {}", operation_phrase(u)),
                _ => format!("take back {}", operation_phrase(u)),
            };
            out.push_str(&format!("`git clada undo` would {what}"));
            if let Some(w) = &u.restored_work {
                out.push_str(&format!(
                    " and bring back your uncommitted work ({} staged, {} unstaged {})",
                    w.staged,
                    w.unstaged,
                    if w.staged + w.unstaged == 1 {
                        "path"
                    } else {
                        "paths"
                    }
                ));
            }
            out.push('\n');
        }
        (None, Some(why)) => out.push_str(&format!(
            "`git clada undo` would refuse: {}\n",
            shown.content(why)
        )),
        (None, None) => {}
    }
    if let Some(redo) = &r.redo {
        out.push_str(&format!(
            "`git clada redo` would put back {}\n",
            operation_phrase(redo)
        ));
    }
    out
}

/// The commit, then each stored reply followed by its result report in `format` (a human
/// report is escaped whatever `shown` says: it is for people).
pub fn show_report(
    r: &super::log::ShowReport,
    format: crate::report::ReportFormat,
    color: bool,
    shown: Shown,
) -> String {
    let mut out = format!(
        "{} {} \"{}\"\nAuthor: {}\n",
        r.kind,
        short(&r.commit),
        escaped_name(&r.subject),
        escaped_name(&r.author)
    );
    if r.kind == "snapshot" {
        let paths: Vec<_> = r.snapshot_paths.iter().map(|p| escaped_name(p)).collect();
        out.push_str(&format!(
            "\nA snapshot of your own uncommitted work, recorded before an AI edit (no reply). Paths: {}\n",
            paths.join(", ")
        ));
        return out;
    }
    for turn in &r.turns {
        out.push_str(&turn_lines(turn));
    }
    let many = r.replies.len() > 1 || r.kind == "squash";
    for (n, reply) in r.replies.iter().enumerate() {
        if many {
            out.push_str(&format!(
                "\n=== {} of {}: {} \"{}\" ===\n",
                n + 1,
                r.replies.len(),
                short(&reply.commit),
                escaped_name(&reply.subject)
            ));
        }
        out.push_str("\n--- reply ---\n");
        match &reply.reply {
            Some(text) => {
                out.push_str(&shown.content(text));
                if !text.ends_with('\n') {
                    out.push('\n');
                }
            }
            None => out.push_str("(the reply is not stored in this repository)\n"),
        }
        out.push_str("\n--- result ---\n");
        match (reply.result(), &reply.report) {
            (Some(result), _) => {
                let report = crate::report::render(&result, format, color);
                match format {
                    crate::report::ReportFormat::Human => out.push_str(&report),
                    _ => out.push_str(&shown.content(&report)),
                }
            }
            (None, Some(raw)) => {
                let json = serde_json::to_string_pretty(raw).unwrap_or_default();
                out.push_str(&shown.apply(&json, Rule::Json));
                out.push('\n');
            }
            (None, None) => out.push_str("(no result report is stored for it)\n"),
        }
    }
    out
}

/// An agent's turn as `show` prints it: who, then one line per tool call with its paths
/// (names read from the record, escaped in every format).
fn turn_lines(t: &super::log::ShownTurn) -> String {
    let mut out = format!(
        "\n--- {} turn {} \"{}\" ---\nagent {}, session {}, model {}\n",
        escaped_name(&t.agent),
        short(&t.commit),
        escaped_name(&t.subject),
        escaped_name(&t.agent),
        escaped_name(&t.session),
        escaped_name(t.model.as_deref().unwrap_or("unknown"))
    );
    match &t.calls {
        Some(calls) => {
            out.push_str(&format!(
                "{}:\n",
                clada_read::text::count(calls.len(), "tool call", "tool calls")
            ));
            for (i, c) in calls.iter().enumerate() {
                let key = c
                    .key
                    .as_deref()
                    .map(|k| format!(" ({})", escaped_name(k)))
                    .unwrap_or_default();
                let paths: Vec<String> = c.paths.iter().map(|p| escaped_name(p).into_owned()).collect();
                out.push_str(&format!(
                    "  {}. {}{key}: {}\n",
                    i + 1,
                    escaped_name(&c.tool),
                    paths.join(", ")
                ));
            }
        }
        None => out.push_str("(the turn's record is not in this repository: its commit message lists the tool calls)\n"),
    }
    out
}

/// `git clada repair-index`.
pub fn repair_report(r: &super::repair::RepairReport, shown: Shown) -> String {
    match (&r.problem, r.repaired) {
        (None, _) => "The index's cache-tree agrees with its entries: nothing to repair.\n".into(),
        (Some(p), true) => format!(
            "Repaired the index: {}. Dropped the cache-tree (git rebuilds it at your next commit); entries and staged changes are as they were.\n",
            shown.content(p)
        ),
        (Some(p), false) => format!(
            "The index needs repair: {}. `git clada repair-index` drops the cache-tree (nothing else changes).\n",
            shown.content(p)
        ),
    }
}
