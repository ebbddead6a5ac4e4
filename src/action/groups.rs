//! What planning adds to the blocks of the formats with rules beyond one block: the replacer
//! format's path rule (a path may be the suffix of a tracked file) and the group rules of CSL
//! TASKS (all or nothing) and CML `<tasks>` (stop at the first failure).

use super::PlannedAction;
use crate::read::{Block, Format, GroupKind, ParseResult};

/// The replacer format's path rule: a SEARCH block's path that does not exist but is the
/// suffix of exactly one tracked file means that file (the block is returned changed, with a
/// warning naming the resolved path); several such files are an error listing them. Blocks of
/// other formats, and paths that exist, come back unchanged.
pub fn resolve_suffix<'b>(
    block: &'b Block,
    sandbox: &crate::sandbox::Sandbox,
) -> Result<std::borrow::Cow<'b, Block>, String> {
    use std::borrow::Cow;
    let given = match block.properties.get("path") {
        Some(p)
            if block.format == Format::REPLACER
                && block.invalid.is_none()
                && block.properties.get("action").map(String::as_str)
                    == Some("file_replace_text") =>
        {
            p
        }
        _ => return Ok(Cow::Borrowed(block)),
    };
    let exists = sandbox
        .resolve(given, crate::sandbox::Access::Follow)
        .map(|r| std::fs::symlink_metadata(&r.abs).is_ok())
        .unwrap_or(true);
    if exists || std::path::Path::new(given).is_absolute() {
        return Ok(Cow::Borrowed(block));
    }
    match sandbox.suffix_candidates(given).as_slice() {
        [] => Ok(Cow::Borrowed(block)),
        [one] => {
            let mut b = block.clone();
            b.properties.insert("path".into(), one.clone());
            b.warnings.push(format!(
                "path '{given}' does not exist; used '{one}', the only tracked file whose path \
                 ends with it"
            ));
            Ok(Cow::Owned(b))
        }
        many => Err(format!(
            "path '{given}' does not exist and {} tracked files end with it: {}; give more of \
             the path",
            many.len(),
            many.join(", ")
        )),
    }
}

/// Whether planning `parsed` may need the tracked file list (it has replacer blocks).
pub fn needs_tracked(parsed: &ParseResult) -> bool {
    parsed.blocks.iter().any(|b| b.format == Format::REPLACER)
}

/// Applies the groups' validation rules to the planned actions, given the members that did
/// not become actions (`rejected`: group id, member id, line): every member of an atomic group
/// with a rejected or refused member is skipped; in a stop-on-failure group, the members after
/// the first rejected one are.
pub(crate) fn skip_for_groups(actions: &mut [PlannedAction], rejected: &[(String, String, usize)]) {
    let refused: Vec<(String, String, usize)> = actions
        .iter()
        .filter(|a| a.op.is_err())
        .filter_map(|a| {
            a.group
                .as_ref()
                .map(|g| (g.id.clone(), a.block_id.clone(), a.start_line))
        })
        .collect();
    for a in actions.iter_mut() {
        let Some(g) = a.group.clone() else { continue };
        let same = |r: &&(String, String, usize)| r.0 == g.id;
        match g.kind {
            GroupKind::Atomic => {
                let bad = rejected
                    .iter()
                    .chain(&refused)
                    .filter(same)
                    .find(|r| r.1 != a.block_id);
                if let Some((_, id, _)) = bad {
                    a.skip = Some(format!(
                        "not run: {id} of the same {noun} ({}) is invalid, and a {noun} runs all \
                         or nothing",
                        g.id,
                        noun = g.noun
                    ));
                }
            }
            GroupKind::StopOnFailure => {
                let first = rejected
                    .iter()
                    .filter(same)
                    .filter(|r| r.2 < a.start_line)
                    .min_by_key(|r| r.2);
                if let Some((_, id, _)) = first {
                    a.skip = Some(format!(
                        "not run: {id}, earlier in the same {noun}, is invalid, and a {noun} \
                         stops at its first failure",
                        noun = g.noun
                    ));
                }
            }
        }
    }
}
