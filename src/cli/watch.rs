//! `git clada watch`: the listener.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;

use crate::cli::dialects::DialectArg;
use crate::cli::{engine_options_for, ExecFlags, ExecPolicyArg};
use crate::cli::{Format, Global};
use crate::loops::options::configured;
use crate::loops::watch::{self, Batch, WatchError, WatchOptions, Watcher};
use clada_base::error::Outcome;
use clada_engine::record::apply::ApplyOptions;
use clada_engine::report::{self, ReportFormat};

/// Watch FILE and apply each new complete block once, whenever the file changes.
///
/// Paste or append model replies into FILE. Each change applies the blocks that are new —
/// identified by their content, so a block is applied once however often the file changes,
/// and the set of applied blocks is kept in git (refs/clada/watch/…), so a restarted watcher
/// applies nothing twice. A block still being written (no end marker yet) waits. Each batch is
/// one AI commit; its llm report goes to stdout (another with --format), to --output FILE, to
/// the clipboard with --copy, and its summary to the top of the watched file with --prepend.
/// Progress goes to stderr. When the repository is busy (another git-clada, a merge in
/// progress, …) nothing is applied and the batch is retried. One watcher per repository;
/// Ctrl-C stops it between batches.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  git clada watch --copy chat.md\n  git clada watch --prepend --output .clada-last-report.txt ~/notes/reply.md"
)]
pub struct Args {
    /// The file to watch (it must exist).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    #[command(flatten)]
    pub provenance: crate::cli::ProvenanceFlags,

    /// Also write each batch's llm report to this file.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Put each batch's llm report on the clipboard (OSC 52 to the terminal when no display
    /// server is reachable). Also on with config `clipboard.copy: true`.
    #[arg(long)]
    pub copy: bool,

    /// Write each batch's summary at the top of the watched file, as the original listener did.
    #[arg(long)]
    pub prepend: bool,

    /// Which format to read: auto reads each block in the format its opening line shows (SHAM,
    /// NESL, nesl, CSL, CML, the replacer format, aider's SEARCH/REPLACE, apply_patch, unified
    /// diffs); a format name reads only that one.
    #[arg(long, value_enum, default_value_t = DialectArg::AUTO)]
    pub dialect: DialectArg,

    /// Policy for `exec` blocks: ask on a terminal, allow, or deny. Default: ask on a
    /// terminal, deny otherwise.
    #[arg(long, value_enum, value_name = "POLICY")]
    pub exec: Option<ExecPolicyArg>,

    /// Do not run the pre-commit, commit-msg and post-commit hooks.
    #[arg(long)]
    pub no_verify: bool,

    /// Check the file by polling only, without OS notifications (for network file systems).
    #[arg(long)]
    pub poll: bool,

    /// Milliseconds the file must stay unchanged before it is read.
    #[arg(long, value_name = "MS", default_value_t = 300, value_parser = clap::value_parser!(u64).range(50..))]
    pub debounce: u64,

    /// Apply what is new once and exit, without watching.
    #[arg(long)]
    pub once: bool,

    /// Treat the blocks already in the file as applied, without applying them.
    #[arg(long)]
    pub skip_existing: bool,
}

pub fn run(args: Args, global: Global) -> anyhow::Result<Outcome> {
    let cwd = std::env::current_dir().context("cannot determine the current directory")?;
    let file = if args.file.is_absolute() {
        args.file.clone()
    } else {
        cwd.join(&args.file)
    };
    // One identity per file however it is named (the applied set is keyed by it).
    let file = file.canonicalize().unwrap_or(file);
    // The report is for pasting back to the model: llm unless asked otherwise.
    let stdout_format = match global.format.unwrap_or(Format::Llm) {
        Format::Human => ReportFormat::Human,
        Format::Json => ReportFormat::Json,
        Format::Llm => ReportFormat::Llm,
    };
    let (cfg, root) = clada_engine::config::load_with_root(&cwd)?;
    if let Some(w) = cfg.untrusted_warning() {
        eprintln!("git-clada: warning: {w}");
    }
    let root = root.unwrap_or_else(|| cwd.clone());
    let flags = ExecFlags {
        exec: args.exec,
        ..ExecFlags::default()
    };
    let (engine, approvals) = engine_options_for(&flags, &global, &cfg, &root)?;
    let opts = WatchOptions {
        file,
        cwd,
        apply: ApplyOptions {
            dialect: args.dialect.into(),
            no_verify: args.no_verify,
            // `watch` keeps its own set of the blocks it applied.
            force: true,
            wip_commit: cfg.wip.value == clada_engine::config::WipSetting::Commit,
            author: crate::loops::options::config_author(&cfg)?,
            ..provenance_over(&args.provenance, configured(&cfg, engine))
        },
        output: args.output.clone(),
        copy: args.copy || cfg.clipboard_copy.value,
        prepend: args.prepend,
        poll: args.poll,
        debounce: Duration::from_millis(args.debounce),
        stdout_format,
        color: report::use_color(clada_base::term::stdout_is_terminal()),
        skip_existing: args.skip_existing,
    };
    // Signals are caught before anything is applied, so Ctrl-C never cuts a batch short.
    let stop = watch::stop_flag().context("cannot install the Ctrl-C handler")?;
    let mut watcher = match Watcher::start(opts) {
        Ok(w) => w,
        Err(WatchError::AlreadyWatching(msg)) => return Err(clada_base::error::Refusal(msg).into()),
        Err(e) => return Err(e.into()),
    };
    // Commands answered "always" are stored when the watcher ends (never inside a batch:
    // the approval file is no part of an AI commit).
    if args.once {
        let batch = watcher.run_once();
        approvals.store(&root)?;
        return Ok(match batch? {
            Batch::Applied(r) if !r.success => Outcome::Partial,
            Batch::Busy(msg) => return Err(clada_base::error::Refusal(msg).into()),
            _ => Outcome::Success,
        });
    }
    let ran = watcher.run(&stop);
    approvals.store(&root)?;
    ran?;
    Ok(Outcome::Success)
}

/// The configured options with `--agent`, `--model`, `--conversation` over them.
fn provenance_over(flags: &crate::cli::ProvenanceFlags, opts: ApplyOptions) -> ApplyOptions {
    ApplyOptions {
        provenance: flags.over(opts.provenance.clone()),
        ..opts
    }
}
