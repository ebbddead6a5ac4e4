//! The user's approvals (the seeds' `allowed-commands.json` shape): commands that run without
//! asking under the `ask` policy. Read and written by the caller (the CLI), never by the
//! engine: the engine's writes become part of the AI commit, and an approval must outlive an
//! undo.
//!
//! They are the user's, so they live where no reply and no clone can write them
//! ([`store_path`]): in the git directory (`.git/clada/allowed-commands.json`: never committed,
//! never cloned, and refused to replies like all of `.git`), or without git in the user's
//! configuration folder. The seeds' place in the worktree, [`LEGACY_FILE`], could be written
//! by a reply or shipped by a clone: it is no longer read, and `git clada config --trust`
//! (after the user read it) copies its commands into the store.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Where approvals used to live, relative to the worktree root (the seeds' place).
pub const LEGACY_FILE: &str = ".clada/allowed-commands.json";

/// Where the user's approvals for the worktree `root` live: `<git dir>/clada/
/// allowed-commands.json` in a repository; else `<config dir>/clada/approvals/<sha1 of the
/// directory's path>.json` (`None` when there is no home either).
pub fn store_path(git_dir: Option<&Path>, root: &Path) -> Option<PathBuf> {
    if let Some(g) = git_dir {
        return Some(g.join("clada").join("allowed-commands.json"));
    }
    use sha1::Digest;
    let user = crate::config::user_file()?;
    let key = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let hash = sha1::Sha1::digest(key.as_os_str().as_encoded_bytes());
    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
    Some(user.parent()?.join("approvals").join(format!("{hex}.json")))
}

/// The approval file's content (the seeds' shape).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Approvals {
    #[serde(default)]
    pub commands: Vec<String>,
    /// When each command was approved (RFC 3339, UTC).
    #[serde(default)]
    pub added: BTreeMap<String, String>,
    /// The worktree files an approved command runs, with the SHA-256 of the content approved
    /// (`exec/scripts.rs`): it runs without asking only while they are unchanged.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub bound: BTreeMap<String, BTreeMap<String, String>>,
}

impl Approvals {
    /// Reads the approval file `path`; a missing file is an empty list, a malformed one an
    /// error with its line and column.
    pub fn load(path: &Path) -> anyhow::Result<Approvals> {
        Self::load_with(path, clada_base::fsutil::Links::Follow)
    }

    /// [`Approvals::load`] for the worktree's [`LEGACY_FILE`]: read only as a regular file
    /// (a clone or a process in the worktree can put a FIFO or a link to `/dev/zero` there).
    pub fn load_legacy(path: &Path) -> anyhow::Result<Approvals> {
        Self::load_with(path, clada_base::fsutil::Links::Refuse)
    }

    fn load_with(path: &Path, links: clada_base::fsutil::Links) -> anyhow::Result<Approvals> {
        let bytes = match clada_base::fsutil::read_small(path, 16 * 1024 * 1024, links) {
            Ok(Some(b)) => b,
            Ok(None) => return Ok(Approvals::default()),
            Err(e) => anyhow::bail!("{}: {e}", path.display()),
        };
        let text = String::from_utf8_lossy(&bytes);
        serde_json::from_str(&text).map_err(|e| {
            anyhow::anyhow!(
                "{}:{}:{}: {e} (expected {{\"commands\": [\"npm test\", …], \"added\": {{…}}}}; fix or delete the file)",
                path.display(),
                e.line(),
                e.column()
            )
        })
    }

    /// The commands as a set, for [`super::Settings::approved`].
    pub fn set(&self) -> BTreeSet<String> {
        self.commands
            .iter()
            .map(|c| match self.bound.get(c) {
                Some(b) => {
                    let b: Vec<(String, String)> =
                        b.iter().map(|(p, h)| (p.clone(), h.clone())).collect();
                    super::scripts::key(c, &b)
                }
                None => c.clone(),
            })
            .collect()
    }

    /// The commands of the worktree's [`LEGACY_FILE`] that `store` (the user's approval file)
    /// does not hold: they are not run without asking until the user imports them.
    pub fn legacy_pending(root: &Path, store: &Path) -> Vec<String> {
        let Ok(legacy) = Approvals::load_legacy(&root.join(LEGACY_FILE)) else {
            return Vec::new();
        };
        let have = Approvals::load(store).map(|a| a.set()).unwrap_or_default();
        legacy
            .commands
            .into_iter()
            .filter(|c| !have.contains(c))
            .collect()
    }

    /// Adds `commands` (those not there yet) to the approval file `path` and writes it;
    /// returns the ones added.
    pub fn store(path: &Path, commands: &[String]) -> anyhow::Result<Vec<String>> {
        let mut list = Approvals::load(path)?;
        let mut added = Vec::new();
        for k in commands {
            let (c, bound) = super::scripts::split_key(k);
            let rebound = !bound.is_empty() && list.bound.get(&c) != Some(&bound_map(&bound));
            if rebound {
                list.bound.insert(c.clone(), bound_map(&bound));
            }
            if !list.commands.contains(&c) || rebound {
                if !list.commands.contains(&c) {
                    list.commands.push(c.clone());
                }
                list.added.insert(c.clone(), now_rfc3339());
                added.push(c.clone());
            }
        }
        if added.is_empty() {
            return Ok(added);
        }
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", dir.display()))?;
        }
        let mut text = serde_json::to_string_pretty(&list)?;
        text.push('\n');
        clada_base::fsutil::write_atomic(
            path,
            text.as_bytes(),
            clada_base::fsutil::Perm::KeepExisting {
                executable_if_new: false,
            },
        )
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
        super::approved_copies::prune(path, &list.bound);
        Ok(added)
    }
}

fn bound_map(b: &[(String, String)]) -> BTreeMap<String, String> {
    b.iter().cloned().collect()
}

fn now_rfc3339() -> String {
    clada_base::clock::rfc3339_seconds(std::time::SystemTime::now())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn approvals_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let file = store_path(Some(&dir.path().join(".git")), dir.path()).unwrap();
        assert!(file.ends_with(".git/clada/allowed-commands.json"));
        assert_eq!(Approvals::load(&file).unwrap(), Approvals::default());
        let added = Approvals::store(&file, &["npm test".into(), "npm test".into()]).unwrap();
        assert_eq!(added, ["npm test"]);
        assert!(Approvals::store(&file, &["npm test".into()])
            .unwrap()
            .is_empty());
        let a = Approvals::load(&file).unwrap();
        assert_eq!(a.commands, ["npm test"]);
        assert!(a.added["npm test"].ends_with('Z'));
        // The seeds' file in the worktree: only what the store lacks is pending.
        let legacy = dir.path().join(LEGACY_FILE);
        std::fs::create_dir_all(legacy.parent().unwrap()).unwrap();
        std::fs::write(&legacy, r#"{"commands": ["npm test", "make evil"]}"#).unwrap();
        assert_eq!(Approvals::legacy_pending(dir.path(), &file), ["make evil"]);
        std::fs::write(&file, "{\n  \"commands\": 3\n}").unwrap();
        let e = Approvals::load(&file).unwrap_err().to_string();
        assert!(e.contains("allowed-commands.json:2:"), "{e}");
    }
}
