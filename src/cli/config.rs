//! `git clada config`: the effective configuration and where each value came from.

use anyhow::Context;

use crate::cli::{Format, Global};
use clada_base::error::Outcome;

/// Show the effective configuration: every key, its value and where it came from (default,
/// the repository's `.clada.yml`, the user's `<config dir>/clada/config.yml`, or git config).
///
/// A configuration file with an unknown key, a wrong type or bad YAML is an error naming the
/// file, line and column.
///
/// A repository's `.clada.yml` can only tighten your settings: what would loosen them
/// (`exec: allow`, longer limits, a lower sandbox level, network, extra folders) and the
/// commands it would run on every apply (`hooks.before`, `hooks.after`) take effect only once
/// you trusted that exact version of the file with `--trust` (like git, which never runs hooks
/// that came with a clone); until then they are ignored with a warning, and again after the
/// file changes. Also shows whether the OS sandbox for exec and hooks is available, and what
/// it goes without where no user namespace can be made.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  git clada config\n  git clada config --format json\n  git clada config --trust"
)]
pub struct Args {
    /// Trust the repository's `.clada.yml` as it is now, so the commands and looser settings it
    /// sets apply; also imports the commands of an old `.clada/allowed-commands.json` into
    /// your approvals (read both first).
    #[arg(long)]
    pub trust: bool,
}

pub fn run(args: Args, global: Global) -> anyhow::Result<Outcome> {
    let cwd = std::env::current_dir().context("cannot determine the current directory")?;
    if args.trust {
        return trust(&cwd);
    }
    let cfg = clada_engine::config::load_for_dir(&cwd)?;
    let entries = cfg.entries();
    match global.format_or_default() {
        Format::Json => {
            let files: Vec<String> = cfg.files.iter().map(|p| p.display().to_string()).collect();
            let v = serde_json::json!({
                "files": files,
                "settings": entries,
                "untrusted": cfg.untrusted,
                "osSandbox": sandbox_state(&cfg),
                "withoutNamespaces": clada_engine::exec::notices::without_namespaces(),
            });
            crate::cli::print_json(&v)?;
        }
        Format::Human | Format::Llm => {
            let shown = global.shown();
            let width = entries.iter().map(|e| e.key.len()).max().unwrap_or(0);
            let mut out = String::new();
            for e in &entries {
                let value = match &e.value {
                    serde_json::Value::String(s) => s.clone(),
                    v => v.to_string(),
                };
                // A repository's `.clada.yml` is as untrusted as a reply.
                let value = shown.content(&value);
                out.push_str(&format!(
                    "{:width$}  {value}  ({})\n",
                    e.key,
                    e.source,
                    width = width
                ));
            }
            if cfg.files.is_empty() {
                let user = clada_engine::config::user_file()
                    .map(|p| p.display().to_string())
                    .unwrap_or_else(|| "(no home directory)".into());
                out.push_str(&format!(
                    "(no configuration file: looked for {} in the worktree root and {user})\n",
                    clada_engine::config::REPO_FILE
                ));
            }
            if let Some(w) = cfg.untrusted_warning() {
                out.push_str(&format!("(not trusted: {w})\n"));
            }
            out.push_str(&format!(
                "(OS sandbox for exec and hooks: {})\n",
                sandbox_state(&cfg)
            ));
            if let Some(w) = clada_engine::exec::notices::without_namespaces() {
                out.push_str(&format!("(WITHOUT user namespaces: {w})\n"));
            }
            crate::cli::print(&out)?;
        }
    }
    Ok(Outcome::Success)
}

/// Whether the OS sandbox is there, and what its absence means.
fn sandbox_state(cfg: &clada_engine::config::Config) -> String {
    let confine = clada_engine::exec::confine::Confine::from_config(cfg, Vec::new());
    match confine.availability() {
        a @ clada_engine::exec::confine::Availability::Landlock { .. } => a.describe(),
        a => format!(
            "{} — exec blocks are refused and hooks wait (⏸) unless your own sandbox.level: off \
             and hooks.sandbox: off say to run them unconfined",
            a.describe()
        ),
    }
}

/// Keeps a copy of `.clada.yml` as it is now in the git directory (never cloned or
/// committed): from now on its commands run, until the file changes.
fn trust(cwd: &std::path::Path) -> anyhow::Result<Outcome> {
    let repo = clada_git::Repo::discover(cwd)?;
    let imported = import_legacy_approvals(repo.workdir(), repo.git_dir())?;
    let file = repo.workdir().join(clada_engine::config::REPO_FILE);
    let text = match clada_engine::config::read_repo_file(&file)? {
        Some(t) => t.into_bytes(),
        None if imported => return Ok(Outcome::Success),
        None => {
            return Err(clada_base::error::UsageError(format!(
                "cannot read '{}' to trust it: there is no such file",
                file.display()
            ))
            .into())
        }
    };
    // Only a file that loads is trusted: what is trusted is what will run.
    clada_engine::config::load_for_dir(cwd)?;
    let copy = clada_engine::config::trusted_copy(repo.git_dir());
    if let Some(dir) = copy.parent() {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create '{}'", dir.display()))?;
    }
    clada_base::fsutil::write_atomic(&copy, &text, clada_base::fsutil::Perm::Executable(false))
        .with_context(|| format!("cannot write '{}'", copy.display()))?;
    eprintln!(
        "trusted {} as it is now; its hooks.before/hooks.after commands and looser settings apply until the file changes",
        file.display()
    );
    Ok(Outcome::Success)
}

/// Copies the commands of the worktree's old approval file (`.clada/allowed-commands.json`)
/// into the user's approvals; whether there was such a file.
fn import_legacy_approvals(
    root: &std::path::Path,
    git_dir: &std::path::Path,
) -> anyhow::Result<bool> {
    use clada_engine::exec::approvals::{store_path, Approvals, LEGACY_FILE};
    let legacy = root.join(LEGACY_FILE);
    if legacy.symlink_metadata().is_err() {
        return Ok(false);
    }
    let Some(store) = store_path(Some(git_dir), root) else {
        return Ok(true);
    };
    let commands = Approvals::load_legacy(&legacy)?.commands;
    let added = Approvals::store(&store, &commands)?;
    eprintln!(
        "imported {} approved command(s) from {LEGACY_FILE} into {} (the old file is no longer read; remove it when you like)",
        added.len(),
        store.display()
    );
    for c in added {
        eprintln!(
            "  {}",
            clada_base::term::escape(&c, clada_base::term::Rule::Command)
        );
    }
    Ok(true)
}
