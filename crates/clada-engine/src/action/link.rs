//! `file_patch` of a symbolic link (a unified diff's mode 120000, `symlink = true`): the link's
//! target is its content — one line without a line break, as git stores it — so a new link is
//! made of the hunks' added line, a changed one patched like a file's text, a deleted one
//! unlinked once the hunks remove its target, and a moved one renamed. `git apply` makes the
//! same links.
//!
//! Every target is checked before the link is made (`Sandbox::check_link_target`): from the
//! link's folder, lexically and through no existing link, it must stay inside the worktree and
//! out of every git directory. Nothing here follows a link: the entry itself is read
//! (`readlink`) and replaced, through the worktree's directory handles. Where the repository
//! says `core.symlinks = false` (its filesystem has none), the link is a plain file holding the
//! target, as git checks it out, and such a file stands for the link when it is changed; the
//! commit records it as a link all the same (`Execution::link_files`).

use std::path::{Path, PathBuf};

use serde_json::json;

use super::fsx::{node_error, EntryKind};
use super::hunks::Hunk;
use super::locate::{self, Text};
use super::patch::{Change, Patch};
use super::write::{make_parents, prune_after};
use super::{Ctx, FileState, Outcome};
use crate::sandbox::ResolvedPath;

const NAME: &str = "file_patch";

/// Whether `p` is a link's patch: marked so (a diff's mode 120000), or the move of a link a
/// diff renames without changing it (git prints no mode for a rename at 100% similarity).
pub(super) fn is_link_patch(ctx: &Ctx<'_>, p: &Patch, hunks: &[Hunk]) -> bool {
    let link = match ctx.vfs.kind(&p.path.abs) {
        Ok(EntryKind::Symlink) => true,
        Ok(EntryKind::File { .. }) => ctx.vfs.is_link_file(&p.path.abs),
        _ => false,
    };
    p.symlink
        || (p.change == Change::Update
            && p.new_path.is_some()
            && hunks.is_empty()
            && p.binary.is_empty()
            && link)
}

/// The executor for a link's patch.
pub(super) fn run(ctx: &mut Ctx<'_>, p: &Patch, hunks: &[Hunk]) -> Outcome {
    if !p.binary.is_empty() {
        return Outcome::fail(format!(
            "{NAME}: '{}' is a symbolic link, whose target is text; a binary patch cannot change it",
            p.path.given
        ));
    }
    match p.change {
        Change::Create => create(ctx, p, hunks),
        Change::Update | Change::Delete => update(ctx, p, hunks),
    }
}

/// A new link made of the hunks' added line.
fn create(ctx: &mut Ctx<'_>, p: &Patch, hunks: &[Hunk]) -> Outcome {
    if ctx.vfs.exists(&p.path.abs) {
        return Outcome::fail(format!(
            "{NAME}: '{}' already exists, but the patch creates it as a symbolic link (as `git \
             apply` does, an existing entry is not replaced): delete it first",
            p.path.given
        ));
    }
    if let Some(h) = hunks.iter().find(|h| h.old_count() > 0) {
        return Outcome::fail(format!(
            "{NAME}: the symbolic link '{}' is created by the patch, so its hunks can only add \
             its target, but {} has context or removed lines",
            p.path.given,
            h.name(0)
        ));
    }
    let empty = Text::new(b"");
    let located = match locate::unified(&empty, hunks) {
        Ok(l) => l,
        Err(e) => return Outcome::fail(format!("{NAME}: {}", e.message)),
    };
    let target = bytes_of(locate::assemble(&empty, &located.edits, false));
    if let Err(fail) = check(ctx, &p.path, &target) {
        return *fail;
    }
    if let Err(e) = make_parents(ctx, &p.path) {
        return Outcome::fail(node_error(&e, &p.path.given, "open", None));
    }
    if let Err(e) = write(ctx, &p.path, &target) {
        return Outcome::fail(node_error(&e, &p.path.given, "symlink", None));
    }
    ctx.lines.reset(&p.path.abs);
    Outcome::ok(json!({"path": p.path.given, "created": true, "symlink": target_text(&target)}))
}

/// An existing link (or its plain-file stand-in) patched, moved or deleted.
fn update(ctx: &mut Ctx<'_>, p: &Patch, hunks: &[Hunk]) -> Outcome {
    let target = match current_target(ctx, p) {
        Ok(t) => t,
        Err(fail) => return *fail,
    };
    let new = if hunks.is_empty() {
        target.clone()
    } else {
        match super::patch::patch_content(&target, p, hunks) {
            Ok((out, _)) => out,
            Err(fail) => return *fail,
        }
    };
    if p.change == Change::Delete {
        if !new.is_empty() && !hunks.is_empty() {
            return Outcome::fail(format!(
                "{NAME}: the patch deletes the symbolic link '{}', but its hunks do not remove \
                 its target '{}'",
                p.path.given,
                target_text(&new)
            ));
        }
        if let Err(e) = ctx.vfs.remove_file(&p.path.abs) {
            return Outcome::fail(node_error(&e, &p.path.given, "unlink", None));
        }
        ctx.lines.reset(&p.path.abs);
        prune_after(ctx, &p.path.abs);
        return Outcome::ok(json!({"path": p.path.given, "deleted": true, "symlink": true}));
    }
    let at = p.new_path.as_ref().unwrap_or(&p.path);
    if let Err(fail) = check(ctx, at, &new) {
        return *fail;
    }
    let mut data = json!({"path": p.path.given, "symlink": target_text(&new)});
    if at.abs != p.path.abs {
        if let Err(fail) = move_link(ctx, p, at) {
            return *fail;
        }
        data["new_path"] = json!(at.given);
    }
    if new != target || at.abs != p.path.abs {
        if let Err(e) = write(ctx, at, &new) {
            return Outcome::fail(node_error(&e, &at.given, "symlink", None));
        }
    }
    ctx.lines.reset(&at.abs);
    Outcome::ok(data)
}

/// The target of the link at `p.path`: read from the link itself, or from the plain file that
/// stands for it where the repository has no symlinks.
fn current_target(ctx: &Ctx<'_>, p: &Patch) -> Result<Vec<u8>, Box<Outcome>> {
    let not_a_link = |what: &str| {
        Box::new(Outcome::fail(format!(
            "{NAME}: '{}' is {what}, but the patch changes a symbolic link (mode 120000) there; \
             the diff was made for another version of it",
            p.path.given
        )))
    };
    match ctx.vfs.state(&p.path.abs) {
        Ok(FileState::Symlink { target }) => Ok(target.into_os_string().into_encoded_bytes()),
        Ok(FileState::File { bytes, .. })
            if !ctx.opts.symlinks && ctx.vfs.is_link_file(&p.path.abs) =>
        {
            Ok(bytes)
        }
        Ok(FileState::File { .. }) => Err(not_a_link("a file")),
        Ok(FileState::Dir) => Err(not_a_link("a directory")),
        Ok(FileState::Absent) => Err(Box::new(Outcome::fail(node_error(
            &std::io::Error::from_raw_os_error(libc::ENOENT),
            &p.path.given,
            "open",
            None,
        )))),
        Err(e) => Err(Box::new(Outcome::fail(node_error(
            &e,
            &p.path.given,
            "open",
            None,
        )))),
    }
}

/// Renames the link's entry to `to` (its target unchanged; [`update`] rewrites it after).
fn move_link(ctx: &mut Ctx<'_>, p: &Patch, to: &ResolvedPath) -> Result<(), Box<Outcome>> {
    if ctx.vfs.exists(&to.abs) {
        return Err(Box::new(Outcome::fail(format!(
            "{NAME}: '{}' already exists, so '{}' is not renamed to it (as `git apply` refuses \
             to); delete it first",
            to.given, p.path.given
        ))));
    }
    let fail = |e: &std::io::Error| {
        Box::new(Outcome::fail(node_error(
            e,
            &p.path.given,
            "rename",
            Some(&to.given),
        )))
    };
    make_parents(ctx, to).map_err(|e| fail(&e))?;
    ctx.vfs.rename(&p.path.abs, &to.abs).map_err(|e| fail(&e))?;
    ctx.lines.reset(&p.path.abs);
    prune_after(ctx, &p.path.abs);
    Ok(())
}

/// Refuses `target` for a link at `at` (see the module's rule).
fn check(ctx: &Ctx<'_>, at: &ResolvedPath, target: &[u8]) -> Result<(), Box<Outcome>> {
    let link_of = |p: &Path| -> Option<PathBuf> {
        match ctx.vfs.kind(p) {
            Ok(EntryKind::Symlink) => match ctx.vfs.state(p) {
                Ok(FileState::Symlink { target }) => Some(target),
                _ => Some(PathBuf::new()),
            },
            Ok(_) => None,
            Err(e) if clada_base::beneath::refusal(&e).is_some() => Some(PathBuf::new()),
            Err(_) => None,
        }
    };
    ctx.sandbox
        .check_link_target(at, &as_path(target), &link_of)
        .map_err(|e| Box::new(super::refusal(&e)))
}

/// Makes the link at `at` (or, without symlinks, the plain file holding its target).
fn write(ctx: &mut Ctx<'_>, at: &ResolvedPath, target: &[u8]) -> std::io::Result<()> {
    if !ctx.opts.symlinks {
        if matches!(ctx.vfs.kind(&at.abs), Ok(EntryKind::Symlink)) {
            ctx.vfs.remove_file(&at.abs)?;
        }
        ctx.vfs.write_file(&at.abs, target, false)?;
        ctx.vfs.mark_link_file(&at.abs);
        return Ok(());
    }
    ctx.vfs.write_symlink(&at.abs, &as_path(target))
}

/// The hunks' text as the bytes it stands for (a diff's bytes that are not UTF-8 included).
fn bytes_of(assembled: Vec<u8>) -> Vec<u8> {
    match std::str::from_utf8(&assembled) {
        Ok(t) => clada_read::raw::encode(t).into_owned(),
        Err(_) => assembled,
    }
}

fn as_path(target: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(std::ffi::OsStr::from_bytes(target))
}

fn target_text(target: &[u8]) -> String {
    String::from_utf8_lossy(target).into_owned()
}
