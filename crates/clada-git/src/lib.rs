//! Everything git, through gix: open, lock, status, snapshot, tree edit, commit, notes,
//! in-place checkout/reset, stash-format commits, history walk. The only module that imports
//! gix; the rest of the crate sees [`Repo`], [`ObjectId`] and plain paths.
//!
//! Paths handed in and out are worktree-relative, `/`-separated byte strings ([`BString`]),
//! exactly as they appear in trees and the index.

use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

pub use gix::bstr::{BStr, BString, ByteSlice};
pub use gix::ObjectId;
pub use staged::{staged_files, StagedFile};

/// Builds an I/O error mapper naming what failed and the path (for callers outside `repo`).
pub use io_err as io_err_pub;

use gix::prelude::ReferenceExt;

mod blame;
mod checkout;
mod commit;
mod commit_cache;
mod hook_files;
mod index;
mod index_stream;
mod local_time;
mod lock;
mod lockfile;
mod notes;
mod object_cache;
mod odb;
mod open_cache;
mod range_log;
mod refs;
mod rewrite;
mod share;
mod staged;
mod stat_cache;
mod status;
mod threads;
mod tree;
mod untracked;
mod walk;
mod watch;
mod worktree;
mod worktree_scan;

pub use blame::BlameLine;
pub use checkout::{CheckoutPlan, PathConflict, PreparedCheckout};
pub use commit::{parse_trailers, trailer_tokens, CommitInfo, Expected, RefUpdate, Signature};
pub use hook_files::open_plain;
pub use index::{EntryFlags, Index, IndexLock, IndexPrefetch, IndexUpdate};
#[doc(hidden)]
pub use index_stream::fuzz_round_trip as fuzz_index_round_trip;
pub use lock::{CladaLock, StateLock};
pub use lockfile::StaleLocks;
pub use notes::NOTES_REF;
pub use object_cache::ObjectCache;
#[doc(hidden)]
pub use odb::fuzz_loose_round_trip;
pub use open_cache::OpenCache;
pub use range_log::{AddedLines, RangeCommit};
pub use refs::ReflogEntry;
pub use rewrite::NoteBook;
pub use share::{fetch_refspec, tracking_ref, NotesPush, SHARING_ENV};
pub use stat_cache::StatCache;
pub use status::{Dirt, Status};
pub use tree::{Entry, EntryKind, Hasher, TreeChange, TreeDiff};
pub use watch::{WatchLock, WatchState};
pub use worktree::Content;
pub use worktree_scan::StatusPrefetch;

/// Errors of the repository layer. Every message names what failed and, where the user can
/// act, what to do.
#[derive(Debug, thiserror::Error)]
pub enum RepoError {
    #[error(
        "not a git repository (or any parent up to the root): {0}; run `git init` there first"
    )]
    NotARepo(PathBuf),
    #[error("the repository at {0} is bare; git-clada needs a worktree")]
    Bare(PathBuf),
    #[error("{context}: {source}")]
    Git {
        context: String,
        #[source]
        source: gix::Error,
    },
    #[error("{context} '{path}': {source}")]
    Io {
        context: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{0}")]
    Invalid(String),
}

pub type Result<T, E = RepoError> = std::result::Result<T, E>;

/// Attaches a context message to gix results.
pub(crate) trait GixContext<T> {
    fn ctx(self, context: impl Into<String>) -> Result<T>;
    /// As `ctx`, for hot paths: the context is made only on failure.
    fn with_ctx(self, context: impl FnOnce() -> String) -> Result<T>;
}

impl<T, E: Into<gix::Error>> GixContext<T> for std::result::Result<T, E> {
    fn ctx(self, context: impl Into<String>) -> Result<T> {
        self.map_err(|e| RepoError::Git {
            context: context.into(),
            source: e.into(),
        })
    }

    fn with_ctx(self, context: impl FnOnce() -> String) -> Result<T> {
        self.map_err(|e| RepoError::Git {
            context: context(),
            source: e.into(),
        })
    }
}

pub fn io_err(context: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> RepoError {
    let path = path.to_path_buf();
    move |source| RepoError::Io {
        context,
        path,
        source,
    }
}

/// Where HEAD points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Head {
    /// On a branch with at least one commit.
    Branch { name: String, commit: ObjectId },
    /// Detached at a commit.
    Detached { commit: ObjectId },
    /// On a branch that has no commit yet.
    Unborn { name: String },
}

impl Head {
    pub fn commit(&self) -> Option<ObjectId> {
        match self {
            Head::Branch { commit, .. } | Head::Detached { commit } => Some(*commit),
            Head::Unborn { .. } => None,
        }
    }

    /// The full ref name of the branch (`refs/heads/x`), if on one.
    pub fn branch(&self) -> Option<&str> {
        match self {
            Head::Branch { name, .. } | Head::Unborn { name } => Some(name),
            Head::Detached { .. } => None,
        }
    }

    /// `main` for `refs/heads/main`, `HEAD` when detached.
    pub fn short_name(&self) -> &str {
        match self.branch() {
            Some(name) => name.strip_prefix("refs/heads/").unwrap_or(name),
            None => "HEAD",
        }
    }
}

/// An operation git itself has in progress, during which git-clada refuses to act.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InProgress {
    Merge,
    Rebase,
    CherryPick,
    Revert,
    Bisect,
    ApplyMailbox,
}

impl InProgress {
    /// What to tell the user: the operation and how to finish or abort it.
    pub fn describe(self) -> &'static str {
        match self {
            InProgress::Merge => "a merge is in progress; finish it (`git commit`) or abort it (`git merge --abort`) first",
            InProgress::Rebase => "a rebase is in progress; finish it (`git rebase --continue`) or abort it (`git rebase --abort`) first",
            InProgress::CherryPick => "a cherry-pick is in progress; finish it (`git cherry-pick --continue`) or abort it (`git cherry-pick --abort`) first",
            InProgress::Revert => "a revert is in progress; finish it (`git revert --continue`) or abort it (`git revert --abort`) first",
            InProgress::Bisect => "a bisect is in progress; end it with `git bisect reset` first",
            InProgress::ApplyMailbox => "`git am` is in progress; finish it (`git am --continue`) or abort it (`git am --abort`) first",
        }
    }
}

/// An open repository with a worktree.
pub struct Repo {
    pub(crate) repo: gix::Repository,
    workdir: PathBuf,
    git_dir: PathBuf,
    common_dir: PathBuf,
    /// The last version of the index file read, and its identity (see `index`).
    index_cache: std::cell::RefCell<Option<(index::IndexStamp, Index)>>,
    /// Object writes stay in memory (see `with_object_memory`).
    object_memory: bool,
    /// The objects folder, opened on the first loose read (see `read_loose`).
    objects_fd: std::cell::OnceCell<Option<std::os::fd::OwnedFd>>,
    /// The commits git-clada put on branches, read on a walk's first use (see `commit_cache`).
    commit_cache: std::cell::OnceCell<commit_cache::CommitCache>,
    /// Objects this command found or wrote, and the trees among them (see `odb::Known`).
    known: std::cell::RefCell<odb::Known>,
    /// The worktree root as a directory handle, opened on first use (see [`Repo::worktree`]).
    worktree: std::cell::OnceCell<std::sync::Arc<clada_base::beneath::Root>>,
    /// A long-lived process's memory of the worktree's stat data (see `stat_cache`).
    stat_cache: Option<StatCache>,
    /// A long-lived process's memory of the index file it wrote last (see `index`).
    index_memory: Option<index::IndexMemory>,
    /// A long-lived process's memory of objects (see `object_cache`).
    object_cache: Option<ObjectCache>,
}

impl std::fmt::Debug for Repo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Repo")
            .field("workdir", &self.workdir)
            .field("git_dir", &self.git_dir)
            .finish()
    }
}

impl Repo {
    /// Finds the repository containing `dir`, honouring `GIT_DIR` and `GIT_WORK_TREE` like git.
    /// As with git, `GIT_DIR` without `GIT_WORK_TREE` (and without `core.worktree`) makes `dir`
    /// the top of the worktree, unless the repository is bare.
    pub fn discover(dir: &Path) -> Result<Repo> {
        let mut repo = match gix::discover_with_environment_overrides(dir) {
            Ok(repo) => repo,
            Err(e) => {
                let err: gix::Error = e;
                let text = err.to_string();
                if text.contains("not a git repository")
                    || text.contains("Could not find a git repository")
                    || text.contains("not find")
                {
                    return Err(RepoError::NotARepo(dir.to_path_buf()));
                }
                return Err(RepoError::Git {
                    context: format!("cannot open the repository at '{}'", dir.display()),
                    source: err,
                });
            }
        };
        let set = |var: &str| std::env::var_os(var).is_some_and(|v| !v.is_empty());
        if set("GIT_DIR") && !set("GIT_WORK_TREE") {
            let implicit = {
                let config = repo.config_snapshot();
                config.string("core.worktree").is_none()
                    && !config.boolean("core.bare").unwrap_or(false)
            };
            if implicit {
                repo.set_workdir(Some(dir.to_path_buf())).ctx(format!(
                    "cannot use '{}' as the worktree of GIT_DIR (set GIT_WORK_TREE to choose \
                     another)",
                    dir.display()
                ))?;
            }
        }
        Self::from_gix(repo, dir)
    }

    /// Opens the repository whose worktree or git dir is exactly `dir` (no upward search, no
    /// environment overrides); for tests and tools that already know where it is.
    pub fn open(dir: &Path) -> Result<Repo> {
        let repo =
            gix::open(dir).ctx(format!("cannot open the repository at '{}'", dir.display()))?;
        Self::from_gix(repo, dir)
    }

    fn from_gix(mut repo: gix::Repository, dir: &Path) -> Result<Repo> {
        // Objects read more than once in a command (the trees on the changed paths, the
        // commits of a walk) are decoded once.
        repo.object_cache_size_if_unset(4 << 20);
        let Some(raw_workdir) = repo.workdir() else {
            return Err(RepoError::Bare(repo.git_dir().to_path_buf()));
        };
        let cwd = std::cell::OnceCell::new();
        let absolute = |p: &Path| -> Result<PathBuf> {
            if p.is_absolute() {
                return Ok(p.to_path_buf());
            }
            let cwd = match cwd.get() {
                Some(c) => c,
                None => {
                    let c: PathBuf = std::env::current_dir()
                        .map_err(io_err("cannot read the current directory", dir))?;
                    cwd.get_or_init(|| c)
                }
            };
            Ok(cwd.join(p))
        };
        let raw_workdir = absolute(raw_workdir)?;
        let workdir = raw_workdir
            .canonicalize()
            .map_err(io_err("cannot resolve the path", &raw_workdir))?;
        // The git dir is almost always the worktree's `.git`: resolved from the canonical
        // worktree, it needs one `lstat` instead of a `readlink` per component.
        let resolve = |p: &Path| -> Result<PathBuf> {
            let p = absolute(p)?;
            if let Some(found) = below(&raw_workdir, &workdir, &p) {
                return Ok(found);
            }
            p.canonicalize()
                .map_err(io_err("cannot resolve the path", &p))
        };
        let git_dir = resolve(repo.git_dir())?;
        let common_dir = if repo.common_dir() == repo.git_dir() {
            git_dir.clone()
        } else {
            resolve(repo.common_dir())?
        };
        Ok(Self::assemble(repo, workdir, git_dir, common_dir))
    }

    /// [`Repo::discover`] for a long-lived process: the repository `cache` kept from the last
    /// call when nothing it was made from changed (see `open_cache`), else a new one, kept.
    pub fn discover_kept(dir: &Path, cache: &OpenCache) -> Result<Repo> {
        if let Some(k) = cache.get(dir) {
            let mut repo = k.repo.to_thread_local();
            repo.object_cache_size_if_unset(4 << 20);
            return Ok(Self::assemble(repo, k.workdir, k.git_dir, k.common_dir));
        }
        let repo = Self::discover(dir)?;
        cache.keep(dir, &repo);
        Ok(repo)
    }

    fn assemble(
        repo: gix::Repository,
        workdir: PathBuf,
        git_dir: PathBuf,
        common_dir: PathBuf,
    ) -> Repo {
        Repo {
            repo,
            workdir,
            git_dir,
            common_dir,
            index_cache: Default::default(),
            object_memory: false,
            objects_fd: Default::default(),
            commit_cache: Default::default(),
            known: Default::default(),
            worktree: Default::default(),
            stat_cache: None,
            index_memory: None,
            object_cache: None,
        }
    }

    /// Lets this repository's status scans use `cache` (see `stat_cache`): for a long-lived
    /// process that opens the same repository for call after call.
    pub fn use_stat_cache(&mut self, cache: StatCache) {
        self.index_memory = Some(cache.index_memory());
        self.stat_cache = Some(cache);
    }

    /// Lets this repository read objects through `cache` and keep there the objects it
    /// reads and writes (see `object_cache`): for a long-lived process that opens the same
    /// repository for call after call.
    pub fn use_object_cache(&mut self, cache: ObjectCache) {
        let shared = cache.clone();
        self.repo
            .objects
            .set_object_cache(move || Box::new(shared.clone()));
        self.object_cache = Some(cache);
    }

    /// The worktree root as a directory handle with this repository's git directories
    /// guarded: what every read of a worktree file whose bytes go into a commit, and every
    /// write of a restore, goes through (`base::beneath`).
    pub fn worktree(&self) -> Result<std::sync::Arc<clada_base::beneath::Root>> {
        if let Some(r) = self.worktree.get() {
            return Ok(std::sync::Arc::clone(r));
        }
        let root = clada_base::beneath::Root::open(&self.workdir)
            .map_err(io_err("cannot open the worktree", &self.workdir))?;
        root.guard_git_dirs(&[&self.git_dir, &self.common_dir]);
        Ok(std::sync::Arc::clone(
            self.worktree.get_or_init(|| std::sync::Arc::new(root)),
        ))
    }

    /// The worktree root, absolute and canonical.
    pub fn workdir(&self) -> &Path {
        &self.workdir
    }

    /// The git dir of this worktree (`.git`, or `.git/worktrees/x` for a linked worktree).
    pub fn git_dir(&self) -> &Path {
        &self.git_dir
    }

    /// The git dir shared by all worktrees, where refs and objects live.
    pub fn common_dir(&self) -> &Path {
        &self.common_dir
    }

    /// Absolute path of a worktree-relative path.
    pub fn abs_path(&self, rel: &BStr) -> PathBuf {
        let mut p = self.workdir.clone();
        for comp in rel.split_str("/") {
            p.push(std::ffi::OsStr::from_bytes(comp));
        }
        p
    }

    /// Re-reads configuration, refs and the object database caches from disk, as a new
    /// process would (after a hook or an exec may have changed things).
    pub fn reload(&mut self) -> Result<()> {
        let mut fresh = gix::open_opts(&self.git_dir, self.repo.open_options().clone())
            .ctx("cannot re-open the repository")?;
        fresh.object_cache_size_if_unset(4 << 20);
        self.repo = fresh;
        Ok(())
    }

    /// Where HEAD points, read fresh from disk.
    pub fn head(&self) -> Result<Head> {
        let head = self.repo.head().ctx("cannot read HEAD")?;
        Ok(match head.kind {
            gix::head::Kind::Symbolic(reference) => {
                let name = reference.name.as_bstr().to_string();
                let mut reference = reference.attach(&self.repo);
                let id = reference
                    .peel_to_id()
                    .ctx(format!("cannot resolve the branch {name}"))?
                    .detach();
                Head::Branch { name, commit: id }
            }
            gix::head::Kind::Unborn(name) => Head::Unborn {
                name: name.as_bstr().to_string(),
            },
            gix::head::Kind::Detached { target, peeled } => Head::Detached {
                commit: peeled.unwrap_or(target),
            },
        })
    }

    /// The git operation in progress, if any.
    pub fn in_progress(&self) -> Option<InProgress> {
        use gix::state::InProgress as G;
        self.repo.state().map(|s| match s {
            G::Merge => InProgress::Merge,
            G::Rebase | G::RebaseInteractive | G::ApplyMailboxRebase => InProgress::Rebase,
            G::CherryPick | G::CherryPickSequence => InProgress::CherryPick,
            G::Revert | G::RevertSequence => InProgress::Revert,
            G::Bisect => InProgress::Bisect,
            G::ApplyMailbox => InProgress::ApplyMailbox,
        })
    }

    /// The object id of `rev` (any revision git understands), peeled to a commit.
    pub fn resolve_commit(&self, rev: &str) -> Result<ObjectId> {
        let id = self
            .repo
            .rev_parse_single(rev)
            .ctx(format!("unknown revision '{rev}'"))?;
        let commit = id
            .object()
            .ctx(format!("cannot read '{rev}'"))?
            .peel_to_commit()
            .ctx(format!("'{rev}' is not a commit"))?;
        Ok(commit.id)
    }

    /// The value a reference points to, or `None` if it does not exist.
    pub fn read_ref(&self, name: &str) -> Result<Option<ObjectId>> {
        match self
            .repo
            .try_find_reference(name)
            .ctx(format!("cannot read {name}"))?
        {
            Some(mut r) => Ok(Some(
                r.peel_to_id()
                    .ctx(format!("cannot resolve {name}"))?
                    .detach(),
            )),
            None => Ok(None),
        }
    }

    /// All references whose name starts with `prefix`, with the object they point to.
    pub fn refs_with_prefix(&self, prefix: &str) -> Result<Vec<(String, ObjectId)>> {
        let platform = self.repo.references().ctx("cannot list references")?;
        let iter = platform
            .prefixed(prefix)
            .ctx(format!("cannot list references under {prefix}"))?;
        let mut out = Vec::new();
        for r in iter {
            let mut r =
                r.map_err(|e| RepoError::Invalid(format!("cannot read a reference: {e}")))?;
            let name = r.name().as_bstr().to_string();
            if let Ok(id) = r.peel_to_id() {
                out.push((name, id.detach()));
            }
        }
        Ok(out)
    }

    /// Whether the worktree has symbolic links (`core.symlinks`, true unless set false): where
    /// not, git checks a link out as a plain file holding its target.
    pub fn symlinks(&self) -> bool {
        self.repo
            .config_snapshot()
            .boolean("core.symlinks")
            .unwrap_or(true)
    }

    /// A string value of git config (`clada.coauthor`, …), as git would read it.
    pub fn config_string(&self, key: &str) -> Option<String> {
        self.repo
            .config_snapshot()
            .string(key)
            .map(|v| v.to_string())
    }

    /// The submodule paths `.gitmodules` in the worktree declares (worktree-relative,
    /// `/`-separated). Checked-out submodules are also recognised by their `.git`; this list
    /// names the ones that are not checked out. An unreadable or malformed file declares none
    /// (git would complain about it itself).
    pub fn declared_submodules(&self) -> Vec<String> {
        let Ok(Some(file)) = self.repo.open_modules_file() else {
            return Vec::new();
        };
        file.names()
            .filter_map(|name| file.path(name).ok())
            .map(|p| p.to_string().trim_end_matches('/').to_string())
            .collect()
    }

    /// The paths of the index's entries (the tracked files), `/`-separated; empty when the
    /// index cannot be read.
    pub fn tracked_paths(&self) -> Vec<String> {
        match self.read_index() {
            Ok(index) => index.entries().into_keys().map(|p| p.to_string()).collect(),
            Err(_) => Vec::new(),
        }
    }

    /// Hex of `id` abbreviated to 7 characters (enough for reports; never used to resolve).
    pub fn short(id: ObjectId) -> String {
        id.to_hex_with_len(7).to_string()
    }
}

/// `path` resolved through `canonical` (the canonical form of `raw`), when it lies below `raw`
/// through plain directories only (no `..`, no symlink): then only those components need a
/// look, not every component from the root.
fn below(raw: &Path, canonical: &Path, path: &Path) -> Option<PathBuf> {
    let rest = path.strip_prefix(raw).ok()?;
    let mut out = canonical.to_path_buf();
    for c in rest.components() {
        let std::path::Component::Normal(name) = c else {
            return None;
        };
        out.push(name);
        if !std::fs::symlink_metadata(&out).ok()?.is_dir() {
            return None;
        }
    }
    Some(out)
}

impl Repo {
    /// Creates a new repository with a worktree at `dir` (like `git init`).
    pub fn init(dir: &Path) -> Result<Repo> {
        let repo =
            gix::init(dir).ctx(format!("cannot create a repository at '{}'", dir.display()))?;
        Self::from_gix(repo, dir)
    }

    /// Sets `user.name` and `user.email` in this repository's own config file (used by the
    /// demo, whose scratch repository must commit even where no identity is configured).
    pub fn set_local_identity(&mut self, name: &str, email: &str) -> Result<()> {
        use std::io::Write;
        let path = self.common_dir.join("config");
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .map_err(io_err("cannot open", &path))?;
        write!(f, "[user]\n\tname = {name}\n\temail = {email}\n")
            .map_err(io_err("cannot write", &path))?;
        self.reload()
    }
}
