//! Resolving one path as a reply gives it: its syntax, `.git` and its look-alikes before and after
//! resolution, the root and symlinks along the way, `paths.deny`; what passes is a
//! [`ResolvedPath`].

use std::ffi::OsStr;
use std::path::{Component, Path, PathBuf};

use super::error::ALLOW_OUTSIDE;
use super::lookups::resolve_existing;
use super::{gitname, normalize, Access, PathError, PathErrorCode, ResolvedPath, Sandbox};

/// Longest accepted path, in bytes (Linux `PATH_MAX`).
pub const MAX_PATH_BYTES: usize = 4096;
/// Longest accepted path component, in bytes (`NAME_MAX`).
pub const MAX_COMPONENT_BYTES: usize = 255;

impl Sandbox {
    /// Resolves and checks one path.
    pub fn resolve(&self, given: &str, access: Access) -> Result<ResolvedPath, PathError> {
        let refuse = |code: PathErrorCode, message: String| PathError {
            code,
            path: given.to_string(),
            message,
            user_action: None,
        };
        let only_user = |code: PathErrorCode, message: String, how: &str| PathError {
            user_action: Some(how.to_string()),
            ..refuse(code, message)
        };
        check_syntax(given).map_err(|m| refuse(PathErrorCode::InvalidPath, m))?;
        let raw = Path::new(given);
        if let Some(message) = git_lookalike_message(given, raw) {
            return Err(refuse(PathErrorCode::GitDir, message));
        }
        let joined = if raw.is_absolute() {
            raw.to_path_buf()
        } else {
            self.root.join(raw)
        };
        let lexical = normalize(&joined);
        if !self.allow_outside && !self.inside(&lexical) {
            return Err(only_user(
                PathErrorCode::PathEscape,
                format!(
                    "'{given}' resolves to '{}', which is outside '{}' (relative paths start \
                     there)",
                    lexical.display(),
                    self.root.display()
                ),
                ALLOW_OUTSIDE,
            ));
        }
        let (parent, name) = match (lexical.parent(), lexical.file_name()) {
            (Some(p), Some(n)) => (p.to_path_buf(), n.to_os_string()),
            // Only `/` has no parent or name.
            _ => (lexical.clone(), Default::default()),
        };
        let physical_parent = self.physical(&parent);
        let entry = if name.is_empty() {
            physical_parent.clone()
        } else {
            physical_parent.join(&name)
        };
        if !self.allow_outside && !self.inside(&entry) {
            return Err(only_user(
                PathErrorCode::SymlinkEscape,
                format!(
                    "'{given}' goes through a symlinked directory and really is '{}', outside \
                     '{}'",
                    entry.display(),
                    self.root.display()
                ),
                ALLOW_OUTSIDE,
            ));
        }
        self.check_git_after_resolution(given, &entry)?;
        if self.inside(&lexical) && entry == self.root && access == Access::Entry {
            return Err(refuse(
                PathErrorCode::RootDir,
                format!(
                    "'{given}' is the root '{}' itself; name a file or directory inside it",
                    self.root.display()
                ),
            ));
        }
        let mut abs = entry.clone();
        if let Ok(md) = std::fs::symlink_metadata(&entry) {
            if md.file_type().is_symlink() {
                let target = link_target(&entry, &physical_parent);
                if !self.allow_outside && !self.inside(&target) {
                    return Err(refuse(
                        PathErrorCode::SymlinkEscape,
                        format!(
                            "'{given}' is a symlink to '{}', outside '{}'; writing through or \
                             replacing such a link is refused — edit the real file, or remove \
                             the link yourself",
                            target.display(),
                            self.root.display()
                        ),
                    ));
                }
                self.check_git_after_resolution(given, &target)?;
                if access == Access::Follow {
                    abs = target;
                }
            }
        }
        let rel = self.rel(&abs);
        if let Some(glob) = rel.as_deref().and_then(|r| self.denied_by(r)) {
            return Err(only_user(
                PathErrorCode::PathDenied,
                format!(
                    "'{given}' matches `{glob}` in the configuration's paths.deny; this path is \
                     off limits for actions"
                ),
                &format!(
                    "remove `{glob}` from paths.deny in the configuration (.clada.yml) to allow it"
                ),
            ));
        }
        Ok(ResolvedPath {
            given: given.to_string(),
            abs,
            rel,
        })
    }

    /// A symlink can lead into `.git` although the path as written does not mention it.
    pub(super) fn check_git_after_resolution(
        &self,
        given: &str,
        resolved: &Path,
    ) -> Result<(), PathError> {
        let tail = resolved.strip_prefix(&self.root).unwrap_or(resolved);
        let message = if has_git_component(tail) {
            format!(
                "'{given}' leads to '{}', inside a .git directory; git-clada never writes \
                 git's internals — change files in the worktree instead",
                resolved.display()
            )
        } else if let Some((component, how)) = git_lookalike(tail) {
            format!(
                "'{given}' leads to '{}', and {}; git refuses such paths — refer to a file \
                 with another name",
                resolved.display(),
                how.explain(&component, ".git")
            )
        } else {
            return Ok(());
        };
        Err(PathError {
            code: PathErrorCode::GitDir,
            path: given.to_string(),
            user_action: None,
            message,
        })
    }
}

/// Why `raw` (the path as given) names `.git` or a look-alike of it, if it does.
fn git_lookalike_message(given: &str, raw: &Path) -> Option<String> {
    let (component, how) = git_lookalike(raw)?;
    Some(match how {
        gitname::Lookalike::Exact => format!(
            "'{given}' is inside a .git directory; git-clada never reads or writes git's \
             internals — change files in the worktree instead"
        ),
        how => format!(
            "'{}': {}; git refuses such paths ({}) and hosting servers reject pushes that \
             contain them — use another name",
            gitname::shown(given),
            how.explain(&component, ".git"),
            how.git_setting()
        ),
    })
}

/// The first component of `p` that is `.git` or a look-alike of it, and how.
pub(super) fn git_lookalike(p: &Path) -> Option<(String, gitname::Lookalike)> {
    p.components().find_map(|c| match c {
        Component::Normal(s) => {
            let s = s.to_string_lossy();
            gitname::dotgit(&s).map(|how| (s.into_owned(), how))
        }
        _ => None,
    })
}

/// Empty, NUL, and length limits.
fn check_syntax(given: &str) -> Result<(), String> {
    if given.is_empty() {
        return Err("the path is empty; give a path relative to the worktree root".into());
    }
    if given.contains('\0') {
        return Err(format!(
            "'{}' contains a NUL byte; remove it",
            given.replace('\0', "\\0")
        ));
    }
    if given.len() > MAX_PATH_BYTES {
        return Err(format!(
            "the path is {} bytes long, over the {MAX_PATH_BYTES}-byte limit; use a shorter path",
            given.len()
        ));
    }
    if let Some(c) = given.split('/').find(|c| c.len() > MAX_COMPONENT_BYTES) {
        let head: String = c.chars().take(40).collect();
        return Err(format!(
            "the path component '{head}…' is {} bytes long, over the {MAX_COMPONENT_BYTES}-byte \
             limit; use a shorter name",
            c.len()
        ));
    }
    Ok(())
}

/// True if any component is `.git`, in any letter case.
pub fn has_git_component(p: &Path) -> bool {
    p.components().any(|c| match c {
        Component::Normal(s) => is_git_name(s),
        _ => false,
    })
}

fn is_git_name(s: &OsStr) -> bool {
    s.as_encoded_bytes().eq_ignore_ascii_case(b".git")
}

/// Where a symlink finally points: canonical when the target exists, else its target text
/// resolved against the link's directory.
fn link_target(link: &Path, link_dir: &Path) -> PathBuf {
    if let Ok(c) = std::fs::canonicalize(link) {
        return c;
    }
    match std::fs::read_link(link) {
        Ok(t) => {
            let joined = if t.is_absolute() { t } else { link_dir.join(t) };
            resolve_existing(&normalize(&joined))
        }
        Err(_) => link.to_path_buf(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_component_any_case() {
        assert!(has_git_component(Path::new(".git/config")));
        assert!(has_git_component(Path::new("sub/.GIT/x")));
        assert!(has_git_component(Path::new("a/.Git")));
        assert!(!has_git_component(Path::new("a/.gitignore")));
        assert!(!has_git_component(Path::new("a/x.git")));
    }
}
