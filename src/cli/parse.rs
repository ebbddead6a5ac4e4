//! `git clada parse`: print the raw block parse result.

use std::io::Write as _;
use std::path::PathBuf;

use crate::cli::dialects::DialectArg;
use crate::cli::{Format, Global};
use clada_base::error::Outcome;
use clada_base::stdout::or_closed;
use clada_base::term::Shown;

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

    /// Which format to read: auto reads each block in the format its opening line shows (SHAM,
    /// NESL, nesl, CSL, CML, the replacer format, aider's SEARCH/REPLACE, apply_patch, unified
    /// diffs); a format name reads only that one.
    #[arg(long, value_enum, default_value_t = DialectArg::AUTO)]
    pub dialect: DialectArg,
}

pub fn run(args: Args, global: Global) -> anyhow::Result<Outcome> {
    let reply = clada_engine::input::read_reply(args.file.as_deref(), args.dialect.into())?;
    let result = clada_read::parse(&reply.text, args.dialect.into());
    // Streamed: a reply with millions of errors would otherwise be held twice in memory.
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    match global.format.unwrap_or(Format::Json) {
        // On a terminal: escaped, so held in memory once (`print_json`).
        Format::Json if Shown::stdout(false) == Shown::Escaped => {
            drop(out);
            crate::cli::print_json(&result)?;
            return Ok(outcome(&result));
        }
        Format::Json => {
            // A serde error wraps the write's: a closed stdout is found inside it.
            if let Err(e) = serde_json::to_writer_pretty(&mut out, &result) {
                or_closed(Err(std::io::Error::from(e)))?;
            }
            or_closed(out.write_all(b"\n"))?;
        }
        Format::Human | Format::Llm => {
            or_closed(out.write_all(clada_engine::summary::summary(&result).as_bytes()))?
        }
    }
    // A closed stdout ends the process quietly, as git's (`clada_base::stdout`).
    or_closed(out.flush())?;
    Ok(outcome(&result))
}

fn outcome(result: &clada_read::ParseResult) -> Outcome {
    if result.errors.is_empty() {
        Outcome::Success
    } else {
        Outcome::Partial
    }
}
