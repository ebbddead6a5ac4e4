//! The squashed commit's message: a combined subject, the members' bodies and trailers.

use super::*;

/// The subject and full message of a squashed commit.
pub(super) fn squash_message(
    window: &[Candidate],
    members: &[usize],
    opts: &SquashOptions,
    old_tip: ObjectId,
) -> Result<(String, String), HistoryError> {
    let subject = match &opts.message {
        Some(m) if !m.trim().is_empty() => m.trim().lines().next().unwrap_or("").to_string(),
        _ => combined_subject(
            members
                .iter()
                .map(|&i| &window[i])
                .filter(|c| c.kind != Some(CladaCommit::Snapshot))
                .map(|c| c.info.subject()),
        ),
    };
    let mut body = format!(
        "Squashed {} commits with git-clada ({}):\n",
        members.len(),
        opts.selection.describe()
    );
    for &i in members {
        let c = &window[i];
        let _ = writeln!(body, "- {} {}", Repo::short(c.info.id), c.info.subject());
    }

    // Trailers: ours first, then every other trailer of the originals once.
    let mut replies = Unique::default();
    let mut blocks = Unique::default();
    let mut failed = Unique::default();
    let mut waiting = Unique::default();
    let mut others = Unique::default();
    let mut any_blocks = false;
    // The agents' turns: their tool calls counted once, in one sum.
    let mut tool_calls: Option<usize> = None;
    for &i in members {
        for (k, v) in window[i].info.trailers() {
            let is = |name: &str| k.eq_ignore_ascii_case(name);
            if is(trailer::REPLY) {
                replies.push(v);
            } else if is(trailer::BLOCKS) {
                any_blocks = true;
                for id in v.split_whitespace() {
                    blocks.push(id.to_string());
                }
            } else if is(trailer::FAILED) {
                for id in v.split_whitespace() {
                    failed.push(id.to_string());
                }
            } else if is(trailer::WAITING) {
                for id in v.split_whitespace() {
                    waiting.push(id.to_string());
                }
            } else if is(trailer::TOOL_CALLS) {
                let n = v.trim().parse::<usize>().unwrap_or(0);
                tool_calls = Some(tool_calls.unwrap_or(0) + n);
            } else if is(trailer::VERSION)
                || is(trailer::SQUASHED)
                || is(trailer::SNAPSHOT)
                || is(trailer::INDEX)
            {
            } else {
                others.push((k, v));
            }
        }
    }
    let mut msg = format!("{subject}\n\n{body}\n");
    msg.push_str(&format!("{}: {}\n", trailer::VERSION, crate::VERSION));
    msg.push_str(&format!("{}: {old_tip}\n", trailer::SQUASHED));
    for r in &replies.items {
        msg.push_str(&format!("{}: {r}\n", trailer::REPLY));
    }
    if any_blocks {
        msg.push_str(&format!(
            "{}: {}\n",
            trailer::BLOCKS,
            blocks.items.join(" ")
        ));
    }
    if !failed.items.is_empty() {
        msg.push_str(&format!(
            "{}: {}\n",
            trailer::FAILED,
            failed.items.join(" ")
        ));
    }
    if !waiting.items.is_empty() {
        msg.push_str(&format!(
            "{}: {}\n",
            trailer::WAITING,
            waiting.items.join(" ")
        ));
    }
    let (coauthors, others): (Vec<_>, Vec<_>) = others
        .items
        .into_iter()
        .partition(|(k, _)| k.eq_ignore_ascii_case("Co-authored-by"));
    for (k, v) in others {
        msg.push_str(&format!("{k}: {v}\n"));
    }
    if let Some(n) = tool_calls {
        msg.push_str(&format!("{}: {n}\n", trailer::TOOL_CALLS));
    }
    for (k, v) in coauthors {
        msg.push_str(&format!("{k}: {v}\n"));
    }
    Ok((subject, msg))
}

/// The tree the commit at window index `i` was made on.
pub(super) fn orig_parent(
    repo: &Repo,
    window: &[Candidate],
    i: usize,
) -> Result<ObjectId, HistoryError> {
    if i > 0 {
        return Ok(window[i - 1].info.tree);
    }
    Ok(match window[i].info.parents.first() {
        Some(p) => repo.tree_of(*p)?,
        None => repo.empty_tree(),
    })
}

/// Values in the order first seen, each once (a squash of 1,000 commits has thousands of
/// block ids: looking each up in the list was quadratic).
pub(super) struct Unique<T> {
    items: Vec<T>,
    seen: std::collections::HashSet<T>,
}

impl<T> Default for Unique<T> {
    fn default() -> Self {
        Unique {
            items: Vec::new(),
            seen: Default::default(),
        }
    }
}

impl<T: Clone + Eq + std::hash::Hash> Unique<T> {
    fn push(&mut self, v: T) {
        if self.seen.insert(v.clone()) {
            self.items.push(v);
        }
    }
}

/// `AI: a; b; c`, or as many as fit in 72 columns followed by `(+N more)`.
pub(super) fn combined_subject<'a>(subjects: impl Iterator<Item = &'a str>) -> String {
    let mut items: Vec<&str> = Vec::new();
    // Items the squashed subjects already left out (their own `(+N more)`): counted once, in
    // the combined counter, never stacked.
    let mut hidden = 0usize;
    let all: Vec<&str> = subjects.collect();
    let ai = !all.is_empty() && all.iter().all(|s| s.starts_with("AI:"));
    for s in &all {
        let item = if ai {
            s["AI:".len()..].trim()
        } else {
            s.trim()
        };
        let (item, more) = split_more(item);
        if !item.is_empty() && !items.contains(&item) {
            items.push(item);
            hidden += more;
        }
    }
    let prefix = if ai { "AI: " } else { "" };
    if items.is_empty() {
        return format!("{prefix}squashed commits");
    }
    let mut shown = items.len();
    loop {
        let mut s = format!("{prefix}{}", items[..shown].join("; "));
        let more = items.len() - shown + hidden;
        if more > 0 {
            s.push_str(&format!(" (+{more} more)"));
        }
        if s.chars().count() <= 72 || shown == 1 {
            return s;
        }
        shown -= 1;
    }
}

/// A subject and the count of its trailing `(+N more)`, if it has one.
pub(super) fn split_more(subject: &str) -> (&str, usize) {
    let Some(body) = subject.strip_suffix(" more)") else {
        return (subject, 0);
    };
    match body.rsplit_once(" (+") {
        Some((head, n)) => match n.parse::<usize>() {
            Ok(n) => (head.trim_end(), n),
            Err(_) => (subject, 0),
        },
        None => (subject, 0),
    }
}
