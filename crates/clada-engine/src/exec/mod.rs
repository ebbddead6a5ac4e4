//! Running commands: everything that starts a process on a reply's or the configuration's
//! behalf, in one room beneath the actions.
//!
//! - [`policy`]: whether an exec block may run (ask / allow / deny, the read-only list, the
//!   time budget of a reply);
//! - [`approvals`]: the user's stored approvals;
//! - [`session`]: where an exec block without `cwd` starts (the previous block's end);
//! - [`spawn`]: starting a process with its limits (closed stdin, own process group, timeout,
//!   capped output) and collecting what it did; `long_code`: code longer than one argument
//!   may be, run from a read-only file;
//! - [`hooks`]: the configured `hooks.before` / `hooks.after` commands;
//! - [`hook_sandbox`]: the sandbox of every hook (those and git's own on an AI commit);
//! - [`confine`]: the OS sandbox every one of those processes runs in.
//!
//! The exec *action* (`crate::action`'s executor) decides the working directory and turns a
//! [`Ran`] into its result; nothing here knows actions, formats or git.

pub mod approvals;
pub mod approved_copies;
pub mod clada_hooks;
pub mod confine;
pub mod env;
pub(crate) mod git_refs;
pub mod harden;
pub mod hook_sandbox;
pub mod init;
mod long_code;
pub mod modes;
pub mod notices;
pub(crate) mod pathspec;
pub mod policy;
pub mod protect;
pub mod scripts;
pub(crate) mod session;
pub mod spawn;
pub mod view;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::sandbox::Sandbox;

pub use git_refs::ReachableCommit;

/// A language `exec` can run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    Bash,
    Sh,
    Python,
    Javascript,
    Ruby,
}

impl Lang {
    pub fn parse(s: &str) -> Option<Lang> {
        Some(match s {
            "bash" => Lang::Bash,
            "sh" => Lang::Sh,
            "python" => Lang::Python,
            "javascript" => Lang::Javascript,
            "ruby" => Lang::Ruby,
            _ => return None,
        })
    }
}

/// Policy for `exec` blocks (DESIGN §5.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ExecPolicy {
    /// Ask through the prompt; without a prompt, deny.
    Ask,
    Allow,
    #[default]
    Deny,
}

/// The answer to an exec prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Approval {
    Yes,
    No,
    /// Yes, and to every later exec block of this reply.
    Always,
}

/// What the prompt is asked about.
#[derive(Debug, Clone)]
pub struct ExecRequest {
    pub block_id: String,
    pub lang: Lang,
    pub code: String,
    pub cwd: PathBuf,
    /// The worktree files the code runs, with their content's hash: what an "always"
    /// approval is bound to (`scripts.rs`).
    pub bound: Vec<(String, String)>,
    /// Said above the code: why an approved command asks again.
    pub note: Option<String>,
    /// Set when which worktree files the code runs cannot be read with certainty (`scripts`):
    /// why. Then no "always" is offered, and one given anyway counts as yes, once.
    pub no_always: Option<String>,
}

impl ExecRequest {
    /// What an approval prompt shows before its question: which block wants to run what
    /// where (and `how`, e.g. in which OS sandbox), then the code between `----` lines,
    /// exactly as it will run: escaped (`clada_base::term`, the command rule), so a terminal shows
    /// every character and obeys none — an ESC or a CR in the code would otherwise let it
    /// draw a harmless command over the one that runs. Code that held such characters is
    /// said to, and code of several lines says how many, right above the question (blank
    /// lines could scroll its start out of view).
    pub fn approval_text(&self, how: Option<&str>) -> String {
        use clada_base::term::{escape, needs_escape, Rule};
        let code = self.code.trim_end_matches('\n');
        let mut out = format!(
            "block {} wants to run {:?} code in {}{}:\n----\n{}\n----\n",
            escape(&self.block_id, Rule::Name),
            self.lang,
            escape(&self.cwd.display().to_string(), Rule::Name),
            how.map(|h| format!(" ({h})")).unwrap_or_default(),
            escape(code, Rule::Command)
        );
        if needs_escape(&self.code, Rule::Command) {
            out.push_str(
                "WARNING: this code contains control or bidi characters. They are shown escaped \
                 above (as \\x1b, \\r, \\u{202e}, …): printed raw, they could make a terminal \
                 show something other than what runs. It runs with them, exactly as shown.\n",
            );
        }
        if let Some(n) = &self.note {
            out.push_str(&escape(n, Rule::Command));
            out.push('\n');
        }
        let lines = code.split('\n').count();
        if lines > 1 {
            out.push_str(&format!("({lines} lines of code)\n"));
        }
        out
    }
}

/// Asks the user whether to run an exec block.
pub type ExecPrompt = dyn Fn(&ExecRequest) -> Approval + Send + Sync;

/// How the exec blocks of one reply may run (from the engine's options).
#[derive(Clone)]
pub struct Settings {
    pub policy: ExecPolicy,
    /// For blocks without their own `timeout`.
    pub timeout: Duration,
    /// Per output stream.
    pub max_output: usize,
    /// For all exec blocks of the reply together.
    pub total_timeout: Option<Duration>,
    /// Commands that run without asking under [`ExecPolicy::Ask`].
    pub approved: Arc<BTreeSet<String>>,
    /// The OS sandbox (levels, network, extra folders, the git directory).
    pub confine: confine::Confine,
    pub prompt: Option<Arc<ExecPrompt>>,
    /// Lets a caller outside the engine follow the exec blocks and stop them.
    pub watch: Option<Arc<ExecWatch>>,
    /// Whether an object id names a commit of the repository's history (`git_refs.rs`):
    /// the caller's answer, since exec knows no git. `None`: every id asks.
    pub reachable_commit: Option<Arc<ReachableCommit>>,
}

/// What a caller that runs the engine on another thread (the MCP server) sees of its exec
/// blocks: which one is running since when (for progress notifications), and a switch that
/// stops the running one and refuses the rest, the way a timeout stops it (a cancelled
/// request).
#[derive(Debug, Default)]
pub struct ExecWatch {
    cancelled: std::sync::atomic::AtomicBool,
    running: std::sync::Mutex<Option<Running>>,
}

/// The exec block running now.
#[derive(Debug, Clone)]
pub struct Running {
    pub block_id: String,
    pub lang: Lang,
    pub since: Instant,
}

impl ExecWatch {
    /// Stops the exec block running now (its whole process group, as on a timeout) and
    /// refuses every later one.
    pub fn cancel(&self) {
        self.cancelled
            .store(true, std::sync::atomic::Ordering::SeqCst);
    }

    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// The exec block running now, if any.
    pub fn running(&self) -> Option<Running> {
        self.running.lock().ok().and_then(|r| r.clone())
    }

    fn set_running(&self, now: Option<Running>) {
        if let Ok(mut r) = self.running.lock() {
            *r = now;
        }
    }
}

/// The error of an exec block stopped or refused because its request was cancelled.
pub const CANCELLED: &str = "exec: cancelled by the client before it finished (CANCELLED)";

/// The exec state of one reply: its settings, the session, whether the user answered
/// "always", and when the reply's time budget runs out.
pub struct Runner {
    pub(crate) settings: Settings,
    pub(crate) session: session::ExecSession,
    pub(crate) always: bool,
    pub(crate) deadline: Option<Instant>,
}

/// The sandbox for an approved exec block or a hook: the configured level. Where the OS
/// sandbox is unavailable nothing runs unconfined ([`confine::Confine::refusal`]) but under the
/// user's own `sandbox.level: off`, with a warning saying so.
pub(crate) fn approved_jail(
    confine: &confine::Confine,
    root: &Path,
    warnings: &mut Vec<String>,
) -> Result<confine::Jail, String> {
    if confine.level == confine::Level::Off {
        if let confine::Availability::Unavailable(why) = confine.availability() {
            warnings.push(format!(
                "ran without the OS sandbox, which is unavailable ({why}), because your \
                 sandbox.level is off: the code could write, read and connect anywhere you can"
            ));
        }
        return Ok(confine::Jail::off().with_env_rules(&confine.env));
    }
    match confine.availability() {
        confine::Availability::Landlock { .. } => confine::Jail::new(confine.level, confine, root),
        confine::Availability::Unavailable(why) => {
            Err(format!("the OS sandbox is unavailable ({why})"))
        }
    }
}

/// The warning for a block that left processes running (`left`: their names, when known).
fn left_running_warning(left: &[String]) -> String {
    let named = match left.is_empty() {
        true => String::new(),
        false => {
            let mut names: Vec<String> = Vec::new();
            for n in left {
                if !names.contains(n) {
                    names.push(n.clone());
                }
            }
            let names: Vec<String> = names
                .iter()
                .map(|n| clada_base::term::escape(n, clada_base::term::Rule::Name).into_owned())
                .collect();
            format!(" ({} process(es): {})", left.len(), names.join(", "))
        }
    };
    format!(
        "the code left processes running in the background when it exited{named}; they were \
         killed, so their later output and changes are not part of this apply (an exec block \
         must finish its work before it exits)"
    )
}

/// The warning for a read-only command that names what its view hides (`paths.deny`): it
/// saw an empty file or folder there, which the model should not take for the content.
fn hidden_operands(sandbox: &Sandbox, dir: &Path, args: &[String]) -> Option<String> {
    let named: Vec<String> = args
        .iter()
        .filter(|a| !a.starts_with('-') && sandbox.is_denied(&dir.join(a)))
        .map(|a| clada_base::term::escape(a, clada_base::term::Rule::Name).into_owned())
        .collect();
    (!named.is_empty()).then(|| {
        format!(
            "{} matches paths.deny: read-only commands see an empty file or folder there, not \
             its content",
            named.join(", ")
        )
    })
}

/// Why an exec block did not run: the block's error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotRun {
    pub message: String,
    /// The stable code of the failed result (docs/json-format.md).
    pub code: &'static str,
    /// Set when only the user can lift the refusal (exec not allowed, not approved,
    /// declined): what the user can do. Reports show it to the user, not to the model, and do
    /// not ask the model to send the block again.
    pub user_action: Option<String>,
}

impl NotRun {
    /// A refusal only the user can lift: `command_not_allowed`.
    pub fn for_user(message: &str, how: &str) -> NotRun {
        NotRun {
            message: message.to_string(),
            code: "command_not_allowed",
            user_action: Some(how.to_string()),
        }
    }
}

/// What running one exec block produced besides its output.
pub struct Ran {
    pub output: spawn::ExecOutput,
    /// Warnings for the block's result (where it started, what it left running).
    pub warnings: Vec<String>,
    /// The protected entries and keys the block changed, put back (`protect`).
    pub put_back: Vec<protect::PutBack>,
}

impl Runner {
    pub fn new(settings: Settings) -> Runner {
        Runner {
            deadline: settings.total_timeout.map(|d| Instant::now() + d),
            settings,
            session: session::ExecSession::default(),
            always: false,
        }
    }

    /// Where a block without `cwd` starts (the exec session), with its root-relative path and a
    /// warning when that is not where the previous block ended.
    pub(crate) fn start(&mut self, sandbox: &Sandbox) -> session::Start {
        self.session.start(sandbox)
    }

    /// Runs one exec block in `dir` if the policy permits it (`Err` is the block's error),
    /// within its own `timeout` (or the default) and what is left of the reply's budget.
    pub fn run(
        &mut self,
        sandbox: &Sandbox,
        block_id: &str,
        code: &str,
        lang: Lang,
        dir: &Path,
        timeout: Option<u64>,
    ) -> Result<Ran, NotRun> {
        let watch = self.settings.watch.clone();
        if watch.as_ref().is_some_and(|w| w.is_cancelled()) {
            return Err(NotRun {
                message: CANCELLED.to_string(),
                code: "exec_cancelled",
                user_action: None,
            });
        }
        let root = sandbox.root();
        let permit = policy::permit(self, block_id, code, lang, dir, sandbox)?;
        let own = timeout
            .map(Duration::from_secs)
            .unwrap_or(self.settings.timeout);
        let limit = policy::limit(self, own)?;
        let max = self.settings.max_output;
        let mut warnings = Vec::new();
        let jail = self.jail_for(&permit, sandbox, &mut warnings)?;
        // Only bash can report where it ended (exec sessions); a direct command cannot cd.
        let probe = (lang == Lang::Bash && matches!(permit, policy::Permit::Interpreter))
            .then(|| session::Probe::for_bash(jail.tmp()))
            .flatten();
        if let Some(w) = &watch {
            w.set_running(Some(Running {
                block_id: block_id.to_string(),
                lang,
                since: Instant::now(),
            }));
        }
        let hidden = match &permit {
            policy::Permit::Direct {
                args,
                view: Some(_),
                ..
            } => hidden_operands(sandbox, dir, args),
            _ => None,
        };
        let cancel = watch.as_deref().map(|w| &w.cancelled);
        notices::started(jail.level != confine::Level::Off);
        // Only a workspace block can write the worktree; what it changed of the protected
        // set is put back after it.
        let guard = (jail.level == confine::Level::Workspace)
            .then(|| protect::Snapshot::take(root, &sandbox.guarded()));
        let started = std::time::SystemTime::now();
        let limits = spawn::Limits {
            timeout: limit,
            max_output: max,
            cancel,
        };
        let run = match permit {
            policy::Permit::Interpreter => spawn::run(
                spawn::lang_name(lang),
                code,
                dir,
                limits,
                probe.as_ref(),
                &jail,
            ),
            policy::Permit::Direct { prog, args, .. } => {
                self.spawn_direct(&prog, args, sandbox, dir, limits, &jail)
            }
        };
        if let Some(w) = &watch {
            w.set_running(None);
        }
        let mut put_back = guard.map(protect::Snapshot::put_back).unwrap_or_default();
        if put_back.is_empty() && jail.level == confine::Level::Workspace {
            let text = format!("{}\n{}", run.output.stderr, run.output.stdout);
            put_back.extend(protect::refused_entry(&text, root, &sandbox.guarded()));
        }
        let end = probe.as_ref().and_then(session::Probe::result);
        self.session.ended(sandbox, block_id, dir, end);
        if run.left_running {
            warnings.push(left_running_warning(&run.left));
        }
        warnings.extend(hidden);
        let cleared = modes::clear_privileges(root, &self.settings.confine.git_dirs, started);
        warnings.extend(cleared.warnings("the code"));
        if run.pipes_held {
            warnings.push(
                "a process that left the exec's process group still held its output open; the \
                 output shown is what was written before the exec ended"
                    .to_string(),
            );
        }
        if jail.level != confine::Level::Off && spawn::refused_by_sandbox(&run.output) {
            warnings.push(confine::failure_note(jail.level, &self.settings.confine));
            warnings.extend(jail.note.clone());
        }
        Ok(Ran {
            output: run.output,
            warnings,
            put_back,
        })
    }

    /// The OS sandbox a permitted block runs in: read-only for a direct command (the view's
    /// entries hidden from it), the approved level for an interpreter.
    fn jail_for(
        &self,
        permit: &policy::Permit,
        sandbox: &Sandbox,
        warnings: &mut Vec<String>,
    ) -> Result<confine::Jail, NotRun> {
        match permit {
            policy::Permit::Direct { view: None, .. } => confine::Jail::new(
                confine::Level::ReadOnly,
                &self.settings.confine,
                sandbox.root(),
            )
            .map(confine::Jail::core_env_only),
            policy::Permit::Direct {
                view: Some(view), ..
            } => {
                // Only git reads the git directories (which may lie outside the worktree).
                let confine = confine::Confine {
                    git_dirs: Vec::new(),
                    ..self.settings.confine.clone()
                };
                confine::Jail::new(confine::Level::ReadOnly, &confine, sandbox.root())
                    .and_then(|j| j.core_env_only().hiding(view))
            }
            policy::Permit::Interpreter => {
                let confine = confine::Confine {
                    protected: sandbox.guarded(),
                    ..self.settings.confine.clone()
                };
                approved_jail(&confine, sandbox.root(), warnings)
            }
        }
        .map_err(|e| NotRun {
            message: format!("exec: not run: {e}"),
            code: "sandbox_failed",
            user_action: None,
        })
    }

    /// Starts the read-only command `prog` in `jail` and waits for it, with its arguments and
    /// environment pinned.
    fn spawn_direct(
        &self,
        prog: &str,
        args: Vec<String>,
        sandbox: &Sandbox,
        dir: &Path,
        limits: spawn::Limits<'_>,
        jail: &confine::Jail,
    ) -> spawn::Run {
        let (args, env) = policy::pinned(
            prog,
            args,
            &self.settings.confine,
            sandbox.root(),
            sandbox.denied_globs(),
            dir,
        );
        spawn::spawn_and_wait(prog, &args, dir, limits, None, jail, &|cmd| {
            for (k, v) in &env {
                match v {
                    Some(v) => cmd.env(k, v),
                    None => cmd.env_remove(k),
                };
            }
        })
    }
}
