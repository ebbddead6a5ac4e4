//! What the commands that apply (apply, commit, watch, mcp) set up the same way from the
//! configuration and the command line: the AI commit's author, the apply options the
//! configuration decides, the exec policy and limits, the terminal prompt for exec blocks and
//! the approvals it remembers. `cli/` turns arguments into an [`ExecChoice`]; the rules live
//! here, once.

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use clada_base::term::{escape, Rule};
use clada_engine::action::{Approval, EngineOptions, ExecPolicy, ExecRequest, Lang};
use clada_engine::record::apply::ApplyOptions;

/// The exec settings a command line gives (`--exec`, `--timeout`, `--max-output`,
/// `--total-timeout`); `None` leaves each to the configuration.
#[derive(Debug, Clone, Copy, Default)]
pub struct ExecChoice {
    pub exec: Option<ExecPolicy>,
    pub timeout: Option<std::time::Duration>,
    pub max_output: Option<usize>,
    pub total_timeout: Option<std::time::Duration>,
}

/// `NAME <EMAIL>` → (name, email); both parts required, as git needs them.
pub fn parse_author(s: &str) -> Result<(String, String), String> {
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
pub fn config_author(
    cfg: &clada_engine::config::Config,
) -> anyhow::Result<Option<(String, String)>> {
    let Some(value) = &cfg.commit_author.value else {
        return Ok(None);
    };
    parse_author(value).map(Some).map_err(|why| {
        anyhow::Error::new(clada_base::error::UsageError(format!(
            "commit.author (set in {}): {why}",
            cfg.commit_author.source
        )))
    })
}

/// The apply options the configuration decides (co-author, denied paths, hooks around the
/// apply) with `engine`; the command line fills in the rest.
pub fn configured(cfg: &clada_engine::config::Config, engine: EngineOptions) -> ApplyOptions {
    ApplyOptions {
        coauthor: cfg.commit_coauthor.value.clone(),
        paths_deny: cfg.paths_deny.value.clone(),
        config_writable: !cfg.paths_protect_config.value,
        hooks: clada_engine::exec::clada_hooks::Hooks {
            timeout: engine.exec_timeout,
            max_output: engine.exec_max_output,
            policy: clada_engine::exec::hook_sandbox::HookPolicy {
                timeout: engine.exec_timeout,
                max_output: engine.exec_max_output,
                ..clada_engine::exec::hook_sandbox::HookPolicy::from_config(
                    cfg,
                    engine.confine.git_dirs.clone(),
                    Vec::new(),
                )
            },
            exec_denied: engine.exec == ExecPolicy::Deny,
            ..clada_engine::exec::clada_hooks::Hooks::from_config(cfg)
        },
        hooks_writable: !cfg.paths_protect_hooks.value,
        prompt_subject: cfg.agent_subject.value == clada_engine::config::AgentSubject::Prompt,
        provenance: clada_engine::record::provenance::Agent {
            off: !cfg.provenance_log.value,
            tool: None,
            default_tool: cfg.provenance_agent.value.clone(),
            model: cfg.provenance_model.value.clone(),
            conversation: None,
        },
        engine,
        ..ApplyOptions::default()
    }
}

/// Commands the user answered "always" for during one apply, stored with the user's approvals
/// afterwards (never during the apply, and never in the worktree: see `exec::approvals`).
#[derive(Clone, Default)]
pub struct NewApprovals {
    list: Arc<Mutex<Vec<String>>>,
    /// The repository's git dirs (none with `--no-git`): where the approvals are kept.
    git_dirs: Vec<PathBuf>,
}

/// The git directory (and common directory) of `repo`.
pub fn repo_dirs(repo: &clada_git::Repo) -> Vec<PathBuf> {
    let mut dirs = vec![repo.git_dir().to_path_buf()];
    if repo.common_dir() != repo.git_dir() {
        dirs.push(repo.common_dir().to_path_buf());
    }
    dirs
}

/// The git dirs of the repository at `root` (none outside one, or with `no_git`).
pub fn git_dirs(root: &std::path::Path, no_git: bool) -> Vec<PathBuf> {
    match no_git {
        true => Vec::new(),
        false => clada_git::Repo::discover(root)
            .map(|r| repo_dirs(&r))
            .unwrap_or_default(),
    }
}

/// Where the user's approvals for `root` are kept (`None` without git and without a home).
fn approvals_file(root: &std::path::Path, git_dirs: &[PathBuf]) -> Option<PathBuf> {
    clada_engine::exec::approvals::store_path(git_dirs.first().map(PathBuf::as_path), root)
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
        for c in clada_engine::exec::approvals::Approvals::store(&file, &commands)? {
            eprintln!(
                "approved for this repository (in {}): {}",
                escape(&file.display().to_string(), Rule::Name),
                escape(&c, Rule::Command)
            );
        }
        Ok(())
    }
}

/// The engine options the command line (`choice`, `dry_run`) and the configuration ask for:
/// the exec policy (the command line's, else config `exec`, else ask — with a terminal prompt
/// when there is a terminal), limits, the approved commands kept in `dirs` (the repository's
/// git dirs; none without git), whole-file shaping (`files.final_newline`, `.editorconfig`).
pub fn engine_options(
    args: &ExecChoice,
    dry_run: bool,
    cfg: &clada_engine::config::Config,
    root: &std::path::Path,
    dirs: Vec<PathBuf>,
) -> anyhow::Result<(EngineOptions, NewApprovals)> {
    use clada_engine::config::ExecSetting;
    let interactive = std::io::stdin().is_terminal() || std::io::stderr().is_terminal();
    let policy = match (args.exec, cfg.exec.value) {
        (Some(p), _) => p,
        (None, Some(ExecSetting::Allow)) => ExecPolicy::Allow,
        (None, Some(ExecSetting::Deny)) => ExecPolicy::Deny,
        (None, Some(ExecSetting::Ask) | None) => ExecPolicy::Ask,
    };
    let approvals = NewApprovals {
        git_dirs: dirs.clone(),
        ..NewApprovals::default()
    };
    let approvals_at = approvals_file(root, &dirs);
    let reachable_commit = reachable_commit(root, &dirs);
    let confine = clada_engine::exec::confine::Confine::from_config(cfg, dirs);
    let prompt: Option<Arc<clada_engine::action::ExecPrompt>> = if interactive {
        let store = approvals.clone();
        let sandbox = sandbox_line(&confine);
        let copies = approvals_at.clone().map(|file| {
            let bound = clada_engine::exec::approvals::Approvals::load(&file)
                .map(|a| a.bound)
                .unwrap_or_default();
            (file, bound)
        });
        let root = root.to_path_buf();
        Some(Arc::new(move |req: &ExecRequest| {
            let key = clada_engine::exec::policy::approval_key(&req.code);
            let diff = copies.as_ref().and_then(|(file, bound)| {
                clada_engine::exec::approved_copies::changes_since(
                    file, bound, &root, &key, &req.bound,
                )
            });
            let answer = ask_on_tty(req, &sandbox, diff.as_deref());
            if answer == Approval::Always
                && matches!(req.lang, Lang::Bash | Lang::Sh)
                && req.no_always.is_none()
            {
                if let Some((file, _)) = &copies {
                    if let Err(e) =
                        clada_engine::exec::approved_copies::save(file, &root, &req.bound)
                    {
                        eprintln!("git-clada: warning: the approved scripts were not kept, so a later change cannot be shown as a diff: {e}");
                    }
                }
                if let Ok(mut v) = store.list.lock() {
                    v.push(clada_engine::exec::scripts::key(&key, &req.bound));
                }
            }
            answer
        }))
    } else {
        None
    };
    let approved = match approvals_at {
        Some(file) => {
            let pending = clada_engine::exec::approvals::Approvals::legacy_pending(root, &file);
            if !pending.is_empty() {
                eprintln!(
                    "git-clada: warning: {} lists {} command(s) that are not run without asking: \
                     approvals now live in {} (a reply or a clone can write the old file); \
                     read it, then `git clada config --trust` imports them",
                    clada_engine::exec::approvals::LEGACY_FILE,
                    pending.len(),
                    file.display()
                );
            }
            clada_engine::exec::approvals::Approvals::load(&file)?.set()
        }
        None => Default::default(),
    };
    Ok((
        EngineOptions {
            dry_run,
            exec: policy,
            exec_timeout: args.timeout.unwrap_or(cfg.timeout.value),
            exec_max_output: args.max_output.unwrap_or(cfg.max_output.value),
            exec_total_timeout: args.total_timeout.or(cfg.total_timeout.value),
            approved: Arc::new(approved),
            prompt,
            confine,
            whole_file: clada_engine::config::editorconfig::WholeFile {
                final_newline: cfg.files_final_newline.value,
                editorconfig: true,
                final_newline_configured: cfg.files_final_newline.source
                    != clada_engine::config::Source::Default,
            },
            exec_watch: None,
            reachable_commit,
            // The repository's `core.symlinks` is read where the repository is opened
            // (`record::apply`).
            symlinks: true,
            link_stand_ins: Default::default(),
        },
        approvals,
    ))
}

/// Whether an object id names a commit of the history of the repository at `root`, for
/// read-only git (`exec/git_refs.rs`); none without git (every id asks then).
fn reachable_commit(
    root: &std::path::Path,
    dirs: &[PathBuf],
) -> Option<Arc<clada_engine::exec::ReachableCommit>> {
    if dirs.is_empty() {
        return None;
    }
    let root = root.to_path_buf();
    Some(Arc::new(move |id: &str| {
        clada_git::Repo::discover(&root).is_ok_and(|r| r.is_reachable_commit(id))
    }))
}

/// How an approved block will run, for the prompt.
fn sandbox_line(confine: &clada_engine::exec::confine::Confine) -> String {
    use clada_engine::exec::confine::Level;
    match (confine.level, confine.availability()) {
        (Level::Off, _) => "without the OS sandbox (sandbox.level: off)".into(),
        (_, clada_engine::exec::confine::Availability::Unavailable(why)) => {
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
/// Asks on the terminal; `diff` (what changed in an approved script since its approval) is
/// shown escaped right after the code, before the question.
fn ask_on_tty(req: &ExecRequest, sandbox: &str, diff: Option<&str>) -> Approval {
    let Ok(tty) = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")
    else {
        return Approval::No;
    };
    let mut out = &tty;
    let _ = write!(out, "\n{}", req.approval_text(Some(sandbox)));
    if let Some(d) = diff {
        let _ = write!(out, "{}", escape(d, Rule::Command));
    }
    let question = match req.no_always {
        // What cannot be read with certainty is never remembered: yes runs it this once.
        Some(_) => "Run it? [y]es / [N]o (no always: see above): ",
        None => "Run it? [y]es / [N]o / [a]lways (for this reply, and a shell command is remembered with your approvals): ",
    };
    let _ = write!(out, "{question}");
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
        "a" | "always" if req.no_always.is_none() => Approval::Always,
        _ => Approval::No,
    }
}
