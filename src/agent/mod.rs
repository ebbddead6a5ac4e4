//! The agents' own edits (`git clada agent-hook`): Claude Code's, Cursor's, Gemini CLI's and
//! Codex's hooks around their tool calls, turned into checkpoints per tool call and one AI
//! commit per turn (`docs/agents.md` is the model). `payload` reads each agent's hook input,
//! `calls` records a call's before-state and its checkpoint, `state` keeps them under
//! `refs/clada/agent/<branch>`, `committed` attributes the lines of commits someone else
//! made (the agent's own `git commit`, the user's), `turn` commits a turn through the apply transaction,
//! `settings` installs the hooks in an agent's settings file, `codex_trust` writes Codex's
//! trust for them, `setup` is what install and uninstall do around that file, `status`
//! reports what is installed, trusted and heard from, `model` finds the model name,
//! `rebuilt` reads Cursor's older `afterFileEdit`, `unreported` finds edits no hook reported,
//! `admitted` sorts a turn's paths by what enters its commit (`record::admit`'s rule),
//! `route` sends a call to the repositories it concerns (a session may span several),
//! `shell` reads a shell call's git state (index, HEAD, stash), `stash` keeps the agent's
//! stashed changes its own, `switched` commits the turn so far when a call switches branches.

pub mod admitted;
pub mod calls;
pub mod codex_trust;
pub mod committed;
pub mod model;
pub mod observed;
pub mod payload;
pub mod prompt;
pub mod rebuilt;
pub mod route;
pub mod settings;
pub mod setup;
pub mod shell;
pub mod sides;
pub mod spill;
pub mod stash;
pub mod state;
pub mod status;
pub mod switched;
pub mod turn;
pub mod unreported;

use std::path::Path;

use clada_engine::config::AgentCommit;
use clada_engine::record::apply::{ApplyError, ApplyOptions};
use clada_git::{Repo, RepoError};

pub use payload::{AgentKind, Phase};

/// What one hook call did, for the message on stderr.
#[derive(Debug)]
pub enum Handled {
    /// Nothing to do: an event or tool git-clada records nothing for, or no git repository.
    Nothing,
    /// The before-state of a tool call was recorded.
    Before,
    /// The agent lock was held past the hook's budget: the before-state was set aside for the
    /// next hook to fold in.
    BeforeSetAside,
    /// The after of a tool call.
    After(calls::AfterOutcome),
    /// The end of a turn.
    Turn(turn::TurnOutcome),
    /// The after of a tool call, committed at once (`agent.commit: edit`).
    Edit(calls::AfterOutcome, turn::TurnOutcome),
    /// A call recorded in several repositories (a session spanning them, `route`): each
    /// one's outcome, or its error.
    Repos(Vec<(std::path::PathBuf, Result<Handled, String>)>),
}

impl Handled {
    /// Whether something was left undone (a commit a hook stopped, a repository's error):
    /// the hook then exits with status 1, which never blocks the agent.
    pub fn incomplete(&self) -> bool {
        match self {
            Handled::Turn(turn::TurnOutcome::Ran(o))
            | Handled::Edit(_, turn::TurnOutcome::Ran(o)) => o.commit.is_none(),
            Handled::Repos(all) => all
                .iter()
                .any(|(_, h)| h.as_ref().map_or(true, Handled::incomplete)),
            _ => false,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error(transparent)]
    Payload(#[from] payload::PayloadError),
    #[error(transparent)]
    Repo(#[from] RepoError),
    #[error(transparent)]
    Apply(#[from] ApplyError),
    #[error("{0}")]
    Config(String),
}

/// A tool call's hook that could not take the agent lock within its budget: its record, set
/// aside without the lock.
fn set_aside(
    repo: &Repo,
    call: &payload::Call,
    dir: &Path,
    agent: AgentKind,
    head: &clada_git::Head,
) -> Result<Handled, AgentError> {
    match call.phase {
        Phase::Before => {
            spill::before(repo, head.branch(), call, dir)?;
            Ok(Handled::BeforeSetAside)
        }
        _ => {
            let head_id = head.commit().map(|c| c.to_string()).unwrap_or_default();
            let outcome = spill::after(repo, head.branch(), call, agent.tool(), &head_id)?;
            Ok(Handled::After(outcome))
        }
    }
}

/// The options of the AI commits in the repository at a worktree (the configuration there)
/// and when the agent's changes are committed there (`agent.commit`); an error says why the
/// configuration cannot be read.
pub type Options<'a> = dyn Fn(&Path) -> Result<(ApplyOptions, AgentCommit), String> + 'a;

/// Handles one hook call: `input` is the payload on stdin, `event` the optional EVENT
/// argument, `cwd` the hook's directory; `options` gives, for each repository the call is
/// recorded in (`route`), the options of its AI commits (the user's configuration there),
/// completed here with the agent's provenance, and `agent.commit`. What the user should know
/// beyond the outcome (edits left unattributed, git-ai's log) is added to `notes`.
pub fn handle(
    agent: AgentKind,
    event: Option<&str>,
    input: &[u8],
    cwd: &Path,
    options: &Options,
    notes: &mut Vec<String>,
) -> Result<Handled, AgentError> {
    let call = payload::parse(agent, event, input)?;
    // A read-only or unknown tool: nothing to record, so not even the lock is taken.
    if call.inert() {
        return Ok(Handled::Nothing);
    }
    let dir = call.cwd.clone().unwrap_or_else(|| cwd.to_path_buf());
    let mut targets = route::targets(&call, &dir, notes)?;
    let in_one = |t: &route::Target, notes: &mut Vec<String>| -> Result<Handled, AgentError> {
        let (opts, mode) = options(t.repo.workdir()).map_err(AgentError::Config)?;
        handle_in(&t.repo, &t.call, &dir, &opts, mode, notes)
    };
    match targets.len() {
        // An agent working outside any repository: nothing to record.
        0 => return Ok(Handled::Nothing),
        1 => return in_one(&targets.remove(0), notes),
        _ => {}
    }
    let mut out = Vec::with_capacity(targets.len());
    for t in &targets {
        let handled = in_one(t, notes).map_err(|e| format!("{e:#}"));
        // A repository the session touched before, which this shell call's before hook
        // did not see yet (another call added it meanwhile): nothing of its.
        if !t.home && matches!(handled, Ok(Handled::After(calls::AfterOutcome::NoBefore))) {
            continue;
        }
        out.push((t.repo.workdir().to_path_buf(), handled));
    }
    Ok(Handled::Repos(out))
}

/// [`handle`] in one repository.
fn handle_in(
    repo: &Repo,
    call: &payload::Call,
    dir: &Path,
    opts: &ApplyOptions,
    mode: AgentCommit,
    notes: &mut Vec<String>,
) -> Result<Handled, AgentError> {
    // Cursor running Claude Code's hooks: the payload says whose it is.
    let agent = call.agent;
    status::heard(repo, agent, &call.event);
    if let (Phase::Session, Some(model)) = (call.phase, &call.model) {
        model::remember(repo, &call.session, model)?;
        return Ok(Handled::Nothing);
    }
    // git-ai writes the logs of this repository's commits itself: one log per commit.
    let deferred = git_ai_present(repo);
    let mut own_opts;
    let opts = match deferred && !opts.provenance.off {
        true => {
            own_opts = opts.clone();
            own_opts.provenance.off = true;
            &own_opts
        }
        false => opts,
    };
    let head = repo.head()?;
    let branch = head.branch();
    let mut held = match call.phase {
        // Cursor's afterFileEdit rebuilds its before-state from the file as it is now, which
        // must happen under the lock: it waits like a turn's end, and past that says what
        // becomes of the edit.
        Phase::After if call.edits.is_some() => {
            state::Held::read(repo, branch).map_err(|e| unrecorded_edit(call, e))?
        }
        // A tool call's hook does not keep the agent waiting on another hook's long work (a
        // turn commit running git's hooks): past its budget it sets its record aside.
        Phase::Before | Phase::After => {
            match state::Held::read_within(repo, branch, spill::budget())? {
                Some(held) => held,
                None => return set_aside(repo, call, dir, agent, &head),
            }
        }
        // A call that never ran leaves nothing to set aside: past the budget its
        // before-state just stays, unpaired.
        Phase::Dropped => match state::Held::read_within(repo, branch, spill::budget())? {
            Some(held) => held,
            None => return Ok(Handled::Nothing),
        },
        _ => state::Held::read(repo, branch)?,
    };
    if spill::any(repo) {
        let done = spill::fold(repo, &mut held, branch)?;
        // Records of another branch wait for a hook on it: nothing folded, nothing saved.
        if !done.is_empty() {
            held.save()?;
            spill::remove(&done);
            held = state::Held::read(repo, branch)?;
        }
    }
    // The agent's stashes someone else popped or dropped: their changes are its again.
    stash::reconcile(repo, &mut held)?;
    let logs = !opts.provenance.off;
    let handled = match call.phase {
        Phase::Before => {
            committed::catch_up(repo, &mut held, logs)?;
            let began = unreported::remember(repo, head.branch(), &call.session)?;
            calls::before(repo, &mut held, call, dir)?;
            if !began {
                named_since_last(repo, &held, branch, call, notes)?;
            }
            Handled::Before
        }
        Phase::After => {
            let (handled, unsaved) = after_call(repo, held, call, agent, &head, opts, mode, notes)?;
            match unsaved {
                Some(h) => held = h,
                None => return Ok(handled),
            }
            handled
        }
        Phase::Stop => {
            return stop_call(repo, held, call, agent, &head, opts, mode, deferred, notes)
        }
        Phase::Dropped => {
            let (id, session) = (call.tool_use_id.as_deref(), call.session.as_str());
            held.state
                .open
                .retain(|o| !(id.is_some() && calls::pairs(o, id, session)));
            Handled::Nothing
        }
        Phase::Session | Phase::Ignored => Handled::Nothing,
    };
    held.save()?;
    Ok(handled)
}

/// Names on stderr what changed since the session's last hook with no hook reporting it,
/// at the before hook of `call` (`unreported::at_hook`).
fn named_since_last(
    repo: &Repo,
    held: &state::Held,
    branch: Option<&str>,
    call: &payload::Call,
    notes: &mut Vec<String>,
) -> Result<(), RepoError> {
    let id = call.tool_use_id.as_deref();
    let mut mine = held.state.open.iter().rev();
    let Some(open) = mine.find(|o| calls::pairs(o, id, &call.session)) else {
        return Ok(());
    };
    let named = unreported::at_hook(repo, held, branch, open)?;
    if !named.is_empty() {
        notes.push(unreported::said(&named, "since the agent's last hook"));
    }
    Ok(())
}

/// The error of an afterFileEdit that could not take the agent lock: why, and that its
/// edit stays the user's to commit.
fn unrecorded_edit(call: &payload::Call, e: RepoError) -> AgentError {
    let files = match &call.touches {
        payload::Touches::Files(f) => f
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", "),
        _ => "its file".into(),
    };
    AgentError::from(RepoError::Invalid(format!(
        "{e}; this afterFileEdit is not recorded: the edit of {files} stays in the worktree, uncommitted and not attributed to the agent (commit it yourself if you keep it)"
    )))
}

/// A tool call's PostToolUse (or Cursor's afterFileEdit): its checkpoint, the commit it may
/// have made, and under `agent.commit: edit` its own AI commit. The state comes back unless
/// it was saved here (the commit saves it whatever it did).
#[allow(clippy::too_many_arguments)]
fn after_call<'r>(
    repo: &'r Repo,
    mut held: state::Held<'r>,
    call: &payload::Call,
    agent: AgentKind,
    head: &clada_git::Head,
    opts: &ApplyOptions,
    mode: AgentCommit,
    notes: &mut Vec<String>,
) -> Result<(Handled, Option<state::Held<'r>>), AgentError> {
    let head_id = head.commit().map(|c| c.to_string()).unwrap_or_default();
    let after = match &call.edits {
        // Cursor's afterFileEdit: the before-state is rebuilt from its edits.
        Some(edits) => {
            rebuilt::after_file_edit(repo, &mut held, call, edits, agent.tool(), &head_id)?
        }
        None => match switched::from_branch(repo, &held, call)? {
            // The call switched branches: the turn so far is committed on the old one.
            Some(from) => {
                let opts = |on: &state::Held| commit_opts(repo, on, agent, call, opts);
                let (after, on_new) =
                    switched::after(repo, held, from, call, agent.tool(), head, &opts, notes)?;
                held = on_new;
                after
            }
            None => calls::after(repo, &mut held, call, agent.tool(), &head_id)?,
        },
    };
    // A commit the call made (the agent's own `git commit`) takes its lines now.
    committed::catch_up(repo, &mut held, !opts.provenance.off)?;
    let recorded = matches!(after, calls::AfterOutcome::Recorded(_));
    if mode != AgentCommit::Edit || !recorded {
        return Ok((Handled::After(after), Some(held)));
    }
    // A commit per tool call: git's commit hooks and the configured ones are left for
    // commits a person makes (they would run on every edit).
    let mut opts = commit_opts(repo, &held, agent, call, opts);
    opts.no_verify = true;
    opts.hooks.before.clear();
    opts.hooks.after.clear();
    let source = format!("{} edit", payload::agent_name(agent));
    let turn = commit_and_save(repo, held, call, &opts, &source, notes)?;
    Ok((Handled::Edit(after, turn), None))
}

/// The end of the agent's turn: the commits made meanwhile take their lines, edits no hook
/// reported are named, and the turn's AI commit is made (unless `agent.commit: none`). The
/// state is saved whatever the commit did.
#[allow(clippy::too_many_arguments)]
fn stop_call(
    repo: &Repo,
    mut held: state::Held<'_>,
    call: &payload::Call,
    agent: AgentKind,
    head: &clada_git::Head,
    opts: &ApplyOptions,
    mode: AgentCommit,
    deferred: bool,
    notes: &mut Vec<String>,
) -> Result<Handled, AgentError> {
    committed::catch_up(repo, &mut held, !opts.provenance.off)?;
    // The turn is over, so a call of this session still open never ends: Codex fires only
    // PreToolUse for an apply_patch that fails, and a call refused or cancelled may have no
    // after. Left open, it would stay in the state for good, and a later call of an agent
    // without call ids (Gemini CLI, paired in arrival order) would pair with it.
    held.state.open.retain(|o| o.session != call.session);
    let unreported = unreported_at_end(repo, &held, head.branch(), &call.session)?;
    if !unreported.is_empty() {
        notes.push(unreported::said(&unreported, "during the agent's turn"));
    }
    if mode == AgentCommit::None {
        // Attribution only: the checkpoints stay until someone commits their lines; the
        // agent's staging stays as it left it.
        held.state.staged.retain(|s| s.session != call.session);
        held.save()?;
        return Ok(Handled::Turn(turn::TurnOutcome::Kept));
    }
    let opts = commit_opts(repo, &held, agent, call, opts);
    let source = format!("{} turn", payload::agent_name(agent));
    let outcome = commit_and_save(repo, held, call, &opts, &source, notes)?;
    if deferred && matches!(outcome, turn::TurnOutcome::Ran(_)) {
        notes.push("git-ai records this repository (.git/ai): the turn's authorship log in refs/notes/ai is left to it".into());
    }
    Ok(Handled::Turn(outcome))
}

/// The AI commit of the checkpoints `held` has, then the state saved whatever the commit
/// did: a refused commit keeps its checkpoints for the next one.
fn commit_and_save(
    repo: &Repo,
    mut held: state::Held<'_>,
    call: &payload::Call,
    opts: &ApplyOptions,
    source: &str,
    notes: &mut Vec<String>,
) -> Result<turn::TurnOutcome, AgentError> {
    let outcome = turn::commit_turn(repo, &mut held, call, opts, source, notes);
    let saved = held.save();
    let outcome = outcome?;
    saved?;
    Ok(outcome)
}

/// The options of the agent's AI commit: the user's, with the agent's provenance (its tool,
/// the session as conversation, and the model: the payload's, else the newest the
/// session's checkpoints recorded, else the transcript's, else `SessionStart`'s, and only
/// then the configured `provenance.model`, `model::of_session`).
fn commit_opts(
    repo: &Repo,
    held: &state::Held<'_>,
    agent: AgentKind,
    call: &payload::Call,
    opts: &ApplyOptions,
) -> ApplyOptions {
    let mut opts = opts.clone();
    opts.finish_pending = true;
    opts.provenance.tool = Some(agent.tool().to_string());
    opts.provenance.conversation = Some(call.session.clone());
    let mine = || {
        held.state
            .checkpoints
            .iter()
            .rev()
            .filter(|c| c.session == call.session)
    };
    let recorded = call
        .model
        .clone()
        .or_else(|| mine().find_map(|c| c.model.clone()));
    let transcript = call
        .transcript
        .clone()
        .or_else(|| mine().find_map(|c| c.transcript.as_ref().map(std::path::PathBuf::from)));
    opts.provenance.model =
        model::of_session(repo, &call.session, recorded, transcript.as_deref(), || {
            opts.provenance.model.clone()
        });
    opts
}

/// Whether git-ai records this repository (its working logs in `.git/ai`,
/// agent-hooks.md §4.1): git-clada then leaves `refs/notes/ai` to it.
pub fn git_ai_present(repo: &Repo) -> bool {
    repo.common_dir().join("ai").is_dir()
}

/// The paths `session`'s turn changed that no checkpoint holds (`unreported`).
fn unreported_at_end(
    repo: &Repo,
    held: &state::Held,
    branch: Option<&str>,
    session: &str,
) -> Result<Vec<String>, RepoError> {
    let mine: Vec<&state::Checkpoint> = held
        .state
        .checkpoints
        .iter()
        .filter(|c| c.session == session && !c.left_out)
        .collect();
    let sides = sides::sides(repo, &mine)?;
    unreported::at_end(repo, branch, session, &sides)
}
