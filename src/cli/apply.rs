//! `git clada apply`: parse, validate, execute and commit one LLM reply.
//!
//! Argument handling only: the git transaction lives in `record::apply`, the `--no-git` path
//! is the engine on its own in the current directory.

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use anyhow::Context;

use crate::action::{self, Approval, EngineOptions, ExecPolicy, ExecRequest, Execution, Lang};
use crate::base::error::{Outcome, Refusal, UsageError};
use crate::base::term::{escape, Rule, Shown};
use crate::cli::parse::DialectArg;
use crate::cli::{Format, Global};
use crate::config::ColorSetting;
use crate::read;
use crate::record::{self, apply::ApplyError, apply::ApplyOptions};
use crate::report::{self, ReportFormat};
use crate::sandbox::Sandbox;

/// Apply the action blocks of an LLM reply and commit the result as one AI commit.
///
/// Every block is parsed and validated, every path is checked against the sandbox before
/// anything runs, then the valid actions run in order. A failed block does not stop later
/// ones (use --atomic for all-or-nothing). Uncommitted work stays uncommitted: the AI commit
/// holds only the AI's changes, and `git clada undo` restores your work exactly. The report goes to stdout.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  git clada apply reply.md\n  llm 'add a --verbose flag' | git clada apply -\n  git clada apply --no-git --format json reply.md"
)]
pub struct Args {
    /// The reply to apply; `-` or nothing reads standard input.
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,

    /// Which format to read: auto reads each block in the format its opening line shows (SHAM,
    /// NESL, nesl, CSL, CML, the replacer format, aider's SEARCH/REPLACE, apply_patch, unified
    /// diffs); a format name reads only that one.
    #[arg(long, value_enum, default_value_t = DialectArg::AUTO)]
    pub dialect: DialectArg,

    /// Run the actions without git: paths are relative to the current directory, nothing is
    /// committed.
    #[arg(long)]
    pub no_git: bool,

    /// Permit absolute paths outside the worktree (such changes are never committed).
    #[arg(long)]
    pub allow_outside: bool,

    /// All-or-nothing: if any block fails, restore every file and commit nothing.
    #[arg(long)]
    pub atomic: bool,

    /// Apply and stage the changes but do not commit.
    #[arg(long)]
    pub no_commit: bool,

    /// Do not run the pre-commit, commit-msg and post-commit hooks.
    #[arg(long)]
    pub no_verify: bool,

    /// Refuse to apply when there is uncommitted work.
    #[arg(long)]
    pub no_snapshot: bool,

    /// Apply the reply even when it is the one applied last and its files are still as it
    /// left them (a reply pasted twice); without it the second paste is reported "already
    /// applied" and nothing runs, its exec blocks included.
    #[arg(long)]
    pub force: bool,

    /// What happens to uncommitted work: `keep` leaves it uncommitted (staged stays staged)
    /// and the AI commit holds only the AI's changes; `commit` first records it in a
    /// `clada: snapshot before AI edit` commit on the branch. Default: config `wip`, else keep.
    #[arg(long, value_enum, value_name = "MODE")]
    pub wip: Option<WipArg>,

    /// Author of the AI commit, as `NAME <EMAIL>` (like `git commit --author`). The committer,
    /// and any snapshot of your own work, keep your identity.
    #[arg(long, value_name = "NAME <EMAIL>", value_parser = parse_author)]
    pub git_author: Option<(String, String)>,

    /// Use MESSAGE as the commit subject instead of the generated `AI: …` summary.
    #[arg(short = 'm', long = "message", value_name = "MESSAGE")]
    pub message: Option<String>,

    #[command(flatten)]
    pub exec_flags: ExecFlags,

    /// Read the reply from the clipboard instead of a file or stdin.
    #[arg(long, conflicts_with = "file")]
    pub paste: bool,

    /// Also put the llm report on the clipboard (OSC 52 to the terminal when no display
    /// server is reachable); a failed copy is reported, never fails the apply. Also on with config
    /// `clipboard.copy: true`.
    #[arg(long)]
    pub copy: bool,
}

/// `NAME <EMAIL>` → (name, email); both parts required, as git needs them.
fn parse_author(s: &str) -> Result<(String, String), String> {
    let bad =
        || format!("expected `NAME <EMAIL>` (for example `clada <clada@example.com>`), got '{s}'");
    let (name, rest) = s.split_once('<').ok_or_else(bad)?;
    let email = rest.strip_suffix('>').ok_or_else(bad)?;
    let name = name.trim();
    if name.is_empty() || email.trim().is_empty() || email.contains(['<', '>', '\n']) {
        return Err(bad());
    }
    if name.contains(['<', '>', '\n']) {
        return Err(bad());
    }
    Ok((name.to_string(), email.trim().to_string()))
}

/// The AI commit's author from config `commit.author` / `clada.author`, checked like
/// `--git-author` (a malformed value is an error naming where it was set).
pub(crate) fn config_author(
    cfg: &crate::config::Config,
) -> anyhow::Result<Option<(String, String)>> {
    let Some(value) = &cfg.commit_author.value else {
        return Ok(None);
    };
    parse_author(value).map(Some).map_err(|why| {
        anyhow::Error::new(crate::base::error::UsageError(format!(
            "commit.author (set in {}): {why}",
            cfg.commit_author.source
        )))
    })
}

/// What to do with uncommitted work during an apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum WipArg {
    /// Keep it uncommitted.
    Keep,
    /// Record it in a snapshot commit before the AI commit.
    Commit,
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

pub fn run(args: Args, global: Global) -> anyhow::Result<Outcome> {
    if args.no_git {
        return run_no_git(args, global);
    }
    let reply = read_reply(&args)?;
    let cwd = std::env::current_dir().context("cannot determine the current directory")?;
    // Opened once: the configuration and the apply read the same repository.
    let repo = crate::repo::Repo::discover(&cwd);
    let cfg = crate::config::load_for_repo(repo.as_ref().ok())?;
    let root = repo.as_ref().ok().map(|r| r.workdir().to_path_buf());
    if let Some(w) = cfg.untrusted_warning() {
        eprintln!("git-clada: warning: {w}");
    }
    let _ = COLOR.set(cfg.color.value);
    let root = root.unwrap_or_else(|| cwd.clone());
    let (engine, approvals) = engine_options(&args, &global, &cfg, &root, repo.as_ref().ok())?;
    let wip = args.wip.unwrap_or(match cfg.wip.value {
        crate::config::WipSetting::Keep => WipArg::Keep,
        crate::config::WipSetting::Commit => WipArg::Commit,
    });
    let opts = ApplyOptions {
        dialect: args.dialect.into(),
        allow_outside: args.allow_outside,
        atomic: args.atomic,
        author: match &args.git_author {
            Some(a) => Some(a.clone()),
            None => config_author(&cfg)?,
        },
        no_commit: args.no_commit,
        no_verify: args.no_verify,
        no_snapshot: args.no_snapshot,
        force: args.force,
        wip_commit: wip == WipArg::Commit,
        message: args.message.clone(),
        ..configured(&cfg, engine)
    };
    let result = repo
        .map_err(ApplyError::from)
        .and_then(|repo| record::apply::apply_in(&repo, &reply, &opts));
    approvals.store(&root)?;
    let copy = args.copy || cfg.clipboard_copy.value;
    // A reply that could not be applied still has a report to paste back: it is copied too.
    match &result {
        Ok(_) => {}
        Err(ApplyError::NotRecorded(ran)) => copy_report(copy, ran),
        Err(e) => copy_fatal(copy, &e.to_string()),
    }
    let outcome = match result {
        Ok(o) => o,
        Err(ApplyError::Refused(msg)) => return Err(Refusal(msg).into()),
        // Only `apply` (and `check`) can work without a repository: the hint belongs here.
        Err(e @ ApplyError::Repo(crate::repo::RepoError::NotARepo(_))) => {
            return Err(anyhow::anyhow!(
                "{e}, or use --no-git to run the actions in the current directory without a repository"
            ))
        }
        // The blocks ran but were not recorded: their report, with the fatal error (exit 1).
        Err(ApplyError::NotRecorded(ran)) => return finish_report(&ran, &global),
        Err(e) => return Err(e.into()),
    };
    crate::base::trace::phase("apply returned");
    if let Some(diff) = &outcome.diff {
        if !diff.is_empty() && global.format_or_default() != Format::Json {
            let mut stdout = std::io::stdout().lock();
            let _ = writeln!(stdout, "{}", global.shown().content(diff));
        }
    }
    copy_report(copy, &outcome.execution);
    finish_report(&outcome.execution, &global)
}

/// `--copy` of an apply that stopped as a whole: its llm report (the `FATAL` line) goes to
/// the clipboard, and what happened to stderr, as for any other report.
fn copy_fatal(copy: bool, message: &str) {
    if let (true, Some(llm)) = (copy, report::fatal(message, ReportFormat::Llm)) {
        eprintln!("git-clada: {}", crate::loops::clipboard::copy(&llm).line());
    }
}

/// `--copy` (or config `clipboard.copy`): the llm report to the clipboard; what happened goes
/// to stderr.
fn copy_report(copy: bool, execution: &Execution) {
    if copy {
        let llm = report::render(&execution.result, ReportFormat::Llm, false);
        eprintln!("git-clada: {}", crate::loops::clipboard::copy(&llm).line());
    }
}

/// The apply options the configuration decides (co-author, denied paths, hooks around the
/// apply) with `engine`; the command line fills in the rest.
pub fn configured(cfg: &crate::config::Config, engine: EngineOptions) -> ApplyOptions {
    ApplyOptions {
        coauthor: cfg.commit_coauthor.value.clone(),
        paths_deny: cfg.paths_deny.value.clone(),
        config_writable: !cfg.paths_protect_config.value,
        hooks: crate::exec::hooks::Hooks {
            timeout: engine.exec_timeout,
            max_output: engine.exec_max_output,
            policy: crate::exec::hook_sandbox::HookPolicy {
                timeout: engine.exec_timeout,
                max_output: engine.exec_max_output,
                ..crate::exec::hook_sandbox::HookPolicy::from_config(
                    cfg,
                    engine.confine.git_dirs.clone(),
                    Vec::new(),
                )
            },
            exec_denied: engine.exec == ExecPolicy::Deny,
            ..crate::exec::hooks::Hooks::from_config(cfg)
        },
        hooks_writable: !cfg.paths_protect_hooks.value,
        engine,
        ..ApplyOptions::default()
    }
}

/// Reads the reply; on a terminal, first says that it waits for one (a bare `git clada apply`
/// would otherwise sit there silently).
fn read_reply(args: &Args) -> anyhow::Result<crate::read::input::Reply> {
    if args.paste {
        let text =
            crate::loops::clipboard::paste().map_err(|e| UsageError(format!("--paste: {e}")))?;
        if text.len() as u64 > crate::read::input::MAX_REPLY_BYTES {
            return Err(UsageError(
                "--paste: the clipboard holds more than the 50 MiB limit for a reply".into(),
            )
            .into());
        }
        return Ok(crate::read::input::Reply {
            text,
            source: "clipboard".into(),
        });
    }
    let from_stdin = args
        .file
        .as_deref()
        .is_none_or(|f| f == std::path::Path::new("-"));
    if from_stdin && std::io::stdin().is_terminal() {
        eprintln!("reading the reply from stdin (end it with Ctrl-D, or pass a file: git clada apply reply.md)...");
    }
    Ok(crate::read::input::read_reply(args.file.as_deref())?)
}

/// The `color` preference of the configuration this process loaded (reports of other
/// commands that print through [`finish_report`] without loading it use `auto`).
static COLOR: std::sync::OnceLock<ColorSetting> = std::sync::OnceLock::new();

/// Commands the user answered "always" for during one apply, stored with the user's approvals
/// afterwards (never during the apply, and never in the worktree: see `exec::approvals`).
#[derive(Clone, Default)]
pub struct NewApprovals {
    list: Arc<Mutex<Vec<String>>>,
    /// The repository's git dirs (none with `--no-git`): where the approvals are kept.
    git_dirs: Vec<PathBuf>,
}

/// The git directory (and common directory) of `repo`.
fn repo_dirs(repo: &crate::repo::Repo) -> Vec<PathBuf> {
    let mut dirs = vec![repo.git_dir().to_path_buf()];
    if repo.common_dir() != repo.git_dir() {
        dirs.push(repo.common_dir().to_path_buf());
    }
    dirs
}

/// The git dirs of the repository at `root` (none outside one, or with `no_git`).
fn git_dirs(root: &std::path::Path, no_git: bool) -> Vec<PathBuf> {
    match no_git {
        true => Vec::new(),
        false => crate::repo::Repo::discover(root)
            .map(|r| repo_dirs(&r))
            .unwrap_or_default(),
    }
}

/// Where the user's approvals for `root` are kept (`None` without git and without a home).
fn approvals_file(root: &std::path::Path, git_dirs: &[PathBuf]) -> Option<PathBuf> {
    crate::exec::approvals::store_path(git_dirs.first().map(PathBuf::as_path), root)
}

impl NewApprovals {
    /// Adds the commands to the user's approvals for `root` and says so on stderr.
    pub fn store(&self, root: &std::path::Path) -> anyhow::Result<()> {
        let commands = self.list.lock().map(|v| v.clone()).unwrap_or_default();
        if commands.is_empty() {
            return Ok(());
        }
        let Some(file) = approvals_file(root, &self.git_dirs) else {
            eprintln!("git-clada: no home folder, so \"always\" was not remembered");
            return Ok(());
        };
        for c in crate::exec::approvals::Approvals::store(&file, &commands)? {
            eprintln!(
                "approved for this repository (in {}): {}",
                escape(&file.display().to_string(), Rule::Name),
                escape(&c, Rule::Command)
            );
        }
        Ok(())
    }
}

/// The engine options the command line and the configuration ask for: `--dry-run`, `--exec`
/// (else config `exec`, else ask — with a terminal prompt when there is a terminal), limits,
/// the repository's approved commands, whole-file shaping (`files.final_newline`,
/// `.editorconfig`).
pub fn engine_options(
    args: &Args,
    global: &Global,
    cfg: &crate::config::Config,
    root: &std::path::Path,
    repo: Option<&crate::repo::Repo>,
) -> anyhow::Result<(EngineOptions, NewApprovals)> {
    let flags = ExecFlags {
        no_git: args.no_git,
        ..args.exec_flags
    };
    let dirs = match repo {
        Some(repo) if !args.no_git => repo_dirs(repo),
        _ => git_dirs(root, args.no_git),
    };
    engine_options_in(&flags, global, cfg, root, dirs)
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
    #[arg(long, value_name = "DURATION", value_parser = crate::config::duration_arg)]
    pub timeout: Option<std::time::Duration>,

    /// Output cap per stream of an exec block (`1048576`, `512k`, `10MiB`). Default: config
    /// `max_output`, else 10MiB.
    #[arg(long, value_name = "SIZE", value_parser = crate::config::size_arg)]
    pub max_output: Option<usize>,

    /// Time limit for all exec blocks of the reply together. Default: config
    /// `total_timeout`, else none.
    #[arg(long, value_name = "DURATION", value_parser = crate::config::duration_arg)]
    pub total_timeout: Option<std::time::Duration>,

    /// `--no-git` (set from apply's own flag): no repository to pin git to or keep
    /// approvals in.
    #[arg(skip)]
    pub no_git: bool,
}

/// [`engine_options`] from the shared exec flags.
pub fn engine_options_for(
    args: &ExecFlags,
    global: &Global,
    cfg: &crate::config::Config,
    root: &std::path::Path,
) -> anyhow::Result<(EngineOptions, NewApprovals)> {
    engine_options_in(args, global, cfg, root, git_dirs(root, args.no_git))
}

/// [`engine_options_for`] with the repository's git dirs already known.
fn engine_options_in(
    args: &ExecFlags,
    global: &Global,
    cfg: &crate::config::Config,
    root: &std::path::Path,
    dirs: Vec<PathBuf>,
) -> anyhow::Result<(EngineOptions, NewApprovals)> {
    use crate::config::ExecSetting;
    let interactive = std::io::stdin().is_terminal() || std::io::stderr().is_terminal();
    let policy = match (args.exec, cfg.exec.value) {
        (Some(p), _) => p.into(),
        (None, Some(ExecSetting::Allow)) => ExecPolicy::Allow,
        (None, Some(ExecSetting::Deny)) => ExecPolicy::Deny,
        (None, Some(ExecSetting::Ask) | None) => ExecPolicy::Ask,
    };
    let approvals = NewApprovals {
        git_dirs: dirs.clone(),
        ..NewApprovals::default()
    };
    let approvals_at = approvals_file(root, &dirs);
    let confine = crate::exec::confine::Confine::from_config(cfg, dirs);
    let prompt: Option<Arc<crate::action::ExecPrompt>> = if interactive {
        let store = approvals.clone();
        let sandbox = sandbox_line(&confine);
        Some(Arc::new(move |req: &ExecRequest| {
            let answer = ask_on_tty(req, &sandbox);
            if answer == Approval::Always && matches!(req.lang, Lang::Bash | Lang::Sh) {
                if let Ok(mut v) = store.list.lock() {
                    let key = crate::exec::policy::approval_key(&req.code);
                    v.push(crate::exec::scripts::key(&key, &req.bound));
                }
            }
            answer
        }))
    } else {
        None
    };
    let approved = match approvals_at {
        Some(file) => {
            let pending = crate::exec::approvals::Approvals::legacy_pending(root, &file);
            if !pending.is_empty() {
                eprintln!(
                    "git-clada: warning: {} lists {} command(s) that are not run without asking: \
                     approvals now live in {} (a reply or a clone can write the old file); \
                     read it, then `git clada config --trust` imports them",
                    crate::exec::approvals::LEGACY_FILE,
                    pending.len(),
                    file.display()
                );
            }
            crate::exec::approvals::Approvals::load(&file)?.set()
        }
        None => Default::default(),
    };
    Ok((
        EngineOptions {
            dry_run: global.dry_run,
            exec: policy,
            exec_timeout: args.timeout.unwrap_or(cfg.timeout.value),
            exec_max_output: args.max_output.unwrap_or(cfg.max_output.value),
            exec_total_timeout: args.total_timeout.or(cfg.total_timeout.value),
            approved: Arc::new(approved),
            prompt,
            confine,
            whole_file: crate::config::editorconfig::WholeFile {
                final_newline: cfg.files_final_newline.value,
                editorconfig: true,
                final_newline_configured: cfg.files_final_newline.source
                    != crate::config::Source::Default,
            },
            exec_watch: None,
        },
        approvals,
    ))
}

/// How an approved block will run, for the prompt.
fn sandbox_line(confine: &crate::exec::confine::Confine) -> String {
    use crate::exec::confine::Level;
    match (confine.level, confine.availability()) {
        (Level::Off, _) => "without the OS sandbox (sandbox.level: off)".into(),
        (_, crate::exec::confine::Availability::Unavailable(why)) => {
            format!("WITHOUT the OS sandbox ({why})")
        }
        (level, _) => format!(
            "in the {} OS sandbox{}",
            level.name(),
            if confine.network && level == Level::Workspace {
                ", network allowed"
            } else {
                ", no network"
            }
        ),
    }
}

/// Shows the code on the terminal and asks y/n/always. The answer is read from the terminal
/// itself, since stdin may be the reply; no terminal means no.
fn ask_on_tty(req: &ExecRequest, sandbox: &str) -> Approval {
    let Ok(tty) = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")
    else {
        return Approval::No;
    };
    let mut out = &tty;
    let _ = write!(out, "\n{}", req.approval_text(Some(sandbox)));
    let _ = write!(
        out,
        "Run it? [y]es / [N]o / [a]lways (for this reply, and a shell command is remembered with your approvals): "
    );
    let _ = out.flush();
    let mut answer = String::new();
    if std::io::BufReader::new(&tty)
        .read_line(&mut answer)
        .is_err()
    {
        return Approval::No;
    }
    match answer.trim().to_ascii_lowercase().as_str() {
        "y" | "yes" => Approval::Yes,
        "a" | "always" => Approval::Always,
        _ => Approval::No,
    }
}

/// `--no-git`: the engine on its own; paths are relative to the current directory.
fn run_no_git(args: Args, global: Global) -> anyhow::Result<Outcome> {
    let reply = read_reply(&args)?;
    let parsed = read::parse(&reply.text, args.dialect.into());
    let cwd = std::env::current_dir().context("cannot determine the current directory")?;
    let cfg = crate::config::load_for_dir(&cwd)?;
    let _ = COLOR.set(cfg.color.value);
    let sandbox = Sandbox::new(&cwd, args.allow_outside)?
        .deny_paths(&cfg.paths_deny.value)
        .allow_config_writes(!cfg.paths_protect_config.value)
        .allow_hook_writes(!cfg.paths_protect_hooks.value);
    let plan = action::plan(&parsed, &sandbox);
    let (opts, approvals) = engine_options(&args, &global, &cfg, &cwd, None)?;
    let execution = action::execute(&plan, &sandbox, &opts);
    approvals.store(&cwd)?;
    copy_report(args.copy || cfg.clipboard_copy.value, &execution);
    finish_report(&execution, &global)
}

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
            report::use_color(crate::base::term::stdout_is_terminal())
        }
    };
    let text = report::render(result, format, color);
    let text = report::shown(&text, format, global.shown());
    let mut stdout = std::io::stdout().lock();
    REPORT_WRITTEN.store(true, std::sync::atomic::Ordering::SeqCst);
    stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
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
