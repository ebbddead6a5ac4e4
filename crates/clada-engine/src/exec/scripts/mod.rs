//! Approvals of commands that run a worktree file are bound to that file's content (issue 37
//! §4, like direnv's `allow`; issue 51 §8): "always" for `bash scripts/check.sh` stores the
//! command with the SHA-256 of `scripts/check.sh`, and once a reply changed the file the
//! command asks again, naming it. A shell block is read like a shell reads it ([`lex`]:
//! quotes, substitutions, operators, redirections, here-documents), and in each command the
//! worktree files in executable position are found ([`read`]):
//!
//! - the command word, after variable assignments, reserved words (`if`, `!`, `time`…) and
//!   wrappers that run the command after their options (`timeout 60`, `nice -n 5`, `time`,
//!   `nohup`, `env -i`, `env -C dir`, `exec`, `command`, `stdbuf`, `setsid`, `ionice`, `npx`,
//!   `npm exec`, `poetry run`, `xargs`… — [`runners::WRAPPERS`]) and `find -exec`'s; a word
//!   without `/` is looked up in `$PATH` (as the block's `PATH=` changes it), `npx`'s in
//!   `node_modules/.bin`, `uv run`'s in `.venv/bin`;
//! - an interpreter's file operand, the files its options load (`node -r`, `bash --rcfile`,
//!   `php -f`, `awk -f`), `python -m`'s module ([`runners::INTERPRETERS`]);
//! - the shell code of `bash -c '…'`, of a here-document or here-string, read the same way;
//!   the file of a shell's redirected input (`bash <t.sh`) and of `cat FILE | bash`, the code
//!   of `echo CODE | bash`;
//! - the code inside `$(…)`, backticks and `<(…)`;
//! - relative to the folders `cd` and `pushd` move to (each `cd` adds its folder: it may
//!   fail, or sit in a branch not taken), `env -C`, and the block's own folder.
//!
//! What cannot be read with certainty makes the whole block [`Reading::uncertain`]: a
//! command word computed when it runs (`$CMD`, `./scripts/*.sh`), a file operand or `-c`
//! string computed so, a `cd` to a computed folder before a relative program, another
//! command's output piped into an interpreter, programs that run commands git-clada does
//! not read (`eval`, `xargs -I`, `sudo`, `find -exec {}`, `git -c`, `env -S`), a `PATH` or
//! `NODE_OPTIONS` that loads code, a program looked up after a `source` (which may change
//! `PATH`), shell code git-clada cannot lex. Such a block is never
//! approved for "always": it asks each time.
//!
//! Commands such as `make` or `npm test` stay bound to their text only: the project code they
//! run may change (and then runs, in the sandbox), as the README says. So does code inline in
//! another language (`python -c`, `node -e`).

mod lex;
mod read;
mod runners;

use std::path::{Path, PathBuf};

/// The worktree files a shell block runs, and whether that could be read with certainty.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reading<T> {
    /// In order, each once.
    pub files: Vec<T>,
    /// Why it cannot be read with certainty: then no approval runs it without asking.
    pub uncertain: Option<String>,
}

/// The worktree files `code` (a shell block run in `cwd`) runs: root-relative path and
/// absolute path.
pub fn named_files(code: &str, cwd: &Path, root: &Path) -> Reading<(String, PathBuf)> {
    let mut r = read::Reader::new(root);
    r.code(code, Some(vec![cwd.to_path_buf()]));
    Reading {
        files: r.files,
        uncertain: r.uncertain,
    }
}

/// `(root-relative path, SHA-256 of its content)` of every file [`named_files`] finds.
pub fn bindings(code: &str, cwd: &Path, root: &Path) -> Reading<(String, String)> {
    use sha2::Digest;
    let found = named_files(code, cwd, root);
    Reading {
        files: found
            .files
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
            .collect(),
        uncertain: found.uncertain,
    }
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
mod tests;
