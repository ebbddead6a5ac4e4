//! The git side of hooks (docs/hooks-sandbox.md): where git's hooks are (`core.hooksPath` or
//! `<common-dir>/hooks`), which worktree files git or a hook manager runs on the user's own
//! next commit (so a reply may not write them), the configuration files git reads (a hook's
//! git needs them), and the index and objects a contained hook leaves in its private folder:
//! read back without following a symlink the hook planted, and imported by id. Running a hook
//! is `exec`'s; putting the two together is `record`'s.

use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use super::{io_err, Index, Repo, RepoError, Result};

/// Configuration keys whose value is a program git runs on commit or status: a worktree file
/// they name is protected like a hook.
const PROGRAM_KEYS: &[(&str, Option<&str>, &str)] = &[
    ("core", None, "fsmonitor"),
    ("filter", Some("*"), "clean"),
    ("filter", Some("*"), "smudge"),
    ("filter", Some("*"), "process"),
    ("diff", Some("*"), "textconv"),
    ("gpg", None, "program"),
    ("gpg", Some("*"), "program"),
];

impl Repo {
    /// The hooks directory: `core.hooksPath` (relative to the worktree root, `~` expanded) or
    /// `<common-dir>/hooks`.
    pub fn hooks_dir(&self) -> PathBuf {
        let configured = self
            .repo
            .config_snapshot()
            .trusted_path("core.hooksPath")
            .ok()
            .flatten();
        match configured {
            Some(p) if p.is_absolute() => p,
            Some(p) => self.workdir().join(p),
            None => self.common_dir().join("hooks"),
        }
    }

    /// The index file (what `GIT_INDEX_FILE` names for git's own hooks).
    pub fn index_path(&self) -> PathBuf {
        self.repo.index_path()
    }

    /// The lock git takes on the index (git-clada holds it through an apply).
    pub fn index_lock_path(&self) -> PathBuf {
        let mut p = self.repo.index_path().into_os_string();
        p.push(".lock");
        PathBuf::from(p)
    }

    /// The repository's objects folder (a hook's alternate objects folder).
    pub fn objects_dir(&self) -> PathBuf {
        self.repo.objects.store_ref().path().to_path_buf()
    }

    /// The executable hook `name`, if installed.
    pub fn hook_path(&self, name: &str) -> Option<PathBuf> {
        let path = self.hooks_dir().join(name);
        is_executable(&path).then_some(path)
    }

    /// The worktree files and folders git or a hook manager runs on the user's own next
    /// commit or status, as the repository's configuration names them (root-relative, with
    /// what each is): `core.hooksPath` inside the worktree, every file an `include.path` or
    /// `includeIf.*.path` of any configuration file names (whether it exists yet or not) or
    /// that was read from inside the worktree, and a worktree program a key of
    /// [`PROGRAM_KEYS`] names. The fixed names (`.githooks/`, `.husky/`,
    /// `.pre-commit-config.yaml`) are the sandbox's.
    pub fn hook_files(&self) -> Vec<(String, String)> {
        let root = self.workdir();
        let mut out: Vec<(String, String)> = Vec::new();
        let mut add = |abs: &Path, what: String| {
            let abs = clada_base::path::normalize(abs);
            if let Some(rel) = below_root(root, &abs) {
                if !rel.is_empty() && !out.iter().any(|(r, _)| r == &rel) {
                    out.push((rel, what));
                }
            }
        };
        let dir = self.hooks_dir();
        add(&dir, "in core.hooksPath, where git finds its hooks".into());
        let config = self.repo.config_snapshot();
        let file = config.plumbing();
        for section in file.sections() {
            let base = section.meta().path.as_deref().and_then(Path::parent);
            if let Some(path) = &section.meta().path {
                add(path, "a git configuration file".into());
            }
            let name = section.header().name().to_string();
            if name.eq_ignore_ascii_case("include") || name.eq_ignore_ascii_case("includeIf") {
                for v in section.values("path") {
                    if let Some(p) = config_path(&v.to_string(), base) {
                        add(&p, "a file the git configuration includes".into());
                    }
                }
            }
            let sub = section.header().subsection_name().is_some();
            for (s, subsection, key) in PROGRAM_KEYS {
                if !name.eq_ignore_ascii_case(s) || subsection.is_some() != sub {
                    continue;
                }
                for v in section.values(key) {
                    if let Some(p) = program_path(&v.to_string(), root) {
                        add(&p, format!("a program git runs ({s}.{key})"));
                    }
                }
            }
        }
        out
    }

    /// Every git configuration file git reads for this repository that exists (the files
    /// gix read, the files they include): a contained hook's git must be able to read them.
    pub fn config_files(&self) -> Vec<PathBuf> {
        let config = self.repo.config_snapshot();
        let mut out: Vec<PathBuf> = Vec::new();
        for section in config.plumbing().sections() {
            if let Some(p) = &section.meta().path {
                if !out.contains(p) {
                    out.push(p.clone());
                }
            }
        }
        out
    }

    /// An index file a hook left (`GIT_INDEX_FILE` in its private folder), opened without
    /// following a symlink (the hook cannot make git-clada read a file it could not).
    pub fn read_index_at(&self, path: &Path) -> Result<Index> {
        let file = open_plain(path).map_err(io_err("cannot read the index a hook left", path))?;
        let (decoded, _) = super::index::read_open_index(file, self.repo.object_hash(), path)?;
        Ok(Index::from_decoded(decoded, self.repo.index_path()))
    }

    /// Copies into the repository the objects `index` names that it lacks, from the
    /// quarantine folder `quarantine` (a hook's `GIT_OBJECT_DIRECTORY`). Each is re-hashed as
    /// it is written, so only an object whose content has that id gets in; nothing else of
    /// the quarantine is kept. Refused when the quarantine holds anything but folders and
    /// regular files (a symlink there would make git-clada read outside the sandbox).
    pub fn import_objects(&self, quarantine: &Path, index: &Index) -> Result<usize> {
        let wanted: Vec<super::ObjectId> = index
            .file
            .entries()
            .iter()
            .filter(|e| e.mode != gix::index::entry::Mode::COMMIT)
            .map(|e| e.id)
            .filter(|id| !self.has_object(*id))
            .collect();
        if wanted.is_empty() {
            return Ok(0);
        }
        only_plain_files(quarantine)?;
        let store = gix::odb::at(quarantine, self.repo.object_hash()).map_err(|e| {
            RepoError::Invalid(format!(
                "cannot open the objects a hook wrote in '{}': {e}",
                quarantine.display()
            ))
        })?;
        use gix::objs::Find;
        let mut buf = Vec::new();
        let mut n = 0;
        for id in wanted {
            let found = store.try_find(&id, &mut buf).map_err(|e| {
                RepoError::Invalid(format!("cannot read object {id} a hook wrote: {e}"))
            })?;
            let Some(data) = found else {
                return Err(RepoError::Invalid(format!(
                    "a hook staged object {id}, which neither the repository nor the hook's \
                     new objects hold"
                )));
            };
            let (kind, bytes) = (data.kind, data.data.to_vec());
            let (written, _) = self.put_new_object(kind, &bytes)?;
            if written != id {
                return Err(RepoError::Invalid(format!(
                    "a hook's object {id} does not hash to its name"
                )));
            }
            n += 1;
        }
        Ok(n)
    }
}

/// Opens `path` for reading if it is a regular file and not a symlink.
pub fn open_plain(path: &Path) -> std::io::Result<std::fs::File> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    Ok(file)
}

/// Refuses a folder that holds anything but folders and regular files.
fn only_plain_files(dir: &Path) -> Result<()> {
    let md = std::fs::symlink_metadata(dir).map_err(io_err("cannot read", dir))?;
    if !md.is_dir() {
        return Err(RepoError::Invalid(format!(
            "'{}', where a hook's new objects go, is not a folder (the hook replaced it)",
            dir.display()
        )));
    }
    for e in std::fs::read_dir(dir).map_err(io_err("cannot read", dir))? {
        let e = e.map_err(io_err("cannot read", dir))?;
        let t = e.file_type().map_err(io_err("cannot read", &e.path()))?;
        if t.is_dir() {
            only_plain_files(&e.path())?;
        } else if !t.is_file() {
            return Err(RepoError::Invalid(format!(
                "a hook left '{}' among its new objects, which is not a regular file; none \
                 of its objects were taken",
                e.path().display()
            )));
        }
    }
    Ok(())
}

/// An `include.path` value as git resolves it: `~/` from the home folder, relative to the
/// including file's folder.
fn config_path(value: &str, base: Option<&Path>) -> Option<PathBuf> {
    if let Some(rest) = value.strip_prefix("~/") {
        return std::env::var_os("HOME").map(|h| PathBuf::from(h).join(rest));
    }
    let p = Path::new(value);
    if p.is_absolute() {
        return Some(p.to_path_buf());
    }
    base.map(|b| b.join(p))
}

/// The file a program-valued key names, when it names one by path (`./x`, `tools/x`, an
/// absolute path): relative paths are from the worktree root, where git runs them.
fn program_path(value: &str, root: &Path) -> Option<PathBuf> {
    let first = value.split_whitespace().next()?;
    let first = first.trim_matches(|c| c == '"' || c == '\'');
    if !first.contains('/') {
        return None;
    }
    let p = Path::new(first);
    Some(if p.is_absolute() {
        p.to_path_buf()
    } else {
        root.join(p)
    })
}

/// `abs` relative to `root`, `/`-separated, if it is inside it.
fn below_root(root: &Path, abs: &Path) -> Option<String> {
    let rest = abs.strip_prefix(root).ok()?;
    let parts: Vec<String> = rest
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    Some(parts.join("/"))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}
