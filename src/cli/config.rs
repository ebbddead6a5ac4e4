//! `git clada config`: the effective configuration and where each value came from.

use anyhow::Context;

use crate::cli::{Format, Global};
use crate::error::Outcome;

/// Show the effective configuration: every key, its value and where it came from (default,
/// the repository's `.clada.yml`, the user's `<config dir>/clada/config.yml`, or git config).
///
/// A configuration file with an unknown key, a wrong type or bad YAML is an error naming the
/// file, line and column.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  git clada config\n  git clada config --format json")]
pub struct Args {}

pub fn run(_args: Args, global: Global) -> anyhow::Result<Outcome> {
    let cwd = std::env::current_dir().context("cannot determine the current directory")?;
    let cfg = crate::config::load_for_dir(&cwd)?;
    let entries = cfg.entries();
    match global.format_or_default() {
        Format::Json => {
            let files: Vec<String> = cfg.files.iter().map(|p| p.display().to_string()).collect();
            let v = serde_json::json!({"files": files, "settings": entries});
            println!("{}", serde_json::to_string_pretty(&v)?);
        }
        Format::Human | Format::Llm => {
            let width = entries.iter().map(|e| e.key.len()).max().unwrap_or(0);
            let mut out = String::new();
            for e in &entries {
                let value = match &e.value {
                    serde_json::Value::String(s) => s.clone(),
                    v => v.to_string(),
                };
                out.push_str(&format!(
                    "{:width$}  {value}  ({})\n",
                    e.key,
                    e.source,
                    width = width
                ));
            }
            if cfg.files.is_empty() {
                let user = crate::config::user_file()
                    .map(|p| p.display().to_string())
                    .unwrap_or_else(|| "(no home directory)".into());
                out.push_str(&format!(
                    "(no configuration file: looked for {} in the worktree root and {user})\n",
                    crate::config::REPO_FILE
                ));
            }
            print!("{out}");
        }
    }
    Ok(Outcome::Success)
}
