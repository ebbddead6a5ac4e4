//! The staged content of the repository around a folder, for `git clada check --staged`: the
//! files a commit adds or changes (or the named ones) and their blobs.
//!
//! Read with the `git` CLI, not gix, so it is exactly what `git commit` is about to record:
//! `GIT_INDEX_FILE` (set by `git commit -a`/`git commit PATH` for its hooks) and `GIT_DIR` are
//! honoured as git itself honours them. This and `blame.rs` are the places git-clada runs `git` for
//! itself; the layers below (`read/` holds the marker scan) never do.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// One staged file: its repository-relative, `/`-separated path and its content.
pub struct StagedFile {
    pub path: String,
    pub content: Vec<u8>,
}

/// The staged files to check (see [`staged_entries`] for which) of the repository containing
/// `cwd` (`paths` are relative to it), with their content; `keep` decides by path which are
/// read at all.
pub fn staged_files(
    cwd: &Path,
    paths: &[PathBuf],
    keep: impl Fn(&str) -> bool,
) -> anyhow::Result<Vec<StagedFile>> {
    let entries: Vec<(String, String)> = staged_entries(cwd, paths)?
        .into_iter()
        .filter(|(p, _)| keep(p))
        .collect();
    let ids: Vec<&str> = entries.iter().map(|(_, id)| id.as_str()).collect();
    let blobs = read_blobs(cwd, &ids)?;
    Ok(entries
        .into_iter()
        .zip(blobs)
        .map(|((path, _), content)| StagedFile { path, content })
        .collect())
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
