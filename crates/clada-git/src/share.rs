//! Sharing the AI attribution logs (`refs/notes/ai`) with a repository's remotes, through the
//! `git` CLI (gix does not push): the remotes and their fetch refspecs, a fetch of a remote's
//! logs into `refs/notes/remotes/<remote>/ai` (a glob refspec, so a remote without logs is no
//! error), a push of `refs/notes/ai` that never forces, never runs the pre-push hook and
//! never asks for credentials (it fails instead), and whether one notes commit is already in
//! another's history.
//!
//! Every `git` started here gets `GIT_CLADA_SHARING=1`, which git-clada's pre-push hook
//! checks, so a notes push can never start another.

use std::process::{Command, Output, Stdio};

use super::{GixContext, ObjectId, Repo, RepoError, Result};

/// Set on every git command started here; git-clada's pre-push hook does nothing under it.
pub const SHARING_ENV: &str = "GIT_CLADA_SHARING";

/// The logs' notes ref.
const AI_REF: &str = "refs/notes/ai";

/// The fetch refspec that brings `remote`'s logs in: a glob, so that a remote without
/// `refs/notes/ai` matches nothing instead of failing the fetch, into a ref of its own that
/// mirrors the remote (forced there, as remote-tracking branches are; never into
/// `refs/notes/ai`, which may hold logs not pushed yet).
pub fn fetch_refspec(remote: &str) -> String {
    format!("+refs/notes/ai*:refs/notes/remotes/{remote}/ai*")
}

/// Where `remote`'s logs are fetched to.
pub fn tracking_ref(remote: &str) -> String {
    format!("refs/notes/remotes/{remote}/ai")
}

/// How a push of the logs went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotesPush {
    /// The remote took them (or had them already).
    Done,
    /// The remote's logs moved on (another clone pushed first): fetch, merge, push again.
    Behind,
    /// The remote refused them (a hook, no rights): its words.
    Refused(String),
    /// Credentials would have to be asked for.
    NoCredentials(String),
    /// The push did not run through (network, a missing remote): git's words.
    Failed(String),
}

impl Repo {
    /// `git` in this repository, with no standard input, no prompt of any kind (terminal,
    /// askpass, ssh passphrase, credential manager window) and the recursion guard.
    fn git_quiet(&self) -> Command {
        let mut cmd = Command::new("git");
        cmd.arg("-C")
            .arg(self.workdir())
            .stdin(Stdio::null())
            .env(SHARING_ENV, "1")
            .env("GIT_TERMINAL_PROMPT", "0")
            // Empty: git skips askpass (core.askPass and SSH_ASKPASS too) and, with terminal
            // prompts off, fails where it would have asked.
            .env("GIT_ASKPASS", "")
            .env("SSH_ASKPASS_REQUIRE", "never")
            .env("GCM_INTERACTIVE", "never");
        let own_ssh = std::env::var_os("GIT_SSH_COMMAND").is_some()
            || std::env::var_os("GIT_SSH").is_some()
            || self.config_string("core.sshCommand").is_some();
        if !own_ssh {
            cmd.env("GIT_SSH_COMMAND", "ssh -o BatchMode=yes");
        }
        cmd
    }

    fn run_quiet(&self, args: &[&str]) -> Result<Output> {
        self.git_quiet()
            .args(args)
            .output()
            .map_err(|e| RepoError::Invalid(format!("cannot run git: {e}")))
    }

    /// The names of the repository's remotes (`git remote`).
    pub fn remote_names(&self) -> Result<Vec<String>> {
        let out = self.run_quiet(&["remote"])?;
        if !out.status.success() {
            return Err(RepoError::Invalid(format!(
                "git remote failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        Ok(String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_string)
            .filter(|l| !l.is_empty())
            .collect())
    }

    /// The fetch refspecs of `remote` (`remote.<name>.fetch`, in order).
    pub fn fetch_refspecs(&self, remote: &str) -> Result<Vec<String>> {
        let key = format!("remote.{remote}.fetch");
        let out = self.run_quiet(&["config", "--get-all", &key])?;
        // Exit 1: the key is not set.
        match out.status.code() {
            Some(0) | Some(1) => Ok(String::from_utf8_lossy(&out.stdout)
                .lines()
                .map(str::to_string)
                .collect()),
            _ => Err(RepoError::Invalid(format!(
                "cannot read {key}: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ))),
        }
    }

    /// The URL `remote` fetches from, as configured.
    pub fn remote_url(&self, remote: &str) -> Option<String> {
        self.config_string(&format!("remote.{remote}.url"))
    }

    /// Adds `spec` to `remote`'s fetch refspecs (the repository's own config file).
    pub fn add_fetch_refspec(&self, remote: &str, spec: &str) -> Result<()> {
        let key = format!("remote.{remote}.fetch");
        self.config_edit(&["config", "--local", "--add", &key, spec], &key)
    }

    /// Removes every `spec` from `remote`'s fetch refspecs, the others kept.
    pub fn remove_fetch_refspec(&self, remote: &str, spec: &str) -> Result<()> {
        let key = format!("remote.{remote}.fetch");
        self.config_edit(
            &[
                "config",
                "--local",
                "--unset-all",
                "--fixed-value",
                &key,
                spec,
            ],
            &key,
        )
    }

    fn config_edit(&self, args: &[&str], key: &str) -> Result<()> {
        let out = self.run_quiet(args)?;
        if !out.status.success() {
            return Err(RepoError::Invalid(format!(
                "cannot change {key}: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        Ok(())
    }

    /// Fetches `remote`'s logs into [`tracking_ref`] (nothing when it has none).
    pub fn fetch_notes(&self, remote: &str) -> Result<()> {
        let spec = fetch_refspec(remote);
        let out = self.run_quiet(&["fetch", "--quiet", "--no-write-fetch-head", remote, &spec])?;
        if !out.status.success() {
            return Err(RepoError::Invalid(format!(
                "git fetch of {remote}'s logs failed: {}",
                one_line(&out.stderr)
            )));
        }
        Ok(())
    }

    /// Pushes `refs/notes/ai` to `remote`'s `refs/notes/ai`, never forced.
    pub fn push_notes(&self, remote: &str) -> Result<NotesPush> {
        let spec = format!("{AI_REF}:{AI_REF}");
        let out = self.run_quiet(&["push", "--porcelain", "--no-verify", remote, &spec])?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        let row = stdout
            .lines()
            .find(|l| l.split('\t').nth(1).is_some_and(|s| s == spec));
        if let Some(row) = row {
            let flag = row.chars().next().unwrap_or('!');
            let summary = row.split('\t').nth(2).unwrap_or("").to_string();
            return Ok(match flag {
                '!' if summary.starts_with("[rejected]") => NotesPush::Behind,
                '!' => NotesPush::Refused(refusal(&summary, &out.stderr)),
                _ => NotesPush::Done,
            });
        }
        if out.status.success() {
            return Ok(NotesPush::Done);
        }
        let words = one_line(&out.stderr);
        let lower = String::from_utf8_lossy(&out.stderr).to_ascii_lowercase();
        let credentials = [
            "terminal prompts disabled",
            "could not read username",
            "could not read password",
            "authentication failed",
            "permission denied (publickey",
            "host key verification failed",
        ];
        Ok(if credentials.iter().any(|c| lower.contains(c)) {
            NotesPush::NoCredentials(words)
        } else {
            NotesPush::Failed(words)
        })
    }

    /// Whether commit `ancestor` is `descendant` or in its history.
    pub fn is_ancestor(&self, ancestor: ObjectId, descendant: ObjectId) -> Result<bool> {
        if ancestor == descendant {
            return Ok(true);
        }
        Ok(self.merge_base(ancestor, descendant)? == Some(ancestor))
    }

    /// The best common ancestor of two commits, if they have one.
    pub fn merge_base(&self, one: ObjectId, two: ObjectId) -> Result<Option<ObjectId>> {
        let found = self
            .repo
            .merge_base(one, two)
            .ctx(format!("cannot find the merge base of {one} and {two}"))?;
        Ok(found.map(|id| id.detach()))
    }
}

/// The remote's reason for refusing: the summary's parenthesis, else its first `remote:` line.
fn refusal(summary: &str, stderr: &[u8]) -> String {
    let why = summary
        .split_once('(')
        .and_then(|(_, r)| r.rsplit_once(')'))
        .map(|(w, _)| w.trim().to_string())
        .unwrap_or_else(|| summary.trim().to_string());
    let said = String::from_utf8_lossy(stderr)
        .lines()
        .filter_map(|l| l.strip_prefix("remote:"))
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(str::to_string);
    match said {
        Some(s) => format!("{why}: {s}"),
        None => why,
    }
}

/// git's error output as one line: its `fatal:`/`error:` line, else the first.
fn one_line(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    lines
        .iter()
        .find(|l| l.starts_with("fatal:") || l.starts_with("error:"))
        .or(lines.first())
        .map(|l| l.to_string())
        .unwrap_or_else(|| "no reason given".into())
}
