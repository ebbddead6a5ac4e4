//! Cursor's older `afterFileEdit` hook (agent-hooks.md §2.4), which comes without a
//! `preToolUse` before it: the file before the edit is rebuilt by undoing the payload's
//! `edits` (`old_string` → `new_string`, in order) on the file as it is now. Only a rebuild
//! that the edits, applied again, turn back into exactly the file now counts; anything else
//! (an edit's new text not found once, a file changed since) leaves the edit unattributed.

use clada_git::{ByteSlice, Repo, RepoError};

use super::calls::{push, relative_paths, AfterOutcome};
use super::observed::written;
use super::payload::{Call, FileEdit, Touches};
use super::state::{Change, Checkpoint, Held, Stored, StoredKind};

/// Records the checkpoint of an `afterFileEdit` call.
pub fn after_file_edit(
    repo: &Repo,
    held: &mut Held,
    call: &Call,
    edits: &[FileEdit],
    agent: &str,
    head: &str,
) -> Result<AfterOutcome, RepoError> {
    let Touches::Files(files) = &call.touches else {
        return Ok(AfterOutcome::NotAnEdit);
    };
    let cwd = call
        .cwd
        .clone()
        .unwrap_or_else(|| repo.workdir().to_path_buf());
    let Some(rel) = relative_paths(repo, files, &cwd).into_iter().next() else {
        return Ok(AfterOutcome::NotAnEdit);
    };
    let index = repo.read_index()?;
    let mut hasher = repo.hasher_with(&index)?;
    let Some(now) = Stored::of(hasher.hash(rel.as_bstr())?.map(|(e, _)| e)) else {
        return Ok(AfterOutcome::NotRebuilt(format!("{rel} is not a file now")));
    };
    if now.kind == StoredKind::Link {
        return Ok(AfterOutcome::NotRebuilt(format!(
            "{rel} is a symbolic link"
        )));
    }
    let text = repo.read_blob(now.id)?;
    let Ok(text) = String::from_utf8(text) else {
        return Ok(AfterOutcome::NotRebuilt(format!("{rel} is not UTF-8 text")));
    };
    let Some(earlier) = undo(&text, edits) else {
        return Ok(AfterOutcome::NotRebuilt(format!(
            "undoing the {} edit(s) of the payload on {rel} does not give back a file they turn into {rel} as it is now",
            edits.len()
        )));
    };
    // A file the edit created: empty before, and neither in the index nor in HEAD.
    let before = match earlier.is_empty() && index.entry(rel.as_bstr()).is_none() {
        true => None,
        false => Some(Stored {
            kind: now.kind,
            id: repo.write_blob(earlier.as_bytes())?,
        }),
    };
    held.keep(Some(now));
    held.keep(before);
    let change = Change {
        path: rel.to_string(),
        before,
        after: Some(now),
        lines: written(repo, before, Some(now))?,
    };
    let changes = match before == Some(now) {
        true => Vec::new(),
        false => vec![change],
    };
    push(
        held,
        Checkpoint {
            key: call.tool_use_id.clone(),
            session: call.session.clone(),
            tool: call.event.clone(),
            head: head.to_string(),
            // No before hook: the call's start is not known; HEAD now stands for it.
            base: head.to_string(),
            agent: Some(agent.to_string()),
            model: call.model.clone(),
            transcript: call
                .transcript
                .as_ref()
                .map(|t| t.to_string_lossy().into_owned()),
            changes,
            left_out: false,
            moves: Vec::new(),
        },
    )
}

/// `now` with `edits` undone, last first; `None` unless each edit's new text is found
/// exactly once where it is undone and the edits, applied again in order, give `now` back.
fn undo(now: &str, edits: &[FileEdit]) -> Option<String> {
    if edits.is_empty() {
        return None;
    }
    let mut text = now.to_string();
    for e in edits.iter().rev() {
        text = replace_once(&text, &e.new_string, &e.old_string)?;
    }
    let mut again = text.clone();
    for e in edits {
        again = match e.old_string.is_empty() && again.is_empty() {
            true => e.new_string.clone(),
            false => replace_once(&again, &e.old_string, &e.new_string)?,
        };
    }
    (again == now).then_some(text)
}

/// `text` with the one occurrence of `from` replaced by `to`; `None` when `from` is empty
/// (and is not all of `text`) or occurs other than once.
fn replace_once(text: &str, from: &str, to: &str) -> Option<String> {
    if from.is_empty() {
        return text.is_empty().then(|| to.to_string());
    }
    if from == text {
        return Some(to.to_string());
    }
    let mut found = text.match_indices(from);
    let (at, _) = found.next()?;
    if found.next().is_some() {
        return None;
    }
    Some(format!("{}{to}{}", &text[..at], &text[at + from.len()..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(old: &str, new: &str) -> FileEdit {
        FileEdit {
            old_string: old.into(),
            new_string: new.into(),
        }
    }

    #[test]
    fn undoes_edits_last_first() {
        let edits = [edit("two", "TWO"), edit("TWO\n", "TWO\nthree\n")];
        assert_eq!(
            undo("one\nTWO\nthree\n", &edits).as_deref(),
            Some("one\ntwo\n")
        );
    }

    #[test]
    fn ambiguous_or_missing_new_text_is_not_rebuilt() {
        assert_eq!(undo("x\nx\n", &[edit("y", "x")]), None);
        assert_eq!(undo("a\n", &[edit("y", "x")]), None);
        assert_eq!(undo("a\n", &[]), None);
    }

    #[test]
    fn a_created_file_undoes_to_empty() {
        assert_eq!(undo("new\n", &[edit("", "new\n")]).as_deref(), Some(""));
    }
}
