//! Running the repository's own git hooks (`pre-commit`, `commit-msg`, `post-commit`) the way
//! `git commit` does: from `core.hooksPath` or `<common-dir>/hooks`, in the worktree root,
//! with `GIT_INDEX_FILE` and `GIT_DIR` set, output captured for the report.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::{Repo, Result};

/// What running one hook gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookRun {
    pub name: String,
    pub success: bool,
    pub exit_code: Option<i32>,
    /// stdout and stderr interleaved as the hook wrote them.
    pub output: String,
}

impl Repo {
    /// The hooks directory: `core.hooksPath` (relative to the worktree root, `~` expanded) or
    /// `<common-dir>/hooks`.
    pub fn hooks_dir(&self) -> PathBuf {
        let configured = self
            .repo
            .config_snapshot()
            .trusted_path("core.hooksPath")
            .ok()
            .flatten();
        match configured {
            Some(p) if p.is_absolute() => p,
            Some(p) => self.workdir().join(p),
            None => self.common_dir().join("hooks"),
        }
    }

    /// The executable hook `name`, if installed.
    pub fn hook_path(&self, name: &str) -> Option<PathBuf> {
        let path = self.hooks_dir().join(name);
        is_executable(&path).then_some(path)
    }

    /// Runs hook `name` with `args`; `None` when no such hook is installed.
    pub fn run_hook(&self, name: &str, args: &[&str]) -> Result<Option<HookRun>> {
        let Some(path) = self.hook_path(name) else {
            return Ok(None);
        };
        // stdout and stderr share one pipe so the report shows them in the order written.
        let (reader, writer) =
            std::io::pipe().map_err(super::io_err("cannot create a pipe for hook", &path))?;
        let writer2 = writer
            .try_clone()
            .map_err(super::io_err("cannot create a pipe for hook", &path))?;
        let mut child = Command::new(&path)
            .args(args)
            .current_dir(self.workdir())
            .env("GIT_INDEX_FILE", self.repo.index_path())
            .env("GIT_EDITOR", ":")
            .stdin(Stdio::null())
            .stdout(writer)
            .stderr(writer2)
            .spawn()
            .map_err(super::io_err("cannot run hook", &path))?;
        let mut output = Vec::new();
        {
            use std::io::Read;
            let mut reader = reader;
            reader
                .read_to_end(&mut output)
                .map_err(super::io_err("cannot read the output of hook", &path))?;
        }
        let status = child
            .wait()
            .map_err(super::io_err("cannot wait for hook", &path))?;
        Ok(Some(HookRun {
            name: name.to_string(),
            success: status.success(),
            exit_code: status.code(),
            output: String::from_utf8_lossy(&output).into_owned(),
        }))
    }
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}
