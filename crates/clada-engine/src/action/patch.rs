//! `file_patch`: applies hunks (unified or apply_patch style, [`super::hunks`]) to a file, and
//! the file-level changes a diff or an apply_patch envelope can make around them: creating the
//! file, deleting it (after checking the hunks remove all of it), moving it, and setting or
//! clearing its executable bit.
//!
//! Placement follows the tool that defined the style ([`super::locate`]); every tolerance used
//! is a warning on the result. A hunk that cannot be placed fails the block with the closest
//! region of the file (or "already applied" when the hunk's new lines are there instead) and
//! changes nothing. apply_patch style ends the file with a line break, as Codex writes every
//! file, where the final-newline rule of whole-file writes wants one.
//!
//! Unified hunks whose lines hold bytes that are not UTF-8 (escaped, `clada_read::raw`: a
//! `git diff` of a Latin-1 file) patch the file read the same way, and the result is written
//! back as bytes.
//!
//! A binary hunk (`git diff --binary`, decoded by `clada_read::binary`) is applied as
//! `git apply` applies it: the file must hash to the `index` line's first id (a git blob id,
//! SHA-1 or SHA-256 by its length, computed here without git) and the result to its second.

use serde_json::json;

use super::fsx::{node_error, EntryKind};
use super::hunks::{Hunk, Style};
use super::line_edits::Tag;
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
    /// A binary hunk (`literal N` / `delta N` and its base85 lines, `git diff --binary`);
    /// empty for text hunks.
    pub binary: String,
    /// `OLD..NEW`, the blob ids of the diff's `index` line (a binary hunk needs them in full).
    pub index: Option<String>,
    /// The path is a symbolic link whose target the hunks' one line is (`super::link`).
    pub symlink: bool,
}

impl Patch {
    /// Whether the file's directory entry (not only its content) changes; a link's always
    /// does (it is replaced, never written through).
    pub fn moves_entry(&self) -> bool {
        self.symlink
            || self.change != Change::Update
            || self
                .new_path
                .as_ref()
                .is_some_and(|n| n.abs != self.path.abs)
    }
}

/// The executor, with the patch's hunks parsed (a link's patch goes to `super::link`).
pub(super) fn run(ctx: &mut Ctx<'_>, p: &Patch, hunks: &[Hunk], tag: &Tag) -> Outcome {
    if !p.binary.is_empty() && !hunks.is_empty() {
        return Outcome::fail(format!(
            "{NAME}: '{}' has both text hunks and a binary hunk; a file's patch is one or the other",
            p.path.given
        ));
    }
    match p.change {
        Change::Create if !p.binary.is_empty() => create_binary(ctx, p),
        Change::Create => create(ctx, p, hunks),
        Change::Update | Change::Delete => update(ctx, p, hunks, tag),
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
    // Lines of a diff that are not UTF-8 are written as the bytes they are.
    let assembled = locate::assemble(&empty, &located.edits, false);
    let bytes = match std::str::from_utf8(&assembled) {
        Ok(t) => clada_read::raw::encode(t).into_owned(),
        Err(_) => assembled,
    };
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

/// The patched content of `content` (BOM kept), or the failed result. `final_newline` is the
/// rule that gives a file a final newline (apply_patch style: Codex ends every file it writes
/// with one); a unified diff's `\ No newline at end of file` is followed exactly.
fn patched(
    content: &[u8],
    p: &Patch,
    hunks: &[Hunk],
    final_newline: Option<&str>,
) -> Result<(Vec<u8>, Vec<String>), Box<Outcome>> {
    // git writes a BOM as part of line 1 and `git apply` matches it there: hunks that show
    // one work on the file's bytes as they are (a BOM edited, removed or added like any
    // text). Hunks written without it (a model never sees it) match the text after it, and
    // it stays.
    let shows_bom = p.style == Style::Unified
        && hunks
            .iter()
            .any(|h| h.lines.iter().any(|(_, l)| l.starts_with('\u{feff}')));
    let (bom, body) = match content.strip_prefix(BOM) {
        Some(rest) if !shows_bom => (BOM, rest),
        _ => (&b""[..], content),
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
    let add_break = final_newline.filter(|_| p.style == Style::ApplyPatch && text.unterminated());
    let mut body = locate::assemble(
        &text,
        &located.edits,
        located.keep_last_break && add_break.is_none(),
    );
    let mut warnings = located.warnings;
    if let Some(why) = add_break.filter(|_| !body.is_empty()) {
        if !body.ends_with(b"\n") {
            body.extend_from_slice(text.eol());
        }
        warnings.push(format!(
            "the file did not end with a line break; one was added, as apply_patch ends every \
             file it writes with one ({why}; set it to false to keep a missing one)"
        ));
    }
    let mut out = bom.to_vec();
    out.extend(body);
    Ok((out, warnings))
}

/// `content` patched by unified `hunks` (bytes that are not UTF-8 in them included), without
/// the file-level rules: a symbolic link's target (`super::link`).
pub(super) fn patch_content(
    content: &[u8],
    p: &Patch,
    hunks: &[Hunk],
) -> Result<(Vec<u8>, Vec<String>), Box<Outcome>> {
    match escaped(p, hunks) {
        true => patched_raw(content, p, hunks),
        false => patched(content, p, hunks, None),
    }
}

/// Whether the hunks hold bytes that are not UTF-8 (a unified diff of a Latin-1 file, carried
/// as escaped bytes: `clada_read::raw`).
fn escaped(p: &Patch, hunks: &[Hunk]) -> bool {
    p.style == Style::Unified
        && hunks
            .iter()
            .any(|h| h.lines.iter().any(|(_, l)| clada_read::raw::has_escapes(l)))
}

/// [`patched`] for hunks holding escaped bytes: the file is read the same way (its bytes that
/// are not UTF-8 escaped, line by line as the reply's were), patched, and written back as
/// bytes, so the bytes `git apply` would match are matched and written. A file that holds the
/// code points escaped bytes are written as is refused (its text would be ambiguous).
fn patched_raw(
    content: &[u8],
    p: &Patch,
    hunks: &[Hunk],
) -> Result<(Vec<u8>, Vec<String>), Box<Outcome>> {
    use clada_read::raw;
    if let Some((offset, c)) = raw::reserved_at(content) {
        let line = 1 + memchr::memchr_iter(b'\n', &content[..offset]).count();
        return Err(Box::new(Outcome::fail(format!(
            "{NAME}: '{}' holds U+{:X} (line {line}), one of the code points U+10FF80–U+10FFFF \
             that stand for bytes that are not UTF-8 in a diff's lines, so this diff's bytes \
             cannot be matched against it; edit it with a diff of UTF-8 lines, or file_write",
            p.path.given,
            u32::from(c)
        ))));
    }
    let text = raw::decode(content);
    let (out, warnings) = patched(text.as_bytes(), p, hunks, None)?;
    let out = match std::str::from_utf8(&out) {
        Ok(t) => raw::encode(t).into_owned(),
        Err(_) => out,
    };
    Ok((out, warnings))
}

/// Whether the file to patch is one (a symbolic link is patched through, not moved).
fn check_kind(ctx: &Ctx<'_>, p: &Patch) -> Result<(), String> {
    match ctx.vfs.kind(&p.path.abs) {
        Ok(EntryKind::File { .. }) => Ok(()),
        Ok(EntryKind::Symlink) if p.moves_entry() => Err(format!(
            "{NAME}: '{}' is a symbolic link; a patch that deletes or moves it is not applied \
             (use file_delete or file_move)",
            p.path.given
        )),
        Ok(EntryKind::Symlink) => Ok(()),
        Ok(EntryKind::Dir) => Err(format!(
            "EISDIR: illegal operation on a directory, open '{}'",
            p.path.given
        )),
        Err(e) => Err(node_error(&e, &p.path.given, "open", None)),
    }
}

/// Hunks applied to an existing file, which then stays, moves or (`delete`) goes.
fn update(ctx: &mut Ctx<'_>, p: &Patch, hunks: &[Hunk], tag: &Tag) -> Outcome {
    if let Err(e) = check_kind(ctx, p) {
        return Outcome::fail(e);
    }
    let binary = !p.binary.is_empty();
    // Text hunks need text; a binary hunk, a move or a mode change takes any file.
    let content = match binary || hunks.is_empty() {
        true => ctx
            .vfs
            .read(&p.path.abs)
            .map_err(|e| node_error(&e, &p.path.given, "open", None)),
        false => read_text(ctx, NAME, &p.path),
    };
    let content = match content {
        Ok(c) => c,
        Err(e) => return Outcome::fail(e),
    };
    // The target's shape was looked up before the reply ran (`super::write_shapes`).
    let final_newline = (p.style == Style::ApplyPatch && !content.ends_with(b"\n"))
        .then(|| ctx.shape.final_newline())
        .flatten();
    let result = if binary {
        binary_result(p, &content)
            .map(|out| (out, Vec::new()))
            .map_err(Outcome::fail)
    } else if hunks.is_empty() {
        Ok((content.clone(), Vec::new()))
    } else if escaped(p, hunks) {
        patched_raw(&content, p, hunks).map_err(|fail| *fail)
    } else {
        patched(&content, p, hunks, final_newline).map_err(|fail| *fail)
    };
    let (out, warnings) = match result {
        Ok(x) => x,
        Err(fail) => return fail,
    };
    if p.change == Change::Delete {
        return delete(
            ctx,
            p,
            &content,
            &out,
            hunks.is_empty() && !binary,
            warnings,
        );
    }
    let mut data = json!({"path": p.path.given, "hunks": hunks.len()});
    if binary {
        data["binary"] = json!(true);
    }
    finish(ctx, p, (&content, &out), data, warnings, tag)
}

/// Writes the patched content `out` (of `content`) where the patch puts it, moving the file and
/// setting its executable bit as asked.
fn finish(
    ctx: &mut Ctx<'_>,
    p: &Patch,
    (content, out): (&[u8], &[u8]),
    mut data: serde_json::Value,
    mut warnings: Vec<String>,
    tag: &Tag,
) -> Outcome {
    let target = p.new_path.as_ref().unwrap_or(&p.path);
    let moved = target.abs != p.path.abs;
    if moved {
        match move_to(ctx, p, target, out) {
            Ok(Some(w)) => {
                warnings.push(w);
                data["overwrote"] = json!(true);
            }
            Ok(None) => {}
            Err(fail) => return *fail,
        }
        data["new_path"] = json!(target.given);
    } else if out != content {
        if let Err(e) = ctx.vfs.write_file(&p.path.abs, out, false) {
            return Outcome::fail(node_error(&e, &p.path.given, "open", None));
        }
        if p.binary.is_empty() {
            ctx.lines.record_change(&p.path.abs, content, out, tag);
        } else {
            ctx.lines.reset(&p.path.abs);
        }
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
    // A BOM the hunks did not show (kept by `patched`) is not a line left in place.
    if !no_hunks && !rest.is_empty() && rest != BOM {
        let left = locate_left(rest);
        return Outcome::fail(format!(
            "{NAME}: the patch deletes '{}', but its hunks leave {} of its lines in place (the \
             file has lines the patch does not show as removed; {left}): delete it with \
             file_delete, or include every line",
            p.path.given,
            super::line_edits::count_lines(rest)
        ));
    }
    if no_hunks && !content.is_empty() {
        warnings.push(format!(
            "the patch deletes '{}' without showing its {} lines as removed; it was deleted \
             anyway",
            p.path.given,
            super::line_edits::count_lines(content)
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

// ---------------------------------------------------------------------------------------------
// binary hunks (`git diff --binary`), checked as `git apply` checks them

/// git's id of a blob holding `data`, in the hash the id `like` is written in (40 hex digits:
/// SHA-1; 64: SHA-256).
fn blob_id(data: &[u8], like: &str) -> String {
    let header = format!("blob {}\0", data.len());
    let hex = |bytes: &[u8]| bytes.iter().map(|b| format!("{b:02x}")).collect::<String>();
    if like.len() == 64 {
        use sha2::Digest;
        let mut h = sha2::Sha256::new();
        h.update(header.as_bytes());
        h.update(data);
        hex(&h.finalize())
    } else {
        use sha1::Digest;
        let mut h = sha1::Sha1::new();
        h.update(header.as_bytes());
        h.update(data);
        hex(&h.finalize())
    }
}

/// The two ids of the `index` parameter, which a binary hunk needs in full.
fn full_index(p: &Patch) -> Result<(String, String), String> {
    let full = |id: &str| matches!(id.len(), 40 | 64) && id.bytes().all(|b| b.is_ascii_hexdigit());
    match p.index.as_deref().and_then(|i| i.split_once("..")) {
        Some((a, b)) if full(a) && full(b) && a.len() == b.len() => {
            Ok((a.to_ascii_lowercase(), b.to_ascii_lowercase()))
        }
        _ => Err(format!(
            "{NAME}: cannot apply binary patch to '{}' without full index line (`index OLD..NEW` \
             with whole blob ids, as `git diff --binary` writes it)",
            p.path.given
        )),
    }
}

fn zero(id: &str) -> bool {
    id.bytes().all(|b| b == b'0')
}

/// The new content of a file from its binary hunk: the file (`content`) must be the blob the
/// index line names first, the result the one it names second.
fn binary_result(p: &Patch, content: &[u8]) -> Result<Vec<u8>, String> {
    let (old, new) = full_index(p)?;
    let have = blob_id(content, &old);
    if zero(&old) && !content.is_empty() {
        return Err(format!(
            "{NAME}: the patch applies to an empty '{}' but it is not empty",
            p.path.given
        ));
    }
    if !zero(&old) && have != old {
        return Err(format!(
            "{NAME}: the patch applies to '{}' ({old}), which does not match the current \
             contents ({have}); the binary patch was made for another version of the file",
            p.path.given
        ));
    }
    if zero(&new) {
        return Ok(Vec::new());
    }
    let fail = |why: String| {
        format!(
            "{NAME}: binary patch does not apply to '{}': {why}",
            p.path.given
        )
    };
    let hunk = clada_read::binary::decode_parameter(&p.binary).map_err(fail)?;
    let out = match hunk.method {
        clada_read::binary::Method::Literal => hunk.data,
        clada_read::binary::Method::Delta => {
            clada_read::binary::apply_delta(content, &hunk.data).map_err(fail)?
        }
    };
    let got = blob_id(&out, &new);
    if got != new {
        return Err(format!(
            "{NAME}: binary patch to '{}' creates incorrect result (expecting {new}, got {got})",
            p.path.given
        ));
    }
    Ok(out)
}

/// A new file from a binary hunk.
fn create_binary(ctx: &mut Ctx<'_>, p: &Patch) -> Outcome {
    if ctx.vfs.exists(&p.path.abs) {
        return Outcome::fail(format!(
            "{NAME}: '{}' already exists, but the patch creates it (as `git apply` does, an \
             existing file is not overwritten): delete it first",
            p.path.given
        ));
    }
    let bytes = match binary_result(p, b"") {
        Ok(b) => b,
        Err(e) => return Outcome::fail(e),
    };
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
    Outcome::ok(json!({
        "path": p.path.given,
        "created": true,
        "binary": true,
        "bytesWritten": bytes.len()
    }))
}

/// The first line a deletion patch left in place, for its failure message.
fn locate_left(rest: &[u8]) -> String {
    let first = rest.split(|&b| b == b'\n').next().unwrap_or_default();
    format!(
        "the first is `{}`",
        String::from_utf8_lossy(first).trim_end_matches('\r')
    )
}
