//! Suggestions for a path that does not exist: entries elsewhere in the tree with the same file
//! name (`requests/utils.py` → `src/requests/utils.py`), else entries with a close name, in the
//! same folder first (`structure.py` → `structures.py`), found by a bounded walk of the sandbox
//! root that honours `.gitignore` (no git needed: the executor stays git-free).

use std::path::Path;

use super::textmatch::Hint;
use super::{Action, Ctx};
use crate::sandbox::ResolvedPath;

/// Entries looked at before the walk gives up (a huge tree gets no suggestion rather than a
/// slow report).
const MAX_VISITED: usize = 20_000;
/// Same-named entries collected before ranking.
const MAX_FOUND: usize = 50;
/// Suggestions shown.
const MAX_SHOWN: usize = 3;

/// The path of `action` that does not exist, when its failure is about a missing path.
fn missing<'a>(ctx: &Ctx<'_>, action: &'a Action) -> Option<&'a ResolvedPath> {
    let paths: Vec<&ResolvedPath> = match action {
        Action::FileReplaceText { path, .. }
        | Action::FileCommentLines { path, .. }
        | Action::FileUncommentLines { path, .. }
        | Action::FileReplaceAllText { path, .. }
        | Action::FileEdit { path, .. }
        | Action::FileReplaceLines { path, .. }
        | Action::FileReplaceRange { path, .. }
        | Action::FileSearchReplace { path, .. }
        | Action::FileDelete { path }
        | Action::DirDelete { path, .. }
        | Action::FileRead { path }
        | Action::FileReadNumbered { path, .. }
        | Action::Ls { path }
        | Action::Grep { path, .. } => vec![path],
        Action::FileMove { old_path, .. } => vec![old_path],
        Action::FilePatch(p) => vec![&p.path],
        Action::FilesRead { paths }
        | Action::FilesReadNumbered { paths, .. }
        | Action::FilesReplaceAllText { paths, .. } => paths.iter().collect(),
        Action::Glob { base_path, .. } => vec![base_path],
        Action::Exec { cwd, .. } => cwd.iter().collect(),
        Action::FileWrite { .. }
        | Action::FileCreate { .. }
        | Action::FileAppend { .. }
        | Action::DirCreate { .. } => Vec::new(),
    };
    paths.into_iter().find(|p| !ctx.vfs.exists(&p.abs))
}

/// A `missing_path` hint for a failed action whose error says a path does not exist, when
/// entries with that file name exist elsewhere under the sandbox root.
pub(crate) fn missing_path_hint(ctx: &Ctx<'_>, action: &Action, error: &str) -> Option<Hint> {
    if !error.contains("ENOENT") {
        return None;
    }
    let path = missing(ctx, action)?;
    let name = Path::new(&path.given).file_name()?.to_str()?;
    let candidates = same_name(ctx.sandbox.root(), name, &path.given);
    let similar = if candidates.is_empty() {
        similar_names(ctx.sandbox.root(), name, &path.given)
    } else {
        Vec::new()
    };
    (!candidates.is_empty() || !similar.is_empty()).then(|| Hint::MissingPath {
        path: path.given.clone(),
        candidates,
        similar,
    })
}

/// The walk every suggestion makes: entries under `root` (not `.git`, not ignored), up to
/// [`MAX_VISITED`].
fn walk(root: &Path) -> impl Iterator<Item = ignore::DirEntry> {
    ignore::WalkBuilder::new(root)
        .hidden(false)
        .require_git(false)
        .max_depth(Some(32))
        .filter_entry(|e| e.file_name() != ".git")
        .build()
        .take(MAX_VISITED)
        .flatten()
}

/// Root-relative paths of entries whose name is close to `name` (a letter off, a plural),
/// those in the folder `given` names first, then by depth and name.
fn similar_names(root: &Path, name: &str, given: &str) -> Vec<String> {
    let folder = Path::new(given.trim_start_matches("./"))
        .parent()
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut found: Vec<String> = Vec::new();
    for entry in walk(root) {
        if entry.depth() == 0 {
            continue;
        }
        let Some(other) = entry.file_name().to_str() else {
            continue;
        };
        // Another extension is another kind of file, not a misspelling.
        let ext = |n: &str| Path::new(n).extension().map(|e| e.to_os_string());
        if ext(name) != ext(other) || clada_read::text::closest_name(name, [other]).is_none() {
            continue;
        }
        let Some(rel) = entry
            .path()
            .strip_prefix(root)
            .ok()
            .and_then(|r| r.to_str())
        else {
            continue;
        };
        found.push(rel.to_string());
        if found.len() == MAX_FOUND {
            break;
        }
    }
    let in_folder = |c: &str| {
        Path::new(c)
            .parent()
            .is_some_and(|p| p.to_string_lossy() == folder)
    };
    found.sort_by(|a, b| {
        in_folder(b)
            .cmp(&in_folder(a))
            .then(a.matches('/').count().cmp(&b.matches('/').count()))
            .then(a.cmp(b))
    });
    found.truncate(MAX_SHOWN);
    found
}

/// Root-relative paths of entries named `name`, best first: those ending with all of `given`
/// (a missing leading directory), then by how many trailing components they share with it,
/// then shorter, then alphabetical.
fn same_name(root: &Path, name: &str, given: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for entry in walk(root) {
        if entry.file_name() != name || entry.depth() == 0 {
            continue;
        }
        let Ok(rel) = entry.path().strip_prefix(root) else {
            continue;
        };
        let Some(rel) = rel.to_str() else { continue };
        found.push(rel.to_string());
        if found.len() == MAX_FOUND {
            break;
        }
    }
    let given_parts: Vec<&str> = given
        .trim_start_matches("./")
        .split('/')
        .filter(|p| !p.is_empty())
        .collect();
    let shared = |c: &str| {
        c.split('/')
            .rev()
            .zip(given_parts.iter().rev())
            .take_while(|(a, b)| a == *b)
            .count()
    };
    found.retain(|c| c != given.trim_start_matches("./"));
    found.sort_by(|a, b| {
        shared(b)
            .cmp(&shared(a))
            .then(a.len().cmp(&b.len()))
            .then(a.cmp(b))
    });
    found.truncate(MAX_SHOWN);
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_named_files_ranked_by_shared_tail_and_gitignore_honoured() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let root = tmp.path();
        for p in [
            "src/requests/utils.py",
            "tools/utils.py",
            "build/requests/utils.py",
            "a/b/c/requests/utils.py",
        ] {
            let abs = root.join(p);
            std::fs::create_dir_all(abs.parent().expect("parent")).expect("mkdir");
            std::fs::write(abs, "x").expect("write");
        }
        std::fs::write(root.join(".gitignore"), "build/\n").expect("write");
        assert_eq!(
            same_name(root, "utils.py", "requests/utils.py"),
            [
                "src/requests/utils.py",
                "a/b/c/requests/utils.py",
                "tools/utils.py"
            ]
        );
        assert!(same_name(root, "nothing.py", "nothing.py").is_empty());
    }

    #[test]
    fn close_names_in_the_same_folder_come_first() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let root = tmp.path();
        for p in [
            "src/requests/structures.py",
            "docs/structure.rst",
            "src/requests/utils.py",
        ] {
            let abs = root.join(p);
            std::fs::create_dir_all(abs.parent().expect("parent")).expect("mkdir");
            std::fs::write(abs, "x").expect("write");
        }
        assert_eq!(
            similar_names(root, "structure.py", "src/requests/structure.py"),
            ["src/requests/structures.py"]
        );
        assert!(similar_names(root, "zzz.py", "zzz.py").is_empty());
    }
}
