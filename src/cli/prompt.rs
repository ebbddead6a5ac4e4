//! `git clada prompt`: print the instructions to give a model.

use std::io::Write as _;

use anyhow::Context;

use crate::base::error::{Outcome, UsageError};
use crate::cli::Global;
use crate::loops::prompt::{self, PromptDialect, PromptFormat};
use crate::loops::prompt_formats::{self, EditFormat};

/// Print the instructions to give a model (system prompt or custom instructions).
///
/// The block syntax of the chosen dialect, every action with its parameters, types, defaults
/// and an example, the rules that make edits succeed, and what the report that comes back
/// looks like. `--dialect aider`, `apply-patch` or `diff` prints instead the instructions for
/// one of the edit formats models already write (the syntax, the rules, what git-clada
/// tolerates and where it is stricter than the format's own tool). The action part is generated from the same schema the engine checks blocks
/// against, so it always matches what `apply` accepts. `--format markdown` (default), `text`,
/// or `json` (one function-tool schema per action plus the examples and the instructions, for
/// agent frameworks).
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  git clada prompt | pbcopy\n  git clada prompt --actions file_write,file_replace_text,file_read\n  git clada prompt --format json > clada-tools.json"
)]
pub struct Args {
    /// The block spelling to teach.
    #[arg(long, value_enum, value_name = "DIALECT", default_value_t = PromptDialectArg::Nesl)]
    pub dialect: PromptDialectArg,

    /// Only these actions (comma-separated), e.g. without exec.
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub actions: Option<Vec<String>>,
}

/// `--dialect` values of `prompt`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PromptDialectArg {
    /// `#!nesl [@three-char-SHA-256: ID]` … `#!end_ID`.
    Nesl,
    /// `#!NESL [@three-char-SHA-256: ID]` … `#!END_NESL_ID`.
    NeslUpper,
    /// `#!SHAM [@three-char-SHA-256: ID]` … `#!END_SHAM_ID`.
    Sham,
    /// aider SEARCH/REPLACE blocks (file edits only).
    Aider,
    /// Codex apply_patch envelopes (file edits only).
    ApplyPatch,
    /// Unified diffs, as `git diff` writes them (file edits only).
    Diff,
}

/// An action-block dialect, or one of the edit formats.
pub(crate) fn dialect(d: PromptDialectArg) -> Result<PromptDialect, EditFormat> {
    match d {
        PromptDialectArg::Nesl => Ok(PromptDialect::Nesl),
        PromptDialectArg::NeslUpper => Ok(PromptDialect::NeslUpper),
        PromptDialectArg::Sham => Ok(PromptDialect::Sham),
        PromptDialectArg::Aider => Err(EditFormat::Aider),
        PromptDialectArg::ApplyPatch => Err(EditFormat::ApplyPatch),
        PromptDialectArg::Diff => Err(EditFormat::Diff),
    }
}

/// `--actions` with an edit format, which has no actions to choose.
pub(crate) fn no_actions(edit: EditFormat) -> UsageError {
    UsageError(format!(
        "--actions: --dialect {} edits files only and has no actions to choose; use it without \
         --actions, or choose the actions of a block dialect (nesl, nesl-upper, sham)",
        edit.name()
    ))
}

pub fn run(args: Args, _global: Global, format: Option<PromptFormat>) -> anyhow::Result<Outcome> {
    let format = format.unwrap_or(PromptFormat::Markdown);
    let text = match dialect(args.dialect) {
        Ok(d) => prompt::render(d, args.actions.as_deref(), format)
            .map_err(|e| UsageError(e.to_string()))?,
        Err(edit) if args.actions.is_some() => return Err(no_actions(edit).into()),
        Err(edit) => prompt_formats::render(edit, format),
    };
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .context("cannot write the prompt to standard output")?;
    Ok(Outcome::Success)
}
