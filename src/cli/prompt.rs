//! `git clada prompt`: print the instructions to give a model.

use std::io::Write as _;

use anyhow::Context;

use crate::cli::dialects::{dialect, no_actions, PromptDialectArg};
use crate::cli::Global;
use crate::loops::prompt::{self, PromptFormat};
use crate::loops::prompt_formats;
use clada_base::error::{Outcome, UsageError};

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

pub fn run(args: Args, _global: Global, format: Option<PromptFormat>) -> anyhow::Result<Outcome> {
    let format = format.unwrap_or(PromptFormat::Markdown);
    let text = match dialect(args.dialect) {
        Ok(d) => prompt::render(d, args.actions.as_deref(), format)
            .map_err(|e| UsageError(e.to_string()))?,
        Err(edit) if args.actions.is_some() => return Err(no_actions(edit).into()),
        Err(edit) => prompt_formats::render(edit, format),
    };
    let mut out = std::io::stdout().lock();
    clada_base::stdout::or_closed(out.write_all(text.as_bytes()).and_then(|()| out.flush()))
        .context("cannot write the prompt to standard output")?;
    Ok(Outcome::Success)
}
