//! Recording AI work in git: the apply transaction (snapshot of the user's work, AI commit with
//! trailers, index, hooks, notes, branch move) and the journal that makes an interrupted
//! transaction recoverable. Built on `repo` (git) and `action` (the executor); the executor
//! itself never sees git.

pub mod admit;
pub mod agent_state;
pub mod agent_turn;
pub mod apply;
pub mod called;
pub mod cherry_pick;
pub mod commit_evidence;
pub mod githooks;
pub mod journal;
pub mod merge;
pub mod message;
pub mod provenance;
pub mod restore;
pub mod rewritten;
pub mod shared_logs;
pub mod snapshot;

/// The notes ref holding each AI commit's reply text (its blob id is the `Clada-Reply`
/// trailer); `refs/notes/clada` holds the JSON result report.
pub const REPLY_NOTES_REF: &str = "refs/notes/clada-reply";

/// Trailer names on git-clada's commits. They say what kind of commit git-clada made, never
/// whether it made it: a human's amend or `git commit -C` copies them, so undo and squash
/// trust only git-clada's records (`history/recorded.rs`, [`apply::is_recorded`]).
pub mod trailer {
    pub const VERSION: &str = "Clada-Version";
    pub const REPLY: &str = "Clada-Reply";
    pub const BLOCKS: &str = "Clada-Blocks";
    pub const FAILED: &str = "Clada-Failed";
    /// Blocks refused in a way only the user can lift (⏸: exec not approved, a path or a
    /// format not allowed): not failures of the reply, so not in `Clada-Failed`.
    pub const WAITING: &str = "Clada-Waiting";
    pub const SNAPSHOT: &str = "Clada-Snapshot";
    pub const INDEX: &str = "Clada-Index";
    pub const SQUASHED: &str = "Clada-Squashed";
    /// The session whose work the commit is: the MCP session (`git clada mcp`) whose tool
    /// call made it, or the agent's session whose turn it is.
    pub const SESSION: &str = "Clada-Session";
    /// The agent whose own tool calls made the commit (`claude-code`, `cursor`, `gemini`,
    /// `codex`): an agent's turn commit, which has no reply and no blocks.
    pub const AGENT: &str = "Clada-Agent";
    /// The model the agent's turn ran on, when known.
    pub const MODEL: &str = "Clada-Model";
    /// How many tool calls of the agent's turn changed files.
    pub const TOOL_CALLS: &str = "Clada-Tool-Calls";
    /// A path the reply changed whose change stayed out of the commit because it overlapped
    /// the user's uncommitted change there (one trailer per path).
    pub const UNCOMMITTED: &str = "Clada-Uncommitted";
    /// `skipped`: the repository's hooks did not run on this commit (`--exec deny`).
    pub const HOOKS: &str = "Clada-Hooks";
}

use clada_git::{CommitInfo, Repo, RepoError};

/// The ref that exists while the user is stepped back in history (`git clada step-back`); its
/// value is the branch's tip when stepping began.
pub const STEP_STATE_REF: &str = "refs/clada/step/tip";

/// Why nothing may change the branch now, when the user is stepped back in history. Lives
/// here, below both `record` and `history`, so neither imports the other for it.
pub fn stepped_back(repo: &Repo) -> Result<Option<String>, RepoError> {
    Ok(repo.read_ref(STEP_STATE_REF)?.map(|tip| {
        format!(
            "you are stepped back in history (the tip is {}); run `git clada step-forward --all` to return first",
            Repo::short(tip)
        )
    }))
}

/// What kind of git-clada commit a commit is, judged by its trailers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CladaCommit {
    /// An AI commit made by `apply`.
    Apply,
    /// The snapshot of the user's work made before an apply.
    Snapshot,
    /// The result of `squash`.
    Squash,
}

/// Whether `commit` is an agent's turn commit by its trailers (`Clada-Agent`).
pub fn is_turn(commit: &CommitInfo) -> bool {
    commit.trailer(trailer::AGENT).is_some()
}

/// Classifies `commit` by its trailers; `None` when it carries none of git-clada's. (Only
/// git-clada's records say whether git-clada made it.)
pub fn classify(commit: &CommitInfo) -> Option<CladaCommit> {
    let tokens = clada_git::trailer_tokens(&commit.message);
    let has = |name: &str| tokens.iter().any(|k| k.eq_ignore_ascii_case(name));
    if !has(trailer::VERSION) {
        return None;
    }
    if has(trailer::SNAPSHOT) {
        Some(CladaCommit::Snapshot)
    } else if has(trailer::SQUASHED) {
        Some(CladaCommit::Squash)
    } else if has(trailer::BLOCKS) || has(trailer::AGENT) {
        // An agent's turn is an apply of AI changes made outside a reply (its record is an
        // apply record).
        Some(CladaCommit::Apply)
    } else {
        None
    }
}
