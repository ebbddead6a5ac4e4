//! The end of an agent's turn: its checkpoints become one AI commit, made by the apply
//! transaction as it commits AI changes a failing hook left pending (`git clada commit`):
//! the agent's changes are handed over as a pending record, so the user's uncommitted work
//! stays uncommitted, git's commit hooks run (contained), and the commit carries its
//! authorship log.

use clada_engine::input::Reply;
use clada_engine::record::apply::{
    put_pending, restore_pending, AgentChanges, ApplyError, ApplyOptions, ApplyOutcome,
};
use clada_engine::record::journal::JournalAgent;
use clada_git::{BString, ByteSlice, Repo, RepoError, TreeChange};

use super::payload::Call;
use super::sides::sides;
use super::state::{Checkpoint, Held, Stored};

/// What the end of a turn did.
#[derive(Debug)]
pub enum TurnOutcome {
    /// The session recorded no change this turn.
    Nothing,
    /// Nothing was committed: `agent.commit: none` keeps the checkpoints, attributed, until
    /// someone commits their lines.
    Kept,
    /// The apply transaction ran: its outcome (`commit` is `None` when a hook stopped it;
    /// the changes then stay pending, as the report says).
    Ran(Box<ApplyOutcome>),
}

/// Commits the checkpoints of the session of `call` (the turn's end) as one AI commit and
/// drops them from the state; what `record::admit` leaves out of the commit is said in
/// `notes`.
pub fn commit_turn(
    repo: &Repo,
    held: &mut Held,
    call: &Call,
    opts: &ApplyOptions,
    source: &str,
    notes: &mut Vec<String>,
) -> Result<TurnOutcome, ApplyError> {
    let session = call.session.as_str();
    // The agent's own staging (`git add`, `git mv`) is part of its change.
    super::shell::give_back(repo, held, session)?;
    let mine: Vec<&Checkpoint> = held
        .state
        .checkpoints
        .iter()
        .filter(|c| c.session == session)
        .collect();
    if mine.is_empty() {
        return Ok(TurnOutcome::Nothing);
    }
    let all_sides = sides(repo, &mine)?;
    // The agent's paths: those its calls left changed (undo of the turn takes them all back,
    // or refuses where the user's edit touches them), but for the untracked ones left out,
    // which the record's untracked paths take back.
    let mut turn_paths: Vec<String> = all_sides.keys().cloned().collect();
    // What enters the commit (`record::admit`): the rest stays in the worktree, said.
    let split = super::admitted::split(repo, all_sides, None)?;
    notes.extend(split.notes);
    let (sides, kept, untracked) = (split.sides, split.kept, split.untracked);
    turn_paths.retain(|p| !untracked.iter().any(|(before, _)| &before.path == p));
    let like = mine.last().map(|c| (*c).clone());
    let moves = super::shell::moves_of(&mine);
    let head = repo.head()?;
    let Some(head_commit) = head.commit() else {
        return Err(ApplyError::Refused(format!(
            "the branch {} has no commit yet, so the agent's changes stay uncommitted; make a first commit, then `git clada commit`",
            head.short_name()
        )));
    };
    let head_tree = repo.commit_info(head_commit)?.tree;
    let mut user = Vec::with_capacity(sides.len());
    let mut agent = Vec::with_capacity(sides.len());
    for (path, s) in &sides {
        let path = BString::from(path.as_str());
        // Lines someone committed already (the agent's own `git commit`) are no longer
        // uncommitted changes of this turn.
        if Stored::of(repo.tree_entry(head_tree, path.as_bstr())?) == s.agent {
            turn_paths.retain(|p| p.as_bytes() != path.as_bytes());
            continue;
        }
        user.push(TreeChange {
            path: path.clone(),
            entry: s.user.map(Stored::entry),
        });
        agent.push(TreeChange {
            path,
            entry: s.agent.map(Stored::entry),
        });
    }
    // The turn's checkpoints go; what the commit left out stays the agent's.
    let drop_turn = |held: &mut Held| -> Result<(), RepoError> {
        held.state.checkpoints.retain(|c| c.session != session);
        super::admitted::keep(repo, held, session, like.as_ref(), kept.clone())
    };
    if agent.is_empty() && untracked.is_empty() {
        drop_turn(held)?;
        return Ok(TurnOutcome::Nothing);
    }
    let base_tree = repo.edit_tree(head_tree, &user)?;
    let after_tree = repo.edit_tree(head_tree, &agent)?;
    let index = repo.read_index()?;
    let index_tree = repo.tree_of_index(head_tree, &index)?;
    let branch = head.branch();
    let (record, previous) = put_pending(
        repo,
        &AgentChanges {
            head: head_commit,
            branch: branch.map(str::to_string),
            source: source.to_string(),
            base_tree,
            after_tree,
            index_tree,
            agent: JournalAgent {
                tool: opts.provenance.tool.clone().unwrap_or_default(),
                model: opts.provenance.model.clone(),
                conversation: opts.provenance.conversation.clone(),
                moves,
            },
            untracked,
            turn: Some(turn_record(call, &mine, &turn_paths, opts)),
        },
    )?;
    if agent.is_empty() {
        // Only untracked paths changed: nothing to commit; the record lets undo take them
        // back.
        drop_turn(held)?;
        return Ok(TurnOutcome::Nothing);
    }
    let reply = Reply {
        text: String::new(),
        source: source.to_string(),
    };
    match clada_engine::record::apply::apply_in(repo, &reply, opts) {
        Ok(outcome) => {
            if outcome.commit.is_none() {
                // A hook stopped the commit. The apply recorded itself (it changed nothing)
                // on top of the agent's changes; those are what stays pending, for `git
                // clada commit` and `undo`.
                restore_pending(repo, branch, Some(record))?;
            }
            drop_turn(held)?;
            Ok(TurnOutcome::Ran(Box::new(outcome)))
        }
        Err(e) => {
            // Nothing was taken: the checkpoints stay for the next end of turn.
            restore_pending(repo, branch, previous)?;
            Err(e)
        }
    }
}

/// What the agent's user is told when its turn (`what`: `turn`, `edit`) ran the commit and
/// nothing was committed: which hook refused it and the hook's output (the caller escapes
/// it, as for every message), then one sentence of what became of the changes.
pub fn not_committed(outcome: &ApplyOutcome, what: &str) -> String {
    let result = &outcome.execution.result;
    let mut out = format!("the agent's {what} was not committed");
    let failed: Vec<_> = result.steps.iter().filter(|s| !s.success).collect();
    for s in &failed {
        let name = match s.name.strip_prefix("hook ") {
            Some(hook) => format!("git's {hook} hook"),
            None => format!("`{}`", s.name),
        };
        out.push_str(&format!(": {name} refused it"));
        let output = clada_engine::report::capped_output(s.output.trim_end());
        if !output.trim().is_empty() {
            out.push_str(", saying:");
            for line in output.lines() {
                out.push_str(&format!("\n    {line}"));
            }
        }
        if let Some(n) = &s.needs_user {
            out.push_str(&format!("\n  to allow it: {}", n.how));
        }
        out.push('\n');
    }
    match failed.is_empty() {
        // Not a hook (a `hooks.before` command, say): what the apply said.
        true => out.push_str(&format!(": {}", result.warnings.join("; "))),
        false => {
            let _ = out.pop();
            out.push_str(&format!(
                "\n{}",
                clada_engine::record::apply::HOOK_REFUSED_TURN
            ));
        }
    }
    out
}

/// The record of the turn (`record::agent_turn`): its calls, and each of `paths` with every
/// change a call made of it, which undo and redo of the turn replay.
fn turn_record(
    call: &Call,
    mine: &[&Checkpoint],
    paths: &[String],
    opts: &ApplyOptions,
) -> clada_engine::record::agent_turn::Turn {
    use clada_engine::record::agent_turn::{Call as TurnCall, Step, Turn, TurnPath};
    let subject = match opts.prompt_subject {
        true => call
            .transcript
            .as_deref()
            .and_then(super::prompt::from_transcript)
            .and_then(|p| clada_engine::record::message::prompt_subject(&p)),
        false => None,
    };
    Turn {
        agent: super::payload::agent_name(call.agent).to_string(),
        session: call.session.clone(),
        model: opts.provenance.model.clone(),
        subject,
        calls: mine
            .iter()
            .map(|cp| TurnCall {
                tool: cp.tool.clone(),
                key: cp.key.clone(),
                paths: cp.changes.iter().map(|c| c.path.clone()).collect(),
            })
            .collect(),
        paths: paths
            .iter()
            .map(|p| TurnPath {
                path: p.clone(),
                steps: mine
                    .iter()
                    .flat_map(|cp| cp.changes.iter())
                    .filter(|c| &c.path == p)
                    .map(|c| Step {
                        before: c.before,
                        after: c.after,
                    })
                    .collect(),
            })
            .collect(),
    }
}
