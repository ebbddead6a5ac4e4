//! Command-line surface: the clap definitions (whose doc comments are the help text, the man
//! page and the completions) and dispatch. One file per subcommand, each with an `Args`
//! struct and one `run()`; no logic beyond argument handling lives here.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;

use clap::{Parser, Subcommand, ValueEnum};

use clada_base::error::Refusal;
use clada_base::error::{exit_code_for, Outcome, UsageError};
use clada_base::term::{Rule, Shown};
use clada_engine::action::{ExecPolicy, Execution};
use clada_engine::config::ColorSetting;
use clada_engine::report::{self, ReportFormat};

/// `println!` for a command that still has work to do after the line: a closed stdout is
/// noted and the work goes on to its end (`clada_base::stdout::say`); `?` returns any other error.
macro_rules! sayln {
    ($($arg:tt)*) => {
        ::clada_base::stdout::say(&format!("{}\n", format_args!($($arg)*)))?
    };
}

pub mod agent_hook;
pub mod apply;
pub mod blame;
pub mod check;
pub mod commit;
pub mod config;
pub mod context;
pub mod demo;
mod dialects;
pub mod generate;
pub mod hooks;
mod hooks_check;
pub mod install_man;
pub mod log;
pub mod man;
pub mod mcp;
pub mod parse;
pub mod prompt;
pub mod provenance;
pub mod redo;
pub mod repair_index;
pub mod show;
pub mod squash;
pub mod stats;
pub mod status;
pub mod step;
pub mod undo;
pub mod watch;

/// Apply LLM action blocks to a git repository as exact, reviewable, reversible commits.
///
/// git-clada reads an LLM reply containing action blocks (SHAM/NESL, CSL, CML or the replacer
/// format) or the edits models already write (aider's SEARCH/REPLACE blocks, Codex's
/// apply_patch envelopes, unified diffs), in any mix, validates every block, writes the
/// files, runs what it is allowed to run, commits the result as one `AI: <summary>` commit
/// with machine-readable trailers, and prints a report precise enough that the LLM can fix
/// only what failed. `git clada context`
/// prepares the model's first turn; every AI change can be taken back (`git clada undo`, as
/// far back as you like, and `git clada redo`), collapsed (`git clada squash`) or walked
/// through (`git clada step-back`), and uncommitted work is never lost.
///
/// Exit status: 0 everything succeeded; 1 some block or action failed; 2 usage or fatal
/// error (nothing changed); 3 refused for safety (nothing changed).
#[derive(Debug, Parser)]
#[command(
    name = "git-clada",
    bin_name = "git-clada",
    version,
    propagate_version = true
)]
pub struct Cli {
    /// Run as if git-clada was started in DIR instead of the current directory (like `git -C`).
    #[arg(short = 'C', value_name = "DIR", global = true)]
    pub dir: Option<PathBuf>,

    /// Output format. Default: human on a terminal, llm otherwise (json for `parse`, markdown
    /// for `prompt`).
    #[arg(long, value_enum, value_name = "FORMAT", global = true)]
    pub format: Option<FormatArg>,

    /// Show what would happen without changing any file, ref or the index.
    #[arg(long, global = true)]
    pub dry_run: bool,

    #[command(subcommand)]
    pub command: Command,
}

/// How results are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// One line per block with ✅/❌, hints and outputs; meant for people.
    Human,
    /// Stable machine-readable JSON (documented in docs/json-format.md).
    Json,
    /// A paste-back block for the LLM (`=== CLADA RESULTS ===` … `=== END ===`).
    Llm,
}

/// `--format` values: the report formats, and the document formats of `prompt`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// One line per block with ✅/❌/⏸, hints and outputs; meant for people.
    Human,
    /// Stable machine-readable JSON (documented in docs/json-format.md).
    Json,
    /// A paste-back block for the LLM (`=== CLADA RESULTS ===` … `=== END ===`).
    Llm,
    /// Markdown (`prompt`, and `stats`' summary for a pull request).
    Markdown,
    /// Plain text (`prompt` only).
    Text,
    /// One self-contained HTML page (`stats` only).
    Html,
}

/// Options every subcommand sees.
#[derive(Debug, Clone, Copy)]
pub struct Global {
    /// The format the user asked for, if any.
    pub format: Option<Format>,
    pub dry_run: bool,
}

impl Global {
    /// The requested format, or human on a terminal and llm when piped.
    pub fn format_or_default(&self) -> Format {
        self.format.unwrap_or_else(|| {
            if clada_base::term::stdout_is_terminal() {
                Format::Human
            } else {
                Format::Llm
            }
        })
    }

    /// How text from replies and repositories is shown on stdout in this format: the human
    /// format always escaped, llm and JSON escaped only on a terminal (`clada_base::term`).
    pub fn shown(&self) -> Shown {
        Shown::stdout(self.format_or_default() == Format::Human)
    }
}

/// Prints `value` as pretty JSON and a newline, its control and bidi characters as JSON
/// escapes wherever it goes: the same document, and a `| head` of it reaches a terminal too.
pub fn print_json<T: serde::Serialize + ?Sized>(value: &T) -> anyhow::Result<()> {
    let text = serde_json::to_string_pretty(value)?;
    let mut text = clada_base::term::escape(&text, Rule::Json).into_owned();
    text.push('\n');
    print(&text)
}

/// Prints `text`, a command's last output: a closed stdout ends the process quietly, as git's
/// does (`clada_base::stdout`, which says why no command resets `SIGPIPE` itself).
pub fn print(text: &str) -> anyhow::Result<()> {
    clada_base::stdout::print(text).context("cannot write to standard output")
}

#[derive(Debug, Subcommand)]
pub enum Command {
    Apply(apply::Args),
    Commit(commit::Args),
    Check(check::Args),
    Parse(parse::Args),
    Undo(undo::Args),
    Redo(redo::Args),
    Squash(squash::Args),
    StepBack(step::BackArgs),
    StepForward(step::ForwardArgs),
    Status(status::Args),
    RepairIndex(repair_index::Args),
    Log(log::Args),
    Show(show::Args),
    Blame(blame::Args),
    Stats(stats::Args),
    Provenance(provenance::Args),
    Watch(watch::Args),
    Mcp(mcp::Args),
    Prompt(prompt::Args),
    Config(config::Args),
    Context(context::Args),
    Hooks(hooks::Args),
    AgentHook(agent_hook::Args),
    InstallMan(install_man::Args),
    Demo(demo::Args),
    #[command(hide = true)]
    Generate(generate::Args),
}

/// Runs the parsed command line and maps its outcome or error to the process exit code.
pub fn main(cli: Cli) -> std::process::ExitCode {
    clada_base::trace::phase("start");
    // An apply that fails as a whole still prints a (fatalError) report in json and llm.
    let fatal_report = matches!(cli.command, Command::Apply(_)).then(|| {
        Global {
            format: split_format(cli.format, &cli.command)
                .ok()
                .and_then(|(f, _)| f),
            dry_run: cli.dry_run,
        }
        .format_or_default()
    });
    match run(cli) {
        Ok(outcome) => {
            clada_base::trace::phase("done");
            // A command that found its stdout closed while it still had work ends now, as git.
            clada_base::stdout::end_if_closed();
            std::process::ExitCode::from(outcome.code())
        }
        Err(err) => {
            let message = error_message(&err);
            if let Some(format) = fatal_report {
                print_fatal(&message, format);
            }
            eprintln!("git-clada: {}", Shown::Escaped.content(&message));
            std::process::ExitCode::from(exit_code_for(&err))
        }
    }
}

/// The error and its causes on one line. Many of our messages already quote their cause (so
/// they read well on their own), and printing the chain as well would say it twice.
fn error_message(err: &anyhow::Error) -> String {
    let mut msg = err.to_string();
    for cause in err.chain().skip(1) {
        let cause = cause.to_string();
        if !msg.contains(&cause) {
            msg.push_str(": ");
            msg.push_str(&cause);
        }
    }
    msg
}

fn run(cli: Cli) -> anyhow::Result<Outcome> {
    if let Some(dir) = &cli.dir {
        std::env::set_current_dir(dir)
            .map_err(|e| anyhow::anyhow!("cannot change to directory '{}': {e}", dir.display()))?;
    }
    let (format, document) = split_format(cli.format, &cli.command)?;
    let global = Global {
        format,
        dry_run: cli.dry_run,
    };
    match cli.command {
        Command::Apply(args) => apply::run(args, global),
        Command::Commit(args) => commit::run(args, global),
        Command::Check(args) => check::run(args, global),
        Command::Parse(args) => parse::run(args, global),
        Command::Undo(args) => undo::run(args, global),
        Command::Redo(args) => redo::run(args, global),
        Command::Squash(args) => squash::run(args, global),
        Command::StepBack(args) => step::run_back(args, global),
        Command::StepForward(args) => step::run_forward(args, global),
        Command::Status(args) => status::run(args, global),
        Command::RepairIndex(args) => repair_index::run(args, global),
        Command::Log(args) => log::run(args, global),
        Command::Show(args) => show::run(args, global),
        Command::Blame(args) => blame::run(args, global),
        Command::Stats(args) => stats::run(args, global, document),
        Command::Provenance(args) => provenance::run(args, global),
        Command::Watch(args) => watch::run(args, global),
        Command::Mcp(args) => mcp::run(args, global),
        Command::Prompt(args) => prompt::run(args, global, document.and_then(prompt_format)),
        Command::Config(args) => config::run(args, global),
        Command::Context(args) => context::run(args, global),
        Command::Hooks(args) => hooks::run(args, global),
        Command::AgentHook(args) => agent_hook::run(args, global),
        Command::InstallMan(args) => install_man::run(args, global),
        Command::Demo(args) => demo::run(args, global),
        Command::Generate(args) => generate::run(args, global),
    }
}

/// Splits `--format` into the report format every command uses and the document format
/// `prompt` or `stats` prints, refusing a value the command does not print.
fn split_format(
    arg: Option<FormatArg>,
    command: &Command,
) -> anyhow::Result<(Option<Format>, Option<FormatArg>)> {
    let refuse = |why: &str| -> anyhow::Error { UsageError(why.to_string()).into() };
    let documents: &[FormatArg] = match command {
        Command::Prompt(_) => &[FormatArg::Json, FormatArg::Markdown, FormatArg::Text],
        Command::Stats(_) => &[FormatArg::Markdown, FormatArg::Html],
        _ => &[],
    };
    Ok(match arg {
        None => (None, None),
        Some(doc) if documents.contains(&doc) => (None, Some(doc)),
        Some(FormatArg::Human | FormatArg::Llm) if matches!(command, Command::Prompt(_)) => {
            return Err(refuse(
                "`prompt` prints markdown, text or json; use --format markdown|text|json",
            ))
        }
        Some(FormatArg::Human) => (Some(Format::Human), None),
        Some(FormatArg::Json) => (Some(Format::Json), None),
        Some(FormatArg::Llm) => (Some(Format::Llm), None),
        Some(FormatArg::Markdown | FormatArg::Text | FormatArg::Html) => {
            return Err(refuse(
                "--format markdown and text are only for `git clada prompt` (markdown and html for `git clada stats`); reports are human, json or llm",
            ))
        }
    })
}

/// `prompt`'s document format from `--format`.
fn prompt_format(doc: FormatArg) -> Option<crate::loops::prompt::PromptFormat> {
    use crate::loops::prompt::PromptFormat;
    match doc {
        FormatArg::Json => Some(PromptFormat::Json),
        FormatArg::Markdown => Some(PromptFormat::Markdown),
        FormatArg::Text => Some(PromptFormat::Text),
        _ => None,
    }
}

/// Prints a history command's report — its JSON form, or `human`'s rendering — or hands its
/// error to `main`, a refusal as [`clada_base::error::Refusal`] (exit 3).
pub fn print_history<R: serde::Serialize>(
    result: Result<R, clada_engine::history::HistoryError>,
    global: &Global,
    human: impl FnOnce(&R, Shown) -> String,
) -> anyhow::Result<Outcome> {
    match result {
        Ok(report) => {
            match global.format_or_default() {
                Format::Json => print_json(&report)?,
                Format::Human | Format::Llm => print(&human(&report, global.shown()))?,
            }
            Ok(Outcome::Success)
        }
        Err(clada_engine::history::HistoryError::Refused(msg)) => {
            Err(clada_base::error::Refusal(msg).into())
        }
        Err(e) => Err(e.into()),
    }
}

/// The error every subcommand that is declared but not built yet returns (exit 2).
pub fn not_implemented(command: &str) -> anyhow::Error {
    UsageError(format!("{command} is not implemented yet")).into()
}

/// The clap command tree, for man pages and completions.
pub fn command() -> clap::Command {
    <Cli as clap::CommandFactory>::command()
}

/// Policy for running `exec` blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExecPolicyArg {
    /// Show the code and ask y/n/always (approved and read-only commands run without asking;
    /// without a terminal everything else is refused).
    Ask,
    /// Run every exec block.
    Allow,
    /// Refuse every exec block.
    Deny,
}

impl From<ExecPolicyArg> for ExecPolicy {
    fn from(p: ExecPolicyArg) -> Self {
        match p {
            ExecPolicyArg::Ask => ExecPolicy::Ask,
            ExecPolicyArg::Allow => ExecPolicy::Allow,
            ExecPolicyArg::Deny => ExecPolicy::Deny,
        }
    }
}

/// Who an AI commit's authorship log (`refs/notes/ai`) names: the flags `apply`, `watch` and
/// `mcp` share.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ProvenanceFlags {
    /// The agent that wrote the reply, as the Git AI Standard names it (claude, cursor,
    /// gemini, codex, …), for the authorship log in refs/notes/ai. Default: config
    /// provenance.agent, the MCP client's name, else git-clada.
    #[arg(long, value_name = "TOOL")]
    pub agent: Option<String>,

    /// The model that wrote the reply. Default: config provenance.model, else unknown.
    #[arg(long, value_name = "MODEL")]
    pub model: Option<String>,

    /// The agent's conversation id, behind the log's session id. Default: the MCP session
    /// (Clada-Session), else the reply's blob id.
    #[arg(long, value_name = "ID")]
    pub conversation: Option<String>,
}

impl ProvenanceFlags {
    /// `agent` with the flags given on the command line over the configured values.
    pub fn over(
        &self,
        mut agent: clada_engine::record::provenance::Agent,
    ) -> clada_engine::record::provenance::Agent {
        agent.tool = self.agent.clone().or(agent.tool);
        agent.model = self.model.clone().or(agent.model);
        agent.conversation = self.conversation.clone().or(agent.conversation);
        agent
    }
}

/// The exec flags `apply` and `mcp` share (and `watch` in part).
#[derive(Debug, Clone, Copy, Default, clap::Args)]
pub struct ExecFlags {
    /// Policy for `exec` blocks: ask, allow, or deny. Default: config `exec`, else ask
    /// (without a terminal only approved and read-only commands run).
    #[arg(long, value_enum, value_name = "POLICY")]
    pub exec: Option<ExecPolicyArg>,

    /// Time limit per exec block without its own `timeout` (`30`, `500ms`, `2m`). Default:
    /// config `timeout`, else 30s.
    #[arg(long, value_name = "DURATION", value_parser = clada_engine::config::duration_arg)]
    pub timeout: Option<std::time::Duration>,

    /// Output cap per stream of an exec block (`1048576`, `512k`, `10MiB`). Default: config
    /// `max_output`, else 10MiB.
    #[arg(long, value_name = "SIZE", value_parser = clada_engine::config::size_arg)]
    pub max_output: Option<usize>,

    /// Time limit for all exec blocks of the reply together. Default: config
    /// `total_timeout`, else none.
    #[arg(long, value_name = "DURATION", value_parser = clada_engine::config::duration_arg)]
    pub total_timeout: Option<std::time::Duration>,

    /// `--no-git` (set from apply's own flag): no repository to pin git to or keep
    /// approvals in.
    #[arg(skip)]
    pub no_git: bool,
}

impl ExecFlags {
    /// What the flags leave to the configuration and what they decide.
    pub fn choice(&self) -> crate::loops::options::ExecChoice {
        crate::loops::options::ExecChoice {
            exec: self.exec.map(Into::into),
            timeout: self.timeout,
            max_output: self.max_output,
            total_timeout: self.total_timeout,
        }
    }
}

/// The engine options for the shared exec flags (see `loops::options::engine_options`).
pub fn engine_options_for(
    args: &ExecFlags,
    global: &Global,
    cfg: &clada_engine::config::Config,
    root: &std::path::Path,
) -> anyhow::Result<(
    clada_engine::action::EngineOptions,
    crate::loops::options::NewApprovals,
)> {
    crate::loops::options::engine_options(
        &args.choice(),
        global.dry_run,
        cfg,
        root,
        crate::loops::options::git_dirs(root, args.no_git),
    )
}

/// Records the `color` preference of the configuration this process loaded, for
/// [`finish_report`].
pub fn set_color(color: ColorSetting) {
    let _ = COLOR.set(color);
}

/// The `color` preference of the configuration this process loaded (reports of other
/// commands that print through [`finish_report`] without loading it use `auto`).
static COLOR: std::sync::OnceLock<ColorSetting> = std::sync::OnceLock::new();

/// Set once a report went to stdout: an error after that (a refusal judged from the report, a
/// failed write) must not print a second, fatal report.
static REPORT_WRITTEN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Prints the `fatalError` report (json and llm formats) for an apply that failed as a whole,
/// unless a report was already written. The error itself still goes to stderr, and the exit
/// status stays that of the error.
pub fn print_fatal(message: &str, format: Format) {
    if REPORT_WRITTEN.swap(true, std::sync::atomic::Ordering::SeqCst) {
        return;
    }
    let format = match format {
        Format::Human => ReportFormat::Human,
        Format::Json => ReportFormat::Json,
        Format::Llm => ReportFormat::Llm,
    };
    if let Some(text) = report::fatal(message, format) {
        let text = report::shown(&text, format, Shown::stdout(false));
        let mut stdout = std::io::stdout().lock();
        let _ = stdout
            .write_all(text.as_bytes())
            .and_then(|()| stdout.flush());
    }
}

/// Prints the report to stdout and maps the result to the exit status: 0 all succeeded; 3 when
/// the sandbox refused a block and nothing was changed; 1 for any other failure.
pub fn finish_report(execution: &Execution, global: &Global) -> anyhow::Result<Outcome> {
    let result = &execution.result;
    let format = match global.format_or_default() {
        Format::Human => ReportFormat::Human,
        Format::Json => ReportFormat::Json,
        Format::Llm => ReportFormat::Llm,
    };
    let color = match COLOR.get() {
        // NO_COLOR still wins (DESIGN §2).
        Some(ColorSetting::Always) => std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
        Some(ColorSetting::Never) => false,
        Some(ColorSetting::Auto) | None => {
            report::use_color(clada_base::term::stdout_is_terminal())
        }
    };
    let text = report::render(result, format, color);
    let text = report::shown(&text, format, global.shown());
    let mut stdout = std::io::stdout().lock();
    REPORT_WRITTEN.store(true, std::sync::atomic::Ordering::SeqCst);
    // The work is done (an apply's commit made) when its report is written: a reader that is
    // gone ends the process quietly here, as git's commands end.
    clada_base::stdout::or_closed(
        stdout
            .write_all(text.as_bytes())
            .and_then(|()| stdout.flush()),
    )
    .context("cannot write the report to standard output")?;
    if result.success {
        return Ok(Outcome::Success);
    }
    let refused: Vec<_> = result.refused().collect();
    let ran_code = result
        .results
        .iter()
        .any(|r| r.action == "exec" && r.data.is_some() && !r.skipped);
    if !refused.is_empty() && execution.changes.is_empty() && !ran_code {
        let first = refused[0];
        return Err(Refusal(format!(
            "refused for safety, nothing was changed: block {} ({}): {}",
            first.block_id,
            first.action,
            first.error.as_deref().unwrap_or_default()
        ))
        .into());
    }
    Ok(Outcome::Partial)
}
