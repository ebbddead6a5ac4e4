//! `git clada blame`: for every line of a file, the commit that last changed it (git's blame)
//! and, from that commit's authorship log (`refs/notes/ai`), who wrote it: `ai` (agent, model,
//! session, and the stored reply of a git-clada AI commit), `human` (an `h_` key of the log, a
//! line of a git-clada AI commit its log does not claim, or a line of the snapshot of your
//! own work git-clada recorded), or `unknown`.

use std::collections::HashMap;

use serde::Serialize;

use crate::authorship::Log;
use crate::record::provenance::{log_in, AI_NOTES_REF};
use crate::record::{classify, trailer, CladaCommit};
use clada_git::{BlameLine, ObjectId, Repo};

use super::common::HistoryError;

/// The blame of one file.
#[derive(Debug, Serialize)]
pub struct BlameReport {
    pub path: String,
    pub rev: String,
    pub lines: Vec<BlamedLine>,
}

/// One line's origin.
#[derive(Debug, Serialize)]
pub struct BlamedLine {
    pub line: u32,
    pub commit: String,
    /// `ai`, `human` or `unknown`.
    pub origin: &'static str,
    pub agent: Option<String>,
    pub model: Option<String>,
    pub session: Option<String>,
    /// The `Clada-Reply` blob of the AI commit (`git clada show COMMIT` prints it).
    pub reply: Option<String>,
    /// For the human rendering.
    #[serde(skip)]
    pub author: String,
    #[serde(skip)]
    pub content: Vec<u8>,
}

/// What is known of one blamed commit.
struct Known {
    log: Option<Log>,
    snapshot: bool,
    reply: Option<String>,
}

/// Blames `path` at `rev` (default HEAD), lines `range`.
pub fn blame(
    repo: &Repo,
    path: &str,
    rev: Option<&str>,
    range: Option<(u32, u32)>,
) -> Result<BlameReport, HistoryError> {
    // Logs a fetch brought in count as soon as they are read.
    crate::record::shared_logs::merge_on_read(repo);
    let commit = resolve(repo, rev)?;
    let blamed = repo.blame(commit, path, range)?;
    let mut origins = Origins::new(repo)?;
    let mut lines = Vec::with_capacity(blamed.len());
    for b in blamed {
        lines.push(origins.of(b)?);
    }
    Ok(BlameReport {
        path: path.to_string(),
        rev: commit.to_string(),
        lines,
    })
}

/// The commit `rev` names (default HEAD); a refusal when it names none.
pub(super) fn resolve(repo: &Repo, rev: Option<&str>) -> Result<ObjectId, HistoryError> {
    let rev = rev.unwrap_or("HEAD");
    if rev.starts_with('-') {
        return Err(HistoryError::Refused(format!("`{rev}` is not a revision")));
    }
    repo.resolve_commit(rev)
        .map_err(|e| HistoryError::Refused(format!("{rev}: {e}")))
}

/// The origins of blamed lines, each commit's log and trailers read once.
pub(super) struct Origins<'r> {
    repo: &'r Repo,
    book: clada_git::NoteBook<'r>,
    known: HashMap<ObjectId, Known>,
}

impl<'r> Origins<'r> {
    pub(super) fn new(repo: &'r Repo) -> Result<Origins<'r>, HistoryError> {
        Ok(Origins {
            repo,
            book: repo.note_book(AI_NOTES_REF)?,
            known: HashMap::new(),
        })
    }

    /// What is known of `commit`: its log, whether it is a snapshot, its reply.
    fn known(&mut self, commit: ObjectId) -> Result<&Known, HistoryError> {
        if !self.known.contains_key(&commit) {
            let info = self.repo.commit_info(commit)?;
            let k = Known {
                log: log_in(&mut self.book, commit)?,
                snapshot: classify(&info) == Some(CladaCommit::Snapshot),
                reply: info.trailer(trailer::REPLY).map(|r| r.trim().to_string()),
            };
            self.known.insert(commit, k);
        }
        self.known
            .get(&commit)
            .ok_or_else(|| HistoryError::Refused(format!("cannot read commit {commit}")))
    }

    /// `commit`'s authorship log, and whether it is a snapshot of the user's own work.
    pub(super) fn log_of(
        &mut self,
        commit: ObjectId,
    ) -> Result<(Option<&Log>, bool), HistoryError> {
        let k = self.known(commit)?;
        Ok((k.log.as_ref(), k.snapshot))
    }

    /// Where line `b` came from.
    pub(super) fn of(&mut self, b: BlameLine) -> Result<BlamedLine, HistoryError> {
        let k = self.known(b.commit)?;
        Ok(origin_of(b, k))
    }
}

/// The agent and model of a log's attestation key: its session's, or an older log's prompt.
pub(super) fn agent_model(log: &Log, key: &str) -> (Option<String>, Option<String>) {
    if let Some(s) = log.session_of(key) {
        return (
            Some(s.agent_id.tool.clone()),
            Some(s.agent_id.model.clone()),
        );
    }
    match log.meta.prompts.get(key) {
        Some(p) => {
            let field = |f: &str| p["agent_id"][f].as_str().map(str::to_string);
            (field("tool"), field("model"))
        }
        None => (None, None),
    }
}

fn origin_of(b: BlameLine, k: &Known) -> BlamedLine {
    let mut out = BlamedLine {
        line: b.line,
        commit: b.commit.to_string(),
        origin: "unknown",
        agent: None,
        model: None,
        session: None,
        reply: None,
        author: b.author,
        content: b.content,
    };
    if k.snapshot {
        out.origin = "human";
        return out;
    }
    let Some(log) = &k.log else {
        return out;
    };
    let entry = log
        .files
        .iter()
        .find(|f| f.path == b.orig_path)
        .and_then(|f| f.entries.iter().find(|e| e.lines.contains(b.orig_line)));
    match entry {
        Some(e) if e.key.starts_with("h_") => out.origin = "human",
        Some(e) => {
            out.origin = "ai";
            out.session = Some(e.key.split("::").next().unwrap_or_default().to_string());
            (out.agent, out.model) = agent_model(log, &e.key);
            out.reply = k.reply.clone();
        }
        // git-clada's own log claims every line its AI wrote: the others were yours.
        None if log.is_claded() => out.origin = "human",
        None => {}
    }
    out
}

/// The report as `git blame` prints it, the agent and model in the name column.
pub fn render(report: &BlameReport, shown: clada_base::term::Shown) -> String {
    let mut out = String::new();
    let width = report.lines.last().map_or(1, |l| l.line.to_string().len());
    for l in &report.lines {
        let who = match l.origin {
            "ai" => format!(
                "{}/{}",
                l.agent.as_deref().unwrap_or("ai"),
                l.model.as_deref().unwrap_or("unknown")
            ),
            "human" => l.author.clone(),
            _ => format!("? {}", l.author),
        };
        // Agent and model come from notes a clone brought: escaped whatever the format.
        let who = clada_base::term::escape(&who, clada_base::term::Rule::Name);
        let text = String::from_utf8_lossy(&l.content);
        let text = shown.apply(&text, clada_base::term::Rule::Content);
        out.push_str(&format!(
            "{} ({:<24} {:>width$}) {}\n",
            &l.commit[..8],
            truncate(&who, 24),
            l.line,
            text
        ));
    }
    out
}

fn truncate(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => s[..i].to_string(),
        None => s.to_string(),
    }
}
