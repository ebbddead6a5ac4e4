//! What a move does to symbolic links: a relative link moved (alone or inside a directory) must
//! still lead inside the root and out of `.git`, and may not take a name git refuses for links.

use std::path::{Path, PathBuf};

use super::lookups::resolve_existing;
use super::{gitname, normalize, PathError, PathErrorCode, ResolvedPath, Sandbox};

impl Sandbox {
    /// Checks what a move does to symlinks: moving `from` (a symlink, or a directory holding
    /// some) to `to` must not make a relative link lead outside the root or into `.git` (its
    /// target is read from its new directory), nor give a link a name that git refuses or
    /// warns about for symlinks (`.gitmodules` and its look-alikes, …).
    pub fn check_move(&self, from: &ResolvedPath, to: &ResolvedPath) -> Result<(), PathError> {
        let Ok(md) = std::fs::symlink_metadata(&from.abs) else {
            // Nothing there (yet): the move itself reports it.
            return Ok(());
        };
        let links = if md.file_type().is_symlink() {
            vec![PathBuf::new()]
        } else if md.is_dir() {
            links_below(&from.abs)
        } else {
            return Ok(());
        };
        for rel in links {
            let (old, new) = if rel.as_os_str().is_empty() {
                (from.abs.clone(), to.abs.clone())
            } else {
                (from.abs.join(&rel), to.abs.join(&rel))
            };
            self.check_moved_link(from, to, &old, &new)?;
        }
        Ok(())
    }

    /// One symlink of a move: `old` is where it is, `new` where the move puts it.
    fn check_moved_link(
        &self,
        from: &ResolvedPath,
        to: &ResolvedPath,
        old: &Path,
        new: &Path,
    ) -> Result<(), PathError> {
        let refuse = |code: PathErrorCode, message: String| PathError {
            code,
            path: to.given.clone(),
            message,
            user_action: None,
        };
        let what = if old == from.abs {
            format!("moving the symlink '{}' to '{}'", from.given, to.given)
        } else {
            format!(
                "moving '{}' to '{}' (with the symlink '{}' inside)",
                from.given,
                to.given,
                self.rel(old).unwrap_or_else(|| old.display().to_string())
            )
        };
        if let Some(name) = new.file_name().map(|n| n.to_string_lossy()) {
            if let Some((protected, how)) = gitname::symlink_name(&name) {
                return Err(refuse(
                    PathErrorCode::GitDir,
                    format!(
                        "{what} would make a symlink named '{}': {} — move the file the link \
                         points to instead",
                        gitname::shown(&name),
                        gitname::symlink_refusal(&name, protected, &how)
                    ),
                ));
            }
        }
        let Ok(target) = std::fs::read_link(old) else {
            return Ok(());
        };
        if target.is_absolute() {
            // Where it points does not depend on where it is; `resolve` checked the link
            // itself, and a link inside a moved directory keeps pointing where it did.
            return Ok(());
        }
        let dir = new.parent().unwrap_or(&self.root);
        let dest = resolve_existing(&normalize(&dir.join(&target)));
        if !self.allow_outside && !self.inside(&dest) {
            return Err(refuse(
                PathErrorCode::SymlinkEscape,
                format!(
                    "{what} would make it point outside '{}': its target '{}' is relative, so \
                     from '{}' it leads to '{}'; move it to a place where its target stays \
                     inside, or replace the link yourself",
                    self.root.display(),
                    target.display(),
                    self.rel(new).unwrap_or_else(|| new.display().to_string()),
                    dest.display()
                ),
            ));
        }
        self.check_git_after_resolution(&to.given, &dest)
    }
}

/// Every symlink below directory `dir` (not following links), relative to `dir`. Unreadable
/// directories are skipped: the move itself then fails or succeeds on its own terms.
fn links_below(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let Ok(ft) = e.file_type() else { continue };
            let p = e.path();
            if ft.is_symlink() {
                if let Ok(rel) = p.strip_prefix(dir) {
                    out.push(rel.to_path_buf());
                }
            } else if ft.is_dir() {
                stack.push(p);
            }
        }
    }
    out
}
