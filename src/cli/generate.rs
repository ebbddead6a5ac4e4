//! Hidden `git clada generate`: writes `man/` and `completions/` from the clap definitions,
//! `docs/prompt/` from the action schema, and the schema the binary embeds,
//! `crates/clada-engine/src/action/schema.json`, from `schema.yaml` beside it.
//! Run `cargo run -- generate` after changing any help text; a test fails when the checked-in
//! files are stale.

use std::path::{Path, PathBuf};

use anyhow::Context;
use clap_complete::Shell;

use crate::cli::man::write_man_pages;
use crate::cli::Global;
use clada_base::error::Outcome;

/// Regenerate the man pages and shell completions.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Directory that receives `man/` and `completions/`.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub out: PathBuf,
}

pub fn run(args: Args, _global: Global) -> anyhow::Result<Outcome> {
    write_all(&args.out)?;
    write_prompts(&args.out.join("docs").join("prompt"))?;
    let json =
        clada_engine::action::schema::Schema::embedded_as_json().map_err(anyhow::Error::msg)?;
    let path = args.out.join("crates/clada-engine/src/action/schema.json");
    std::fs::write(&path, json).with_context(|| format!("cannot write '{}'", path.display()))?;
    Ok(Outcome::Success)
}

/// Writes `DIR/man/man1/git-clada*.1` and `DIR/completions/*`.
pub fn write_all(out: &Path) -> anyhow::Result<()> {
    write_man_pages(&out.join("man").join("man1"))?;

    let comp_dir = out.join("completions");
    std::fs::create_dir_all(&comp_dir)
        .with_context(|| format!("cannot create '{}'", comp_dir.display()))?;
    for shell in [
        Shell::Bash,
        Shell::Zsh,
        Shell::Fish,
        Shell::Elvish,
        Shell::PowerShell,
    ] {
        let mut cmd = completed(super::command());
        let path = clap_complete::generate_to(shell, &mut cmd, "git-clada", &comp_dir)
            .with_context(|| format!("cannot write {shell} completions"))?;
        if shell == Shell::Bash {
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("cannot read '{}'", path.display()))?;
            // clap_complete names the subcommand states of a binary with a `-` in its name
            // `git__subcmd__clada__…` but sets `git__clada__…`, so no subcommand's options
            // would complete: one spelling for both.
            let mut text = text.replace("git__subcmd__clada", "git__clada");
            text.push_str(GIT_SUBCOMMAND_BASH);
            std::fs::write(&path, text)
                .with_context(|| format!("cannot write '{}'", path.display()))?;
        }
    }
    Ok(())
}

/// The command line as completions offer it: the same, minus the hidden subcommands
/// (`generate`), which clap_complete would list like the others.
fn completed(cmd: clap::Command) -> clap::Command {
    let mut out = clap::Command::new(cmd.get_name().to_string())
        .bin_name(cmd.get_bin_name().unwrap_or(cmd.get_name()).to_string())
        .propagate_version(cmd.is_propagate_version_set())
        .subcommand_required(cmd.is_subcommand_required_set())
        .arg_required_else_help(cmd.is_arg_required_else_help_set());
    if let Some(v) = cmd.get_version() {
        out = out.version(v.to_string());
    }
    if let Some(a) = cmd.get_about() {
        out = out.about(a.clone());
    }
    if let Some(a) = cmd.get_long_about() {
        out = out.long_about(a.clone());
    }
    out = out.args(cmd.get_arguments().cloned());
    out.subcommands(cmd.get_subcommands().filter(|s| !s.is_hide_set()).cloned())
}

/// `git clada <TAB>` in bash: git's completion calls `_git_clada` for the `clada` subcommand
/// (after loading this file as the completion of `git-clada`), with `git`'s words; it is handed
/// to the completer above with `git-clada` as the command word. (zsh's `_git` calls
/// `_git-clada` itself, and fish's git completion runs `git-clada`'s.)
const GIT_SUBCOMMAND_BASH: &str = r#"
# `git clada <TAB>`: git's completion calls _git_clada with git's words; complete them as
# `git-clada …` (the index of the `clada` word is __git_cmd_idx in git's completion).
_git_clada() {
    local idx=${__git_cmd_idx:-1}
    local COMP_WORDS=("git-clada" "${COMP_WORDS[@]:idx+1}")
    local COMP_CWORD=$((COMP_CWORD - idx))
    _git__clada "git-clada" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
}
"#;

/// Writes `git clada prompt`'s output for every dialect into `dir` (`docs/prompt/`).
pub fn write_prompts(dir: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create '{}'", dir.display()))?;
    for (name, text) in crate::loops::prompt_formats::checked_in_docs() {
        let path = dir.join(name);
        std::fs::write(&path, text)
            .with_context(|| format!("cannot write '{}'", path.display()))?;
    }
    Ok(())
}
