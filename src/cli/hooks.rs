//! `git clada hooks install|uninstall`: git-clada's own git hooks (DESIGN §7.6); `check` and
//! `prepare` (the hook sandbox, docs/hooks-sandbox.md) are in `hooks_check.rs`.
//!
//! The shipped hooks (`hooks/pre-commit`; `hooks/post-commit` and `hooks/post-rewrite`,
//! which carry AI line attribution through cherry-pick, amend and rebase; and, unless
//! `--no-share`, `hooks/pre-push`, `hooks/post-merge` and `hooks/post-checkout`, which share
//! the logs with the remotes, with a fetch refspec per remote: `record::shared_logs`) are each put into
//! the hooks directory git really uses (`core.hooksPath` respected; under husky 9 the new
//! ones go to `.husky/<name>`) between marker lines, right after an existing hook's `#!`
//! line, so whatever the hook already did is kept and still runs (the post-rewrite part
//! hands git's standard input on to the rest of the hook). Installing again replaces only
//! the marked part (no-op when current); uninstall removes exactly what install added,
//! leaving the original hook byte-identical (and deleting the file if install created it).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::cli::Global;
use clada_base::error::Outcome;
use clada_engine::record::shared_logs;
use clada_git::Repo;

/// Install or remove git-clada's git hooks (a pre-commit hook that refuses stray block
/// markers; post-commit and post-rewrite hooks that keep AI line attribution through
/// cherry-pick, amend and rebase; pre-push, post-merge and post-checkout hooks and a fetch
/// refspec per remote that share the attribution logs with your remotes), or try the
/// repository's hooks in the sandbox AI commits run them in. Existing hook content is
/// preserved; core.hooksPath is respected.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  git clada hooks install\n  git clada hooks install --no-share\n  git clada hooks check\n  git clada hooks prepare"
)]
pub struct Args {
    #[command(subcommand)]
    pub action: HooksAction,
}

#[derive(Debug, clap::Subcommand)]
pub enum HooksAction {
    /// Install the hooks, and share the AI attribution logs (refs/notes/ai) with every remote:
    /// a plain `git push` also pushes them (never forced, asking for no credentials), a plain
    /// `git fetch`/`git pull` brings the remote's into refs/notes/remotes/<remote>/ai, merged
    /// at the next merge, checkout or rewrite, or when git-clada reads them. A remote added
    /// later is shared once you run this again.
    Install {
        /// Leave sharing out (and stop it where an earlier install set it up).
        #[arg(long)]
        no_share: bool,
    },
    /// Remove the hooks, keeping any other content of the hook files, and the fetch refspecs
    /// that share the logs.
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

/// A hook git-clada ships: its name and text, and whether it is part of sharing the logs.
#[derive(Clone, Copy)]
struct Shipped {
    name: &'static str,
    text: &'static str,
    share: bool,
}

/// The shipped hooks: the block-marker check, the two that carry AI line attribution through
/// the user's own rewrites, and the three that share it with the remotes (docs/provenance.md).
const SHIPPED: [Shipped; 6] = [
    Shipped {
        name: "pre-commit",
        text: include_str!("../../hooks/pre-commit"),
        share: false,
    },
    Shipped {
        name: "post-commit",
        text: include_str!("../../hooks/post-commit"),
        share: false,
    },
    Shipped {
        name: "post-rewrite",
        text: include_str!("../../hooks/post-rewrite"),
        share: false,
    },
    Shipped {
        name: "pre-push",
        text: include_str!("../../hooks/pre-push"),
        share: true,
    },
    Shipped {
        name: "post-merge",
        text: include_str!("../../hooks/post-merge"),
        share: true,
    },
    Shipped {
        name: "post-checkout",
        text: include_str!("../../hooks/post-checkout"),
        share: true,
    },
];

const SHEBANG: &str = "#!/bin/sh\n";

/// The marker lines of one hook's part.
struct Marks {
    begin: String,
    /// The begin marker when install created the file (uninstall then deletes it).
    begin_created: String,
    end: String,
}

fn marks(name: &str) -> Marks {
    let how = "(added by `git clada hooks install`; `git clada hooks uninstall` removes it)";
    Marks {
        begin: format!("# >>> git-clada {name} >>> {how}"),
        begin_created: format!("# >>> git-clada {name} (file created by git-clada) >>> {how}"),
        end: format!("# <<< git-clada {name} <<<"),
    }
}

/// The marked part: the shipped hook without its `#!` line.
fn block(hook: Shipped, begin: &str) -> String {
    let body = hook
        .text
        .split_once('\n')
        .map(|(_, rest)| rest)
        .unwrap_or("");
    format!("{begin}\n{body}{}\n", marks(hook.name).end)
}

/// Where the marked part is in `text`: (start, end) byte range of its lines, and whether
/// install created the file.
fn find_block(m: &Marks, text: &str) -> Option<(usize, usize, bool)> {
    let (start, created) = [(&m.begin, false), (&m.begin_created, true)]
        .iter()
        .find_map(|(mark, c)| {
            let at = text.find(mark.as_str())?;
            (at == 0 || text.as_bytes()[at - 1] == b'\n').then_some((at, *c))
        })?;
    let end_at = start + text[start..].find(&m.end)?;
    let mut end = end_at + m.end.len();
    if text[end..].starts_with('\n') {
        end += 1;
    }
    Some((start, end, created))
}

/// `text` with the marked part added (install into an existing hook).
fn insert(hook: Shipped, text: &str) -> String {
    let b = block(hook, &marks(hook.name).begin);
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
    clada_base::fsutil::write_atomic(
        path,
        text.as_bytes(),
        clada_base::fsutil::Perm::KeepExisting {
            executable_if_new: true,
        },
    )
    .with_context(|| format!("cannot write {}", path.display()))
}

/// The file git (or the hook manager) runs for `hook` in hooks directory `dir`. Under husky
/// 9 (`core.hooksPath` = `.husky/_`, whose `h` runs the user's `.husky/<name>`), the new
/// hooks go to `.husky/<name>`, where husky keeps the user's hooks.
fn hook_file(dir: &Path, hook: Shipped) -> PathBuf {
    let husky = dir.file_name().is_some_and(|n| n == "_") && dir.join("h").is_file();
    match dir.parent() {
        Some(parent) if husky && hook.name != "pre-commit" => parent.join(hook.name),
        _ => dir.join(hook.name),
    }
}

/// Whether `text` is a hook the pre-commit framework generated.
fn is_framework_hook(text: &str) -> bool {
    text.contains("File generated by pre-commit: https://pre-commit.com")
}

/// The file holding (or to hold) git-clada's part of `hook`, and its text. `pre-commit
/// install` moves a hook it finds to `<name>.legacy` and runs that from its own; for
/// pre-commit and post-commit git-clada's part lives on there. Not for post-rewrite: the
/// framework runs the legacy hook without git's standard input, so git-clada's part goes
/// into the framework's own hook (which does not read it).
fn located(path: &Path, hook: Shipped) -> anyhow::Result<(PathBuf, Option<String>)> {
    let m = marks(hook.name);
    let existing = read_hook(path)?;
    if hook.name == "post-rewrite"
        || existing
            .as_deref()
            .is_some_and(|t| find_block(&m, t).is_some())
    {
        return Ok((path.to_path_buf(), existing));
    }
    let legacy = path.with_file_name(format!("{}.legacy", hook.name));
    if let Some(text) = read_hook(&legacy)?.filter(|t| find_block(&m, t).is_some()) {
        return Ok((legacy, Some(text)));
    }
    Ok((path.to_path_buf(), existing))
}

/// Removes git-clada's part from the file at `path` (deleting the file if install created
/// it and nothing else is in it); false when it has none.
fn strip(path: &Path, hook: Shipped, dry: bool) -> anyhow::Result<Option<&'static str>> {
    let Some(text) = read_hook(path)? else {
        return Ok(None);
    };
    let Some((s, e, created)) = find_block(&marks(hook.name), &text) else {
        return Ok(None);
    };
    let rest = remove(&text, s, e);
    if created && (rest == SHEBANG || rest.trim().is_empty()) {
        if !dry {
            std::fs::remove_file(path)
                .with_context(|| format!("cannot remove {}", path.display()))?;
        }
        return Ok(Some("removed"));
    }
    if !dry {
        write_keeping_mode(path, &rest)?;
    }
    Ok(Some("part removed; the rest of the hook is kept"))
}

fn install_one(path: &Path, hook: Shipped, global: &Global) -> anyhow::Result<()> {
    let (path, existing) = located(path, hook)?;
    let m = marks(hook.name);
    let dry = if global.dry_run { "would be " } else { "" };
    let new = match &existing {
        None => format!("{SHEBANG}{}", block(hook, &m.begin_created)),
        Some(text) => match find_block(&m, text) {
            Some((s, e, created)) => {
                let want = block(hook, if created { &m.begin_created } else { &m.begin });
                if text[s..e] == want || text[s..e] == *want.trim_end_matches('\n') {
                    sayln!(
                        "the git-clada {} hook is already installed in {}",
                        hook.name,
                        path.display()
                    );
                    return Ok(());
                }
                let want = if text[s..e].ends_with('\n') {
                    want
                } else {
                    want.trim_end_matches('\n').to_string()
                };
                format!("{}{want}{}", &text[..s], &text[e..])
            }
            None => insert(hook, text),
        },
    };
    if !global.dry_run {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
        }
        write_keeping_mode(&path, &new)?;
        if set_executable(&path)? && existing.is_some() {
            sayln!(
                "note: {} was not executable (so git did not run it); it is now",
                path.display()
            );
        }
    }
    if hook.name == "post-rewrite" && existing.as_deref().is_some_and(is_framework_hook) {
        // A part the framework moved to post-rewrite.legacy gets no input there.
        strip(
            &path.with_file_name("post-rewrite.legacy"),
            hook,
            global.dry_run,
        )?;
    }
    let how = if existing.is_some() {
        "added to the existing hook"
    } else {
        "installed"
    };
    sayln!(
        "git-clada {} hook {dry}{how}: {}",
        hook.name,
        path.display()
    );
    Ok(())
}

fn uninstall_one(path: &Path, hook: Shipped, global: &Global) -> anyhow::Result<()> {
    let dry = if global.dry_run { "would be " } else { "" };
    let legacy = path.with_file_name(format!("{}.legacy", hook.name));
    let mut any = false;
    for file in [path, legacy.as_path()] {
        if let Some(what) = strip(file, hook, global.dry_run)? {
            any = true;
            match what {
                "removed" => sayln!("{} {dry}removed", file.display()),
                _ => sayln!(
                    "git-clada's part of {} {dry}removed; the rest of the hook is kept",
                    file.display()
                ),
            }
        }
    }
    if !any {
        sayln!(
            "the git-clada {} hook is not installed in {}",
            hook.name,
            path.display()
        );
    }
    Ok(())
}

pub fn run(args: Args, global: Global) -> anyhow::Result<Outcome> {
    match &args.action {
        HooksAction::Check => return super::hooks_check::check(&global),
        HooksAction::Prepare => return super::hooks_check::prepare(&global),
        HooksAction::Install { .. } | HooksAction::Uninstall => {}
    }
    let cwd = std::env::current_dir().context("cannot determine the current directory")?;
    let repo = Repo::discover(&cwd)?;
    let dir = repo.hooks_dir();
    let paths: Vec<(PathBuf, Shipped)> =
        SHIPPED.iter().map(|h| (hook_file(&dir, *h), *h)).collect();
    for (path, _) in &paths {
        if let Ok(target) = std::fs::read_link(path) {
            // Replacing the link with a file would cut it off from what manages it (husky, a
            // shared hooks repository); editing its target would change other repositories.
            return Err(clada_base::error::Refusal(format!(
                "{} is a symlink to {}; git-clada does not edit linked hooks — add `git-clada check --staged || exit 1` to the hook yourself",
                path.display(),
                target.display()
            ))
            .into());
        }
    }
    let share = matches!(args.action, HooksAction::Install { no_share: false });
    for (path, hook) in paths {
        match args.action {
            HooksAction::Install { .. } if hook.share && !share => {
                if located(&path, hook)?
                    .1
                    .is_some_and(|t| find_block(&marks(hook.name), &t).is_some())
                {
                    uninstall_one(&path, hook, &global)?;
                }
            }
            HooksAction::Install { .. } => install_one(&path, hook, &global)?,
            HooksAction::Uninstall => uninstall_one(&path, hook, &global)?,
            HooksAction::Check | HooksAction::Prepare => {}
        }
    }
    let lines = match (&args.action, share) {
        (HooksAction::Install { .. }, true) => shared_logs::set_up(&repo, global.dry_run)?,
        _ => shared_logs::remove(&repo, global.dry_run)?,
    };
    if matches!(args.action, HooksAction::Install { no_share: true }) {
        sayln!("sharing the AI attribution logs with the remotes: left out (--no-share)");
    }
    for line in lines {
        sayln!("{line}");
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
            let with = insert(SHIPPED[2], original);
            let (s, e, created) = find_block(&marks("post-rewrite"), &with).expect("block");
            assert!(!created);
            assert_eq!(remove(&with, s, e), original, "{original:?} → {with:?}");
            if original.starts_with("#!") {
                assert!(with.starts_with(original.lines().next().unwrap()));
            }
        }
    }
}
