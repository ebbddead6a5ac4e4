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
    /// A folder a `dir_delete` removed, with everything in it.
    DeletedDir(String),
}

impl Item {
    fn text(&self) -> String {
        match self {
            Item::Path(Verb::Create, p) => format!("create {p}"),
            Item::Path(Verb::Edit, p) => format!("edit {p}"),
            Item::Path(Verb::Delete, p) => format!("delete {p}"),
            Item::Move(a, b) => format!("move {a} to {b}"),
            Item::DeletedDir(d) => format!("delete {d}/"),
        }
    }
}

/// Collapses a deletion and a creation that a successful `file_move` block (or a `file_patch`
/// with `new_path`: apply_patch's `*** Move to:`, a diff's rename) explains into one `move` item, and the deletions under a folder a successful `dir_delete` removed into one
/// item naming the folder.
pub fn fold_moves(items: Vec<Item>, result: &ExecutionResult) -> Vec<Item> {
    let items = fold_file_moves(items, result);
    let dirs: Vec<String> = result
        .results
        .iter()
        .filter(|r| r.success && r.action == "dir_delete")
        .filter_map(|r| {
            let p = r.params.get("path")?.as_str()?;
            Some(p.trim_start_matches("./").trim_end_matches('/').to_string())
        })
        .filter(|d| !d.is_empty())
        .collect();
    let mut out: Vec<Item> = Vec::with_capacity(items.len());
    for item in items {
        let under = match &item {
            Item::Path(Verb::Delete, p) => dirs.iter().find(|d| {
                p.strip_prefix(d.as_str())
                    .is_some_and(|r| r.starts_with('/'))
            }),
            _ => None,
        };
        match under {
            Some(d) => {
                let folded = Item::DeletedDir(d.clone());
                if !out.contains(&folded) {
                    out.push(folded);
                }
            }
            None => out.push(item),
        }
    }
    out
}

fn fold_file_moves(items: Vec<Item>, result: &ExecutionResult) -> Vec<Item> {
    let moves: Vec<(String, String)> = result
        .results
        .iter()
        .filter(|r| r.success && matches!(r.action.as_str(), "file_move" | "file_patch"))
        .filter_map(|r| {
            let from = if r.action == "file_move" {
                "old_path"
            } else {
                "path"
            };
            let old = r
                .params
                .get(from)?
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
    let mut s = String::new();
    for shown in [2usize, 1] {
        let n = shown.min(texts.len());
        s = format!("AI: {}", texts[..n].join(", "));
        if texts.len() > n {
            s.push_str(&format!(" (+{} more)", texts.len() - n));
        }
        if s.chars().count() <= 72 {
            break;
        }
    }
    s
}

/// Longest subject taken from what the reply says about itself (after `AI: `).
const DESCRIBED_MAX: usize = 68;

/// The subject the reply gives itself, when it does: the first sentence of a replacer
/// `<<<EXPLANATION>>>`, else the first sentence of its prose before the first block (`I'll fix
/// the timeout in get():` → `AI: Fix the timeout in get()`). `None` when the reply starts with
/// its blocks, or says nothing a subject can use.
pub fn described(reply: &str) -> Option<String> {
    let lines: Vec<&str> = reply.lines().collect();
    let explanation = lines
        .iter()
        .position(|l| l.trim() == "<<<EXPLANATION>>>")
        .map(|at| {
            lines[at + 1..]
                .iter()
                .take_while(|l| !l.trim().starts_with("<<<"))
                .copied()
                .collect::<Vec<_>>()
        });
    let prose = explanation.unwrap_or_else(|| {
        let first_block = clada_read::parse(reply, clada_read::Dialect::Auto)
            .blocks
            .first()
            .map_or(lines.len(), |b| b.start_line.saturating_sub(1));
        lines[..first_block.min(lines.len())]
            .iter()
            .take_while(|l| {
                !l.trim_start().starts_with("```") && !l.trim_start().starts_with("~~~")
            })
            .copied()
            .collect()
    });
    let paragraph: Vec<&str> = prose
        .iter()
        .map(|l| l.trim())
        .skip_while(|l| l.is_empty())
        .take_while(|l| !l.is_empty())
        .collect();
    let text = paragraph
        .join(" ")
        .trim_start_matches(['#', '>', '*', '-', ' '])
        .replace('`', "");
    let sentence = first_sentence(&text);
    let sentence = sentence.trim_end_matches([':', '.', '!', ' ']);
    let mut words = sentence.trim();
    for lead in DESCRIBED_LEADS {
        if let Some(rest) = words.strip_prefix(lead) {
            words = rest;
            break;
        }
    }
    // Only a sentence that says what the change does (`Fix …`, `I'll add …`, `This renames
    // …`): "Sure, here is the code" or "Some notes" are no subject.
    let verb = words.split_whitespace().next()?.to_lowercase();
    let stem = verb
        .strip_suffix("es")
        .filter(|s| DESCRIBED_VERBS.contains(s))
        .or_else(|| verb.strip_suffix('s'))
        .unwrap_or(&verb);
    if !DESCRIBED_VERBS.contains(&stem) || words.split_whitespace().count() < 3 {
        return None;
    }
    let mut chars = words.chars();
    let first = chars.next()?;
    let subject: String = first.to_uppercase().chain(chars).collect();
    Some(format!("AI: {}", cut_at_word(&subject, DESCRIBED_MAX)))
}

/// Openings dropped before the verb: `I'll fix …` → `Fix …`.
const DESCRIBED_LEADS: &[&str] = &[
    "I'll ",
    "I will ",
    "I'm going to ",
    "Let me ",
    "Let's ",
    "We'll ",
    "We will ",
    "This change ",
    "This patch ",
    "This reply ",
    "This ",
];

/// Verbs a description of a change starts with.
const DESCRIBED_VERBS: &[&str] = &[
    "accept",
    "add",
    "allow",
    "apply",
    "avoid",
    "bump",
    "cache",
    "cap",
    "catch",
    "change",
    "clean",
    "convert",
    "correct",
    "create",
    "default",
    "delete",
    "deprecate",
    "disable",
    "document",
    "drop",
    "enable",
    "ensure",
    "expose",
    "extract",
    "fix",
    "give",
    "guard",
    "handle",
    "implement",
    "improve",
    "inline",
    "introduce",
    "keep",
    "let",
    "limit",
    "log",
    "make",
    "merge",
    "move",
    "pass",
    "prevent",
    "print",
    "raise",
    "reduce",
    "refactor",
    "reject",
    "remove",
    "rename",
    "reorder",
    "replace",
    "require",
    "restore",
    "return",
    "rewrite",
    "set",
    "show",
    "simplify",
    "skip",
    "sort",
    "split",
    "stop",
    "support",
    "switch",
    "test",
    "tidy",
    "update",
    "use",
    "warn",
    "wire",
    "wrap",
];

/// Up to the first `. `, `! `, `? ` (or the end).
fn first_sentence(text: &str) -> &str {
    let mut end = text.len();
    for pat in [". ", "! ", "? "] {
        if let Some(i) = text.find(pat) {
            end = end.min(i + 1);
        }
    }
    &text[..end]
}

/// `text` cut to `max` characters at a word boundary, with `…` when cut.
fn cut_at_word(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut out = String::new();
    for w in text.split_whitespace() {
        if out.chars().count() + w.chars().count() + 1 > max - 1 {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    out.push('…');
    out
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
            line.push_str(if r.needs_user.is_some() {
                ": NEEDS THE USER "
            } else {
                ": FAILED "
            });
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
    // A block only the user can let run waits for them; it is not one the reply got wrong.
    let mut failed_ids: Vec<&str> = Vec::new();
    let mut waiting_ids: Vec<&str> = Vec::new();
    let blocks = (result.results.iter())
        .filter(|r| !r.success)
        .map(|r| (r.block_id.as_str(), r.needs_user.is_some()))
        .chain((result.parse_errors.iter()).map(|e| (e.block_id.as_str(), e.needs_user.is_some())));
    for (id, waits) in blocks {
        let ids = if waits {
            &mut waiting_ids
        } else {
            &mut failed_ids
        };
        if ids.last() != Some(&id) {
            ids.push(id);
        }
    }
    msg.push('\n');
    msg.push_str(&format!("{}: {}\n", trailer::VERSION, crate::VERSION));
    msg.push_str(&format!("{}: {reply_blob}\n", trailer::REPLY));
    msg.push_str(&format!("{}: {}\n", trailer::BLOCKS, ok_ids.join(" ")));
    if !failed_ids.is_empty() {
        msg.push_str(&format!("{}: {}\n", trailer::FAILED, failed_ids.join(" ")));
    }
    if !waiting_ids.is_empty() {
        msg.push_str(&format!(
            "{}: {}\n",
            trailer::WAITING,
            waiting_ids.join(" ")
        ));
    }
    if let Some(c) = coauthor {
        msg.push_str(&format!("Co-authored-by: {c}\n"));
    }
    msg
}

/// The subject of an agent's turn commit from the user's prompt (`agent.subject: prompt`):
/// `AI: ` and its first non-empty line, control characters removed, cut at a word to stay
/// within 72 characters. `None` when the prompt has no such line.
pub fn prompt_subject(prompt: &str) -> Option<String> {
    let line = prompt.lines().map(str::trim).find(|l| !l.is_empty())?;
    let clean: String = line
        .chars()
        .filter(|c| {
            !c.is_control() && !matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        })
        .collect();
    let words = clean.split_whitespace().collect::<Vec<_>>().join(" ");
    (!words.is_empty()).then(|| format!("AI: {}", cut_at_word(&words, DESCRIBED_MAX)))
}

/// Most tool calls an agent's turn commit lists one per line (the trailer counts them all).
const TURN_CALLS_LISTED: usize = 50;

/// The message of an agent's turn commit: the subject (`subject_override`, else what
/// changed), one line per tool call with the paths it changed, and the trailers that name the
/// agent, its session and model, and how many tool calls the turn made. No `Clada-Reply` or
/// `Clada-Blocks`: a turn has no reply and no blocks.
pub fn turn(
    turn: &crate::record::agent_turn::Turn,
    items: &[Item],
    subject_override: Option<&str>,
    coauthor: Option<&str>,
) -> String {
    let mut msg = match subject_override {
        Some(s) => s.trim().to_string(),
        None => subject(items),
    };
    let n = turn.call_count();
    msg.push_str(&format!(
        "\n\n{} turn: {n} tool call{} changed files.\n",
        turn.agent,
        if n == 1 { "" } else { "s" }
    ));
    for call in turn.calls.iter().take(TURN_CALLS_LISTED) {
        let mut line = format!("- {}", call.tool);
        for p in call.paths.iter().take(3) {
            line.push(' ');
            line.push_str(p);
        }
        if call.paths.len() > 3 {
            line.push_str(&format!(" (+{} more)", call.paths.len() - 3));
        }
        msg.push_str(&line);
        msg.push('\n');
    }
    if n > TURN_CALLS_LISTED {
        msg.push_str(&format!("- … {} more\n", n - TURN_CALLS_LISTED));
    }
    msg.push('\n');
    msg.push_str(&format!("{}: {}\n", trailer::VERSION, crate::VERSION));
    msg.push_str(&format!("{}: {}\n", trailer::AGENT, one_line(&turn.agent)));
    msg.push_str(&format!(
        "{}: {}\n",
        trailer::SESSION,
        one_line(&turn.session)
    ));
    if let Some(m) = &turn.model {
        msg.push_str(&format!("{}: {}\n", trailer::MODEL, one_line(m)));
    }
    msg.push_str(&format!("{}: {n}\n", trailer::TOOL_CALLS));
    if let Some(c) = coauthor {
        msg.push_str(&format!("Co-authored-by: {c}\n"));
    }
    msg
}

/// A trailer value from an agent's payload kept on one line of printable text.
fn one_line(value: &str) -> String {
    value
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect::<String>()
        .trim()
        .to_string()
}

/// `msg` with a `Clada-Session` trailer naming `session` (the MCP session whose tool call
/// made the commit), placed after git-clada's other trailers and before `Co-authored-by`.
pub fn with_session(msg: String, session: Option<&str>) -> String {
    match session {
        Some(session) => with_trailer(msg, trailer::SESSION, session),
        None => msg,
    }
}

/// `msg` with the trailer `key: value` after git-clada's other trailers and before
/// `Co-authored-by`.
pub fn with_trailer(msg: String, key: &str, value: &str) -> String {
    let line = format!("{key}: {value}\n");
    match msg.find("\nCo-authored-by: ") {
        Some(at) => format!("{}{line}{}", &msg[..=at], &msg[at + 1..]),
        None => msg + &line,
    }
}

/// `msg` with a `Clada-Uncommitted` trailer for each of `paths` (the AI's changes that
/// stayed in the worktree), before any `Co-authored-by`.
pub fn with_uncommitted(msg: String, paths: &[String]) -> String {
    let lines: String = paths
        .iter()
        .map(|p| format!("{}: {p}\n", trailer::UNCOMMITTED))
        .collect();
    match msg.find("\nCo-authored-by: ") {
        Some(at) => format!("{}{lines}{}", &msg[..=at], &msg[at + 1..]),
        None => msg + &lines,
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
    fn a_reply_that_says_what_it_does_names_the_commit() {
        let reply = "I'll make `get()` time out after 10 seconds by default. The tests cover it.\n\n```sh nesl\n#!nesl [@three-char-SHA-256: t01]\naction = \"file_write\"\npath = \"a\"\ncontent = \"x\"\n#!end_t01\n```\n";
        assert_eq!(
            described(reply).as_deref(),
            Some("AI: Make get() time out after 10 seconds by default")
        );
        let replacer = "<<<EXPLANATION>>>\nRename the helper to parse_url. It was misleading.\n<<<FILE>>>\na.py\n<<<OVERWRITE>>>\nx\n<<<END>>>\n";
        assert_eq!(
            described(replacer).as_deref(),
            Some("AI: Rename the helper to parse_url")
        );
        // Blocks first, or a one-word preamble: the file list is the subject.
        assert_eq!(described("```sh nesl\n#!nesl [@three-char-SHA-256: t01]\naction = \"file_write\"\npath = \"a\"\ncontent = \"x\"\n#!end_t01\n```\n"), None);
        assert_eq!(
            described("Done:\n\n<<<FILE>>>\na\n<<<OVERWRITE>>>\nx\n<<<END>>>\n"),
            None
        );
        assert_eq!(
            described("Some prose.\n\n<<<FILE>>>\na\n<<<OVERWRITE>>>\nx\n<<<END>>>\n"),
            None
        );
        assert_eq!(described("Sure — here is a small greeting module.\n"), None);
        assert_eq!(
            described("Give every call a default timeout of 30 seconds.\n").as_deref(),
            Some("AI: Give every call a default timeout of 30 seconds")
        );
        assert_eq!(
            described("I'll keep the old name as an alias.\n").as_deref(),
            Some("AI: Keep the old name as an alias")
        );
        assert_eq!(
            described("This patch fixes the redirect loop in Session.send.\n").as_deref(),
            Some("AI: Fixes the redirect loop in Session.send")
        );
        let long = format!("Refactor {} now", "the request session handling ".repeat(5));
        let s = described(&long).unwrap();
        assert!(s.chars().count() <= 72 && s.ends_with('…'), "{s}");
    }

    #[test]
    fn a_deleted_folder_is_one_item() {
        let mut result = ExecutionResult::default();
        result.results.push(crate::action::ActionResult {
            success: true,
            action: "dir_delete".into(),
            params: [("path".to_string(), serde_json::json!("old"))]
                .into_iter()
                .collect(),
            ..Default::default()
        });
        let items = vec![
            Item::Path(Verb::Delete, "old/a.txt".into()),
            Item::Path(Verb::Delete, "old/sub/b.txt".into()),
            Item::Path(Verb::Edit, "older.txt".into()),
        ];
        assert_eq!(
            subject(&fold_moves(items, &result)),
            "AI: delete old/, edit older.txt"
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
