//! exec sessions (seed 000's ARCH: "CWD persists within session, not across transactions"):
//! within one reply, an exec block without `cwd` starts in the directory where the previous exec
//! block of the reply ended, if that is inside the worktree (and not in `.git`); otherwise in
//! the worktree root, with a warning. A block's own `cwd` still decides where that block starts.
//!
//! Where a block ended is learned without changing the code or its arguments: bash reads the
//! file named by `BASH_ENV` before it runs the code, and the file git-clada gives it unsets
//! `BASH_ENV` again (restoring the user's own, which it then reads as bash would have) and sets
//! an EXIT trap that writes the physical working directory to a temporary file outside the
//! worktree. So the code sees its text, `$0`, arguments and environment unchanged; the trap is
//! the one visible difference (`trap -p`). When nothing is written — the code set its own EXIT
//! trap, `exec`ed another program, was killed by the timeout, or is not bash (sh, python,
//! javascript and ruby have no such start-up hook) — the session stays where the block started.

use std::path::{Path, PathBuf};

use crate::sandbox::{has_git_component, Sandbox};

/// The session of one reply: where the next exec block without `cwd` starts.
#[derive(Debug, Default)]
pub(crate) struct ExecSession {
    /// Inside the root; `None` is the root.
    cwd: Option<PathBuf>,
    /// Why the next block does not start where the previous one ended.
    note: Option<String>,
}

/// The start directory of a block without `cwd`, and a warning when it is not where the
/// previous exec block ended.
pub(crate) struct Start {
    pub dir: PathBuf,
    /// Relative to the root, when not the root itself (reported as the block's `cwd`).
    pub rel: Option<String>,
    pub warning: Option<String>,
}

fn rel_of(sandbox: &Sandbox, p: &Path) -> Option<String> {
    let rel = p.strip_prefix(sandbox.root()).ok()?;
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    (!parts.is_empty()).then(|| parts.join("/"))
}

impl ExecSession {
    /// Where a block without `cwd` starts. The session stays there until [`Self::ended`] says
    /// where the block ended (a block that never ran leaves it there).
    pub fn start(&mut self, sandbox: &Sandbox) -> Start {
        let mut warning = self.note.take();
        let dir = match self.cwd.take() {
            Some(d) if d.is_dir() => d,
            Some(d) => {
                warning = Some(format!(
                    "the previous exec block ended in '{}', which no longer exists; this block \
                     starts in the worktree root",
                    rel_of(sandbox, &d).unwrap_or_else(|| d.display().to_string())
                ));
                sandbox.root().to_path_buf()
            }
            None => sandbox.root().to_path_buf(),
        };
        self.cwd = Some(dir.clone());
        Start {
            rel: rel_of(sandbox, &dir),
            dir,
            warning,
        }
    }

    /// Records where block `block_id` ended (`None`: not known, the session stays where the
    /// block started).
    pub fn ended(
        &mut self,
        sandbox: &Sandbox,
        block_id: &str,
        started: &Path,
        end: Option<PathBuf>,
    ) {
        self.note = None;
        let Some(end) = end else {
            self.cwd = Some(started.to_path_buf());
            return;
        };
        let end = std::fs::canonicalize(&end).unwrap_or(end);
        let where_ = match end.strip_prefix(sandbox.root()) {
            Ok(rel) if !has_git_component(rel) => {
                self.cwd = Some(end);
                return;
            }
            Ok(_) => "inside .git",
            Err(_) => "outside the worktree",
        };
        self.cwd = None;
        self.note = Some(format!(
            "exec block {block_id} ended in '{}', {where_}; this block starts in the worktree root",
            end.display()
        ));
    }
}

/// A bash start-up file that reports where the shell exits, and where it reports it.
pub(crate) struct Probe {
    dir: tempfile::TempDir,
}

/// Single-quotes a string for the shell.
fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

impl Probe {
    /// A probe for bash, or `None` when the temporary files cannot be made (the session then
    /// just does not follow this block). `within` is the sandbox's private temporary
    /// directory, the one place outside the worktree a confined shell may write.
    pub fn for_bash(within: Option<&Path>) -> Option<Probe> {
        let mut b = tempfile::Builder::new();
        b.prefix("git-clada-exec-");
        let dir = match within {
            Some(d) => b.tempdir_in(d),
            None => b.tempdir(),
        }
        .ok()?;
        let out = dir.path().join("cwd");
        let mut script = String::from("unset BASH_ENV\n");
        let body = format!(
            "builtin pwd -P > {} 2>/dev/null",
            sh_quote(&out.to_string_lossy())
        );
        script.push_str(&format!("trap {} EXIT\n", sh_quote(&body)));
        if let Some(user) = std::env::var_os("BASH_ENV").filter(|v| !v.is_empty()) {
            let user = sh_quote(&user.to_string_lossy());
            script.push_str(&format!(
                "BASH_ENV={user}\nexport BASH_ENV\n. \"$BASH_ENV\"\n"
            ));
        }
        std::fs::write(dir.path().join("env.sh"), script).ok()?;
        Some(Probe { dir })
    }

    /// The environment to give bash.
    pub fn env(&self) -> (&'static str, PathBuf) {
        ("BASH_ENV", self.dir.path().join("env.sh"))
    }

    /// Where the shell exited, if it said.
    pub fn result(&self) -> Option<PathBuf> {
        let text = std::fs::read_to_string(self.dir.path().join("cwd")).ok()?;
        let line = text.strip_suffix('\n').unwrap_or(&text);
        (!line.is_empty()).then(|| PathBuf::from(line))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_survives_quotes() {
        assert_eq!(sh_quote("a'b"), r"'a'\''b'");
    }
}
