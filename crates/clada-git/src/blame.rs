//! `git blame --line-porcelain` of one file at one commit, for `git clada blame`: the commit
//! that last changed each line, and the line's number and path in that commit. Run through
//! the `git` CLI (gix's blame is not held to git's answers here); always at a commit, never
//! the worktree, so no filter or hook of the repository runs. Paths are read unquoted
//! (`core.quotePath=false`, and git's C-style quoting undone for the characters it still
//! quotes), so they match the paths the authorship logs name.

use std::process::{Command, Stdio};

use super::{ObjectId, Repo, RepoError, Result};

/// One line of a blame.
#[derive(Debug, Clone)]
pub struct BlameLine {
    /// 1-based, in the blamed version.
    pub line: u32,
    pub commit: ObjectId,
    /// 1-based, in `commit`'s version of the file.
    pub orig_line: u32,
    /// The file's path in `commit`.
    pub orig_path: String,
    pub author: String,
    pub content: Vec<u8>,
}

impl Repo {
    /// The blame of `path` at commit `rev`, lines `range` (1-based, inclusive) or all.
    pub fn blame(
        &self,
        rev: ObjectId,
        path: &str,
        range: Option<(u32, u32)>,
    ) -> Result<Vec<BlameLine>> {
        let out = self.read_git("blame", &format!("of {path} at {rev}"), |cmd| {
            cmd.args(["--line-porcelain", "--no-textconv"]);
            if let Some((a, b)) = range {
                cmd.arg(format!("-L{a},{b}"));
            }
            cmd.arg(rev.to_string()).arg("--").arg(path);
        })?;
        parse_porcelain(&out)
    }
}

impl Repo {
    /// The output of the read-only `git <sub> …` (arguments added by `args`) run in this
    /// worktree with git's own fsmonitor off and paths unquoted, standard input closed; an
    /// error names the command and `what` it was for (`of <path> at <rev>`) with git's words.
    pub(crate) fn read_git(
        &self,
        sub: &str,
        what: &str,
        args: impl FnOnce(&mut Command),
    ) -> Result<Vec<u8>> {
        let mut cmd = Command::new("git");
        cmd.arg("-C").arg(self.workdir()).args([
            "-c",
            "core.fsmonitor=false",
            "-c",
            "core.quotePath=false",
            sub,
        ]);
        args(&mut cmd);
        let out = cmd
            .stdin(Stdio::null())
            .output()
            .map_err(|e| RepoError::Invalid(format!("cannot run git {sub}: {e}")))?;
        if !out.status.success() {
            return Err(RepoError::Invalid(format!(
                "git {sub} {what} failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        Ok(out.stdout)
    }
}

fn bad(what: &str) -> RepoError {
    RepoError::Invalid(format!("cannot read git blame's output: {what}"))
}

/// Reads `--line-porcelain` output: a header `<sha> <orig> <final> [<n>]`, `key value` lines,
/// the content after a tab.
fn parse_porcelain(out: &[u8]) -> Result<Vec<BlameLine>> {
    let mut lines = Vec::new();
    let mut current: Option<BlameLine> = None;
    for raw in out.split(|&b| b == b'\n') {
        if let Some(content) = raw.strip_prefix(b"\t") {
            let mut l = current
                .take()
                .ok_or_else(|| bad("content before a header"))?;
            l.content = content.to_vec();
            lines.push(l);
            continue;
        }
        let text = String::from_utf8_lossy(raw);
        match &mut current {
            None if !raw.is_empty() => {
                let mut parts = text.split(' ');
                let sha = parts.next().ok_or_else(|| bad("empty header"))?;
                let commit = ObjectId::from_hex(sha.as_bytes()).map_err(|_| bad(&text))?;
                let orig = parts
                    .next()
                    .and_then(|n| n.parse().ok())
                    .ok_or_else(|| bad(&text))?;
                let line = parts
                    .next()
                    .and_then(|n| n.parse().ok())
                    .ok_or_else(|| bad(&text))?;
                current = Some(BlameLine {
                    line,
                    commit,
                    orig_line: orig,
                    orig_path: String::new(),
                    author: String::new(),
                    content: Vec::new(),
                });
            }
            Some(l) => {
                if let Some(a) = text.strip_prefix("author ") {
                    l.author = a.to_string();
                } else if let Some(f) = text.strip_prefix("filename ") {
                    l.orig_path = unquote(f);
                }
            }
            None => {}
        }
    }
    Ok(lines)
}

/// A path as git prints it: as is, or in double quotes with C-style escapes (`\"`, `\\`,
/// `\t`, `\n`, octal bytes) when it holds a character git still quotes.
pub(crate) fn unquote(text: &str) -> String {
    let Some(inner) = text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) else {
        return text.to_string();
    };
    let bytes = inner.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' || i + 1 == bytes.len() {
            out.push(bytes[i]);
            i += 1;
            continue;
        }
        let c = bytes[i + 1];
        let octal = bytes
            .get(i + 1..i + 4)
            .filter(|d| d.iter().all(|b| (b'0'..=b'7').contains(b)));
        if let Some(d) = octal {
            out.push(
                d.iter()
                    .fold(0u8, |n, b| n.wrapping_mul(8).wrapping_add(b - b'0')),
            );
            i += 4;
            continue;
        }
        out.push(match c {
            b'n' => b'\n',
            b't' => b'\t',
            b'r' => b'\r',
            b'a' => 7,
            b'b' => 8,
            b'f' => 12,
            b'v' => 11,
            other => other,
        });
        i += 2;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_line_porcelain() {
        let sha = "0123456789012345678901234567890123456789";
        let out = format!(
            "{sha} 3 1 1\nauthor A B\nauthor-mail <a@b>\nfilename src/x.rs\n\tfn main() {{}}\n{sha} 4 2\nauthor A B\nfilename src/x.rs\n\t}}\n"
        );
        let got = parse_porcelain(out.as_bytes()).unwrap();
        assert_eq!(got.len(), 2);
        assert_eq!((got[0].line, got[0].orig_line), (1, 3));
        assert_eq!(got[1].orig_path, "src/x.rs");
        assert_eq!(got[1].content, b"}");
        assert_eq!(got[0].author, "A B");
    }

    #[test]
    fn reads_quoted_paths() {
        assert_eq!(unquote("caf\u{e9}.txt"), "caf\u{e9}.txt");
        assert_eq!(unquote("\"caf\\303\\251.txt\""), "caf\u{e9}.txt");
        assert_eq!(unquote("\"a\\tb\\\"c\\\\d\""), "a\tb\"c\\d");
    }
}
