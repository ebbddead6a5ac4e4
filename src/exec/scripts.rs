//! Approvals of commands that run a worktree file are bound to that file's content (issue 37
//! §4, like direnv's `allow`): "always" for `bash scripts/check.sh` stores the command with the
//! SHA-256 of `scripts/check.sh`, and once a reply changed the file the command asks again,
//! naming it. The forms recognised, in each command of a shell block (split at `;`, `&&`,
//! `||`, `|`, `&` and new lines):
//! - the command word itself when it names a file of the worktree (`./x`, `scripts/x`,
//!   `bin/tool --flag`);
//! - the first operand after an interpreter and its options (`bash x.sh`, `sh -e x`,
//!   `python3 x.py`, `node x.js`, `ruby`, `perl`, `php`, `deno run`, `bun`, `tsx`, `npx tsx`…)
//!   when it names a file of the worktree.
//!
//! Commands such as `make` or `npm test` stay bound to their text only: the project code they
//! run may change (and then runs, in the sandbox), as the README says.

use std::path::{Path, PathBuf};

/// Words that run their first file operand.
const INTERPRETERS: &[&str] = &[
    "bash", "sh", "dash", "zsh", "ksh", "fish", "python", "python3", "python2", "pypy3", "node",
    "nodejs", "deno", "bun", "ruby", "perl", "php", "tsx", "ts-node", "lua", "Rscript", "source",
    ".",
];

/// The worktree files `code` (a shell block run in `cwd`) runs: root-relative path and
/// absolute path, in order, each once.
pub fn named_files(code: &str, cwd: &Path, root: &Path) -> Vec<(String, PathBuf)> {
    let mut out: Vec<(String, PathBuf)> = Vec::new();
    let normalized = code
        .replace("&&", "\n")
        .replace("||", "\n")
        .replace([';', '|', '&'], "\n");
    for segment in normalized.lines() {
        let words: Vec<&str> = segment
            .split_whitespace()
            .map(|w| w.trim_matches(|c| c == '"' || c == '\''))
            .collect();
        for w in candidates(&words) {
            if let Some(found) = worktree_file(w, cwd, root) {
                if !out.iter().any(|(r, _)| *r == found.0) {
                    out.push(found);
                }
            }
        }
    }
    out
}

/// The words of one command that may name the file it runs.
fn candidates<'a>(words: &[&'a str]) -> Vec<&'a str> {
    // Leading variable assignments (`FOO=1 ./x`) and `env`, `exec`, `npx`, `deno run`.
    let mut i = 0;
    while i < words.len()
        && (words[i].contains('=') || matches!(words[i], "env" | "exec" | "npx" | "command"))
    {
        i += 1;
    }
    let Some(&first) = words.get(i) else {
        return Vec::new();
    };
    let mut out = vec![first];
    let base = first.rsplit('/').next().unwrap_or(first);
    if INTERPRETERS.contains(&base) {
        let mut j = i + 1;
        if base == "deno" && words.get(j) == Some(&"run") {
            j += 1;
        }
        while j < words.len() && words[j].starts_with('-') {
            // Code on the command line (`python -c`, `python -m module`, `node -e`, `php -r`)
            // runs no file of its own.
            let inline: &[&str] = match base {
                "node" | "nodejs" | "ruby" | "perl" | "bun" | "deno" | "tsx" | "ts-node"
                | "lua" => &["-e", "--eval", "-p", "--print"],
                "php" => &["-r"],
                _ => &["-c", "-m"],
            };
            if inline.contains(&words[j]) {
                return out;
            }
            j += 1;
        }
        out.extend(words.get(j));
    }
    out
}

/// `word` as a regular file inside `root` (through `cwd`), if it is one.
fn worktree_file(word: &str, cwd: &Path, root: &Path) -> Option<(String, PathBuf)> {
    if word.is_empty() {
        return None;
    }
    let p = cwd.join(word);
    let canon = std::fs::canonicalize(&p).ok()?;
    let root = std::fs::canonicalize(root).ok()?;
    let rel = canon.strip_prefix(&root).ok()?;
    if rel.as_os_str().is_empty() || !std::fs::metadata(&canon).ok()?.is_file() {
        return None;
    }
    Some((rel.display().to_string(), canon))
}

/// `(root-relative path, SHA-256 of its content)` of every file [`named_files`] finds.
pub fn bindings(code: &str, cwd: &Path, root: &Path) -> Vec<(String, String)> {
    use sha2::Digest;
    named_files(code, cwd, root)
        .into_iter()
        .map(|(rel, abs)| {
            let hash = match std::fs::read(&abs) {
                Ok(bytes) => {
                    let d = sha2::Sha256::digest(&bytes);
                    d.iter().map(|b| format!("{b:02x}")).collect()
                }
                Err(_) => "unreadable".to_string(),
            };
            (rel, hash)
        })
        .collect()
}

/// The key an approval is kept under in memory: the command, then `\0path=hash` per file.
pub fn key(command: &str, bound: &[(String, String)]) -> String {
    let mut k = command.to_string();
    for (p, h) in bound {
        k.push('\0');
        k.push_str(p);
        k.push('=');
        k.push_str(h);
    }
    k
}

/// [`key`] taken apart.
pub fn split_key(key: &str) -> (String, Vec<(String, String)>) {
    let mut parts = key.split('\0');
    let command = parts.next().unwrap_or_default().to_string();
    let bound = parts
        .filter_map(|p| p.rsplit_once('='))
        .map(|(p, h)| (p.to_string(), h.to_string()))
        .collect();
    (command, bound)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_forms_that_run_a_worktree_file() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        std::fs::create_dir_all(r.join("scripts")).unwrap();
        for f in ["scripts/check.sh", "x", "t.py", "app.js", "Makefile"] {
            std::fs::write(r.join(f), "x").unwrap();
        }
        let names = |code: &str| -> Vec<String> {
            named_files(code, r, r)
                .into_iter()
                .map(|(p, _)| p)
                .collect()
        };
        assert_eq!(names("bash scripts/check.sh"), ["scripts/check.sh"]);
        assert_eq!(names("sh -e x"), ["x"]);
        assert_eq!(names("./x --fast"), ["x"]);
        assert_eq!(names("python3 -u t.py && node app.js"), ["t.py", "app.js"]);
        assert_eq!(
            names("FOO=1 ./scripts/check.sh | tee log"),
            ["scripts/check.sh"]
        );
        assert!(names("make test").is_empty() && names("npm test").is_empty());
        assert!(names("python -m pytest").is_empty() && names("cat x").is_empty());
        assert!(names("node -e x").is_empty() && names("bash -c x").is_empty());
        let b = bindings("bash scripts/check.sh", r, r);
        let k = key("bash scripts/check.sh", &b);
        assert_eq!(split_key(&k), ("bash scripts/check.sh".to_string(), b));
    }
}
