//! What planning adds to the blocks of the formats with rules beyond one block: the replacer
//! format's path rule (a path may be the suffix of a tracked file) and the group rules of CSL
//! TASKS (all or nothing) and CML `<tasks>` (stop at the first failure).

use std::path::Path;

use super::PlannedAction;
use clada_read::{Block, Format, GroupKind, ParseResult};

/// The replacer format's path rules. Seed 001's instructions ask for "as much of the path as
/// you know", so a model may write the project folder's name in front (`proj/src/x.py`) or an
/// absolute path of the user's machine (`/home/me/proj/src/x.py`): when the path as given does
/// not exist, the part from the project folder's name on is read relative to the repository
/// root. Then a SEARCH block's path that still does not exist but is the suffix of exactly one
/// tracked file means that file. Each rewrite is named in a warning; several suffix candidates
/// are an error listing them. Blocks of other formats, and paths that exist, come back
/// unchanged.
pub fn resolve_suffix<'b>(
    block: &'b Block,
    sandbox: &crate::sandbox::Sandbox,
) -> Result<std::borrow::Cow<'b, Block>, String> {
    use std::borrow::Cow;
    let action = block.properties.get("action").map(String::as_str);
    let given = match block.properties.get("path") {
        Some(p)
            if block.format == Format::REPLACER
                && block.invalid.is_none()
                && matches!(action, Some("file_replace_text" | "file_write")) =>
        {
            p
        }
        _ => return Ok(Cow::Borrowed(block)),
    };
    let exists = |p: &str| {
        sandbox
            .resolve(p, crate::sandbox::Access::Follow)
            .map(|r| std::fs::symlink_metadata(&r.abs).is_ok())
            .unwrap_or(false)
    };
    if exists(given) {
        return Ok(Cow::Borrowed(block));
    }
    let mut rewritten = strip_project_folder(given, sandbox, &exists).map(|rel| {
        let warning = format!(
            "path '{given}' does not exist; used '{rel}' (the path from the project folder's \
             name on, relative to the repository root)"
        );
        (rel, warning)
    });
    let path = rewritten
        .as_ref()
        .map_or(given.as_str(), |(p, _)| p.as_str());
    if action == Some("file_replace_text") && !exists(path) && !Path::new(path).is_absolute() {
        match sandbox.suffix_candidates(path).as_slice() {
            [] => {}
            [one] => {
                rewritten = Some((
                    one.clone(),
                    format!(
                        "path '{given}' does not exist; used '{one}', the only tracked file whose \
                     path ends with it"
                    ),
                ));
            }
            many => {
                return Err(format!(
                    "path '{given}' does not exist and {} tracked files end with it: {}; give \
                     more of the path",
                    many.len(),
                    many.join(", ")
                ))
            }
        }
    }
    let Some((path, warning)) = rewritten else {
        return Ok(Cow::Borrowed(block));
    };
    let mut b = block.clone();
    b.properties.insert("path".into(), path);
    b.warnings.push(warning);
    Ok(Cow::Owned(b))
}

/// Whether `given` starts with the project folder's name (`proj/…` in a repository at
/// `…/proj`) while the repository has no such folder of its own.
fn project_prefixed(given: &str, sandbox: &crate::sandbox::Sandbox) -> bool {
    let Some(name) = sandbox.root().file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    given.trim_start_matches("./").split('/').next() == Some(name)
        && !sandbox.root().join(name).exists()
}

/// The part of `given` after the project folder's name, when that names a path in the
/// repository (or, for a relative path, whenever the repository has no folder of that name):
/// the first such part that exists, else the one after the first occurrence.
fn strip_project_folder(
    given: &str,
    sandbox: &crate::sandbox::Sandbox,
    exists: &dyn Fn(&str) -> bool,
) -> Option<String> {
    let name = sandbox.root().file_name()?.to_str()?;
    let absolute = Path::new(given).is_absolute();
    if !absolute && !project_prefixed(given, sandbox) {
        return None;
    }
    let parts: Vec<&str> = given.split('/').collect();
    let tails: Vec<String> = parts
        .iter()
        .enumerate()
        .filter(|(i, p)| **p == name && *i + 1 < parts.len())
        .map(|(i, _)| parts[i + 1..].join("/"))
        .filter(|t| !t.is_empty())
        .collect();
    if absolute && tails.is_empty() {
        return None;
    }
    tails.iter().find(|t| exists(t)).or(tails.first()).cloned()
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
