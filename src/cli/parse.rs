//! `git clada parse`: print the raw block parse result.

use std::io::Write as _;
use std::path::PathBuf;

use crate::block::{self, Dialect};
use crate::cli::{Format, Global};
use crate::error::Outcome;

/// Print the raw block parse result of a reply as JSON in the reference shape.
///
/// The output is `{"blocks": [{id, properties, startLine, endLine}], "errors": [{code, line,
/// column, length, blockId, content, context, message}]}`, exactly what the nesl-js reference
/// prints, so its conformance suites can be run against it. Columns and lengths count UTF-16
/// code units. `--format human` prints a readable summary instead. Exit 1 if there are errors.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  git clada parse examples/reply.md\n  git clada parse --format human --dialect nesl reply.md"
)]
pub struct Args {
    /// The reply to parse; `-` or nothing reads standard input.
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,

    /// Block spelling: auto picks SHAM, NESL or nesl per block from its header.
    #[arg(long, value_enum, default_value_t = DialectArg::Auto)]
    pub dialect: DialectArg,
}

/// `--dialect` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DialectArg {
    /// Per block, from its opening marker: `#!SHAM`, `#!NESL`, `#!nesl`, CSL, CML or replacer.
    Auto,
    /// Only `#!SHAM [@three-char-SHA-256: id]` … `#!END_SHAM_id`.
    Sham,
    /// Only `#!NESL [@three-char-SHA-256: id]` … `#!END_NESL_id`.
    NeslUpper,
    /// Only `#!nesl [@LABEL: id]` … `#!end_id`.
    Nesl,
    /// Only CSL: `<---WRITE file="…"--->` … `<---END--->` (seed 002).
    Csl,
    /// Only CML: `<tasks>`, `<write>`, `<edit>`, `<move>`, `<remove>`, `<run>` (seed 004).
    Cml,
    /// Only the replacer format: `<<<FILE>>>` … `<<<END>>>` (seed 001).
    Replacer,
}

impl From<DialectArg> for Dialect {
    fn from(d: DialectArg) -> Self {
        match d {
            DialectArg::Auto => Dialect::Auto,
            DialectArg::Sham => Dialect::Sham,
            DialectArg::NeslUpper => Dialect::NeslUpper,
            DialectArg::Nesl => Dialect::Nesl,
            DialectArg::Csl => Dialect::Csl,
            DialectArg::Cml => Dialect::Cml,
            DialectArg::Replacer => Dialect::Replacer,
        }
    }
}

pub fn run(args: Args, global: Global) -> anyhow::Result<Outcome> {
    let reply = crate::input::read_reply(args.file.as_deref())?;
    let result = block::parse(&reply.text, args.dialect.into());
    // Streamed: a reply with millions of errors would otherwise be held twice in memory.
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    match global.format.unwrap_or(Format::Json) {
        Format::Json => {
            serde_json::to_writer_pretty(&mut out, &result)?;
            out.write_all(b"\n")?;
        }
        Format::Human | Format::Llm => out.write_all(block::summary(&result).as_bytes())?,
    }
    out.flush()?;
    Ok(if result.errors.is_empty() {
        Outcome::Success
    } else {
        Outcome::Partial
    })
}
