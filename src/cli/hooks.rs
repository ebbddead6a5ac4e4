//! `git clada hooks install|uninstall`: git-clada's own git hooks (DESIGN §7.6); `check` and
//! `prepare` (the hook sandbox, docs/hooks-sandbox.md) are in `hooks_check.rs`.
//!
//! The shipped `hooks/pre-commit` is put into the hooks directory git really uses
//! (`core.hooksPath` respected) between marker lines, right after an existing hook's `#!`
//! line, so whatever the hook already did is kept and still runs. Installing again replaces
//! only the marked part (no-op when current); uninstall removes exactly what install added,
//! leaving the original hook byte-identical (and deleting the file if install created it).

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use anyhow::Context;

use crate::base::error::Outcome;
use crate::cli::Global;
use crate::repo::Repo;

/// Install or remove git-clada's git hooks (a pre-commit hook that refuses stray block
/// markers), or try the repository's hooks in the sandbox AI commits run them in. Existing
/// hook content is preserved; core.hooksPath is respected.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  git clada hooks install\n  git clada hooks check\n  git clada hooks prepare"
)]
pub struct Args {
    #[command(subcommand)]
    pub action: HooksAction,
}

#[derive(Debug, clap::Subcommand)]
pub enum HooksAction {
    /// Install the hooks.
    Install,
    /// Remove the hooks, keeping any other content of the hook files.
    Uninstall,
    /// Run the repository's pre-commit and commit-msg hooks and hooks.after in the sandbox an
    /// AI commit runs them in, on the current index (nothing is committed; a fixer may rewrite
    /// files, as with git commit), and print what failed and the configuration line that
    /// would allow it.
    Check,
    /// Fill git-clada's own hook caches once, with network, in the sandbox (pre-commit
    /// install-hooks for a .pre-commit-config.yaml).
    Prepare,
}

/// The shipped hook.
pub const PRE_COMMIT: &str = include_str!("../../hooks/pre-commit");

const BEGIN: &str = "# >>> git-clada pre-commit >>> (added by `git clada hooks install`; `git clada hooks uninstall` removes it)";
/// The begin marker when install created the file (uninstall then deletes it).
const BEGIN_CREATED: &str = "# >>> git-clada pre-commit (file created by git-clada) >>> (added by `git clada hooks install`; `git clada hooks uninstall` removes it)";
const END: &str = "# <<< git-clada pre-commit <<<";
const SHEBANG: &str = "#!/bin/sh\n";

/// The marked part: the shipped hook without its `#!` line.
fn block(begin: &str) -> String {
    let body = PRE_COMMIT
        .split_once('\n')
        .map(|(_, rest)| rest)
        .unwrap_or("");
    format!("{begin}\n{body}{END}\n")
}

/// Where the marked part is in `text`: (start, end) byte range of its lines, and whether
/// install created the file.
fn find_block(text: &str) -> Option<(usize, usize, bool)> {
    let (start, created) = [(BEGIN, false), (BEGIN_CREATED, true)]
        .iter()
        .find_map(|(m, c)| {
            let at = text.find(m)?;
            (at == 0 || text.as_bytes()[at - 1] == b'\n').then_some((at, *c))
        })?;
    let end_at = start + text[start..].find(END)?;
    let mut end = end_at + END.len();
    if text[end..].starts_with('\n') {
        end += 1;
    }
    Some((start, end, created))
}

/// `text` with the marked part added (install into an existing hook).
fn insert(text: &str) -> String {
    let b = block(BEGIN);
    if !text.starts_with("#!") {
        return format!("{b}{text}");
    }
    match text.find('\n') {
        Some(nl) => format!("{}{b}{}", &text[..=nl], &text[nl + 1..]),
        // Only a `#!` line without a newline: the block goes after it, its own final newline
        // dropped, so removing `\n` + block restores the file exactly.
        None => format!("{text}\n{}", b.trim_end_matches('\n')),
    }
}

/// `text` without the marked part.
fn remove(text: &str, start: usize, end: usize) -> String {
    if end == text.len() && !text.ends_with('\n') && start > 0 {
        // Inserted after a `#!` line that had no newline (see `insert`).
        return text[..start - 1].to_string();
    }
    format!("{}{}", &text[..start], &text[end..])
}

fn set_executable(path: &Path) -> anyhow::Result<bool> {
    let md = std::fs::metadata(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mode = md.permissions().mode();
    if mode & 0o111 == 0o111 {
        return Ok(false);
    }
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode | 0o111))
        .with_context(|| format!("cannot make {} executable", path.display()))?;
    Ok(true)
}

/// The text of the hook at `path`, if there is one.
fn read_hook(path: &Path) -> anyhow::Result<Option<String>> {
    match std::fs::read(path) {
        Ok(b) => Ok(Some(String::from_utf8(b).map_err(|_| {
            anyhow::anyhow!(
                "{} is not a text file; git-clada will not edit it (add `git-clada check --staged || exit 1` to it yourself)",
                path.display()
            )
        })?)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(anyhow::anyhow!("cannot read {}: {e}", path.display())),
    }
}

/// Writes `text` to `path`, keeping its permission bits.
fn write_keeping_mode(path: &Path, text: &str) -> anyhow::Result<()> {
    crate::base::fsutil::write_atomic(
        path,
        text.as_bytes(),
        crate::base::fsutil::Perm::KeepExisting {
            executable_if_new: true,
        },
    )
    .with_context(|| format!("cannot write {}", path.display()))
}

pub fn run(args: Args, global: Global) -> anyhow::Result<Outcome> {
    match &args.action {
        HooksAction::Check => return super::hooks_check::check(&global),
        HooksAction::Prepare => return super::hooks_check::prepare(&global),
        HooksAction::Install | HooksAction::Uninstall => {}
    }
    let cwd = std::env::current_dir().context("cannot determine the current directory")?;
    let repo = Repo::discover(&cwd)?;
    let dir = repo.hooks_dir();
    let path = dir.join("pre-commit");
    if let Ok(target) = std::fs::read_link(&path) {
        // Replacing the link with a file would cut it off from what manages it (husky, a
        // shared hooks repository); editing its target would change other repositories.
        return Err(crate::base::error::Refusal(format!(
            "{} is a symlink to {}; git-clada does not edit linked hooks — add `git-clada check --staged || exit 1` to the hook yourself",
            path.display(),
            target.display()
        ))
        .into());
    }
    let mut path = path;
    let mut existing = read_hook(&path)?;
    // `pre-commit install` (the pre-commit framework) moves a hook it finds to
    // `pre-commit.legacy` and runs it from its own: git-clada's block lives on there.
    let legacy = dir.join("pre-commit.legacy");
    if existing.as_deref().is_none_or(|t| find_block(t).is_none()) {
        if let Some(text) = read_hook(&legacy)?.filter(|t| find_block(t).is_some()) {
            path = legacy;
            existing = Some(text);
        }
    }
    let dry = if global.dry_run { "would be " } else { "" };
    let say = |msg: String| println!("{msg}");
    match args.action {
        HooksAction::Install => {
            let new = match &existing {
                None => format!("{SHEBANG}{}", block(BEGIN_CREATED)),
                Some(text) => match find_block(text) {
                    Some((s, e, created)) => {
                        let want = block(if created { BEGIN_CREATED } else { BEGIN });
                        if text[s..e] == want || text[s..e] == *want.trim_end_matches('\n') {
                            say(format!(
                                "the git-clada pre-commit hook is already installed in {}",
                                path.display()
                            ));
                            return Ok(Outcome::Success);
                        }
                        let end_nl = if text[s..e].ends_with('\n') { "" } else { "\n" };
                        let want = if end_nl.is_empty() {
                            want
                        } else {
                            want.trim_end_matches('\n').to_string()
                        };
                        format!("{}{want}{}", &text[..s], &text[e..])
                    }
                    None => insert(text),
                },
            };
            if !global.dry_run {
                std::fs::create_dir_all(&dir)
                    .with_context(|| format!("cannot create {}", dir.display()))?;
                write_keeping_mode(&path, &new)?;
                if set_executable(&path)? && existing.is_some() {
                    say(format!(
                        "note: {} was not executable (so git did not run it); it is now",
                        path.display()
                    ));
                }
            }
            let how = if existing.is_some() {
                "added to the existing hook"
            } else {
                "installed"
            };
            say(format!(
                "git-clada pre-commit hook {dry}{how}: {}",
                path.display()
            ));
        }
        HooksAction::Uninstall => {
            let Some((text, (s, e, created))) = existing
                .as_ref()
                .and_then(|t| find_block(t).map(|b| (t, b)))
            else {
                say(format!(
                    "the git-clada pre-commit hook is not installed in {}",
                    path.display()
                ));
                return Ok(Outcome::Success);
            };
            let rest = remove(text, s, e);
            if created && (rest == SHEBANG || rest.trim().is_empty()) {
                if !global.dry_run {
                    std::fs::remove_file(&path)
                        .with_context(|| format!("cannot remove {}", path.display()))?;
                }
                say(format!("{} {dry}removed", path.display()));
            } else {
                if !global.dry_run {
                    write_keeping_mode(&path, &rest)?;
                }
                say(format!(
                    "git-clada's part of {} {dry}removed; the rest of the hook is kept",
                    path.display()
                ));
            }
        }
        HooksAction::Check | HooksAction::Prepare => {}
    }
    Ok(Outcome::Success)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_remove_round_trip() {
        for original in [
            "#!/bin/sh\necho mine\nexit 0\n",
            "#!/bin/bash",
            "echo no shebang\n",
            "",
            "#!/bin/sh\n",
        ] {
            let with = insert(original);
            let (s, e, created) = find_block(&with).expect("block");
            assert!(!created);
            assert_eq!(remove(&with, s, e), original, "{original:?} → {with:?}");
            if original.starts_with("#!") {
                assert!(with.starts_with(original.lines().next().unwrap()));
            }
        }
    }
}
