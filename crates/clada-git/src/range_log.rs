//! The commits of a range with the lines each added per file, for `git clada stats`: one
//! `git log --numstat` over every parent (not only the first), renames detected, paths
//! unquoted (`-z`). A merge commit adds no lines of its own here (its lines are those of the
//! commits it merges, which are in the range themselves). Run through the `git` CLI with the
//! options a cloned repository's configuration could otherwise change (external diffs,
//! textconv, colour, relative paths, signatures, the merges' diff) set on the command line.

use super::{ObjectId, Repo, RepoError, Result};

/// One commit of a range.
#[derive(Debug, Clone)]
pub struct RangeCommit {
    pub id: ObjectId,
    pub parents: Vec<ObjectId>,
    /// The author's time, seconds since the epoch.
    pub author_time: i64,
    /// The files it changed against its parent (none for a merge).
    pub files: Vec<AddedLines>,
}

/// The lines a commit added to one file.
#[derive(Debug, Clone)]
pub struct AddedLines {
    pub path: String,
    /// The path it was renamed from, for a rename.
    pub from: Option<String>,
    /// Lines added (0 for a binary file).
    pub added: u64,
}

impl Repo {
    /// The commits reachable from `tip` and not from `stop` (all of them without one), newest
    /// first, with the lines each added.
    pub fn range_commits(&self, tip: ObjectId, stop: Option<ObjectId>) -> Result<Vec<RangeCommit>> {
        let out = self.read_git("log", &format!("of {tip}"), |cmd| {
            cmd.args([
                "-z",
                "--numstat",
                "-M",
                "--root",
                "--diff-merges=off",
                "--no-ext-diff",
                "--no-textconv",
                "--no-color",
                "--no-relative",
                "--no-show-signature",
                "--format=commit %H %at%x09%P",
            ]);
            cmd.arg(tip.to_string());
            if let Some(stop) = stop {
                cmd.arg(format!("^{stop}"));
            }
            cmd.arg("--");
        })?;
        parse_numstat(&out)
    }
}

fn bad(what: &str) -> RepoError {
    RepoError::Invalid(format!("cannot read git log's output: {what}"))
}

/// Reads `commit <id> <time>\t<parents>` headers, each followed by `added\tdeleted\tpath`
/// entries, a rename as `added\tdeleted\t` then the old and the new path; NUL-separated.
fn parse_numstat(out: &[u8]) -> Result<Vec<RangeCommit>> {
    let mut commits: Vec<RangeCommit> = Vec::new();
    let mut tokens = out
        .split(|&b| b == 0)
        .map(|t| t.strip_prefix(b"\n").unwrap_or(t));
    while let Some(token) = tokens.next() {
        if token.is_empty() {
            continue;
        }
        let text = String::from_utf8_lossy(token);
        if let Some(header) = text.strip_prefix("commit ") {
            commits.push(header_of(header)?);
            continue;
        }
        let commit = commits
            .last_mut()
            .ok_or_else(|| bad("an entry before a commit"))?;
        let mut fields = token.splitn(3, |&b| b == b'\t');
        let (Some(added), Some(_deleted), Some(path)) =
            (fields.next(), fields.next(), fields.next())
        else {
            return Err(bad(&text));
        };
        // `-` for a binary file.
        let added = std::str::from_utf8(added)
            .ok()
            .and_then(|a| a.parse().ok())
            .unwrap_or(0);
        let entry = if path.is_empty() {
            let mut path = || {
                tokens
                    .next()
                    .map(|p| String::from_utf8_lossy(p).into_owned())
                    .ok_or_else(|| bad("a rename without its paths"))
            };
            let from = path()?;
            AddedLines {
                path: path()?,
                from: Some(from),
                added,
            }
        } else {
            AddedLines {
                path: String::from_utf8_lossy(path).into_owned(),
                from: None,
                added,
            }
        };
        commit.files.push(entry);
    }
    Ok(commits)
}

fn header_of(header: &str) -> Result<RangeCommit> {
    let (head, parents) = header.split_once('\t').ok_or_else(|| bad(header))?;
    let (hex, time) = head.split_once(' ').ok_or_else(|| bad(header))?;
    let id =
        |h: &str| -> Result<ObjectId> { ObjectId::from_hex(h.as_bytes()).map_err(|_| bad(header)) };
    Ok(RangeCommit {
        id: id(hex)?,
        parents: parents.split_whitespace().map(&id).collect::<Result<_>>()?,
        author_time: time.trim().parse().map_err(|_| bad(header))?,
        files: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_numstat_with_renames() {
        let a = "0123456789012345678901234567890123456789";
        let b = "1123456789012345678901234567890123456789";
        let out = format!(
            "commit {a} 100\t{b}\0\n1\t0\t\0caf\u{e9}.txt\0th\u{e9}.txt\0-\t-\tbin\0commit {b} 50\t\0\n2\t0\tcommit x\0"
        );
        let got = parse_numstat(out.as_bytes()).unwrap();
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].parents.len(), 1);
        assert_eq!(got[0].files[0].path, "th\u{e9}.txt");
        assert_eq!(got[0].files[0].from.as_deref(), Some("caf\u{e9}.txt"));
        assert_eq!(
            (got[0].files[1].path.as_str(), got[0].files[1].added),
            ("bin", 0)
        );
        assert_eq!(got[1].author_time, 50);
        assert_eq!(
            (got[1].files[0].path.as_str(), got[1].files[0].added),
            ("commit x", 2)
        );
    }
}
