//! `file_patch`: applies hunks (unified or apply_patch style, [`super::hunks`]) to a file, and
//! the file-level changes a diff or an apply_patch envelope can make around them: creating the
//! file, deleting it (after checking the hunks remove all of it), moving it, and setting or
//! clearing its executable bit.
//!
//! Placement follows the tool that defined the style ([`super::locate`]); every tolerance used
//! is a warning on the result. A hunk that cannot be placed fails the block with the closest
//! region of the file (or "already applied" when the hunk's new lines are there instead) and
//! changes nothing.

use serde_json::json;

use super::fsx::{node_error, EntryKind};
use super::hunks::{self, Hunk, Style};
use super::lines::Tag;
use super::locate::{self, Text};
use super::textmatch;
use super::write::{make_parents, prune_after, read_text};
use super::{Ctx, Outcome};
use crate::sandbox::ResolvedPath;

const NAME: &str = "file_patch";
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// What happens to the file as a whole (the `change` parameter).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    Update,
    /// A new file made of the hunks' added lines; it must not exist.
    Create,
    /// The hunks must remove the whole content; the file is then deleted.
    Delete,
}

impl Change {
    pub fn parse(s: &str) -> Change {
        match s {
            "create" => Change::Create,
            "delete" => Change::Delete,
            _ => Change::Update,
        }
    }
}

/// The typed parameters of one `file_patch`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Patch {
    pub path: ResolvedPath,
    pub hunks: String,
    pub style: Style,
    pub change: Change,
    pub new_path: Option<ResolvedPath>,
    pub executable: Option<bool>,
}

impl Patch {
    /// Whether the file's directory entry (not only its content) changes.
    pub fn moves_entry(&self) -> bool {
        self.change != Change::Update
            || self
                .new_path
                .as_ref()
                .is_some_and(|n| n.abs != self.path.abs)
    }
}

/// The executor.
pub(super) fn run(ctx: &mut Ctx<'_>, p: &Patch, tag: &Tag) -> Outcome {
    let hunks = match hunks::parse(&p.hunks, p.style) {
        Ok(h) => h,
        Err(e) => return Outcome::fail(format!("{NAME}: hunks {e}")),
    };
    match p.change {
        Change::Create => create(ctx, p, &hunks),
        Change::Update | Change::Delete => update(ctx, p, &hunks, tag),
    }
}

/// A new file from hunks that only add lines.
fn create(ctx: &mut Ctx<'_>, p: &Patch, hunks: &[Hunk]) -> Outcome {
    if ctx.vfs.exists(&p.path.abs) {
        return Outcome::fail(format!(
            "{NAME}: '{}' already exists, but the patch creates it (as `git apply` does, an \
             existing file is not overwritten): patch the existing file instead, or delete it \
             first",
            p.path.given
        ));
    }
    if let Some(h) = hunks.iter().find(|h| h.old_count() > 0) {
        return Outcome::fail(format!(
            "{NAME}: '{}' is created by the patch, so its hunks can only add lines, but {} has \
             context or removed lines",
            p.path.given,
            h.name(0)
        ));
    }
    let empty = Text::new(b"");
    let located = match locate::unified(&empty, hunks) {
        Ok(l) => l,
        Err(e) => return Outcome::fail(format!("{NAME}: {}", e.message)),
    };
    let bytes = locate::assemble(&empty, &located.edits, false);
    if let Err(e) = make_parents(ctx, &p.path) {
        return Outcome::fail(node_error(&e, &p.path.given, "open", None));
    }
    if let Err(e) = ctx
        .vfs
        .write_file(&p.path.abs, &bytes, p.executable.unwrap_or(false))
    {
        return Outcome::fail(node_error(&e, &p.path.given, "open", None));
    }
    ctx.lines.reset(&p.path.abs);
    Outcome::ok(json!({"path": p.path.given, "created": true, "bytesWritten": bytes.len()}))
}

/// The patched content of `content` (BOM kept), or the failed result.
fn patched(
    content: &[u8],
    p: &Patch,
    hunks: &[Hunk],
) -> Result<(Vec<u8>, Vec<String>), Box<Outcome>> {
    let (bom, body) = match content.strip_prefix(BOM) {
        Some(rest) => (BOM, rest),
        None => (&b""[..], content),
    };
    let text = Text::new(body);
    let located = match p.style {
        Style::Unified => locate::unified(&text, hunks).map_err(Ok),
        Style::ApplyPatch => locate::apply_patch(&text, hunks),
    };
    let located = match located {
        Ok(l) => l,
        Err(Err(line)) => {
            return Err(Box::new(Outcome::fail(format!(
                "{NAME}: '{}' is not valid UTF-8 (line {line}); apply_patch chunks need UTF-8 \
                 text (use style \"unified\", or file_write to replace the file whole)",
                p.path.given
            ))))
        }
        Err(Ok(nf)) => {
            return Err(Box::new(
                Outcome::fail(format!("{NAME}: {}", nf.message)).with_hint(
                    textmatch::not_found_hint(content, &nf.old_text, &nf.new_text, &p.path.given),
                ),
            ))
        }
    };
    let mut out = bom.to_vec();
    out.extend(locate::assemble(
        &text,
        &located.edits,
        located.keep_last_break,
    ));
    Ok((out, located.warnings))
}

/// Hunks applied to an existing file, which then stays, moves or (`delete`) goes.
fn update(ctx: &mut Ctx<'_>, p: &Patch, hunks: &[Hunk], tag: &Tag) -> Outcome {
    match ctx.vfs.kind(&p.path.abs) {
        Ok(EntryKind::File { .. }) => {}
        Ok(EntryKind::Symlink) if p.moves_entry() => {
            return Outcome::fail(format!(
                "{NAME}: '{}' is a symbolic link; a patch that deletes or moves it is not \
                 applied (use file_delete or file_move)",
                p.path.given
            ))
        }
        Ok(EntryKind::Symlink) => {}
        Ok(EntryKind::Dir) => {
            return Outcome::fail(format!(
                "EISDIR: illegal operation on a directory, open '{}'",
                p.path.given
            ))
        }
        Err(e) => return Outcome::fail(node_error(&e, &p.path.given, "open", None)),
    }
    let content = match read_text(ctx, NAME, &p.path) {
        Ok(c) => c,
        Err(e) => return Outcome::fail(e),
    };
    let (out, mut warnings) = if hunks.is_empty() {
        (content.clone(), Vec::new())
    } else {
        match patched(&content, p, hunks) {
            Ok(x) => x,
            Err(fail) => return *fail,
        }
    };
    if p.change == Change::Delete {
        return delete(ctx, p, &content, &out, hunks.is_empty(), warnings);
    }
    let target = p.new_path.as_ref().unwrap_or(&p.path);
    let moved = target.abs != p.path.abs;
    let mut data = json!({"path": p.path.given, "hunks": hunks.len()});
    if moved {
        match move_to(ctx, p, target, &out) {
            Ok(Some(w)) => {
                warnings.push(w);
                data["overwrote"] = json!(true);
            }
            Ok(None) => {}
            Err(fail) => return *fail,
        }
        data["new_path"] = json!(target.given);
    } else if out != content {
        if let Err(e) = ctx.vfs.write_file(&p.path.abs, &out, false) {
            return Outcome::fail(node_error(&e, &p.path.given, "open", None));
        }
        ctx.lines.record_change(&p.path.abs, &content, &out, tag);
    }
    if let Some(on) = p.executable {
        if let Err(e) = ctx.vfs.set_executable(&target.abs, on) {
            return Outcome::fail(node_error(&e, &target.given, "chmod", None));
        }
        data["executable"] = json!(on);
    }
    let mut result = Outcome::ok(data);
    result.warnings = warnings;
    result
}

/// Moves the file to `target` and writes the patched content there (a rename first, so the
/// file keeps its mode and the directories on the way stay). Returns a warning when an
/// existing file was replaced (apply_patch's `Move to` overwrites; a unified diff's rename does
/// not, as with `git apply`).
fn move_to(
    ctx: &mut Ctx<'_>,
    p: &Patch,
    target: &ResolvedPath,
    out: &[u8],
) -> Result<Option<String>, Box<Outcome>> {
    let exists = ctx.vfs.exists(&target.abs);
    if exists && p.style == Style::Unified {
        return Err(Box::new(Outcome::fail(format!(
            "{NAME}: '{}' already exists, so '{}' is not renamed to it (as `git apply` refuses \
             to); delete it first, or patch it instead",
            target.given, p.path.given
        ))));
    }
    let rename_error = |e: &std::io::Error| {
        Outcome::fail(node_error(e, &p.path.given, "rename", Some(&target.given)))
    };
    make_parents(ctx, target).map_err(|e| rename_error(&e))?;
    ctx.vfs
        .rename(&p.path.abs, &target.abs)
        .map_err(|e| rename_error(&e))?;
    ctx.vfs
        .write_file(&target.abs, out, false)
        .map_err(|e| Box::new(Outcome::fail(node_error(&e, &target.given, "open", None))))?;
    ctx.lines.reset(&p.path.abs);
    ctx.lines.reset(&target.abs);
    prune_after(ctx, &p.path.abs);
    Ok(exists.then(|| {
        format!(
            "'{}' already existed and was replaced by the moved file (as apply_patch's `*** Move \
             to:` does)",
            target.given
        )
    }))
}

/// `change = delete`: the hunks must leave nothing; then the file goes.
fn delete(
    ctx: &mut Ctx<'_>,
    p: &Patch,
    content: &[u8],
    rest: &[u8],
    no_hunks: bool,
    mut warnings: Vec<String>,
) -> Outcome {
    if !no_hunks && !rest.is_empty() {
        let left = locate_left(rest);
        return Outcome::fail(format!(
            "{NAME}: the patch deletes '{}', but its hunks leave {} of its lines in place (the \
             file has lines the patch does not show as removed; {left}): delete it with \
             file_delete, or include every line",
            p.path.given,
            super::lines::count_lines(rest)
        ));
    }
    if no_hunks && !content.is_empty() {
        warnings.push(format!(
            "the patch deletes '{}' without showing its {} lines as removed; it was deleted \
             anyway",
            p.path.given,
            super::lines::count_lines(content)
        ));
    }
    if let Err(e) = ctx.vfs.remove_file(&p.path.abs) {
        return Outcome::fail(node_error(&e, &p.path.given, "unlink", None));
    }
    ctx.lines.reset(&p.path.abs);
    prune_after(ctx, &p.path.abs);
    let mut out = Outcome::ok(json!({"path": p.path.given, "deleted": true}));
    out.warnings = warnings;
    out
}

/// The first line a deletion patch left in place, for its failure message.
fn locate_left(rest: &[u8]) -> String {
    let first = rest.split(|&b| b == b'\n').next().unwrap_or_default();
    format!(
        "the first is `{}`",
        String::from_utf8_lossy(first).trim_end_matches('\r')
    )
}
