//! Why a path is refused: the stable codes (`path_escape`, …) reports and JSON carry, and the
//! refusal itself (what, and for a refusal only the user can lift, what the user can do).

use std::fmt;

use serde::Serialize;

/// Why a path was refused. Serialises as the snake_case code (`path_escape`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PathErrorCode {
    /// Resolves outside the root (`..`, an absolute path, a move target).
    PathEscape,
    /// Has a `.git` component.
    GitDir,
    /// A symlink (in the middle, or the final component) leads outside the root.
    SymlinkEscape,
    /// Empty, contains NUL, or too long.
    InvalidPath,
    /// Names the root itself where an entry inside it is needed.
    RootDir,
    /// Would change a file inside a submodule or another nested repository.
    Submodule,
    /// Matches a `paths.deny` glob of the configuration.
    PathDenied,
    /// A write to git-clada's own configuration (`.clada.yml`, `.clada/`), which decides what
    /// runs: only the user changes it.
    ProtectedConfig,
    /// A write to a file git or a hook manager runs on the user's own next commit or status
    /// (`.githooks/`, `.husky/`, `.pre-commit-config.yaml`, `core.hooksPath`, a worktree file
    /// the git configuration includes): only the user changes it.
    ProtectedHook,
}

impl PathErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            PathErrorCode::PathEscape => "path_escape",
            PathErrorCode::GitDir => "git_dir",
            PathErrorCode::SymlinkEscape => "symlink_escape",
            PathErrorCode::InvalidPath => "invalid_path",
            PathErrorCode::RootDir => "root_dir",
            PathErrorCode::Submodule => "submodule",
            PathErrorCode::PathDenied => "path_denied",
            PathErrorCode::ProtectedConfig => "protected_config",
            PathErrorCode::ProtectedHook => "protected_hook",
        }
    }
}

impl fmt::Display for PathErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A refused path: the code, the path as given, and a message saying what and what to do.
/// Displays as `code: message`, the same `CODE: text` shape as the file errors.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct PathError {
    pub code: PathErrorCode,
    pub path: String,
    pub message: String,
    /// Set when only the user can lift the refusal (a path outside the worktree, one
    /// `paths.deny` names): what the user can do. Reports show it to the user, not to the
    /// model, and do not ask the model to send the block again.
    pub user_action: Option<String>,
}

/// What lifts a refusal of a path outside the worktree.
pub(super) const ALLOW_OUTSIDE: &str = "run git-clada with --allow-outside to allow paths outside the worktree (what is written there is never committed)";
