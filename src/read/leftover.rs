//! The pre-commit check (DESIGN §7.6): staged content that still holds action-block markers —
//! an LLM reply pasted into a source file by mistake — is refused with file and line. Files
//! matching `check.allow` (`.clada.yml`) are exempt, for files that document the format.
//!
//! The staged content is read with the `git` CLI, so it is exactly what `git commit` is about
//! to record: `GIT_INDEX_FILE` (set by `git commit -a`/`git commit PATH` for its hooks) and
//! `GIT_DIR` are honoured.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde::Serialize;

/// One leftover marker.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// Repository-relative, `/`-separated.
    pub path: String,
    /// 1-based.
    pub line: usize,
    /// The marker line (trimmed, at most 80 characters).
    pub marker: String,
}

fn is_id(s: &str) -> bool {
    (2..=40).contains(&s.len())
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// Whether `line` is a block marker: a header or end marker in any SHAM/NESL spelling, a CSL
/// marker line (`<---WRITE file="…"--->`, `<---END--->`, …) or a replacer-format marker line
/// (`<<<SEARCH>>>`, …). CML is left out: its elements are ordinary XML, which real files hold.
pub fn is_marker(line: &str) -> bool {
    let l = line.trim_end_matches(['\r', ' ', '\t']);
    const REPLACER: [&str; 6] = [
        "<<<EXPLANATION>>>",
        "<<<FILE>>>",
        "<<<SEARCH>>>",
        "<<<REPLACE>>>",
        "<<<OVERWRITE>>>",
        "<<<END>>>",
    ];
    if REPLACER.contains(&l) {
        return true;
    }
    if let Some(inner) = l.strip_prefix("<---").and_then(|r| r.strip_suffix("--->")) {
        let word = inner.split([' ', '\t']).next().unwrap_or("");
        return ["WRITE", "RUN", "SEARCH", "TO", "REPLACE", "END", "TASKS"].contains(&word);
    }
    if ["#!SHAM [@", "#!NESL [@", "#!nesl [@"]
        .iter()
        .any(|p| l.starts_with(p))
    {
        return super::sham::header_id(l).is_some() || l.ends_with(']');
    }
    ["#!END_SHAM_", "#!END_NESL_", "#!end_"].iter().any(|p| {
        l.strip_prefix(p)
            .is_some_and(|id| is_id(id.strip_suffix('\'').unwrap_or(id)))
    })
}

/// The markers in one file's content (binary content — a NUL in its first 8 KiB — has none).
pub fn scan(path: &str, content: &[u8]) -> Vec<Finding> {
    if content[..content.len().min(8192)].contains(&0) {
        return Vec::new();
    }
    let text = String::from_utf8_lossy(content);
    text.lines()
        .enumerate()
        .filter(|(_, l)| is_marker(l))
        .map(|(i, l)| Finding {
            path: path.to_string(),
            line: i + 1,
            marker: l.trim_end().chars().take(80).collect(),
        })
        .collect()
}

/// `check.allow` globs (`*` also crosses `/`; `docs/**`, `*.md`).
pub fn allow_set(globs: &[String]) -> anyhow::Result<globset::GlobSet> {
    let mut b = globset::GlobSetBuilder::new();
    for g in globs {
        b.add(globset::Glob::new(g).map_err(|e| {
            anyhow::anyhow!("check.allow: '{g}' is not a valid glob: {e} (fix it in .clada.yml)")
        })?);
    }
    Ok(b.build()?)
}

fn git(cwd: &Path, args: &[&str]) -> anyhow::Result<Vec<u8>> {
    let out = Command::new("git")
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| anyhow::anyhow!("cannot run git: {e}"))?;
    if !out.status.success() {
        anyhow::bail!(
            "git {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(out.stdout)
}

/// The staged files to check, as (repository-relative path, blob id): with `paths`, their
/// index entries (as the pre-commit framework passes them, also under `--all-files`);
/// without, every file the commit adds or changes. Submodules and symlinks are skipped.
fn staged_entries(cwd: &Path, paths: &[PathBuf]) -> anyhow::Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    if paths.is_empty() {
        // `:old_mode new_mode old_id new_id status\0path\0`
        let raw = git(
            cwd,
            &[
                "diff",
                "--cached",
                "--raw",
                "-z",
                "--no-renames",
                "--abbrev=64",
                "--diff-filter=ACM",
            ],
        )?;
        let mut parts = raw.split(|&b| b == 0).filter(|p| !p.is_empty());
        while let (Some(meta), Some(path)) = (parts.next(), parts.next()) {
            let meta = String::from_utf8_lossy(meta);
            let f: Vec<&str> = meta.trim_start_matches(':').split(' ').collect();
            if f.len() >= 4 && f[1].starts_with("100") {
                out.push((String::from_utf8_lossy(path).into_owned(), f[3].to_string()));
            }
        }
    } else {
        let mut args = vec!["ls-files", "-s", "-z", "--full-name", "--"];
        let given: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        args.extend(given.iter().map(String::as_str));
        // `mode id stage\tpath\0`
        for rec in git(cwd, &args)?
            .split(|&b| b == 0)
            .filter(|p| !p.is_empty())
        {
            let rec = String::from_utf8_lossy(rec);
            let Some((meta, path)) = rec.split_once('\t') else {
                continue;
            };
            let f: Vec<&str> = meta.split(' ').collect();
            if f.len() >= 2 && f[0].starts_with("100") {
                out.push((path.to_string(), f[1].to_string()));
            }
        }
    }
    Ok(out)
}

/// Reads blobs with one `git cat-file --batch`.
fn read_blobs(cwd: &Path, ids: &[&str]) -> anyhow::Result<Vec<Vec<u8>>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut child = Command::new("git")
        .args(["cat-file", "--batch"])
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| anyhow::anyhow!("cannot run git cat-file: {e}"))?;
    let input: String = ids.iter().map(|id| format!("{id}\n")).collect();
    let mut stdin = child
        .stdin
        .take()
        .ok_or_else(|| anyhow::anyhow!("git cat-file has no stdin"))?;
    // Written on a thread: git answers while it reads, and both pipes can fill up.
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child
        .wait_with_output()
        .map_err(|e| anyhow::anyhow!("git cat-file failed: {e}"))?;
    let _ = writer.join();
    let data = out.stdout;
    let mut blobs = Vec::with_capacity(ids.len());
    let mut pos = 0;
    for id in ids {
        let nl = data[pos..]
            .iter()
            .position(|&b| b == b'\n')
            .map(|i| pos + i)
            .ok_or_else(|| anyhow::anyhow!("git cat-file ended early at {id}"))?;
        let header = String::from_utf8_lossy(&data[pos..nl]).into_owned();
        let size: usize = header
            .rsplit(' ')
            .next()
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| anyhow::anyhow!("git cat-file: unexpected answer '{header}'"))?;
        let start = nl + 1;
        let end = start + size;
        if end > data.len() {
            anyhow::bail!("git cat-file: short read for {id}");
        }
        blobs.push(data[start..end].to_vec());
        pos = end + 1;
    }
    Ok(blobs)
}

/// Checks the staged content (see [`staged_entries`] for which files) of the repository
/// containing `cwd` (`paths` are relative to it); `allow` exempts paths.
pub fn check_staged(
    cwd: &Path,
    paths: &[PathBuf],
    allow: &globset::GlobSet,
) -> anyhow::Result<(usize, Vec<Finding>)> {
    let entries: Vec<(String, String)> = staged_entries(cwd, paths)?
        .into_iter()
        .filter(|(p, _)| !allow.is_match(p))
        .collect();
    let ids: Vec<&str> = entries.iter().map(|(_, id)| id.as_str()).collect();
    let blobs = read_blobs(cwd, &ids)?;
    let findings = entries
        .iter()
        .zip(&blobs)
        .flat_map(|((p, _), b)| scan(p, b))
        .collect();
    Ok((entries.len(), findings))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_in_every_spelling() {
        for l in [
            "#!SHAM [@three-char-SHA-256: abc]",
            "#!NESL [@three-char-SHA-256: x1y]",
            "#!nesl [@three-char-SHA-256: k9]",
            "#!END_SHAM_abc",
            "#!END_NESL_x1y",
            "#!end_k9",
            "#!end_k9'",
            "#!end_abc  \r",
            "<---WRITE file=\"src/a.rs\"--->",
            "<---SEARCH file=\"a\" count=\"all\"--->",
            "<---END--->",
            "<---TASKS--->",
            "<<<SEARCH>>>",
            "<<<END>>>",
        ] {
            assert!(is_marker(l), "{l}");
        }
        for l in [
            "#!/bin/sh",
            "# #!SHAM [@three-char-SHA-256: abc]",
            "  #!end_abc",
            "#!end_",
            "#!endless",
            "#!end_a b",
            "EOT_SHAM_abc",
            "<---->",
            "<---arrow--->",
            "x <<<END>>>",
            "<<<NOT>>>",
            "<tasks version=\"1\">",
        ] {
            assert!(!is_marker(l), "{l}");
        }
        let f = scan(
            "a.rs",
            b"fn main() {}\n#!SHAM [@three-char-SHA-256: abc]\nx\n#!END_SHAM_abc\n",
        );
        assert_eq!(
            f.iter().map(|f| f.line).collect::<Vec<_>>(),
            [2, 4],
            "{f:?}"
        );
        assert!(scan("b.bin", b"\0#!end_abc\n").is_empty());
    }
}
