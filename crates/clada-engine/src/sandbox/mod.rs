//! Path resolution and policy (DESIGN §5.1): every path of a reply is resolved and checked
//! against the root (the worktree, or the current directory with `--no-git`) before any action
//! runs, so a refusal never leaves partial work.
//!
//! Rules: relative paths start at the root; absolute paths are accepted when inside it. `..` is
//! resolved lexically (the normalised path is what the action then uses, so a `..` can never be
//! reinterpreted by the OS). Directory symlinks along the way are resolved physically and must
//! stay inside; a symlink as the final component is written through (content actions) or acted
//! on itself (delete, move, mkdir) and must point inside either way. No path may have a `.git`
//! component in any letter case, or a name some filesystem reads as `.git` ([`gitname`]: git
//! refuses those too), before or after resolution. With `allow_outside`, paths outside the
//! root are permitted (they are never committed) but `.git` is still refused.
//!
//! Here: the sandbox and its set-up. One path resolved is `resolve.rs`; what a write adds
//! (configuration, hook files, nested repositories) `writes.rs`; `paths.deny` `deny.rs`; the
//! directory lookups and their memory `lookups.rs`; moves of links `moves.rs`; the refusal
//! codes `error.rs`; the replacer's suffix rule `suffix.rs`.

mod deny;
mod error;
pub mod gitname;
mod links;
mod lookups;
mod moves;
pub mod protected;
mod resolve;
mod suffix;
mod writes;

use std::path::{Path, PathBuf};

pub use error::{PathError, PathErrorCode};
use lookups::Lookups;
use resolve::git_lookalike;
pub use resolve::{has_git_component, MAX_COMPONENT_BYTES, MAX_PATH_BYTES};

/// How an action uses a path; decides what a final symlink means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Read or write the content: a final symlink is followed.
    Follow,
    /// Create, delete or rename the directory entry itself: a final symlink is the entry.
    Entry,
}

/// A path that passed the sandbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedPath {
    /// As written in the block (what reports show).
    pub given: String,
    /// Absolute and normalised: what the action operates on.
    pub abs: PathBuf,
    /// Relative to the root, `/`-separated; `None` when outside it (only with allow_outside).
    pub rel: Option<String>,
}

/// The sandbox could not be set up.
#[derive(Debug, thiserror::Error)]
#[error("cannot use '{}' as the root for actions: {source}", root.display())]
pub struct SandboxError {
    pub root: PathBuf,
    #[source]
    pub source: std::io::Error,
}

/// Path policy for one apply.
#[derive(Debug, Clone)]
pub struct Sandbox {
    root: PathBuf,
    allow_outside: bool,
    /// Set when the root is a git worktree: the submodule paths it declares (absolute), and
    /// the promise that changes inside nested repositories are refused.
    nested: Option<Vec<PathBuf>>,
    /// The repository's tracked files (root-relative, `/`-separated), for the replacer
    /// format's suffix rule; without it the worktree's not-ignored files are used.
    tracked: Option<std::sync::Arc<Vec<String>>>,
    /// `paths.deny` of the configuration: refused root-relative paths (and everything under
    /// a matching directory).
    denied: Option<(globset::GlobSet, Vec<String>)>,
    /// Writes to `.clada.yml` and `.clada/` are permitted (`paths.protect_config: false`).
    config_writable: bool,
    /// Root-relative paths of hook files and folders a write may not change (see
    /// [`Sandbox::protect_hooks`]); `None`: writes to them are permitted (`paths.protect_hooks:
    /// false`).
    hook_files: Option<std::sync::Arc<Vec<(String, String)>>>,
    /// What nothing a reply makes run may change (docs/hooks-sandbox.md, "Protected"): the
    /// hook entries and keys while they are protected, and the nested git entries always.
    guarded: std::sync::Arc<protected::Protected>,
    /// The whole protected set as found, hook entries and keys included even when the user
    /// lets replies write them: the files hooks call are named from it.
    found: std::sync::Arc<protected::Protected>,
    /// While a reply is planned (see [`Sandbox::planning`]): what the filesystem said about
    /// each directory, so a reply of many paths looks each directory up once.
    lookups: Option<std::sync::Arc<std::sync::Mutex<Lookups>>>,
    /// The root as a directory handle: what checked paths are used through (the engine's
    /// disk, `clada_base::beneath`), so a directory swapped after the check cannot redirect them.
    handle: std::sync::Arc<clada_base::beneath::Root>,
    /// The repository's git directories (canonical), under whatever name: where no link a
    /// reply makes may lead.
    git_dirs: Vec<PathBuf>,
}

impl Sandbox {
    /// `root` must exist; it is canonicalised so symlinked roots (macOS `/tmp`) compare right.
    pub fn new(root: impl AsRef<Path>, allow_outside: bool) -> Result<Sandbox, SandboxError> {
        let root = root.as_ref();
        let canonical = std::fs::canonicalize(root).map_err(|source| SandboxError {
            root: root.to_path_buf(),
            source,
        })?;
        let handle =
            clada_base::beneath::Root::open(&canonical).map_err(|source| SandboxError {
                root: root.to_path_buf(),
                source,
            })?;
        Ok(Sandbox {
            handle: std::sync::Arc::new(handle),
            root: canonical,
            allow_outside,
            nested: None,
            tracked: None,
            denied: None,
            config_writable: false,
            hook_files: None,
            guarded: Default::default(),
            found: Default::default(),
            lookups: None,
            git_dirs: Vec::new(),
        }
        .protect_hooks(&[]))
    }

    /// The root's directory handle, which the engine's disk operations go through.
    pub fn handle(&self) -> std::sync::Arc<clada_base::beneath::Root> {
        std::sync::Arc::clone(&self.handle)
    }

    /// Makes the repository's git directories (the git dir, the common dir) known to the
    /// handle by device and inode: no directory reached through it may be one of them.
    pub fn guard_git_dirs(mut self, dirs: &[&Path]) -> Sandbox {
        self.handle.guard_git_dirs(dirs);
        self.git_dirs = dirs
            .iter()
            .map(|d| std::fs::canonicalize(d).unwrap_or_else(|_| d.to_path_buf()))
            .collect();
        self
    }

    /// The canonical root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn allow_outside(&self) -> bool {
        self.allow_outside
    }

    /// The root-relative, `/`-separated form of an absolute path, if it is inside the root.
    pub fn rel(&self, abs: &Path) -> Option<String> {
        let rest = abs.strip_prefix(&self.root).ok()?;
        let parts: Vec<String> = rest
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        Some(parts.join("/"))
    }

    fn inside(&self, abs: &Path) -> bool {
        abs.starts_with(&self.root)
    }
}

pub use protected::HOOK_FILES;

/// Lexical normalisation (`clada_base::path`), re-exported where the sandbox's callers look for it.
pub use clada_base::path::normalize;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_resolves_dots_lexically() {
        assert_eq!(
            normalize(Path::new("/a/b/../c/./d")),
            PathBuf::from("/a/c/d")
        );
        assert_eq!(normalize(Path::new("/../../x")), PathBuf::from("/x"));
    }
}
