//! Executors of the searching read actions: ls, grep, glob. All three honour `.gitignore`
//! (and `.git/info/exclude`, the global excludes file) through the `ignore` crate, never show
//! `.git`, and, in a dry run, see the files earlier blocks of the reply wrote.
//!
//! Their `data` is the seeds' shape (unified-design.yaml): `ls` an array of `{name, type, size,
//! modified}`, `grep` an array of `{file, line_number, line}`, `glob` an array of paths.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::json;

use super::fsx::{node_error, text_refusal, EntryKind};
use super::{Ctx, Outcome};
use crate::sandbox::{has_git_component, ResolvedPath};

/// Most grep matches reported.
pub const MAX_GREP_MATCHES: usize = 1000;
/// Most glob paths reported.
pub const MAX_GLOB_PATHS: usize = 1000;
/// Longest matched line shown by grep, in characters.
const MAX_LINE_CHARS: usize = 500;

fn walker(root: &Path, depth: Option<usize>) -> ignore::Walk {
    ignore::WalkBuilder::new(root)
        .hidden(false)
        .ignore(false)
        .git_ignore(true)
        .git_global(true)
        .git_exclude(true)
        .parents(true)
        .require_git(false)
        .max_depth(depth)
        .filter_entry(|e| {
            !e.file_name()
                .as_encoded_bytes()
                .eq_ignore_ascii_case(b".git")
        })
        .build()
}

/// The files under `root` that are not ignored (or `root` itself if it is a file), as the reply
/// sees them: disk files an earlier block deleted are dropped, files it created are added.
fn visible_files(ctx: &Ctx<'_>, root: &Path) -> Vec<PathBuf> {
    let mut files: BTreeSet<PathBuf> = BTreeSet::new();
    for entry in walker(root, None).flatten() {
        if entry.file_type().is_some_and(|t| t.is_file()) {
            files.insert(entry.into_path());
        }
    }
    if ctx.vfs.dry_run() {
        files.retain(|p| matches!(ctx.vfs.kind(p), Ok(EntryKind::File { .. })));
        files.extend(
            ctx.vfs
                .overlay_files_under(root)
                .into_iter()
                .filter(|p| !has_git_component(p.strip_prefix(root).unwrap_or(p))),
        );
    }
    // `paths.deny` (issue 37 §2): a named denied path is refused when it is resolved; one met
    // on the way down is skipped without a word.
    files.retain(|p| !ctx.sandbox.is_denied(p));
    files.into_iter().collect()
}

/// How a found path is shown: the given base joined with the path below it, so the result can
/// be pasted into the next block as is.
fn display(given: &str, base: &Path, found: &Path) -> String {
    let sub = found.strip_prefix(base).unwrap_or(found);
    let sub = sub
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/");
    if sub.is_empty() {
        return given.to_string();
    }
    let base = given.trim_end_matches('/');
    if base.is_empty() || base == "." {
        sub
    } else {
        format!("{base}/{sub}")
    }
}

fn scandir_error(ctx: &Ctx<'_>, path: &ResolvedPath) -> Option<String> {
    match ctx.vfs.kind(&path.abs) {
        Ok(EntryKind::Dir) => None,
        Ok(EntryKind::Symlink) if path.abs.is_dir() => None,
        Ok(_) => Some(format!(
            "ENOTDIR: not a directory, scandir '{}'",
            path.given
        )),
        Err(e) => Some(node_error(&e, &path.given, "scandir", None)),
    }
}

pub(super) fn ls(ctx: &mut Ctx<'_>, path: &ResolvedPath) -> Outcome {
    if let Some(e) = scandir_error(ctx, path) {
        return Outcome::fail(e);
    }
    let entries = match ctx.vfs.list_dir(&path.abs) {
        Ok(v) => v,
        Err(e) => return Outcome::fail(node_error(&e, &path.given, "scandir", None)),
    };
    let on_disk_visible: BTreeSet<String> = walker(&path.abs, Some(1))
        .flatten()
        .filter(|e| e.depth() == 1)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    let mut list = Vec::new();
    for (name, kind) in entries {
        if name.eq_ignore_ascii_case(".git") || ctx.sandbox.is_denied(&path.abs.join(&name)) {
            continue;
        }
        let disk = std::fs::symlink_metadata(path.abs.join(&name)).ok();
        if disk.is_some() && !on_disk_visible.contains(&name) {
            continue;
        }
        // An entry only an earlier block of this dry run created has no disk time: it would
        // have been written now.
        let modified = disk
            .and_then(|m| m.modified().ok())
            .unwrap_or_else(std::time::SystemTime::now);
        let (ty, size) = match kind {
            EntryKind::File { len, .. } => ("file", len),
            EntryKind::Dir => ("directory", 0),
            EntryKind::Symlink => ("symlink", 0),
        };
        let modified = clada_base::clock::iso_millis(modified);
        list.push(json!({"name": name, "type": ty, "size": size, "modified": modified}));
    }
    Outcome::ok(json!(list))
}

pub(super) fn grep(
    ctx: &mut Ctx<'_>,
    pattern: &str,
    path: &ResolvedPath,
    include: Option<&str>,
    regex: bool,
) -> Outcome {
    // The seeds' grep is a plain substring search; `regex = "true"` opts into expressions.
    let re = if regex {
        match regex::Regex::new(pattern) {
            Ok(r) => Some(r),
            Err(e) => {
                return Outcome::fail(format!("grep: invalid regular expression '{pattern}': {e}"))
            }
        }
    } else {
        None
    };
    let is_match = |line: &str| match &re {
        Some(r) => r.is_match(line),
        None => line.contains(pattern),
    };
    let include = match include.filter(|s| !s.is_empty()) {
        None => None,
        Some(g) => match globset::GlobBuilder::new(g).literal_separator(true).build() {
            Ok(glob) => Some((glob.compile_matcher(), g.contains('/'))),
            Err(e) => return Outcome::fail(format!("grep: invalid include glob '{g}': {e}")),
        },
    };
    if !ctx.vfs.exists(&path.abs) {
        let e = std::io::Error::from_raw_os_error(libc::ENOENT);
        return Outcome::fail(node_error(&e, &path.given, "scandir", None));
    }
    let is_dir = matches!(ctx.vfs.kind(&path.abs), Ok(EntryKind::Dir)) || path.abs.is_dir();
    let files = if is_dir {
        visible_files(ctx, &path.abs)
    } else {
        vec![path.abs.clone()]
    };
    let mut matches = Vec::new();
    let mut truncated = false;
    let mut skipped_binary = 0usize;
    'files: for f in files {
        if let Some((m, by_path)) = &include {
            let sub = f.strip_prefix(&path.abs).unwrap_or(&f);
            let candidate = if *by_path {
                sub.to_path_buf()
            } else {
                PathBuf::from(f.file_name().unwrap_or_default())
            };
            if is_dir && !m.is_match(&candidate) {
                continue;
            }
        }
        let Ok(bytes) = ctx.vfs.read(&f) else {
            continue;
        };
        if text_refusal(&bytes).is_some() {
            skipped_binary += 1;
            continue;
        }
        let text = String::from_utf8_lossy(&bytes);
        let shown = display(&path.given, &path.abs, &f);
        for (i, line) in text.split('\n').enumerate() {
            let line = line.strip_suffix('\r').unwrap_or(line);
            if is_match(line) {
                if matches.len() == MAX_GREP_MATCHES {
                    truncated = true;
                    break 'files;
                }
                let shown_line: String = line.chars().take(MAX_LINE_CHARS).collect();
                matches.push(json!({"file": shown, "line_number": i + 1, "line": shown_line}));
            }
        }
    }
    let mut out = Outcome::ok(json!(matches));
    if truncated {
        out.warnings.push(format!(
            "only the first {MAX_GREP_MATCHES} matches are shown; narrow the pattern, the path or \
             the include glob"
        ));
    }
    if skipped_binary > 0 {
        out.warnings.push(format!(
            "{skipped_binary} binary or oversized file(s) were not searched"
        ));
    }
    out
}

pub(super) fn glob(ctx: &mut Ctx<'_>, pattern: &str, base: &ResolvedPath) -> Outcome {
    let matcher = match globset::GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
    {
        Ok(g) => g.compile_matcher(),
        Err(e) => return Outcome::fail(format!("glob: invalid pattern '{pattern}': {e}")),
    };
    if let Some(e) = scandir_error(ctx, base) {
        return Outcome::fail(e);
    }
    let mut paths = Vec::new();
    let mut truncated = false;
    for f in visible_files(ctx, &base.abs) {
        let sub = f.strip_prefix(&base.abs).unwrap_or(&f);
        if matcher.is_match(sub) {
            if paths.len() == MAX_GLOB_PATHS {
                truncated = true;
                break;
            }
            paths.push(display(&base.given, &base.abs, &f));
        }
    }
    let mut out = Outcome::ok(json!(paths));
    if truncated {
        out.warnings.push(format!(
            "only the first {MAX_GLOB_PATHS} paths are shown; use a narrower pattern"
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_joins_given_base() {
        let base = Path::new("/r/src");
        assert_eq!(
            display("src", base, Path::new("/r/src/a/b.rs")),
            "src/a/b.rs"
        );
        assert_eq!(display(".", Path::new("/r"), Path::new("/r/x")), "x");
        assert_eq!(
            display("f.rs", Path::new("/r/f.rs"), Path::new("/r/f.rs")),
            "f.rs"
        );
    }
}
