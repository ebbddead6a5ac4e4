//! Planning: parse result + sandbox → typed actions with checked paths, and the original
//! project's `ParseError` records for everything rejected (clada-semantics §3).

use std::collections::HashMap;

use super::schema::{self, ErrorType, PathRole, Validated, ValidationError};
use super::{Action, Lang, ParseErrorReport, Plan, PlannedAction};
use crate::sandbox::{Access, PathError, ResolvedPath, Sandbox};
use clada_read::{Block, Format, ParseError, ParseResult, Swallowed};

/// Validates every block against the schema and resolves every path through the sandbox,
/// before anything runs. Blocks with syntax errors are skipped and reported; so are blocks
/// that fail the schema. Blocks with a refused path stay in the plan as failed actions.
pub fn plan(parsed: &ParseResult, sandbox: &Sandbox) -> Plan {
    // Every path of the reply is resolved while nothing changes the worktree: each directory
    // is looked up once.
    let planning = sandbox.planning();
    let sandbox = &planning;
    let schema = schema::schema();
    let owners = owners(parsed);
    // (sort key, report) so errors come out in document order.
    let mut errors: Vec<(usize, ParseErrorReport)> = Vec::new();
    for (err, owner) in parsed.errors.iter().zip(&owners) {
        let block = owner.map(|i| &parsed.blocks[i]);
        let line = block.map(|b| b.start_line).unwrap_or(err.line);
        errors.push((line, syntax_report(err, block)));
        if let (Some(note), Some(b)) = (&err.note, block) {
            for s in &note.swallowed {
                errors.push((s.line, swallowed_report(s, b)));
            }
        }
    }
    for n in &parsed.notices {
        errors.push((
            n.line,
            ParseErrorReport::new(
                n.block_id.clone().unwrap_or_else(|| "unknown".into()),
                n.action.clone(),
                ErrorType::Syntax,
                "syntax_error",
                n.message.clone(),
                Some(n.line),
                None,
            ),
        ));
    }
    let mut has_syntax_error = vec![false; parsed.blocks.len()];
    for i in owners.iter().flatten() {
        has_syntax_error[*i] = true;
    }
    let mut actions = Vec::new();
    // Members of groups that did not become actions: (group id, member id, line).
    let mut rejected: Vec<(String, String, usize)> = Vec::new();
    for (block, failed) in parsed.blocks.iter().zip(has_syntax_error) {
        let mut reject = |b: &Block| {
            if let Some(g) = &b.group {
                rejected.push((g.id.clone(), b.id.clone(), b.start_line));
            }
        };
        if failed {
            reject(block);
            continue;
        }
        let block = match super::groups::resolve_suffix(block, sandbox) {
            Ok(b) => b,
            Err(why) => {
                reject(block);
                errors.push((block.start_line, invalid_report(block, &why)));
                continue;
            }
        };
        if let Some(why) = &block.invalid {
            reject(&block);
            errors.push((block.start_line, invalid_report(&block, why)));
            continue;
        }
        match schema::validate(&block.properties, schema) {
            Ok(v) => actions.push(planned(&block, &v, sandbox)),
            Err(e) => {
                reject(&block);
                errors.push((block.start_line, validation_report(&block, &e)));
            }
        }
    }
    errors.sort_by_key(|(line, _)| *line);
    warn_duplicate_ids(&mut actions);
    super::groups::skip_for_groups(&mut actions, &rejected);
    if let Some(fatal) = parsed.errors.iter().find(|e| e.code.is_fatal()) {
        for a in &mut actions {
            a.skip = Some(format!(
                "not run: the syntax error on line {} stops the whole reply",
                fatal.line
            ));
        }
    }
    Plan {
        total_blocks: parsed.blocks.len(),
        actions,
        errors: errors.into_iter().map(|(_, r)| r).collect(),
    }
}

/// Blocks that share an id with an earlier one get a warning naming its line: the reports
/// (and the model reading them) tell blocks apart by id. A block with the same id *and* the
/// same text as an earlier one (a model repeating itself, a reply pasted twice into one
/// message) is that block again: it is not run a second time.
fn warn_duplicate_ids(actions: &mut [PlannedAction]) {
    let mut first: std::collections::HashMap<String, (usize, String)> = Default::default();
    for a in actions.iter_mut() {
        let key = super::block_key(&a.reported_params());
        match first.get(&a.block_id) {
            Some((line, k)) if *k == key && a.skip.is_none() => {
                a.duplicate_of = Some(*line);
            }
            Some((line, _)) => a.warnings.push(format!(
                "the block id '{}' is used by the block on line {line} too; give each block an \
                 id of its own so the results can be told apart",
                a.block_id
            )),
            None => {
                first.insert(a.block_id.clone(), (a.start_line, key));
            }
        }
    }
}

/// A block of another format that parsed but cannot run ([`Block::invalid`]).
fn invalid_report(block: &Block, why: &str) -> ParseErrorReport {
    ParseErrorReport::new(
        block.id.clone(),
        schema::block_action(block).map(String::from),
        ErrorType::Validation,
        "invalid_block",
        format!("{} block: {why}", block.format.name),
        Some(block.start_line),
        Some(reconstruct(block)),
    )
}

/// For each syntax error, the index of the block it belongs to: the block with that id whose
/// span (header to end marker, or to the next header / end of input) contains the error line,
/// else the first block with that id. Matching by line as well as id matters: replies often
/// reuse an id for several blocks. Spans are disjoint and in line order, so a binary search
/// among the blocks of one id finds the span; a reply with as many errors as blocks stays
/// linear instead of comparing every error with every block.
fn owners(parsed: &ParseResult) -> Vec<Option<usize>> {
    let blocks = &parsed.blocks;
    let span_end = |i: usize| -> usize {
        let next = blocks
            .get(i + 1)
            .map(|n| n.start_line.saturating_sub(1))
            .unwrap_or(usize::MAX);
        blocks[i].end_line.unwrap_or(next)
    };
    let mut by_id: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, b) in blocks.iter().enumerate() {
        by_id.entry(b.id.as_str()).or_default().push(i);
    }
    parsed
        .errors
        .iter()
        .map(|e| {
            let same_id = by_id.get(e.block_id.as_deref()?)?;
            let after = same_id.partition_point(|&i| blocks[i].start_line <= e.line);
            let containing = after
                .checked_sub(1)
                .map(|k| same_id[k])
                .filter(|&i| e.line <= span_end(i));
            containing.or_else(|| same_id.first().copied())
        })
        .collect()
}

/// The markers of a block's format: (header, end marker, heredoc delimiter); empty for the
/// formats whose blocks are shown as written (`Block::source`).
fn markers(block_id: &str, format: Format) -> (String, String, String) {
    clada_read::reconstruct_markers(block_id, format).unwrap_or_default()
}

fn syntax_report(err: &ParseError, block: Option<&Block>) -> ParseErrorReport {
    let context = err.context.trim_end();
    let message = match &err.note {
        Some(note) => format!("{}: {}", err.message, note.detail),
        None => err.message.clone(),
    };
    match block {
        Some(b) => {
            let (header, _, _) = markers(&b.id, b.format);
            // The block's own header line when the context window does not already hold it.
            let shows_header = context
                .lines()
                .any(|l| clada_read::header_id(l) == Some(b.id.as_str()));
            ParseErrorReport::new(
                b.id.clone(),
                schema::block_action(b).map(String::from),
                ErrorType::Syntax,
                "syntax_error",
                message,
                Some(b.start_line),
                Some(if shows_header {
                    context.to_string()
                } else {
                    format!("{header}\n{context}")
                }),
            )
        }
        None => {
            let note = err.note.as_ref();
            ParseErrorReport::new(
                note.and_then(|n| n.block_id.clone())
                    .or_else(|| err.block_id.clone())
                    .unwrap_or_else(|| "unknown".to_string()),
                note.and_then(|n| n.action.clone()),
                ErrorType::Syntax,
                "syntax_error",
                message,
                Some(err.line),
                Some(context.to_string()),
            )
        }
    }
}

/// A block whose header an unclosed heredoc of block `owner` read as text.
fn swallowed_report(s: &Swallowed, owner: &Block) -> ParseErrorReport {
    ParseErrorReport::new(
        s.id.clone(),
        s.action.clone(),
        ErrorType::Syntax,
        "not_read",
        format!(
            "not read: this block's header is inside the unclosed heredoc of block {} (see its \
             error); resend this block",
            owner.id
        ),
        Some(s.line),
        None,
    )
}

/// The block written back out (header, each non-`@` key quoted or as a heredoc, end marker),
/// so the LLM sees exactly which block was rejected.
fn reconstruct(block: &Block) -> String {
    if let Some(src) = &block.source {
        return src.clone();
    }
    let (header, end, delim) = markers(&block.id, block.format);
    let mut out = header;
    for (k, v) in &block.properties {
        if k.starts_with('@') {
            continue;
        }
        out.push('\n');
        if v.contains('\n') {
            out.push_str(&format!("{k} = <<'{delim}'\n{v}\n{delim}"));
        } else {
            let quoted = serde_json::to_string(v).unwrap_or_else(|_| format!("\"{v}\""));
            out.push_str(&format!("{k} = {quoted}"));
        }
    }
    out.push('\n');
    out.push_str(&end);
    out
}

fn validation_report(block: &Block, e: &ValidationError) -> ParseErrorReport {
    let mut message = match e {
        // The schema's message says NESL whatever the spelling.
        ValidationError::MissingAction => format!(
            "Missing 'action' field in {} block: add a line `action = \"NAME\"` with NAME one of {}",
            match block.format {
                Format::NESL_UPPER | Format::NESL => "NESL",
                other => other.name,
            },
            schema::schema().names().join(", ")
        ),
        e => e.to_string(),
    };
    // A missing parameter is often a misspelt one the block has.
    if let ValidationError::MissingParam { param, .. } = e {
        let near = block
            .properties
            .keys()
            .filter(|k| !k.starts_with('@') && *k != "action")
            .find(|k| clada_read::text::closest_name(k, [param.as_str()]).is_some());
        if let Some(near) = near {
            message.push_str(&format!(" (the block has '{near}': did you mean {param}?)"));
        }
    }
    let mut report = ParseErrorReport::new(
        block.id.clone(),
        schema::block_action(block).map(String::from),
        e.error_type(),
        e.code(),
        message,
        Some(block.start_line),
        Some(reconstruct(block)),
    );
    report.param = e.param().map(String::from);
    (report.expected, report.actual) = e.expected_actual();
    report.available_actions = match e {
        ValidationError::MissingAction => Some(
            schema::schema()
                .names()
                .into_iter()
                .map(String::from)
                .collect(),
        ),
        ValidationError::UnknownAction { available, .. } => Some(available.clone()),
        _ => None,
    };
    report
}

fn planned(block: &Block, v: &Validated<'_>, sandbox: &Sandbox) -> PlannedAction {
    let op = typed(v, sandbox);
    let mut warnings: Vec<String> = v.warnings.iter().chain(&block.warnings).cloned().collect();
    if let Ok(action) = &op {
        warnings.extend(action.edited_file().and_then(|p| through_link(p, sandbox)));
    }
    PlannedAction {
        block_id: block.id.clone(),
        action: v.action.clone(),
        kind: v.def.kind,
        params: v.params.clone(),
        extra_params: v.extras.clone(),
        start_line: block.start_line,
        end_line: block.end_line,
        warnings,
        op,
        format: block.format,
        group: block.group.clone(),
        skip: None,
        already_applied: None,
        duplicate_of: None,
    }
}

/// A warning when writing `path` goes through a symlink (the link stays; its target changes),
/// naming the target, so a reply never changes a file it did not name without saying so.
fn through_link(path: &ResolvedPath, sandbox: &Sandbox) -> Option<String> {
    let entry = sandbox.resolve(&path.given, Access::Entry).ok()?;
    let is_link = std::fs::symlink_metadata(&entry.abs).is_ok_and(|m| m.file_type().is_symlink());
    if !is_link || entry.abs == path.abs {
        return None;
    }
    let target = path
        .rel
        .clone()
        .unwrap_or_else(|| path.abs.display().to_string());
    Some(format!(
        "'{}' is a symlink: the change is written to its target '{target}' (the link itself \
         stays as it is)",
        path.given
    ))
}

/// Resolves a path parameter by its schema role.
fn path(v: &Validated<'_>, name: &str, sandbox: &Sandbox) -> Result<ResolvedPath, PathError> {
    let role = v
        .def
        .params
        .get(name)
        .and_then(|p| p.path)
        .unwrap_or(PathRole::Read);
    let access = match role {
        PathRole::Entry => Access::Entry,
        PathRole::Read | PathRole::Write | PathRole::List | PathRole::WriteList | PathRole::Cwd => {
            Access::Follow
        }
    };
    let resolved = sandbox.resolve(&v.str(name).unwrap_or_default(), access)?;
    if matches!(role, PathRole::Write | PathRole::Entry) {
        sandbox.check_write(&resolved)?;
    }
    Ok(resolved)
}

/// A list parameter's paths resolved (files that are written also checked like a `write`
/// path).
fn path_list_resolved(
    raw: &str,
    write: bool,
    sandbox: &Sandbox,
) -> Result<Vec<ResolvedPath>, PathError> {
    path_list(raw)
        .into_iter()
        .map(|one| {
            let r = sandbox.resolve(one, Access::Follow)?;
            if write {
                sandbox.check_write(&r)?;
            }
            Ok(r)
        })
        .collect()
}

/// `files_read`'s list: one path per line, trimmed, blank lines dropped.
pub(crate) fn path_list(raw: &str) -> Vec<&str> {
    raw.split('\n')
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect()
}

fn typed(v: &Validated<'_>, sandbox: &Sandbox) -> Result<Action, PathError> {
    let s = |name: &str| v.str(name).unwrap_or_default();
    let p = |name: &str| path(v, name, sandbox);
    let count = |name: &str| v.int(name).map(|n| n.max(0) as usize);
    Ok(match v.action.as_str() {
        "file_write" => Action::FileWrite {
            path: p("path")?,
            content: s("content"),
        },
        "file_create" => Action::FileCreate {
            path: p("path")?,
            content: s("content"),
        },
        "file_append" => Action::FileAppend {
            path: p("path")?,
            content: s("content"),
        },
        "file_replace_text" => Action::FileReplaceText {
            path: p("path")?,
            old_text: s("old_text"),
            new_text: s("new_text"),
        },
        "file_replace_all_text" => Action::FileReplaceAllText {
            path: p("path")?,
            old_text: s("old_text"),
            new_text: s("new_text"),
            count: count("count"),
        },
        "file_edit" => Action::FileEdit {
            path: p("path")?,
            old_text: s("old_text"),
            new_text: s("new_text"),
            count: count("count").unwrap_or(1),
        },
        "file_replace_lines" => Action::FileReplaceLines {
            path: p("path")?,
            lines: s("lines"),
            new_content: s("new_content"),
        },
        "file_search_replace" => Action::FileSearchReplace {
            path: p("path")?,
            search: s("search"),
            replace: s("replace"),
        },
        "file_patch" => file_patch(v, sandbox)?,
        "file_replace_range" => Action::FileReplaceRange {
            path: p("path")?,
            start_text: s("start_text"),
            end_text: s("end_text"),
            new_text: s("new_text"),
            count: count("count").unwrap_or(1),
        },
        "file_delete" => Action::FileDelete { path: p("path")? },
        "file_move" => {
            let (old_path, new_path) = (p("old_path")?, p("new_path")?);
            sandbox.check_move(&old_path, &new_path)?;
            Action::FileMove { old_path, new_path }
        }
        "dir_create" => Action::DirCreate { path: p("path")? },
        "dir_delete" => Action::DirDelete {
            path: p("path")?,
            recursive: v.bool("recursive").unwrap_or(false),
        },
        "file_read" => Action::FileRead { path: p("path")? },
        "file_read_numbered" => Action::FileReadNumbered {
            path: p("path")?,
            lines: v.str("lines"),
            delimiter: v.str("delimiter").unwrap_or_else(|| ": ".to_string()),
        },
        "files_read" => Action::FilesRead {
            paths: path_list_resolved(&s("paths"), false, sandbox)?,
        },
        "files_read_numbered" => Action::FilesReadNumbered {
            paths: path_list_resolved(&s("paths"), false, sandbox)?,
            delimiter: v.str("delimiter").unwrap_or_else(|| ": ".to_string()),
        },
        "files_replace_all_text" => Action::FilesReplaceAllText {
            paths: path_list_resolved(&s("paths"), true, sandbox)?,
            old_text: s("old_text"),
            new_text: s("new_text"),
        },
        "file_comment_lines" => Action::FileCommentLines {
            path: p("path")?,
            lines: s("lines"),
        },
        "file_uncomment_lines" => Action::FileUncommentLines {
            path: p("path")?,
            lines: s("lines"),
        },
        "ls" => Action::Ls { path: p("path")? },
        "grep" => Action::Grep {
            pattern: s("pattern"),
            path: p("path")?,
            include: v.str("include"),
            regex: v.bool("regex").unwrap_or(false),
        },
        "glob" => Action::Glob {
            pattern: s("pattern"),
            base_path: p("base_path")?,
        },
        "exec" => exec(v, sandbox)?,
        // Every schema action has an arm above; a schema entry without one is a bug that the
        // schema test catches. Refuse rather than panic.
        other => return Err(no_executor(other)),
    })
}

/// An exec block's typed form: its code, language, own working directory (checked like any
/// path) and limits.
fn exec(v: &Validated<'_>, sandbox: &Sandbox) -> Result<Action, PathError> {
    Ok(Action::Exec {
        code: v.str("code").unwrap_or_default(),
        // The schema's enum only admits languages Lang knows.
        lang: Lang::parse(&v.str("lang").unwrap_or_default()).unwrap_or(Lang::Bash),
        cwd: match v.str("cwd") {
            Some(_) => Some(path(v, "cwd", sandbox)?),
            None => None,
        },
        timeout: v.int("timeout").map(|t| t.max(1) as u64),
        return_output: v.bool("return_output").unwrap_or(true),
    })
}

/// The refusal of a schema action this build has no executor for.
fn no_executor(action: &str) -> PathError {
    PathError {
        code: crate::sandbox::PathErrorCode::InvalidPath,
        path: String::new(),
        user_action: None,
        message: format!("action {action} has no executor in this build"),
    }
}

/// `file_patch`: its path is an entry (like file_delete's) when the patch deletes or moves the
/// file, or is a symbolic link (whose target the engine checks when it knows it), else a
/// written path; a move is checked like file_move's.
fn file_patch(v: &Validated<'_>, sandbox: &Sandbox) -> Result<Action, PathError> {
    use super::patch::{Change, Patch};
    let change = Change::parse(&v.str("change").unwrap_or_default());
    let new_path = match v.str("new_path") {
        Some(_) => Some(path(v, "new_path", sandbox)?),
        None => None,
    };
    let given = v.str("path").unwrap_or_default();
    let moves = change != Change::Update || new_path.is_some();
    let symlink = v.bool("symlink").unwrap_or(false);
    let resolved = if moves || symlink {
        let r = sandbox.resolve(&given, Access::Entry)?;
        match symlink && change != Change::Delete {
            true => sandbox.check_link_at(&r)?,
            false => sandbox.check_write(&r)?,
        }
        r
    } else {
        path(v, "path", sandbox)?
    };
    if let Some(n) = &new_path {
        // A link's new target is checked from the new place when the patch runs.
        match symlink {
            true => sandbox.check_link_at(n)?,
            false => sandbox.check_move(&resolved, n)?,
        }
    }
    Ok(Action::FilePatch(Patch {
        path: resolved,
        hunks: v.str("hunks").unwrap_or_default(),
        style: super::hunks::Style::parse(&v.str("style").unwrap_or_default()),
        change,
        new_path,
        executable: v.bool("executable"),
        binary: v.str("binary").unwrap_or_default(),
        index: v.str("index"),
        symlink,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clada_read::{parse, Dialect};
    use indexmap::IndexMap;

    /// Every schema action has a typed form: a block with all its required parameters (and
    /// every optional one) plans to an action, never to the "no executor" refusal.
    #[test]
    fn every_schema_action_becomes_a_typed_action() {
        let dir = tempfile::tempdir().expect("temp");
        let sandbox = Sandbox::new(dir.path(), false).expect("sandbox");
        for (name, def) in &schema::schema().actions {
            let mut props: IndexMap<String, String> = IndexMap::new();
            props.insert("action".into(), name.clone());
            for (p, d) in &def.params {
                let v = match d.ty {
                    schema::ParamType::Integer => "2".to_string(),
                    schema::ParamType::Boolean => "true".to_string(),
                    schema::ParamType::Enum => d.values[0].clone(),
                    schema::ParamType::String => "x.txt".to_string(),
                };
                props.insert(p.clone(), v);
            }
            let v = schema::validate(&props, schema::schema())
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            let typed = typed(&v, &sandbox);
            assert!(typed.is_ok(), "{name}: {typed:?}");
        }
    }

    fn write_block(id: &str, path: &str, broken: bool) -> String {
        let junk = if broken { "not an assignment\n" } else { "" };
        format!(
            "#!nesl [@three-char-SHA-256: {id}]\naction = \"file_write\"\npath = \"{path}\"\n{junk}content = \"x\"\n#!end_{id}\n\n"
        )
    }

    #[test]
    fn a_syntax_error_belongs_to_the_block_of_its_id_whose_span_holds_it() {
        // Three blocks share one id; only the middle one is broken.
        let reply = [
            write_block("abc", "one.txt", false),
            write_block("xyz", "other.txt", false),
            write_block("abc", "two.txt", true),
            write_block("abc", "three.txt", false),
        ]
        .concat();
        let parsed = parse(&reply, Dialect::Auto);
        assert_eq!(parsed.errors.len(), 1);
        assert_eq!(owners(&parsed), vec![Some(2)]);

        let tmp = tempfile::tempdir().expect("tempdir");
        let plan = plan(&parsed, &Sandbox::new(tmp.path(), false).expect("sandbox"));
        let planned: Vec<&str> = plan.actions.iter().map(|a| a.block_id.as_str()).collect();
        assert_eq!(planned, ["abc", "xyz", "abc"]);
        assert_eq!(plan.actions[2].start_line, parsed.blocks[3].start_line);
        assert_eq!(plan.errors.len(), 1);
        assert_eq!(
            plan.errors[0].block_start_line,
            Some(parsed.blocks[2].start_line)
        );
    }

    #[test]
    fn an_error_outside_every_span_of_its_id_goes_to_the_first_block_of_that_id() {
        let reply = [
            write_block("abc", "one.txt", false),
            write_block("abc", "two.txt", false),
        ]
        .concat();
        let mut parsed = parse(&reply, Dialect::Auto);
        // An error naming "abc" on a line past both blocks' spans (after the last end marker
        // no span reaches), and one naming an id no block has.
        let mut err = clada_read::ParseError {
            code: clada_read::ErrorCode::MalformedAssignment,
            line: 1000,
            column: 1,
            length: 0,
            block_id: Some("abc".into()),
            content: String::new(),
            context: String::new(),
            message: String::new(),
            note: None,
        };
        parsed.errors.push(err.clone());
        err.block_id = Some("nope".into());
        parsed.errors.push(err);
        assert_eq!(owners(&parsed), vec![Some(0), None]);
    }
}
