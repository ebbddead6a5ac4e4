//! Whether an `exec` block may run (DESIGN §5.2, seeds 002/004), decided before anything is
//! started:
//!
//! 1. a read-only command from the seeds' CML whitelist (`cat`, `ls`, `grep`, `git status`,
//!    …), written as one shell line without metacharacters and in a form that cannot write,
//!    runs under every policy but an explicit `deny`, executed directly (no shell);
//! 2. `allow` runs everything, `deny` nothing;
//! 3. `ask`: a command stored in the repository's approval file
//!    (`.clada/allowed-commands.json`, exact string match) runs without asking; otherwise the
//!    prompt is asked (y / n / always — "always" runs every later block of this reply, and
//!    the caller stores the command in the approval file). With no prompt (not on a
//!    terminal) the block is refused.
//!
//! The approval file (`approvals.rs`) is read and written by the caller (the CLI), never by
//! the engine: the engine's writes become part of the AI commit, and an approval must outlive
//! an undo.

use std::path::{Component, Path};
use std::time::{Duration, Instant};

use super::approvals::APPROVALS_FILE;
use super::{Approval, ExecPolicy, ExecRequest, Lang, Runner};

/// The key a command is approved under: the code without surrounding whitespace.
pub fn approval_key(code: &str) -> String {
    code.trim().to_string()
}

/// Characters that make a line more than one plain command (pipes, redirections, lists,
/// substitutions, globs, quoting, comments, variables).
const SHELL_META: &[char] = &[
    '|', '&', ';', '<', '>', '(', ')', '$', '`', '\\', '"', '\'', '*', '?', '[', ']', '{', '}',
    '~', '#', '!', '\n', '\r', '=',
];

/// The CML whitelist's reading commands (seed 004), and the `git` subcommands.
const READ_ONLY: &[&str] = &[
    "cat", "head", "tail", "grep", "find", "ls", "pwd", "tree", "wc", "diff", "file", "stat",
    "realpath", "xxd",
];
const GIT_READ_ONLY: &[&str] = &["status", "diff", "log", "show", "branch", "ls-files"];

/// The argv of `code` when it is a read-only whitelisted command that may run without
/// asking, or why it is not.
pub fn read_only_argv(lang: Lang, code: &str) -> Result<Vec<String>, String> {
    if !matches!(lang, Lang::Bash | Lang::Sh) {
        return Err("not a shell command".into());
    }
    let line = code.trim();
    if let Some(c) = line.chars().find(|c| SHELL_META.contains(c)) {
        return Err(format!("contains the shell character {c:?}"));
    }
    let argv: Vec<String> = line.split_whitespace().map(str::to_string).collect();
    let Some(prog) = argv.first() else {
        return Err("empty".into());
    };
    for a in &argv[1..] {
        // (`=` is refused above, so no `--opt=/path` form gets here.)
        if a.starts_with('/') || Path::new(a).components().any(|c| c == Component::ParentDir) {
            return Err(format!("argument '{a}' reaches outside the worktree"));
        }
    }
    let args = &argv[1..];
    let has = |flags: &[&str]| args.iter().find(|a| flags.contains(&a.as_str()));
    let short_has = |letters: &[char]| {
        args.iter().find(|a| {
            a.starts_with('-')
                && !a.starts_with("--")
                && a.chars().skip(1).any(|c| letters.contains(&c))
        })
    };
    let refuse = |a: &String| Err(format!("'{prog} {a}' can write files"));
    match prog.as_str() {
        "git" => {
            let Some(sub) = args.first() else {
                return Err("git without a subcommand".into());
            };
            if !GIT_READ_ONLY.contains(&sub.as_str()) {
                return Err(format!("'git {sub}' is not a read-only git command"));
            }
            let rest = &args[1..];
            if let Some(a) = rest
                .iter()
                .find(|a| a.starts_with("--output") || a.starts_with("--ext-diff"))
            {
                return refuse(a);
            }
            if sub == "branch" {
                const LISTING: &[&str] = &[
                    "-a",
                    "-r",
                    "-v",
                    "-vv",
                    "-l",
                    "--list",
                    "--all",
                    "--remotes",
                    "--verbose",
                    "--show-current",
                    "--no-color",
                ];
                if let Some(a) = rest.iter().find(|a| !LISTING.contains(&a.as_str())) {
                    return Err(format!(
                        "'git branch {a}' can change branches (only listing forms run without asking)"
                    ));
                }
            }
            Ok(argv)
        }
        "find" => match has(&[
            "-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf",
            "-fls",
        ]) {
            Some(a) => refuse(a),
            None => Ok(argv),
        },
        "tree" => match short_has(&['o', 'R']).or_else(|| has(&["--output"])) {
            Some(a) => refuse(a),
            None => Ok(argv),
        },
        "file" => match short_has(&['C']).or_else(|| has(&["--compile"])) {
            Some(a) => refuse(a),
            None => Ok(argv),
        },
        "xxd" => {
            // A second file name is the output file.
            if args.iter().filter(|a| !a.starts_with('-')).count() > 1 {
                return Err("'xxd IN OUT' writes OUT".into());
            }
            Ok(argv)
        }
        p if READ_ONLY.contains(&p) => Ok(argv),
        p => Err(format!("'{p}' is not on the read-only list")),
    }
}

/// How a permitted exec block runs.
pub enum Permit {
    /// Through its interpreter.
    Interpreter,
    /// This program and arguments, without a shell (a read-only whitelisted command).
    Direct { prog: String, args: Vec<String> },
}

/// Whether the block may run (the executor's call site); `Err` is why not (the block's error).
pub(crate) fn permit(
    ctx: &mut Runner,
    block_id: &str,
    code: &str,
    lang: Lang,
    dir: &Path,
) -> Result<Permit, super::NotRun> {
    if ctx.settings.policy != ExecPolicy::Deny {
        if let Some((prog, args)) = read_only_argv(lang, code)
            .ok()
            .and_then(|argv| argv.split_first().map(|(p, a)| (p.clone(), a.to_vec())))
        {
            return Ok(Permit::Direct { prog, args });
        }
    }
    match ctx.settings.policy {
        ExecPolicy::Allow => return Ok(Permit::Interpreter),
        ExecPolicy::Deny => {
            return Err(super::NotRun::for_user(
                "exec: not run: running code is not allowed here (--exec deny)",
                "re-run with --exec allow to run exec blocks, or --exec ask to confirm each one",
            ))
        }
        ExecPolicy::Ask => {}
    }
    if ctx.always || ctx.settings.approved.contains(&approval_key(code)) {
        return Ok(Permit::Interpreter);
    }
    let Some(prompt) = ctx.settings.prompt.clone() else {
        return Err(super::NotRun::for_user(
            "exec: not run: the command is not approved and there is no terminal to ask (policy ask)",
            &format!(
                "approve it once interactively with \"always\" (stored in {APPROVALS_FILE}), add it to that file, or re-run with --exec allow"
            ),
        ));
    };
    let req = ExecRequest {
        block_id: block_id.to_string(),
        lang,
        code: code.to_string(),
        cwd: dir.to_path_buf(),
    };
    match prompt(&req) {
        Approval::Yes => Ok(Permit::Interpreter),
        Approval::No => Err(super::NotRun::for_user(
            "exec: not run: declined at the prompt; the block was not executed",
            "answer yes (or always) at the prompt to run it",
        )),
        Approval::Always => {
            ctx.always = true;
            Ok(Permit::Interpreter)
        }
    }
}

/// The time limit for the next block: its own (or the default), cut to what is left of
/// `--total-timeout`; `Err` (the block's error) when that is used up.
pub(crate) fn limit(ctx: &Runner, own: Duration) -> Result<Duration, super::NotRun> {
    let Some(deadline) = ctx.deadline else {
        return Ok(own);
    };
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Err(super::NotRun {
            message: format!(
                "exec: not run: the total time for exec blocks (--total-timeout {}) is used up",
                crate::config::format_duration(ctx.settings.total_timeout.unwrap_or_default())
            ),
            code: "exec_timeout",
            user_action: None,
        });
    }
    Ok(own.min(left))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(code: &str) -> bool {
        read_only_argv(Lang::Bash, code).is_ok()
    }

    #[test]
    fn whitelist_argument_rules() {
        for c in [
            "ls",
            "ls -la src",
            "cat README.md",
            "grep -rn TODO src",
            "git status",
            "git diff --stat",
            "git log --oneline -5",
            "git show HEAD",
            "git branch",
            "git branch -a -v",
            "git ls-files",
            "find src -name x.rs",
            "tree -L 2",
            "xxd file.bin",
            "wc -l src/main.rs",
            "  pwd  \n",
        ] {
            assert!(ok(c), "{c}: {:?}", read_only_argv(Lang::Bash, c));
        }
        for c in [
            "git stash",
            "git stash list",
            "git commit -m x",
            "git -c core.pager=x log",
            "git diff --output=x",
            "git log --output x",
            "git branch new",
            "git branch -D main",
            "find . -delete",
            "find . -exec rm {} ;",
            "find . -fprint out",
            "tree -o out.txt",
            "tree -Ro x",
            "file -C -m magic",
            "xxd in out",
            "cat a > b",
            "cat a>>b",
            "ls | sh",
            "ls; rm -rf x",
            "ls && rm x",
            "cat $(echo x)",
            "cat `x`",
            "echo hi",
            "rm -rf x",
            "mv a b",
            "cat /etc/passwd",
            "cat ../secret",
            "grep -r x ../..",
            "ls\nrm x",
            "cat 'a b'",
            "ls *",
            "FOO=1 ls",
            "",
        ] {
            assert!(!ok(c), "{c} should not run without asking");
        }
        assert!(read_only_argv(Lang::Python, "ls").is_err());
        assert_eq!(
            read_only_argv(Lang::Sh, "grep -n fn src/lib.rs").unwrap(),
            ["grep", "-n", "fn", "src/lib.rs"]
        );
    }
}
