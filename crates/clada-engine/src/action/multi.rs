//! files_replace_all_text (seed 001's unified-design.yaml, "tentative"): one old_text/new_text
//! pair replaced everywhere in several files, with a result per file
//! (`{path, replacements_made, error?}`, the seed's shape).
//!
//! Deliberately all or nothing, where the seed said "processes each file independently": every
//! file is checked first, and if old_text is missing from any of them (or one cannot be read)
//! no file is changed. A failed block therefore changed nothing, which is what every report's
//! closing line promises the LLM ("send a corrected version of the block") — a block that had
//! changed some files could not be re-sent without failing on those.

use serde_json::{json, Value};

use super::line_edits::Tag;
use super::textmatch;
use super::write::{read_text, replace, Rule};
use super::{Ctx, Outcome};
use crate::sandbox::ResolvedPath;

const NAME: &str = "files_replace_all_text";

pub(super) fn files_replace_all_text(
    ctx: &mut Ctx<'_>,
    paths: &[ResolvedPath],
    old: &str,
    new: &str,
    tag: &Tag,
) -> Outcome {
    if paths.is_empty() {
        return Outcome::fail(format!("{NAME}: No paths provided"));
    }
    if old.is_empty() {
        return Outcome::fail(format!("{NAME}: old_text cannot be empty"));
    }
    // Check every file before changing any.
    let mut problems: Vec<(usize, String)> = Vec::new();
    let mut hint = None;
    for (i, p) in paths.iter().enumerate() {
        if paths[..i].iter().any(|q| q.abs == p.abs) {
            problems.push((i, "listed twice".to_string()));
            continue;
        }
        match read_text(ctx, NAME, p) {
            Err(e) => problems.push((i, e)),
            Ok(content) => {
                if textmatch::locate(&content, old.as_bytes())
                    .positions
                    .is_empty()
                {
                    problems.push((i, "old_text not found in file".to_string()));
                    if hint.is_none() {
                        hint = Some(textmatch::not_found_hint(&content, old, new, &p.given));
                    }
                }
            }
        }
    }
    if !problems.is_empty() {
        let results: Vec<Value> = paths
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let mut r = json!({"path": p.given, "replacements_made": 0});
                if let Some((_, e)) = problems.iter().find(|(k, _)| *k == i) {
                    r["error"] = json!(e);
                }
                r
            })
            .collect();
        let which: Vec<String> = problems
            .iter()
            .map(|(i, e)| format!("  {}: {e}", paths[*i].given))
            .collect();
        let mut out = Outcome::fail(format!(
            "{NAME}: nothing was replaced, {} of {} file(s) failed:\n{}",
            problems.len(),
            paths.len(),
            which.join("\n")
        ))
        .with_data(json!({ "results": results }));
        out.hint = hint;
        return out;
    }
    let mut results = Vec::with_capacity(paths.len());
    let mut failed = Vec::new();
    let mut warnings = Vec::new();
    for p in paths {
        let one = replace(ctx, NAME, p, old, new, Rule::All(None), tag);
        let mut r = json!({"path": p.given});
        match (
            &one.error,
            one.data.as_ref().and_then(|d| d.get("replacements")),
        ) {
            (None, Some(n)) => r["replacements_made"] = n.clone(),
            (e, _) => {
                // Checked above, so only a write error lands here.
                let e = e.clone().unwrap_or_default();
                failed.push(format!("  {}: {e}", p.given));
                r["replacements_made"] = json!(0);
                r["error"] = json!(e);
            }
        }
        warnings.extend(
            one.warnings
                .into_iter()
                .map(|w| format!("{}: {w}", p.given)),
        );
        results.push(r);
    }
    let data = json!({ "results": results });
    let mut out = if failed.is_empty() {
        Outcome::ok(data)
    } else {
        Outcome::fail(format!(
            "{NAME}: {} file(s) could not be written (the others were changed, see results):\n{}",
            failed.len(),
            failed.join("\n")
        ))
        .with_data(data)
    };
    out.warnings = warnings;
    out
}
