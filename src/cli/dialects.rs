//! The `--dialect` values several commands share: `DialectArg` (auto or one format the reading
//! layer registers: apply, check, parse, watch) and `PromptDialectArg` (the spellings a model
//! can be taught: prompt, context). Argument types only, so no subcommand file imports another.

use crate::loops::prompt::PromptDialect;
use crate::loops::prompt_formats::EditFormat;
use clada_base::error::UsageError;
use clada_read::Dialect;

/// `--dialect` values: `auto`, then every format the reading layer registers, in its order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DialectArg(pub Dialect);

impl DialectArg {
    pub const AUTO: DialectArg = DialectArg(Dialect::Auto);
}

impl clap::ValueEnum for DialectArg {
    fn value_variants<'a>() -> &'a [Self] {
        static ALL: std::sync::OnceLock<Vec<DialectArg>> = std::sync::OnceLock::new();
        ALL.get_or_init(|| {
            std::iter::once(DialectArg::AUTO)
                .chain(clada_read::formats().map(|(f, _)| DialectArg(Dialect::Only(f))))
                .collect()
        })
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        use clap::builder::PossibleValue;
        Some(match self.0 {
            Dialect::Auto => PossibleValue::new("auto").help(
                "Per block, from its opening line: `#!SHAM`, `#!NESL`, `#!nesl`, CSL, CML, \
                 replacer, aider's SEARCH/REPLACE, apply_patch's `*** Begin Patch`, or a unified \
                 diff",
            ),
            Dialect::Only(f) => {
                let help = clada_read::formats().find(|(g, _)| *g == f).map(|(_, h)| h);
                PossibleValue::new(f.id).help(help.unwrap_or_default())
            }
        })
    }
}

impl From<DialectArg> for Dialect {
    fn from(d: DialectArg) -> Self {
        d.0
    }
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
