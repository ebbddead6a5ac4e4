//! Path resolution and policy (DESIGN §5.1): every path of a reply is resolved and checked
//! against the root (the worktree, or the current directory with `--no-git`) before any action
//! runs, so a refusal never leaves partial work.
//!
//! Rules: relative paths start at the root; absolute paths are accepted when inside it. `..` is
//! resolved lexically (the normalised path is what the action then uses, so a `..` can never be
//! reinterpreted by the OS). Directory symlinks along the way are resolved physically and must
//! stay inside; a symlink as the final component is written through (content actions) or acted
//! on itself (delete, move, mkdir) and must point inside either way. No path may have a `.git`
//! component in any letter case, or a name some filesystem reads as `.git` ([`gitname`]: git
//! refuses those too), before or after resolution. With `allow_outside`, paths outside the
//! root are permitted (they are never committed) but `.git` is still refused.

pub mod gitname;
mod links;
pub mod protected;

use std::ffi::OsStr;
use std::fmt;
use std::path::{Component, Path, PathBuf};

use serde::Serialize;

/// Longest accepted path, in bytes (Linux `PATH_MAX`).
pub const MAX_PATH_BYTES: usize = 4096;
/// Longest accepted path component, in bytes (`NAME_MAX`).
pub const MAX_COMPONENT_BYTES: usize = 255;

/// How an action uses a path; decides what a final symlink means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Read or write the content: a final symlink is followed.
    Follow,
    /// Create, delete or rename the directory entry itself: a final symlink is the entry.
    Entry,
}

/// Why a path was refused. Serialises as the snake_case code (`path_escape`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PathErrorCode {
    /// Resolves outside the root (`..`, an absolute path, a move target).
    PathEscape,
    /// Has a `.git` component.
    GitDir,
    /// A symlink (in the middle, or the final component) leads outside the root.
    SymlinkEscape,
    /// Empty, contains NUL, or too long.
    InvalidPath,
    /// Names the root itself where an entry inside it is needed.
    RootDir,
    /// Would change a file inside a submodule or another nested repository.
    Submodule,
    /// Matches a `paths.deny` glob of the configuration.
    PathDenied,
    /// A write to git-clada's own configuration (`.clada.yml`, `.clada/`), which decides what
    /// runs: only the user changes it.
    ProtectedConfig,
    /// A write to a file git or a hook manager runs on the user's own next commit or status
    /// (`.githooks/`, `.husky/`, `.pre-commit-config.yaml`, `core.hooksPath`, a worktree file
    /// the git configuration includes): only the user changes it.
    ProtectedHook,
}

impl PathErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            PathErrorCode::PathEscape => "path_escape",
            PathErrorCode::GitDir => "git_dir",
            PathErrorCode::SymlinkEscape => "symlink_escape",
            PathErrorCode::InvalidPath => "invalid_path",
            PathErrorCode::RootDir => "root_dir",
            PathErrorCode::Submodule => "submodule",
            PathErrorCode::PathDenied => "path_denied",
            PathErrorCode::ProtectedConfig => "protected_config",
            PathErrorCode::ProtectedHook => "protected_hook",
        }
    }
}

impl fmt::Display for PathErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A refused path: the code, the path as given, and a message saying what and what to do.
/// Displays as `code: message`, the same `CODE: text` shape as the file errors.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct PathError {
    pub code: PathErrorCode,
    pub path: String,
    pub message: String,
    /// Set when only the user can lift the refusal (a path outside the worktree, one
    /// `paths.deny` names): what the user can do. Reports show it to the user, not to the
    /// model, and do not ask the model to send the block again.
    pub user_action: Option<String>,
}

/// What lifts a refusal of a path outside the worktree.
const ALLOW_OUTSIDE: &str = "run git-clada with --allow-outside to allow paths outside the worktree (what is written there is never committed)";

/// A path that passed the sandbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedPath {
    /// As written in the block (what reports show).
    pub given: String,
    /// Absolute and normalised: what the action operates on.
    pub abs: PathBuf,
    /// Relative to the root, `/`-separated; `None` when outside it (only with allow_outside).
    pub rel: Option<String>,
}

/// The sandbox could not be set up.
#[derive(Debug, thiserror::Error)]
#[error("cannot use '{}' as the root for actions: {source}", root.display())]
pub struct SandboxError {
    pub root: PathBuf,
    #[source]
    pub source: std::io::Error,
}

/// Path policy for one apply.
#[derive(Debug, Clone)]
pub struct Sandbox {
    root: PathBuf,
    allow_outside: bool,
    /// Set when the root is a git worktree: the submodule paths it declares (absolute), and
    /// the promise that changes inside nested repositories are refused.
    nested: Option<Vec<PathBuf>>,
    /// The repository's tracked files (root-relative, `/`-separated), for the replacer
    /// format's suffix rule; without it the worktree's not-ignored files are used.
    tracked: Option<std::sync::Arc<Vec<String>>>,
    /// `paths.deny` of the configuration: refused root-relative paths (and everything under
    /// a matching directory).
    denied: Option<(globset::GlobSet, Vec<String>)>,
    /// Writes to `.clada.yml` and `.clada/` are permitted (`paths.protect_config: false`).
    config_writable: bool,
    /// Root-relative paths of hook files and folders a write may not change (see
    /// [`Sandbox::protect_hooks`]); `None`: writes to them are permitted (`paths.protect_hooks:
    /// false`).
    hook_files: Option<std::sync::Arc<Vec<(String, String)>>>,
    /// What nothing a reply makes run may change (docs/hooks-sandbox.md, "Protected"): the
    /// hook entries and keys while they are protected, and the nested git entries always.
    guarded: std::sync::Arc<protected::Protected>,
    /// The whole protected set as found, hook entries and keys included even when the user
    /// lets replies write them: the files hooks call are named from it.
    found: std::sync::Arc<protected::Protected>,
    /// While a reply is planned (see [`Sandbox::planning`]): what the filesystem said about
    /// each directory, so a reply of many paths looks each directory up once.
    lookups: Option<std::sync::Arc<std::sync::Mutex<Lookups>>>,
    /// The root as a directory handle: what checked paths are used through (the engine's
    /// disk, `base::beneath`), so a directory swapped after the check cannot redirect them.
    handle: std::sync::Arc<crate::base::beneath::Root>,
    /// The repository's git directories (canonical), under whatever name: where no link a
    /// reply makes may lead.
    git_dirs: Vec<PathBuf>,
}

/// Directory lookups remembered while one reply is planned, or between the changes its
/// actions make to folders while it runs.
#[derive(Debug, Default)]
struct Lookups {
    /// Lexical directory → where it physically is (as [`resolve_existing`] says).
    physical: std::collections::HashMap<PathBuf, PathBuf>,
    /// Directory → whether it holds a `.git` (a nested repository).
    dot_git: std::collections::HashMap<PathBuf, bool>,
}

impl Sandbox {
    /// `root` must exist; it is canonicalised so symlinked roots (macOS `/tmp`) compare right.
    pub fn new(root: impl AsRef<Path>, allow_outside: bool) -> Result<Sandbox, SandboxError> {
        let root = root.as_ref();
        let canonical = std::fs::canonicalize(root).map_err(|source| SandboxError {
            root: root.to_path_buf(),
            source,
        })?;
        let handle =
            crate::base::beneath::Root::open(&canonical).map_err(|source| SandboxError {
                root: root.to_path_buf(),
                source,
            })?;
        Ok(Sandbox {
            handle: std::sync::Arc::new(handle),
            root: canonical,
            allow_outside,
            nested: None,
            tracked: None,
            denied: None,
            config_writable: false,
            hook_files: None,
            guarded: Default::default(),
            found: Default::default(),
            lookups: None,
            git_dirs: Vec::new(),
        }
        .protect_hooks(&[]))
    }

    /// The same sandbox for planning one reply: every directory is looked up once and
    /// remembered. Only for planning, while nothing changes the worktree; the checks made
    /// again just before each action runs use [`Sandbox::executing`]'s memory instead.
    pub fn planning(&self) -> Sandbox {
        let mut s = self.clone();
        s.lookups = Some(Default::default());
        s
    }

    /// The same sandbox for the checks made again just before each action runs: a directory
    /// is looked up once until [`Sandbox::forget_lookups`], which the engine calls after
    /// every block that ran code (an exec block) or made, removed or moved an entry — the
    /// only ways an earlier action can change what a folder's name leads to. (A change made
    /// meanwhile by another process is what the directory handles catch: the disk's
    /// operations go through handles opened beneath the root, not through these names.)
    pub fn executing(&self) -> Sandbox {
        self.planning()
    }

    /// Forgets the directory lookups remembered so far (nothing without a memory).
    pub fn forget_lookups(&self) {
        if let Some(lookups) = &self.lookups {
            if let Ok(mut l) = lookups.lock() {
                *l = Lookups::default();
            }
        }
    }

    /// Where the lexical directory `dir` physically is: the longest existing ancestor
    /// canonicalised, the rest as written. A directory below the root is found from its
    /// parent with one `lstat` (see [`Sandbox::physical_below_root`]); while planning, what
    /// was found is remembered.
    fn physical(&self, dir: &Path) -> PathBuf {
        if dir == self.root {
            return self.root.clone();
        }
        let Some(lookups) = &self.lookups else {
            return self.physical_below_root(dir);
        };
        if let Some(hit) = lookups
            .lock()
            .ok()
            .and_then(|l| l.physical.get(dir).cloned())
        {
            return hit;
        }
        let found = self.physical_below_root(dir);
        if let Ok(mut l) = lookups.lock() {
            l.physical.insert(dir.to_path_buf(), found.clone());
        }
        found
    }

    /// [`Sandbox::physical`] looked up now: a directory below the (canonical) root is found
    /// from its parent with one `lstat` per component below the root, where `canonicalize`
    /// would `readlink` every component from `/`; anything else, or a symlink on the way, is
    /// resolved in full.
    fn physical_below_root(&self, dir: &Path) -> PathBuf {
        if dir == self.root {
            return self.root.clone();
        }
        match (dir.parent(), dir.file_name()) {
            (Some(parent), Some(name)) if dir.starts_with(&self.root) => {
                let candidate = self.physical(parent).join(name);
                match std::fs::symlink_metadata(&candidate) {
                    Ok(md) if !md.file_type().is_symlink() => candidate,
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => candidate,
                    // A symlink (or an error): resolved in full.
                    _ => resolve_existing(dir),
                }
            }
            _ => resolve_existing(dir),
        }
    }

    /// Whether `dir` holds a `.git` (remembered while planning).
    fn has_dot_git(&self, dir: &Path) -> bool {
        let look = || std::fs::symlink_metadata(dir.join(".git")).is_ok();
        let Some(lookups) = &self.lookups else {
            return look();
        };
        if let Some(hit) = lookups
            .lock()
            .ok()
            .and_then(|l| l.dot_git.get(dir).copied())
        {
            return hit;
        }
        let found = look();
        if let Ok(mut l) = lookups.lock() {
            l.dot_git.insert(dir.to_path_buf(), found);
        }
        found
    }

    /// Refuses every path matching one of `globs` (`paths.deny`; `*` also crosses `/`), or
    /// lying under a directory that does. Invalid globs are skipped (the configuration
    /// loader reports them).
    pub fn deny_paths(mut self, globs: &[String]) -> Sandbox {
        if globs.is_empty() {
            return self;
        }
        let mut b = globset::GlobSetBuilder::new();
        for g in globs {
            if let Ok(glob) = globset::Glob::new(g) {
                b.add(glob);
            }
        }
        if let Ok(set) = b.build() {
            self.denied = Some((set, globs.to_vec()));
        }
        self
    }

    /// Whether `paths.deny` denies the absolute path `abs` (or a directory above it): what a
    /// recursive search or listing skips without a word.
    pub fn is_denied(&self, abs: &Path) -> bool {
        self.rel(abs)
            .is_some_and(|r| !r.is_empty() && self.denied_by(&r).is_some())
    }

    /// The `paths.deny` globs (empty when none): what read-only git commands exclude.
    pub fn denied_globs(&self) -> &[String] {
        self.denied.as_ref().map_or(&[], |(_, g)| g.as_slice())
    }

    /// The `paths.deny` glob `rel` (or a directory above it) matches.
    fn denied_by(&self, rel: &str) -> Option<&str> {
        let (set, globs) = self.denied.as_ref()?;
        let mut prefix = String::new();
        for part in rel.split('/') {
            if !prefix.is_empty() {
                prefix.push('/');
            }
            prefix.push_str(part);
            if let Some(&i) = set.matches(&prefix).first() {
                return globs.get(i).map(String::as_str);
            }
        }
        None
    }

    /// Gives the tracked file list the suffix rule searches ([`Sandbox::suffix_candidates`]).
    pub fn with_tracked(mut self, tracked: Vec<String>) -> Sandbox {
        self.tracked = Some(std::sync::Arc::new(tracked));
        self
    }

    /// Files whose root-relative path ends with `given` at a path-component boundary
    /// (`utils.py` matches `src/utils.py`, not `src/myutils.py`): the tracked files when the
    /// list was given, else every file of the worktree that `.gitignore` does not exclude.
    /// Sorted.
    pub fn suffix_candidates(&self, given: &str) -> Vec<String> {
        let want = given.trim_start_matches("./").trim_matches('/');
        if want.is_empty() {
            return Vec::new();
        }
        let ends = |p: &str| {
            p.len() > want.len()
                && p.ends_with(want)
                && p.as_bytes()[p.len() - want.len() - 1] == b'/'
        };
        let mut out: Vec<String> = match &self.tracked {
            Some(list) => list.iter().filter(|p| ends(p)).cloned().collect(),
            None => ignore::WalkBuilder::new(&self.root)
                .hidden(false)
                .filter_entry(|e| e.file_name() != ".git")
                .build()
                .filter_map(Result::ok)
                .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
                .filter_map(|e| self.rel(e.path()))
                .filter(|p| ends(p))
                .collect(),
        };
        out.sort();
        out
    }

    /// For a git worktree: refuse changes inside a nested repository — a directory holding a
    /// `.git` (a checked-out submodule, or a repository of its own), or one of `submodules`
    /// (root-relative paths, e.g. from `.gitmodules`; those may not be checked out). Their
    /// files belong to another repository's history, which the commit here cannot hold.
    pub fn refuse_nested_repositories(mut self, submodules: &[String]) -> Sandbox {
        let abs = submodules
            .iter()
            .map(|s| s.split('/').fold(self.root.clone(), |p, c| p.join(c)))
            .collect();
        self.nested = Some(abs);
        self
    }

    /// Lets writes change `.clada.yml` and `.clada/` (the user's `paths.protect_config:
    /// false`); refused by default.
    pub fn allow_config_writes(mut self, yes: bool) -> Sandbox {
        self.config_writable = yes;
        self
    }

    /// Refuses writes to the hook files: [`HOOK_FILES`] and `more` (root-relative: what the
    /// repository's git configuration names — `core.hooksPath`, included files, programs),
    /// each also where it really is when a symlink leads there. On by default with
    /// [`HOOK_FILES`]; each call replaces the list. [`Sandbox::protect`] sets the whole
    /// protected set.
    pub fn protect_hooks(self, more: &[(String, String)]) -> Sandbox {
        let entries = more
            .iter()
            .map(|(rel, what)| protected::Entry {
                rel: rel.clone(),
                what: what.clone(),
                kind: protected::Kind::Hook,
            })
            .collect();
        self.protect(protected::Protected {
            entries,
            ..Default::default()
        })
    }

    /// Sets the protected set (`sandbox::protected`): replies may not write its hook entries
    /// (the fixed [`HOOK_FILES`] always among them) nor change its keys, and exec and hooks
    /// get it to keep read-only and to put back.
    pub fn protect(mut self, p: protected::Protected) -> Sandbox {
        let mut list: Vec<(String, String)> = HOOK_FILES
            .iter()
            .map(|(p, why)| (p.to_string(), why.to_string()))
            .collect();
        for e in p.entries.iter().filter(|e| e.kind == protected::Kind::Hook) {
            if !list.iter().any(|(r, _)| r == &e.rel) {
                list.push((e.rel.clone(), e.what.clone()));
            }
        }
        // A protected folder that is a symlink is protected where it leads too.
        let resolved: Vec<(String, String)> = list
            .iter()
            .filter_map(|(p, why)| {
                let at = self.root.join(p);
                let md = std::fs::symlink_metadata(&at).ok()?;
                if !md.file_type().is_symlink() {
                    return None;
                }
                let real = std::fs::canonicalize(at).ok()?;
                let rel = self.rel(&real).filter(|r| !r.is_empty() && r != p)?;
                Some((rel, why.clone()))
            })
            .collect();
        list.extend(resolved);
        let mut all = p;
        for (rel, what) in &list {
            if !all.entries.iter().any(|e| &e.rel == rel) {
                all.entries.push(protected::Entry {
                    rel: rel.clone(),
                    what: what.clone(),
                    kind: protected::Kind::Hook,
                });
            }
        }
        self.hook_files = Some(std::sync::Arc::new(list));
        self.guarded = std::sync::Arc::new(all.clone());
        self.found = std::sync::Arc::new(all);
        self
    }

    /// Adds nested git entries (`protected::nested_git`) to what exec and hooks keep
    /// read-only and put back (a reply never writes inside `.git` anyway).
    pub fn protect_git(mut self, git: Vec<protected::Entry>) -> Sandbox {
        let mut g = (*self.guarded).clone();
        let mut f = (*self.found).clone();
        for e in git {
            if !g.entries.iter().any(|x| x.rel == e.rel) {
                g.entries.push(e.clone());
            }
            if !f.entries.iter().any(|x| x.rel == e.rel) {
                f.entries.push(e);
            }
        }
        self.guarded = std::sync::Arc::new(g);
        self.found = std::sync::Arc::new(f);
        self
    }

    /// Lets writes change hook files (the user's own `paths.protect_hooks: false`): replies
    /// may write them, and exec and hooks may change them (nested git entries stay guarded).
    pub fn allow_hook_writes(mut self, yes: bool) -> Sandbox {
        if yes {
            self.hook_files = None;
            let mut g = (*self.guarded).clone();
            g.entries.retain(|e| e.kind == protected::Kind::Git);
            g.keys.clear();
            self.guarded = std::sync::Arc::new(g);
        }
        self
    }

    /// What exec and hooks keep read-only and put back after each step.
    pub fn guarded(&self) -> std::sync::Arc<protected::Protected> {
        std::sync::Arc::clone(&self.guarded)
    }

    /// The protected set as found (with the files hooks call), whatever the user allows.
    pub fn found(&self) -> std::sync::Arc<protected::Protected> {
        std::sync::Arc::clone(&self.found)
    }

    /// The protected keys of the root-relative file `rel` (none when the user lets replies
    /// write hook files).
    pub fn protected_keys(&self, rel: &str) -> Vec<&protected::Key> {
        self.guarded.keys.iter().filter(|k| k.file == rel).collect()
    }

    /// Whether the root-relative `rel` is (in, or holds) a protected hook file: what it is.
    pub fn hook_file(&self, rel: &str) -> Option<String> {
        let list = self.hook_files.as_ref()?;
        let lower = rel.to_ascii_lowercase();
        list.iter()
            .find_map(|(p, why)| {
                let p = p.to_ascii_lowercase();
                let hit = lower == p
                    || lower.starts_with(&format!("{p}/"))
                    || (!lower.is_empty() && p.starts_with(&format!("{lower}/")));
                hit.then(|| why.clone())
            })
            .or_else(|| protected::prefixed(rel).map(str::to_string))
    }

    /// The refusal of a write to a hook file, checked on the path as written and as resolved.
    fn check_hook_file(&self, p: &ResolvedPath) -> Result<(), PathError> {
        let lexical = self.rel(&normalize(&self.root.join(&p.given)));
        let Some(what) = [lexical.as_deref(), p.rel.as_deref()]
            .into_iter()
            .flatten()
            .find_map(|r| self.hook_file(r))
        else {
            return Ok(());
        };
        Err(PathError {
            code: PathErrorCode::ProtectedHook,
            path: p.given.clone(),
            message: format!(
                "'{}' is {what}: git or a hook manager runs it on the user's own next commit, \
                 outside any sandbox, so a reply never changes it — say what should change and \
                 let the user edit it",
                p.given
            ),
            user_action: Some(
                "edit it yourself if the change is wanted (a reply never changes the files your \
                 git hooks run), or set paths.protect_hooks: false in your own configuration"
                    .to_string(),
            ),
        })
    }

    /// What a write adds to [`Sandbox::resolve`]'s checks: git-clada's own configuration is
    /// the user's (a reply that could write it could approve its own commands or loosen the
    /// policy), so are the hook files (the user's next commit runs them), and files of nested
    /// repositories belong to those.
    pub fn check_write(&self, p: &ResolvedPath) -> Result<(), PathError> {
        self.check_hook_file(p)?;
        if let Some(what) = p
            .rel
            .as_deref()
            .filter(|_| !self.config_writable)
            .and_then(protected_config)
        {
            return Err(PathError {
                code: PathErrorCode::ProtectedConfig,
                path: p.given.clone(),
                message: format!(
                    "'{}' is {what}, which decides what git-clada runs and what it may \
                     touch; a reply never changes it (like .git) — say what should change and \
                     let the user edit it (a user's own config can allow this with \
                     paths.protect_config: false)",
                    p.given
                ),
                user_action: Some(
                    "edit it yourself if the change is wanted (a reply never changes \
                     git-clada's configuration), or set paths.protect_config: false in your own \
                     configuration"
                        .to_string(),
                ),
            });
        }
        self.check_nested(p)
    }

    /// Refuses a path that a write would change inside a nested repository (see
    /// [`Sandbox::refuse_nested_repositories`]; nothing is refused without it).
    fn check_nested(&self, p: &ResolvedPath) -> Result<(), PathError> {
        let Some(submodules) = &self.nested else {
            return Ok(());
        };
        let Ok(rest) = p.abs.strip_prefix(&self.root) else {
            return Ok(());
        };
        let mut dir = self.root.clone();
        for c in rest.components() {
            dir.push(c);
            let declared = submodules.contains(&dir);
            if !declared && !self.has_dot_git(&dir) {
                continue;
            }
            let shown = self.rel(&dir).unwrap_or_default();
            let inside = if dir == p.abs {
                format!("'{}' is", p.given)
            } else {
                format!("'{}' is inside", p.given)
            };
            let what = if declared {
                format!("the submodule '{shown}'")
            } else {
                format!("'{shown}', a nested repository (it has its own .git)")
            };
            return Err(PathError {
                code: PathErrorCode::Submodule,
                path: p.given.clone(),
                user_action: None,
                message: format!(
                    "{inside} {what}; its files belong to that repository's history, which a \
                     commit here cannot hold — change them from inside it (cd {shown} and \
                     apply there), or leave them out of this reply"
                ),
            });
        }
        Ok(())
    }

    /// The root's directory handle, which the engine's disk operations go through.
    pub fn handle(&self) -> std::sync::Arc<crate::base::beneath::Root> {
        std::sync::Arc::clone(&self.handle)
    }

    /// Makes the repository's git directories (the git dir, the common dir) known to the
    /// handle by device and inode: no directory reached through it may be one of them.
    pub fn guard_git_dirs(mut self, dirs: &[&Path]) -> Sandbox {
        self.handle.guard_git_dirs(dirs);
        self.git_dirs = dirs
            .iter()
            .map(|d| std::fs::canonicalize(d).unwrap_or_else(|_| d.to_path_buf()))
            .collect();
        self
    }

    /// The canonical root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn allow_outside(&self) -> bool {
        self.allow_outside
    }

    /// The root-relative, `/`-separated form of an absolute path, if it is inside the root.
    pub fn rel(&self, abs: &Path) -> Option<String> {
        let rest = abs.strip_prefix(&self.root).ok()?;
        let parts: Vec<String> = rest
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        Some(parts.join("/"))
    }

    fn inside(&self, abs: &Path) -> bool {
        abs.starts_with(&self.root)
    }

    /// Resolves and checks one path.
    pub fn resolve(&self, given: &str, access: Access) -> Result<ResolvedPath, PathError> {
        let refuse = |code: PathErrorCode, message: String| PathError {
            code,
            path: given.to_string(),
            message,
            user_action: None,
        };
        let only_user = |code: PathErrorCode, message: String, how: &str| PathError {
            user_action: Some(how.to_string()),
            ..refuse(code, message)
        };
        check_syntax(given).map_err(|m| refuse(PathErrorCode::InvalidPath, m))?;
        let raw = Path::new(given);
        if let Some(message) = git_lookalike_message(given, raw) {
            return Err(refuse(PathErrorCode::GitDir, message));
        }
        let joined = if raw.is_absolute() {
            raw.to_path_buf()
        } else {
            self.root.join(raw)
        };
        let lexical = normalize(&joined);
        if !self.allow_outside && !self.inside(&lexical) {
            return Err(only_user(
                PathErrorCode::PathEscape,
                format!(
                    "'{given}' resolves to '{}', which is outside '{}' (relative paths start \
                     there)",
                    lexical.display(),
                    self.root.display()
                ),
                ALLOW_OUTSIDE,
            ));
        }
        let (parent, name) = match (lexical.parent(), lexical.file_name()) {
            (Some(p), Some(n)) => (p.to_path_buf(), n.to_os_string()),
            // Only `/` has no parent or name.
            _ => (lexical.clone(), Default::default()),
        };
        let physical_parent = self.physical(&parent);
        let entry = if name.is_empty() {
            physical_parent.clone()
        } else {
            physical_parent.join(&name)
        };
        if !self.allow_outside && !self.inside(&entry) {
            return Err(only_user(
                PathErrorCode::SymlinkEscape,
                format!(
                    "'{given}' goes through a symlinked directory and really is '{}', outside \
                     '{}'",
                    entry.display(),
                    self.root.display()
                ),
                ALLOW_OUTSIDE,
            ));
        }
        self.check_git_after_resolution(given, &entry)?;
        if self.inside(&lexical) && entry == self.root && access == Access::Entry {
            return Err(refuse(
                PathErrorCode::RootDir,
                format!(
                    "'{given}' is the root '{}' itself; name a file or directory inside it",
                    self.root.display()
                ),
            ));
        }
        let mut abs = entry.clone();
        if let Ok(md) = std::fs::symlink_metadata(&entry) {
            if md.file_type().is_symlink() {
                let target = link_target(&entry, &physical_parent);
                if !self.allow_outside && !self.inside(&target) {
                    return Err(refuse(
                        PathErrorCode::SymlinkEscape,
                        format!(
                            "'{given}' is a symlink to '{}', outside '{}'; writing through or \
                             replacing such a link is refused — edit the real file, or remove \
                             the link yourself",
                            target.display(),
                            self.root.display()
                        ),
                    ));
                }
                self.check_git_after_resolution(given, &target)?;
                if access == Access::Follow {
                    abs = target;
                }
            }
        }
        let rel = self.rel(&abs);
        if let Some(glob) = rel.as_deref().and_then(|r| self.denied_by(r)) {
            return Err(only_user(
                PathErrorCode::PathDenied,
                format!(
                    "'{given}' matches `{glob}` in the configuration's paths.deny; this path is \
                     off limits for actions"
                ),
                &format!(
                    "remove `{glob}` from paths.deny in the configuration (.clada.yml) to allow it"
                ),
            ));
        }
        Ok(ResolvedPath {
            given: given.to_string(),
            abs,
            rel,
        })
    }

    /// Checks what a move does to symlinks: moving `from` (a symlink, or a directory holding
    /// some) to `to` must not make a relative link lead outside the root or into `.git` (its
    /// target is read from its new directory), nor give a link a name that git refuses or
    /// warns about for symlinks (`.gitmodules` and its look-alikes, …).
    pub fn check_move(&self, from: &ResolvedPath, to: &ResolvedPath) -> Result<(), PathError> {
        let Ok(md) = std::fs::symlink_metadata(&from.abs) else {
            // Nothing there (yet): the move itself reports it.
            return Ok(());
        };
        let links = if md.file_type().is_symlink() {
            vec![PathBuf::new()]
        } else if md.is_dir() {
            links_below(&from.abs)
        } else {
            return Ok(());
        };
        for rel in links {
            let (old, new) = if rel.as_os_str().is_empty() {
                (from.abs.clone(), to.abs.clone())
            } else {
                (from.abs.join(&rel), to.abs.join(&rel))
            };
            self.check_moved_link(from, to, &old, &new)?;
        }
        Ok(())
    }

    /// One symlink of a move: `old` is where it is, `new` where the move puts it.
    fn check_moved_link(
        &self,
        from: &ResolvedPath,
        to: &ResolvedPath,
        old: &Path,
        new: &Path,
    ) -> Result<(), PathError> {
        let refuse = |code: PathErrorCode, message: String| PathError {
            code,
            path: to.given.clone(),
            message,
            user_action: None,
        };
        let what = if old == from.abs {
            format!("moving the symlink '{}' to '{}'", from.given, to.given)
        } else {
            format!(
                "moving '{}' to '{}' (with the symlink '{}' inside)",
                from.given,
                to.given,
                self.rel(old).unwrap_or_else(|| old.display().to_string())
            )
        };
        if let Some(name) = new.file_name().map(|n| n.to_string_lossy()) {
            if let Some((protected, how)) = gitname::symlink_name(&name) {
                return Err(refuse(
                    PathErrorCode::GitDir,
                    format!(
                        "{what} would make a symlink named '{}': {} — move the file the link \
                         points to instead",
                        gitname::shown(&name),
                        gitname::symlink_refusal(&name, protected, &how)
                    ),
                ));
            }
        }
        let Ok(target) = std::fs::read_link(old) else {
            return Ok(());
        };
        if target.is_absolute() {
            // Where it points does not depend on where it is; `resolve` checked the link
            // itself, and a link inside a moved directory keeps pointing where it did.
            return Ok(());
        }
        let dir = new.parent().unwrap_or(&self.root);
        let dest = resolve_existing(&normalize(&dir.join(&target)));
        if !self.allow_outside && !self.inside(&dest) {
            return Err(refuse(
                PathErrorCode::SymlinkEscape,
                format!(
                    "{what} would make it point outside '{}': its target '{}' is relative, so \
                     from '{}' it leads to '{}'; move it to a place where its target stays \
                     inside, or replace the link yourself",
                    self.root.display(),
                    target.display(),
                    self.rel(new).unwrap_or_else(|| new.display().to_string()),
                    dest.display()
                ),
            ));
        }
        self.check_git_after_resolution(&to.given, &dest)
    }

    /// A symlink can lead into `.git` although the path as written does not mention it.
    fn check_git_after_resolution(&self, given: &str, resolved: &Path) -> Result<(), PathError> {
        let tail = resolved.strip_prefix(&self.root).unwrap_or(resolved);
        let message = if has_git_component(tail) {
            format!(
                "'{given}' leads to '{}', inside a .git directory; git-clada never writes \
                 git's internals — change files in the worktree instead",
                resolved.display()
            )
        } else if let Some((component, how)) = git_lookalike(tail) {
            format!(
                "'{given}' leads to '{}', and {}; git refuses such paths — refer to a file \
                 with another name",
                resolved.display(),
                how.explain(&component, ".git")
            )
        } else {
            return Ok(());
        };
        Err(PathError {
            code: PathErrorCode::GitDir,
            path: given.to_string(),
            user_action: None,
            message,
        })
    }
}

pub use protected::HOOK_FILES;

/// What `rel` (root-relative) is when it is git-clada's own configuration: `.clada.yml` or
/// anything under `.clada/`, in any letter case (a case-insensitive filesystem opens the same
/// file).
fn protected_config(rel: &str) -> Option<&'static str> {
    let first = rel.split('/').next().unwrap_or_default();
    if rel.eq_ignore_ascii_case(".clada.yml") {
        Some("the repository's git-clada configuration")
    } else if first.eq_ignore_ascii_case(".clada") {
        Some("inside .clada/, git-clada's folder (approvals, settings)")
    } else {
        None
    }
}

/// Why `raw` (the path as given) names `.git` or a look-alike of it, if it does.
fn git_lookalike_message(given: &str, raw: &Path) -> Option<String> {
    let (component, how) = git_lookalike(raw)?;
    Some(match how {
        gitname::Lookalike::Exact => format!(
            "'{given}' is inside a .git directory; git-clada never reads or writes git's \
             internals — change files in the worktree instead"
        ),
        how => format!(
            "'{}': {}; git refuses such paths ({}) and hosting servers reject pushes that \
             contain them — use another name",
            gitname::shown(given),
            how.explain(&component, ".git"),
            how.git_setting()
        ),
    })
}

/// The first component of `p` that is `.git` or a look-alike of it, and how.
fn git_lookalike(p: &Path) -> Option<(String, gitname::Lookalike)> {
    p.components().find_map(|c| match c {
        Component::Normal(s) => {
            let s = s.to_string_lossy();
            gitname::dotgit(&s).map(|how| (s.into_owned(), how))
        }
        _ => None,
    })
}

/// Empty, NUL, and length limits.
fn check_syntax(given: &str) -> Result<(), String> {
    if given.is_empty() {
        return Err("the path is empty; give a path relative to the worktree root".into());
    }
    if given.contains('\0') {
        return Err(format!(
            "'{}' contains a NUL byte; remove it",
            given.replace('\0', "\\0")
        ));
    }
    if given.len() > MAX_PATH_BYTES {
        return Err(format!(
            "the path is {} bytes long, over the {MAX_PATH_BYTES}-byte limit; use a shorter path",
            given.len()
        ));
    }
    if let Some(c) = given.split('/').find(|c| c.len() > MAX_COMPONENT_BYTES) {
        let head: String = c.chars().take(40).collect();
        return Err(format!(
            "the path component '{head}…' is {} bytes long, over the {MAX_COMPONENT_BYTES}-byte \
             limit; use a shorter name",
            c.len()
        ));
    }
    Ok(())
}

/// True if any component is `.git`, in any letter case.
pub fn has_git_component(p: &Path) -> bool {
    p.components().any(|c| match c {
        Component::Normal(s) => is_git_name(s),
        _ => false,
    })
}

fn is_git_name(s: &OsStr) -> bool {
    s.as_encoded_bytes().eq_ignore_ascii_case(b".git")
}

/// Lexical normalisation (`base::path`), re-exported where the sandbox's callers look for it.
pub use crate::base::path::normalize;

/// Canonicalises the longest existing ancestor of `p` and appends the rest: symlinked
/// directories along the way are resolved, missing tails are kept as written.
fn resolve_existing(p: &Path) -> PathBuf {
    let mut existing = p.to_path_buf();
    let mut tail: Vec<PathBuf> = Vec::new();
    loop {
        if let Ok(c) = std::fs::canonicalize(&existing) {
            let mut out = c;
            for t in tail.iter().rev() {
                out.push(t);
            }
            return out;
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                tail.push(PathBuf::from(name));
                existing = parent.to_path_buf();
            }
            _ => return p.to_path_buf(),
        }
    }
}

/// Every symlink below directory `dir` (not following links), relative to `dir`. Unreadable
/// directories are skipped: the move itself then fails or succeeds on its own terms.
fn links_below(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let Ok(ft) = e.file_type() else { continue };
            let p = e.path();
            if ft.is_symlink() {
                if let Ok(rel) = p.strip_prefix(dir) {
                    out.push(rel.to_path_buf());
                }
            } else if ft.is_dir() {
                stack.push(p);
            }
        }
    }
    out
}

/// Where a symlink finally points: canonical when the target exists, else its target text
/// resolved against the link's directory.
fn link_target(link: &Path, link_dir: &Path) -> PathBuf {
    if let Ok(c) = std::fs::canonicalize(link) {
        return c;
    }
    match std::fs::read_link(link) {
        Ok(t) => {
            let joined = if t.is_absolute() { t } else { link_dir.join(t) };
            resolve_existing(&normalize(&joined))
        }
        Err(_) => link.to_path_buf(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_resolves_dots_lexically() {
        assert_eq!(
            normalize(Path::new("/a/b/../c/./d")),
            PathBuf::from("/a/c/d")
        );
        assert_eq!(normalize(Path::new("/../../x")), PathBuf::from("/x"));
    }

    #[test]
    fn git_component_any_case() {
        assert!(has_git_component(Path::new(".git/config")));
        assert!(has_git_component(Path::new("sub/.GIT/x")));
        assert!(has_git_component(Path::new("a/.Git")));
        assert!(!has_git_component(Path::new("a/.gitignore")));
        assert!(!has_git_component(Path::new("a/x.git")));
    }

    #[test]
    fn directories_are_found_as_canonicalize_finds_them_and_as_they_are_now() {
        let top = tempfile::tempdir().unwrap();
        let root = top.path().join("root");
        let outside = top.path().join("outside");
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::create_dir_all(root.join("real")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(root.join("a/file"), "x").unwrap();
        std::os::unix::fs::symlink(root.join("real"), root.join("inner")).unwrap();
        let sandbox = Sandbox::new(&root, false).unwrap();
        let root = sandbox.root().to_path_buf();
        for dir in [
            "",
            "a",
            "a/b",
            "a/missing",
            "a/missing/deeper",
            "a/file",
            "a/file/below",
            "inner",
            "inner/x",
        ] {
            let lexical = normalize(&root.join(dir));
            assert_eq!(
                sandbox.physical(&lexical),
                resolve_existing(&lexical),
                "{dir:?}"
            );
        }
        // Nothing is remembered outside planning: a folder replaced by a symlink to outside
        // the root is seen at once, and what goes through it is refused.
        assert!(sandbox.resolve("a/b/new.txt", Access::Follow).is_ok());
        std::fs::remove_dir(root.join("a/b")).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("a/b")).unwrap();
        let refused = sandbox.resolve("a/b/new.txt", Access::Follow).unwrap_err();
        assert_eq!(refused.code, PathErrorCode::SymlinkEscape);
    }
}
