//! The user's approvals (`.clada/allowed-commands.json`, the seeds' shape): commands that run
//! without asking under the `ask` policy. Read and written by the caller (the CLI), never by
//! the engine: the engine's writes become part of the AI commit, and an approval must outlive
//! an undo.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::{Deserialize, Serialize};

/// The approval file, relative to the worktree root.
pub const APPROVALS_FILE: &str = ".clada/allowed-commands.json";

/// The approval file's content (the seeds' shape).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Approvals {
    #[serde(default)]
    pub commands: Vec<String>,
    /// When each command was approved (RFC 3339, UTC).
    #[serde(default)]
    pub added: BTreeMap<String, String>,
}

impl Approvals {
    /// Reads `<root>/.clada/allowed-commands.json`; a missing file is an empty list, a
    /// malformed one an error with its line and column.
    pub fn load(root: &Path) -> anyhow::Result<Approvals> {
        let path = root.join(APPROVALS_FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Approvals::default()),
            Err(e) => anyhow::bail!("cannot read {}: {e}", path.display()),
        };
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
        self.commands.iter().cloned().collect()
    }

    /// Adds `commands` (those not there yet) and writes the file; returns the ones added.
    pub fn store(root: &Path, commands: &[String]) -> anyhow::Result<Vec<String>> {
        let mut list = Approvals::load(root)?;
        let mut added = Vec::new();
        for c in commands {
            if !list.commands.contains(c) {
                list.commands.push(c.clone());
                list.added.insert(c.clone(), now_rfc3339());
                added.push(c.clone());
            }
        }
        if added.is_empty() {
            return Ok(added);
        }
        let path = root.join(APPROVALS_FILE);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", dir.display()))?;
        }
        let mut text = serde_json::to_string_pretty(&list)?;
        text.push('\n');
        crate::base::fsutil::write_atomic(
            &path,
            text.as_bytes(),
            crate::base::fsutil::Perm::KeepExisting {
                executable_if_new: false,
            },
        )
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
        Ok(added)
    }
}

fn now_rfc3339() -> String {
    crate::base::clock::rfc3339_seconds(std::time::SystemTime::now())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn approvals_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(Approvals::load(dir.path()).unwrap(), Approvals::default());
        let added = Approvals::store(dir.path(), &["npm test".into(), "npm test".into()]).unwrap();
        assert_eq!(added, ["npm test"]);
        assert!(Approvals::store(dir.path(), &["npm test".into()])
            .unwrap()
            .is_empty());
        let a = Approvals::load(dir.path()).unwrap();
        assert_eq!(a.commands, ["npm test"]);
        assert!(a.added["npm test"].ends_with('Z'));
        std::fs::write(dir.path().join(APPROVALS_FILE), "{\n  \"commands\": 3\n}").unwrap();
        let e = Approvals::load(dir.path()).unwrap_err().to_string();
        assert!(e.contains("allowed-commands.json:2:"), "{e}");
    }
}
