//! The AI commit's message (DESIGN §6.7): a subject naming what changed, one line per block,
//! and the trailers that identify the commit as git-clada's.
//!
//! ```text
//! AI: edit src/lib.rs, create src/util.rs (+2 more)
//!
//! Applied 4 of 5 blocks from reply.md.
//! - abc file_replace_text src/lib.rs
//! - xyz file_replace_text src/main.rs: FAILED old_text not found in file
//!
//! Clada-Version: 0.1.0
//! Clada-Reply: <blob id of the reply text>
//! Clada-Blocks: abc def ghi jkl
//! Clada-Failed: xyz
//! ```

use crate::action::ExecutionResult;

use super::trailer;

/// How a committed path changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verb {
    Create,
    Edit,
    Delete,
}

/// One entry of the subject line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    Path(Verb, String),
    Move(String, String),
}

impl Item {
    fn text(&self) -> String {
        match self {
            Item::Path(Verb::Create, p) => format!("create {p}"),
            Item::Path(Verb::Edit, p) => format!("edit {p}"),
            Item::Path(Verb::Delete, p) => format!("delete {p}"),
            Item::Move(a, b) => format!("move {a} to {b}"),
        }
    }
}

/// Collapses a deletion and a creation that a successful `file_move` block explains into one
/// `move` item.
pub fn fold_moves(items: Vec<Item>, result: &ExecutionResult) -> Vec<Item> {
    let moves: Vec<(String, String)> = result
        .results
        .iter()
        .filter(|r| r.success && r.action == "file_move")
        .filter_map(|r| {
            let old = r
                .params
                .get("old_path")?
                .as_str()?
                .trim_start_matches("./")
                .to_string();
            let new = r
                .params
                .get("new_path")?
                .as_str()?
                .trim_start_matches("./")
                .to_string();
            Some((old, new))
        })
        .collect();
    let mut out: Vec<Item> = Vec::with_capacity(items.len());
    for item in items {
        if let Item::Path(Verb::Create, p) = &item {
            let from = moves.iter().find(|(o, n)| {
                n == p
                    && out
                        .iter()
                        .any(|i| *i == Item::Path(Verb::Delete, o.clone()))
            });
            if let Some((o, n)) = from {
                out.retain(|i| *i != Item::Path(Verb::Delete, o.clone()));
                out.push(Item::Move(o.clone(), n.clone()));
                continue;
            }
        }
        out.push(item);
    }
    out
}

/// `AI: edit a, create b (+3 more)`, kept near git's 72-column convention.
pub fn subject(items: &[Item]) -> String {
    if items.is_empty() {
        return "AI: no file changes".into();
    }
    let texts: Vec<String> = items.iter().map(Item::text).collect();
    for shown in [2usize, 1] {
        let n = shown.min(texts.len());
        let mut s = format!("AI: {}", texts[..n].join(", "));
        if texts.len() > n {
            s.push_str(&format!(" (+{} more)", texts.len() - n));
        }
        if s.chars().count() <= 72 || n == 1 {
            return s;
        }
    }
    unreachable_subject(&texts)
}

fn unreachable_subject(texts: &[String]) -> String {
    format!("AI: {}", texts.join(", "))
}

/// The full message. `subject_override` is `-m`; `coauthor` an optional `Co-authored-by` value.
pub fn build(
    result: &ExecutionResult,
    items: &[Item],
    source: &str,
    reply_blob: &str,
    subject_override: Option<&str>,
    coauthor: Option<&str>,
) -> String {
    let mut msg = match subject_override {
        Some(s) => s.trim().to_string(),
        None => subject(items),
    };
    msg.push_str("\n\n");
    let ok = result.results.iter().filter(|r| r.success).count();
    let total = result.total_blocks.max(result.results.len());
    msg.push_str(&format!("Applied {ok} of {total} blocks from {source}.\n"));
    for r in &result.results {
        let primary = crate::report::primary(r);
        let mut line = format!("- {} {}", r.block_id, r.action);
        if !primary.is_empty() {
            line.push(' ');
            line.push_str(&primary);
        }
        if !r.success {
            let err = r.error.as_deref().unwrap_or("failed");
            line.push_str(": FAILED ");
            line.push_str(err.lines().next().unwrap_or(err));
        }
        msg.push_str(&line);
        msg.push('\n');
    }
    for e in &result.parse_errors {
        msg.push_str(&format!(
            "- {} not run: {}\n",
            e.block_id,
            e.message.lines().next().unwrap_or(&e.message)
        ));
    }
    let ok_ids: Vec<&str> = result
        .results
        .iter()
        .filter(|r| r.success)
        .map(|r| r.block_id.as_str())
        .collect();
    let mut failed_ids: Vec<&str> = result
        .results
        .iter()
        .filter(|r| !r.success)
        .map(|r| r.block_id.as_str())
        .chain(result.parse_errors.iter().map(|e| e.block_id.as_str()))
        .collect();
    failed_ids.dedup();
    msg.push('\n');
    msg.push_str(&format!("{}: {}\n", trailer::VERSION, crate::VERSION));
    msg.push_str(&format!("{}: {reply_blob}\n", trailer::REPLY));
    msg.push_str(&format!("{}: {}\n", trailer::BLOCKS, ok_ids.join(" ")));
    if !failed_ids.is_empty() {
        msg.push_str(&format!("{}: {}\n", trailer::FAILED, failed_ids.join(" ")));
    }
    if let Some(c) = coauthor {
        msg.push_str(&format!("Co-authored-by: {c}\n"));
    }
    msg
}

/// `msg` with a `Clada-Session` trailer naming `session` (the MCP session whose tool call
/// made the commit), placed after git-clada's other trailers and before `Co-authored-by`.
pub fn with_session(msg: String, session: Option<&str>) -> String {
    let Some(session) = session else {
        return msg;
    };
    let line = format!("{}: {session}\n", trailer::SESSION);
    match msg.find("\nCo-authored-by: ") {
        Some(at) => format!("{}{line}{}", &msg[..=at], &msg[at + 1..]),
        None => msg + &line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subject_names_two_items_and_counts_the_rest() {
        let items = vec![
            Item::Path(Verb::Edit, "src/lib.rs".into()),
            Item::Path(Verb::Create, "src/util.rs".into()),
            Item::Path(Verb::Delete, "a".into()),
            Item::Path(Verb::Delete, "b".into()),
        ];
        assert_eq!(
            subject(&items),
            "AI: edit src/lib.rs, create src/util.rs (+2 more)"
        );
    }

    #[test]
    fn long_paths_fall_back_to_one_item() {
        let long = "x/".repeat(30) + "file.rs";
        let items = vec![
            Item::Path(Verb::Edit, long.clone()),
            Item::Path(Verb::Edit, "b".into()),
        ];
        assert_eq!(subject(&items), format!("AI: edit {long} (+1 more)"));
    }

    #[test]
    fn the_session_trailer_goes_before_co_authored_by() {
        let msg = "AI: x\n\nApplied.\n\nClada-Version: 0\nCo-authored-by: A <a@b>\n".to_string();
        assert_eq!(
            with_session(msg.clone(), Some("s1")),
            "AI: x\n\nApplied.\n\nClada-Version: 0\nClada-Session: s1\nCo-authored-by: A <a@b>\n"
        );
        assert_eq!(with_session(msg.clone(), None), msg);
        let plain = "AI: x\n\nClada-Version: 0\n".to_string();
        assert_eq!(
            with_session(plain, Some("s1")),
            "AI: x\n\nClada-Version: 0\nClada-Session: s1\n"
        );
    }
}
