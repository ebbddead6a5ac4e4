//! Commits and references: identity, writing commit objects, reading them back (subject,
//! trailers), and moving references with compare-and-swap and a reflog entry.

use gix::bstr::{BString, ByteSlice};
use gix::refs::transaction::{Change, LogChange, PreviousValue, RefEdit, RefLog};
use gix::refs::Target;
use gix::ObjectId;
use std::path::PathBuf;
use std::time::Duration;

use super::{GixContext, Head, Repo, RepoError, Result};

/// Who and when, as stored in a commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signature {
    pub name: String,
    pub email: String,
    /// Seconds since the Unix epoch.
    pub seconds: i64,
    /// Offset from UTC in seconds.
    pub offset: i32,
}

impl Signature {
    fn to_gix(&self) -> gix::actor::Signature {
        gix::actor::Signature {
            name: self.name.clone().into(),
            email: self.email.clone().into(),
            time: gix::date::Time {
                seconds: self.seconds,
                offset: self.offset,
            },
        }
    }
}

/// A commit, decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommitInfo {
    pub id: ObjectId,
    pub tree: ObjectId,
    pub parents: Vec<ObjectId>,
    pub author: Signature,
    pub committer: Signature,
    pub message: String,
}

impl CommitInfo {
    /// The first line of the message.
    pub fn subject(&self) -> &str {
        self.message.lines().next().unwrap_or("")
    }

    /// The trailers (`Token: value` lines of the last paragraph), in order.
    pub fn trailers(&self) -> Vec<(String, String)> {
        parse_trailers(&self.message)
    }

    /// The value of the first trailer named `token` (case-insensitive, as git compares them).
    pub fn trailer(&self, token: &str) -> Option<String> {
        self.trailers()
            .into_iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(token))
            .map(|(_, v)| v)
    }
}

/// Now, as Unix seconds, with the local UTC offset (`TZ`, else `/etc/localtime`, as git
/// reads them; UTC when neither names a zone that can be read).
fn now_local() -> (i64, i32) {
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    (seconds, super::local_time::local_offset(seconds))
}

/// The trailer block of `message` as git reads it (`git interpret-trailers --parse`): the last
/// paragraph, not the subject's, when all its lines are trailers or continuations, or when it
/// holds one of git's own (`Signed-off-by: `, a cherry-pick line) and at least a quarter of it
/// is trailers; through gix, which follows git's rules (held to git by
/// `tests/cli/trailers_differential.rs`).
fn trailer_block(message: &str) -> Option<gix::objs::commit::message::body::Trailers<'_>> {
    let body = gix::objs::commit::MessageRef::from_bytes(message.as_bytes()).body()?;
    Some(body.trailers())
}

/// The tokens of the trailers [`parse_trailers`] finds, without copying anything (asking
/// whether a commit has a trailer is what walks do for every commit).
pub fn trailer_tokens(message: &str) -> Vec<&str> {
    trailer_block(message)
        .into_iter()
        .flatten()
        .filter_map(|t| t.token.to_str().ok())
        .collect()
}

/// Trailers of a commit message, `(token, value)` in order, folded values unfolded, as git
/// reads them (see [`trailer_block`]).
pub fn parse_trailers(message: &str) -> Vec<(String, String)> {
    trailer_block(message)
        .into_iter()
        .flatten()
        .map(|t| {
            (
                t.token.to_str_lossy().into_owned(),
                t.value.to_str_lossy().trim().to_string(),
            )
        })
        .collect()
}

/// One reference move of [`Repo::update_refs`]. `HEAD` is followed to its branch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefUpdate {
    pub name: String,
    pub new: ObjectId,
    pub expected: Expected,
    pub reflog: String,
}

/// The value a reference must have for an update to proceed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expected {
    Any,
    MustNotExist,
    Value(ObjectId),
}

impl Expected {
    fn to_gix(self) -> PreviousValue {
        match self {
            Expected::Any => PreviousValue::Any,
            Expected::MustNotExist => PreviousValue::MustNotExist,
            Expected::Value(id) => PreviousValue::MustExistAndMatch(Target::Object(id)),
        }
    }
}

impl Repo {
    /// Author and committer as git would use them now: `GIT_AUTHOR_*` / `GIT_COMMITTER_*`,
    /// then `author.*` / `committer.*`, then `user.*` (and `EMAIL` for the address); the
    /// dates from `GIT_AUTHOR_DATE` / `GIT_COMMITTER_DATE`, else now with the local UTC
    /// offset. Resolved here rather than through gix's personas because gix names the local
    /// time zone by walking the zoneinfo database, which costs milliseconds per run.
    pub fn identity(&self) -> Result<(Signature, Signature)> {
        Ok((
            self.persona("AUTHOR", "author")?,
            self.persona("COMMITTER", "committer")?,
        ))
    }

    pub(super) fn persona(&self, env_kind: &str, section: &str) -> Result<Signature> {
        let env = |k: String| std::env::var(k).ok().filter(|v| !v.is_empty());
        let cfg = self.repo.config_snapshot();
        let from_config = |key: &str| {
            cfg.string(key)
                .map(|v| v.to_str_lossy().trim().to_string())
                .filter(|v| !v.is_empty())
        };
        let name = env(format!("GIT_{env_kind}_NAME"))
            .or_else(|| from_config(&format!("{section}.name")))
            .or_else(|| from_config("user.name"));
        let email = env(format!("GIT_{env_kind}_EMAIL"))
            .or_else(|| from_config(&format!("{section}.email")))
            .or_else(|| from_config("user.email"))
            .or_else(|| env("EMAIL".into()));
        let (Some(name), Some(email)) = (name, email) else {
            return Err(RepoError::Invalid(
                "your git identity is not configured; set it with `git config --global user.name \"Your Name\"` and `git config --global user.email you@example.com`".into(),
            ));
        };
        let (seconds, offset) = match env(format!("GIT_{env_kind}_DATE")) {
            Some(date) => {
                let t = gix::date::parse(&date, None).map_err(|e| {
                    RepoError::Invalid(format!(
                        "GIT_{env_kind}_DATE '{date}' is not a date git understands: {e}"
                    ))
                })?;
                (t.seconds, t.offset)
            }
            None => now_local(),
        };
        Ok(Signature {
            name,
            email,
            seconds,
            offset,
        })
    }

    /// Writes a commit object (no reference is moved).
    pub fn write_commit(
        &self,
        tree: ObjectId,
        parents: &[ObjectId],
        message: &str,
        author: &Signature,
        committer: &Signature,
    ) -> Result<ObjectId> {
        let commit = commit_object(tree, parents, message, author, committer);
        self.put_commit(&commit, false)
    }

    /// Writes a commit meant for a branch's history (an AI commit, a snapshot, a squash or a
    /// copy) and keeps its bytes in the commit cache, so that walks over many of them read
    /// one file instead of one object each (see `commit_cache`).
    pub fn write_branch_commit(
        &self,
        tree: ObjectId,
        parents: &[ObjectId],
        message: &str,
        author: &Signature,
        committer: &Signature,
    ) -> Result<ObjectId> {
        let commit = commit_object(tree, parents, message, author, committer);
        self.put_commit(&commit, true)
    }

    /// Stores `commit`; `keep`: a commit stored now also goes into the commit cache.
    fn put_commit(&self, commit: &gix::objs::Commit, keep: bool) -> Result<ObjectId> {
        let body = super::odb::encode(commit)?;
        let (id, new) = self.put_new_object(gix::objs::Kind::Commit, &body)?;
        if keep && new {
            self.keep_commit(id, &body);
        }
        Ok(id)
    }

    /// Reads and decodes a commit.
    pub fn commit_info(&self, id: ObjectId) -> Result<CommitInfo> {
        let data = match self.read_loose(id) {
            Some((gix::objs::Kind::Commit, data)) => data,
            _ => {
                self.repo
                    .find_commit(id)
                    .ctx(format!("cannot read commit {id}"))?
                    .detach()
                    .data
            }
        };
        decode_commit(id, &data, self.repo.object_hash())
    }

    /// Reads and decodes a commit of a walk over many (squash, log): from the commit cache
    /// when it holds it, else as [`Repo::commit_info`] does.
    pub fn walk_commit_info(&self, id: ObjectId) -> Result<CommitInfo> {
        match self.commit_cache().body(&id) {
            Some(body) => decode_commit(id, body, self.repo.object_hash()),
            None => self.commit_info(id),
        }
    }

    /// Moves `name` to `new` if it currently has the `expected` value, writing `reflog` as the
    /// reflog message. `HEAD` is followed to the branch it points to (both reflogs written);
    /// a detached HEAD is moved itself.
    pub fn update_ref(
        &self,
        name: &str,
        new: ObjectId,
        expected: Expected,
        reflog: &str,
    ) -> Result<()> {
        let update = RefUpdate {
            name: name.to_string(),
            new,
            expected,
            reflog: reflog.to_string(),
        };
        if self.update_loose_refs(std::slice::from_ref(&update))? {
            return Ok(());
        }
        let edit = ref_edit(
            name,
            Target::Object(new),
            expected.to_gix(),
            reflog,
            name == "HEAD",
        )?;
        self.edit_refs(vec![edit]).map_err(|e| cas_error(name, e))?;
        Ok(())
    }

    /// Moves several references in one transaction: every one is locked before any is
    /// changed, and if one's compare-and-swap fails, none moves.
    pub fn update_refs(&self, updates: &[RefUpdate]) -> Result<()> {
        if self.update_loose_refs(updates)? {
            return Ok(());
        }
        let mut edits = Vec::with_capacity(updates.len());
        for u in updates {
            edits.push(ref_edit(
                &u.name,
                Target::Object(u.new),
                u.expected.to_gix(),
                &u.reflog,
                u.name == "HEAD",
            )?);
        }
        let names: Vec<&str> = updates.iter().map(|u| u.name.as_str()).collect();
        self.edit_refs(edits)
            .map_err(|e| cas_error(&names.join(", "), e))?;
        Ok(())
    }

    /// Runs one ref transaction, signing reflog lines with the committer resolved as in
    /// [`Repo::identity`]: gix's own would name the local time zone by walking the zoneinfo
    /// database on every run. Without an identity, gix falls back as git does.
    ///
    /// The lock files the transaction takes are recorded first and linked to tokens as soon
    /// as they exist (see `lockfile`), so a kill at any point leaves locks the next git-clada
    /// can prove its own and remove.
    fn edit_refs(&self, edits: Vec<RefEdit>) -> std::result::Result<Vec<RefEdit>, gix::Error> {
        let committer = self
            .persona("COMMITTER", "committer")
            .ok()
            .map(|c| c.to_gix());
        let mut buf = gix::date::parse::TimeBuf::default();
        let signature = match &committer {
            Some(sig) => Some(sig.to_ref(&mut buf)),
            None => self.repo.committer().transpose()?,
        };
        let intents = self.ref_lock_intents(&edits);
        let (file_fail, packed_fail) = self.ref_lock_timeouts();
        clada_base::failpoint::hit("refs:before-lock");
        let prepared = self
            .repo
            .refs
            .transaction()
            .prepare(edits, file_fail, packed_fail)?;
        clada_base::failpoint::hit("refs:prepared");
        self.link_lock_tokens(&intents);
        clada_base::failpoint::hit("refs:locked");
        let out = prepared.commit(signature);
        clada_base::failpoint::hit("refs:committed");
        drop(intents);
        out
    }

    /// The lock files a transaction of `edits` will create, each with the intent recorded
    /// (best effort: a lock that cannot be recorded is simply not cleared after a crash).
    fn ref_lock_intents(&self, edits: &[RefEdit]) -> Vec<(PathBuf, super::lockfile::LockToken)> {
        let mut out = Vec::new();
        let mut record = |name: &str, content: Option<Vec<u8>>| {
            let lock = self.ref_lock_path(name);
            if let Ok(token) = self.ref_lock_intent(&lock, content.as_deref()) {
                out.push((lock, token));
            }
        };
        for edit in edits {
            let name = edit.name.as_bstr().to_str_lossy().into_owned();
            let content = match &edit.change {
                Change::Update { new, .. } => Some(match new {
                    Target::Object(id) => format!("{id}\n").into_bytes(),
                    Target::Symbolic(target) => format!("ref: {}\n", target.as_bstr()).into_bytes(),
                }),
                Change::Delete { .. } => Some(Vec::new()),
            };
            if edit.deref {
                // The ref HEAD points to is locked (and written) too; HEAD itself is locked
                // for its reflog, with the same content written to its lock.
                let mut target = self.symbolic_target(&name);
                let mut hops = 0;
                while let Some(t) = target {
                    record(&t, content.clone());
                    target = self.symbolic_target(&t);
                    hops += 1;
                    if hops > 5 {
                        break;
                    }
                }
            }
            record(&name, content);
        }
        // gix locks packed-refs when the file exists (to look refs up under the lock).
        let packed = self.common_dir().join("packed-refs");
        if packed.is_file() {
            let lock = self.common_dir().join("packed-refs.lock");
            if let Ok(token) = self.ref_lock_intent(&lock, None) {
                out.push((lock, token));
            }
        }
        out
    }

    /// The ref `name` points to when it is symbolic.
    pub(super) fn symbolic_target(&self, name: &str) -> Option<String> {
        let r = self.repo.try_find_reference(name).ok().flatten()?;
        match &r.inner.target {
            Target::Symbolic(t) => Some(t.as_bstr().to_str_lossy().into_owned()),
            Target::Object(_) => None,
        }
    }

    /// Where the lock file of the loose ref `name` lives: per-worktree refs in this worktree's
    /// git dir, shared ones in the common dir.
    pub(super) fn ref_lock_path(&self, name: &str) -> PathBuf {
        let mut path = self.ref_base_dir(name).to_path_buf();
        for comp in name.split('/') {
            path.push(comp);
        }
        let mut os = path.into_os_string();
        os.push(".lock");
        PathBuf::from(os)
    }

    /// Where the loose ref `name` (and its reflog, under `logs/`) lives: per-worktree refs in
    /// this worktree's git dir, shared ones in the common dir.
    pub(super) fn ref_base_dir(&self, name: &str) -> &std::path::Path {
        let per_worktree = !name.contains('/')
            || ["refs/bisect/", "refs/worktree/", "refs/rewritten/"]
                .iter()
                .any(|p| name.starts_with(p));
        if per_worktree {
            self.git_dir()
        } else {
            self.common_dir()
        }
    }

    /// How long to wait for a loose ref lock held by another process
    /// (`core.filesRefLockTimeout`, in milliseconds; negative: as good as forever).
    pub(super) fn ref_lock_wait(&self) -> Duration {
        let ms = self
            .repo
            .config_snapshot()
            .integer("core.filesRefLockTimeout")
            .unwrap_or(100);
        match ms {
            ms if ms < 0 => Duration::from_secs(u32::MAX as u64),
            ms => Duration::from_millis(ms as u64),
        }
    }

    /// How long to wait for ref locks held by others (git's `core.filesRefLockTimeout`,
    /// `core.packedRefsTimeout`).
    pub(super) fn ref_lock_timeouts(&self) -> (gix::lock::acquire::Fail, gix::lock::acquire::Fail) {
        use gix::lock::acquire::Fail;
        let cfg = self.repo.config_snapshot();
        let timeout = |key: &str, default_ms: i64| {
            let ms = cfg.integer(key).unwrap_or(default_ms);
            match ms {
                0 => Fail::Immediately,
                ms if ms < 0 => {
                    Fail::AfterDurationWithBackoff(Duration::from_secs(u32::MAX as u64))
                }
                ms => Fail::AfterDurationWithBackoff(Duration::from_millis(ms as u64)),
            }
        };
        (
            timeout("core.filesRefLockTimeout", 100),
            timeout("core.packedRefsTimeout", 1000),
        )
    }

    /// Deletes `name` if it has the `expected` value (or unconditionally with `Any`).
    pub fn delete_ref(&self, name: &str, expected: Expected) -> Result<()> {
        if expected == Expected::Any && self.read_ref(name)?.is_none() {
            return Ok(());
        }
        let full = name
            .try_into()
            .map_err(|e| RepoError::Invalid(format!("invalid reference name '{name}': {e}")))?;
        let edit = RefEdit {
            change: Change::Delete {
                expected: expected.to_gix(),
                log: RefLog::AndReference,
            },
            name: full,
            deref: false,
        };
        self.edit_refs(vec![edit]).map_err(|e| cas_error(name, e))?;
        Ok(())
    }

    /// Points HEAD at a commit directly (detached), recording `reflog`.
    pub fn detach_head(&self, to: ObjectId, expected: Expected, reflog: &str) -> Result<()> {
        let update = RefUpdate {
            name: "HEAD".into(),
            new: to,
            expected,
            reflog: reflog.to_string(),
        };
        if self.loose_transaction(std::slice::from_ref(&update), false)? {
            return Ok(());
        }
        let edit = ref_edit("HEAD", Target::Object(to), expected.to_gix(), reflog, false)?;
        self.edit_refs(vec![edit])
            .map_err(|e| cas_error("HEAD", e))?;
        Ok(())
    }

    /// Points HEAD at the branch `branch` (a full `refs/heads/…` name) again.
    ///
    /// gix writes no reflog entry for a symbolic change, so a detached HEAD is first moved
    /// to the branch's commit: HEAD's reflog then records the move (as git's does).
    pub fn attach_head(&self, branch: &str, reflog: &str) -> Result<()> {
        if let (Head::Detached { commit }, Some(tip)) = (self.head()?, self.read_ref(branch)?) {
            if commit != tip {
                self.detach_head(tip, Expected::Value(commit), reflog)?;
            }
        }
        let target: gix::refs::FullName = branch
            .try_into()
            .map_err(|e| RepoError::Invalid(format!("invalid branch name '{branch}': {e}")))?;
        let edit = ref_edit(
            "HEAD",
            Target::Symbolic(target),
            PreviousValue::Any,
            reflog,
            false,
        )?;
        self.edit_refs(vec![edit])
            .map_err(|e| cas_error("HEAD", e))?;
        Ok(())
    }
}

/// An update of reference `name` to `target`, logged with `reflog`; `HEAD` with `deref` moves
/// the branch it points to.
fn ref_edit(
    name: &str,
    target: Target,
    expected: PreviousValue,
    reflog: &str,
    deref: bool,
) -> Result<RefEdit> {
    let full = name
        .try_into()
        .map_err(|e| RepoError::Invalid(format!("invalid reference name '{name}': {e}")))?;
    Ok(RefEdit::update_with_log(
        full,
        target,
        expected,
        LogChange {
            mode: RefLog::AndReference,
            force_create_reflog: false,
            message: BString::from(reflog),
        },
    )
    .with_deref(deref))
}

fn cas_error(name: &str, e: gix::Error) -> RepoError {
    let text = e.to_string();
    if text.contains("changed") || text.contains("Conflict") || text.contains("must") {
        RepoError::Invalid(format!(
            "{name} was changed by another process while git-clada was working ({text}); nothing was moved, look at `git log` and try again"
        ))
    } else {
        RepoError::Git {
            context: format!("cannot update {name}"),
            source: e,
        }
    }
}

/// Decodes the body of commit `id`.
fn decode_commit(id: ObjectId, data: &[u8], hash: gix::hash::Kind) -> Result<CommitInfo> {
    let decoded = gix::objs::CommitRef::from_bytes(data, hash)
        .with_ctx(|| format!("cannot decode commit {id}"))?;
    // Straight from the parsed references into our strings: going through gix's owned
    // signature first allocated every name and e-mail twice (walks read thousands).
    let signature = |sig: std::result::Result<gix::actor::SignatureRef<'_>, _>,
                     what: &str|
     -> Result<Signature> {
        let sig = sig.with_ctx(|| format!("cannot decode the {what} of {id}"))?;
        let time = sig
            .time()
            .with_ctx(|| format!("cannot decode the {what} of {id}"))?;
        Ok(Signature {
            name: sig.name.to_str_lossy().into_owned(),
            email: sig.email.to_str_lossy().into_owned(),
            seconds: time.seconds,
            offset: time.offset,
        })
    };
    Ok(CommitInfo {
        id,
        tree: decoded.tree(),
        parents: decoded.parents().collect(),
        author: signature(decoded.author(), "author")?,
        committer: signature(decoded.committer(), "committer")?,
        message: decoded.message.to_str_lossy().into_owned(),
    })
}

fn commit_object(
    tree: ObjectId,
    parents: &[ObjectId],
    message: &str,
    author: &Signature,
    committer: &Signature,
) -> gix::objs::Commit {
    // A message is shown raw by the user's own `git log`: whatever a reply, a prompt or an
    // older commit put in it, no control (but LF and TAB) or bidi override is stored (DESIGN
    // §5.2). This is the one place every commit git-clada writes passes through.
    let message = clada_base::term::escape(message, clada_base::term::Rule::Content);
    gix::objs::Commit {
        message: message.as_ref().into(),
        tree,
        author: author.to_gix(),
        committer: committer.to_gix(),
        encoding: None,
        parents: parents.iter().copied().collect(),
        extra_headers: Default::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::{parse_trailers, trailer_tokens};

    #[test]
    fn trailer_tokens_are_the_keys_parse_trailers_finds() {
        let messages = [
            "AI: edit x\n\nApplied 1 of 1.\n\nClada-Version: 0.1.0\nClada-Blocks: abc def\n",
            "subject\n\nClada-Version: 0.1.0\nClada-Reply: r\n  folded on\n\tand on\nSigned-off-by: a\n",
            "subject\n\n  starts folded: x\nKey: v\n",
            "subject\n\nKey: v\nnot a trailer\n",
            "subject\n\nBad key: v\n",
            "subject\n\n: empty\n",
            "only a subject",
            "",
            "subject\n\nKey: v\n\n\n",
            "subject\n\nbody\n\nK-1: a\nk2:b",
        ];
        for m in messages {
            let keys: Vec<String> = parse_trailers(m).into_iter().map(|(k, _)| k).collect();
            assert_eq!(trailer_tokens(m), keys, "{m:?}");
        }
    }

    #[test]
    fn trailers_of_last_paragraph() {
        let msg = "AI: edit x\n\nApplied 1 of 1.\n- abc ok\n\nClada-Version: 0.1.0\nClada-Blocks: abc def\n";
        assert_eq!(
            parse_trailers(msg),
            vec![
                ("Clada-Version".to_string(), "0.1.0".to_string()),
                ("Clada-Blocks".to_string(), "abc def".to_string())
            ]
        );
    }

    #[test]
    fn no_trailers_in_subject_or_prose() {
        assert!(parse_trailers("Fix: something").is_empty());
        assert!(parse_trailers("subject\n\nthis is prose: not a trailer block\nreally").is_empty());
    }
}
