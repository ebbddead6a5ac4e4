//! `git clada context`: print what a model needs to start. Argument handling only; the work is
//! in `loops::context`.

use anyhow::Context as _;

use crate::cli::dialects::PromptDialectArg;
use crate::cli::Global;
use crate::loops::context::{self, ContextError, ContextOptions};
use clada_base::error::{Outcome, UsageError};
use clada_git::Repo;

/// Print what a model needs for its first turn: the instructions, a map of the repository, and
/// the chosen files with line numbers.
///
/// The instructions are `git clada prompt`'s; the map lists the tracked files, each source file
/// (Rust, Python, JavaScript/TypeScript, Go, Ruby, shell) with its top-level definitions; each
/// PATH (a file, or a folder: its tracked files) is shown whole, numbered as
/// `file_replace_lines` counts lines. Paste it as the first message (or `--copy` it), then say
/// what you want: the model can edit at once instead of spending its first turn reading.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  git clada context src/requests/api.py src/requests/sessions.py --copy\n  git clada context --no-instructions src/ > context.md"
)]
pub struct Args {
    /// Files or folders to show whole, with line numbers.
    #[arg(value_name = "PATH")]
    pub paths: Vec<String>,

    /// Copy the context to the clipboard (what happened is said on stderr).
    #[arg(long)]
    pub copy: bool,

    /// Leave the instructions out (the model already has them).
    #[arg(long)]
    pub no_instructions: bool,

    /// Leave the repository map out.
    #[arg(long)]
    pub no_map: bool,

    /// At most this many files in the map.
    #[arg(long, value_name = "N", default_value_t = 400)]
    pub map_limit: usize,

    /// The block spelling the instructions teach.
    #[arg(long, value_enum, value_name = "DIALECT", default_value_t = PromptDialectArg::Nesl)]
    pub dialect: PromptDialectArg,

    /// Only these actions in the instructions (comma-separated).
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub actions: Option<Vec<String>>,
}

pub fn run(args: Args, _global: Global) -> anyhow::Result<Outcome> {
    let cwd = std::env::current_dir()?;
    let repo = Repo::discover(&cwd)?;
    let dialect = match crate::cli::dialects::dialect(args.dialect) {
        Err(edit) if args.actions.is_some() => {
            return Err(crate::cli::dialects::no_actions(edit).into())
        }
        d => d,
    };
    let opts = ContextOptions {
        paths: args.paths,
        instructions: !args.no_instructions,
        map: !args.no_map,
        dialect,
        actions: args.actions,
        map_limit: args.map_limit,
    };
    let text = context::render(&repo, &cwd, &opts).map_err(|e| match e {
        ContextError::Path(_) | ContextError::Prompt(_) => UsageError(e.to_string()),
    })?;
    // For the model: exact, unless stdout is a terminal (the repository's files are shown).
    let shown = clada_base::term::Shown::stdout(false).content(&text);
    // A closed stdout does not stop --copy: the process ends quietly after it (`clada_base::stdout`).
    clada_base::stdout::say(&shown).context("cannot write the context to standard output")?;
    if args.copy {
        eprintln!("git-clada: {}", crate::loops::clipboard::copy(&text).line());
    }
    Ok(Outcome::Success)
}
