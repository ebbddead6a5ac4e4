//! Whether an `exec` block may run (DESIGN §5.2, seeds 002/004), decided before anything is
//! started:
//!
//! 1. a read-only command from the seeds' CML whitelist (`cat`, `ls`, `grep`, `git status`,
//!    …), written as one shell line without metacharacters, in a form that cannot write, and
//!    with no argument that leads outside the worktree or into `.git`, runs under every
//!    policy but an explicit `deny`, executed directly (no shell) in the `read-only` OS
//!    sandbox ([`super::confine`]) — and only where that sandbox is available: without it the
//!    list is off and such commands ask like any other. git is pinned to this repository
//!    ([`pinned`]): its git directory and work tree given explicitly (a nested repository a
//!    reply wrote is never discovered), fsmonitor, hooks, pagers, external diff and textconv
//!    off, no lazy fetch, no global or system config. The argument rules are the first wall,
//!    the sandbox the second: a write option the rules miss still cannot write. What the
//!    model may not see stays out (issue 37 §2): every other command runs in the read-only
//!    view ([`super::view`]: no git directory, no `paths.deny` match) and asks where that
//!    view cannot be made; git gets exclude pathspecs and asks for what they cannot cut
//!    ([`super::pathspec`]), and asks before git-clada's own refs and any object outside the
//!    history ([`super::git_refs`]);
//! 2. `allow` runs everything, `deny` nothing;
//! 3. `ask`: a command among the user's approvals ([`super::approvals`], exact string match)
//!    runs without asking; otherwise the prompt is asked (y / n / always — "always" runs every
//!    later block of this reply, and the caller stores the command with the approvals). With
//!    no prompt (not on a terminal) the block is refused.
//!
//! The approvals are read and written by the caller (the CLI), never by the engine, and live
//! where no reply and no clone can write them.

use std::path::{Component, Path};
use std::time::{Duration, Instant};

use super::confine::Confine;
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
const GIT_READ_ONLY: &[&str] = &[
    "status", "diff", "log", "show", "branch", "ls-files", "grep",
];

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
        // (`=` is refused above, so no `--opt=/path` form gets here; an option with a path
        // attached, `-f/etc/x`, is refused whole.)
        if a.starts_with('/')
            || (a.starts_with('-') && a.contains('/'))
            || Path::new(a).components().any(|c| c == Component::ParentDir)
        {
            return Err(format!("argument '{a}' reaches outside the worktree"));
        }
        if crate::sandbox::has_git_component(Path::new(a)) {
            return Err(format!("argument '{a}' names git's own files"));
        }
    }
    let args = &argv[1..];
    // Exact, or a long option's abbreviation (getopt and git accept unambiguous prefixes).
    let has = |flags: &[&str]| {
        args.iter().find(|a| {
            flags.iter().any(|f| {
                a.as_str() == *f
                    || (a.starts_with("--") && a.len() >= 4 && f.starts_with(a.as_str()))
            })
        })
    };
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
            if let Some(a) = has(&[
                "--output",
                "--ext-diff",
                "--textconv",
                "--open-files-in-pager",
            ])
            .filter(|a| rest.contains(a))
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
            // A second file name is the output file (`-` is a file name: standard input).
            if args
                .iter()
                .filter(|a| !a.starts_with('-') || a.as_str() == "-")
                .count()
                > 1
            {
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
    /// This program and arguments, without a shell (a read-only whitelisted command), with
    /// the entries hidden from it (`exec/view.rs`; every command but git).
    Direct {
        prog: String,
        args: Vec<String>,
        view: Option<std::sync::Arc<super::view::View>>,
    },
}

/// The read-only command `code` as a direct command, if it may run without asking here:
/// on the list ([`read_only_argv`]), the OS sandbox available, git only with a repository to
/// pin it to and (under `paths.deny`) none of what its pathspecs cannot cut
/// (`exec/pathspec.rs`), any other command only in the read-only view (`exec/view.rs`), and
/// no operand that (through a symlink) leads outside `root` or into `.git`.
fn read_only_direct(
    confine: &Confine,
    lang: Lang,
    code: &str,
    dir: &Path,
    sandbox: &crate::sandbox::Sandbox,
    reachable: Option<&super::ReachableCommit>,
) -> Result<Permit, String> {
    let root = sandbox.root();
    let argv = read_only_argv(lang, code)?;
    if let super::confine::Availability::Unavailable(why) = confine.availability() {
        return Err(format!(
            "the read-only list is off because the OS sandbox is unavailable ({why})"
        ));
    }
    let Some((prog, args)) = argv.split_first() else {
        return Err("empty".into());
    };
    if prog == "git" && confine.git_dir().is_none() {
        return Err("git runs without asking only inside a repository".into());
    }
    let deny = sandbox.denied_globs();
    if prog == "git" && !deny.is_empty() {
        let history = |a: &str| super::git_refs::names_history(a, reachable);
        if let Some(why) = super::pathspec::refusal_with(args, &history) {
            return Err(why);
        }
    }
    if prog == "git" {
        if let Some(why) = super::git_refs::refusal(args, dir, reachable) {
            return Err(why);
        }
    }
    let view = match prog.as_str() {
        "git" => None,
        _ => Some(read_only_view(confine, sandbox)?),
    };
    for a in args.iter().filter(|a| !a.starts_with('-')) {
        let p = dir.join(a);
        if std::fs::symlink_metadata(&p).is_err() {
            continue;
        }
        let real = std::fs::canonicalize(&p).unwrap_or(p);
        let inside = real
            .strip_prefix(root)
            .is_ok_and(|rel| !crate::sandbox::has_git_component(rel));
        if !inside {
            return Err(format!(
                "'{a}' leads to '{}', outside the worktree or inside .git",
                real.display()
            ));
        }
    }
    Ok(Permit::Direct {
        prog: prog.clone(),
        args: args.to_vec(),
        view,
    })
}

/// The read-only view of the worktree for a command other than git, or why there is none.
fn read_only_view(
    confine: &Confine,
    sandbox: &crate::sandbox::Sandbox,
) -> Result<std::sync::Arc<super::view::View>, String> {
    if !super::confine::view_available() {
        return Err(
            "commands other than git run without asking only in a view of the worktree that \
             hides its git directories and paths.deny, and no mount namespace can be made \
             here to build one"
                .into(),
        );
    }
    super::view::of(
        sandbox.root(),
        &confine.git_dirs,
        sandbox.denied_globs(),
        &|p| sandbox.is_denied(p),
    )
    .map_err(|e| format!("the read-only view of the worktree cannot be made: {e}"))
}

/// The arguments and environment a read-only command runs with: for git, pinned to this
/// repository with everything that could run other code switched off (see the module docs)
/// and the `deny` globs excluded (`exec/pathspec.rs`; its operands are looked up in `dir`);
/// other commands as they are. `None` in the environment removes the variable.
pub(crate) fn pinned(
    prog: &str,
    args: Vec<String>,
    confine: &Confine,
    root: &Path,
    deny: &[String],
    dir: &Path,
) -> (Vec<String>, Vec<(&'static str, Option<std::ffi::OsString>)>) {
    let Some(git_dir) = confine.git_dir().filter(|_| prog == "git") else {
        return (args, Vec::new());
    };
    let mut pinned: Vec<String> = [
        "--no-pager",
        "-c",
        "core.fsmonitor=false",
        "-c",
        "core.hooksPath=/dev/null",
        "-c",
        "core.pager=cat",
        "-c",
        "diff.external=",
        "-c",
        "submodule.recurse=false",
    ]
    .map(String::from)
    .to_vec();
    let args = super::git_refs::hide_internal(args);
    let mut rest = super::pathspec::with_excludes(args, deny, dir).into_iter();
    if let Some(sub) = rest.next() {
        let diffs = matches!(sub.as_str(), "diff" | "log" | "show");
        pinned.push(sub);
        if diffs {
            pinned.extend(["--no-ext-diff", "--no-textconv"].map(String::from));
        }
    }
    pinned.extend(rest);
    let set = |v: &std::ffi::OsStr| Some(v.to_os_string());
    let mut env = vec![
        ("GIT_DIR", set(git_dir.as_os_str())),
        ("GIT_WORK_TREE", set(root.as_os_str())),
        ("GIT_CONFIG_NOSYSTEM", set("1".as_ref())),
        ("GIT_CONFIG_GLOBAL", set("/dev/null".as_ref())),
        ("GIT_PAGER", set("cat".as_ref())),
        ("PAGER", set("cat".as_ref())),
        ("GIT_OPTIONAL_LOCKS", set("0".as_ref())),
        ("GIT_TERMINAL_PROMPT", set("0".as_ref())),
        ("GIT_NO_LAZY_FETCH", set("1".as_ref())),
    ];
    env.extend(
        super::git_refs::NOTES_ENV
            .iter()
            .map(|(k, v)| (*k, set(v.as_ref()))),
    );
    for k in [
        "GIT_EXTERNAL_DIFF",
        "GIT_INDEX_FILE",
        "GIT_OBJECT_DIRECTORY",
        "GIT_ALTERNATE_OBJECT_DIRECTORIES",
        "GIT_COMMON_DIR",
        "GIT_CONFIG",
        "GIT_CONFIG_PARAMETERS",
        "GIT_CONFIG_COUNT",
        "GIT_NAMESPACE",
        "GIT_CEILING_DIRECTORIES",
        "GIT_DISCOVERY_ACROSS_FILESYSTEM",
        "GIT_EXEC_PATH",
        "GIT_SSH",
        "GIT_SSH_COMMAND",
        "GIT_ASKPASS",
        "LESSOPEN",
        "LESSCLOSE",
        "GIT_LITERAL_PATHSPECS",
        "GIT_GLOB_PATHSPECS",
        "GIT_NOGLOB_PATHSPECS",
        "GIT_ICASE_PATHSPECS",
    ] {
        env.push((k, None));
    }
    (pinned, env)
}

/// Whether the block may run (the executor's call site); `Err` is why not (the block's error).
pub(crate) fn permit(
    ctx: &mut Runner,
    block_id: &str,
    code: &str,
    lang: Lang,
    dir: &Path,
    sandbox: &crate::sandbox::Sandbox,
) -> Result<Permit, super::NotRun> {
    let root = sandbox.root();
    if ctx.settings.policy != ExecPolicy::Deny {
        if let Some(why) = ctx.settings.confine.refusal() {
            return Err(super::NotRun::for_user(
                &format!("exec: not run: {why}"),
                "run the code yourself, or set `sandbox.level: off` in your own configuration \
                 (~/.config/clada/config.yml) to run exec blocks without a sandbox",
            ));
        }
    }
    let mut list_off = None;
    if ctx.settings.policy != ExecPolicy::Deny {
        let reachable = ctx.settings.reachable_commit.as_deref();
        match read_only_direct(&ctx.settings.confine, lang, code, dir, sandbox, reachable) {
            Ok(p) => return Ok(p),
            Err(why) if read_only_argv(lang, code).is_ok() => list_off = Some(why),
            Err(_) => {}
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
    let key = approval_key(code);
    let reading = match lang {
        Lang::Bash | Lang::Sh => super::scripts::bindings(code, dir, root),
        _ => super::scripts::Reading::default(),
    };
    let certain = reading.uncertain.is_none();
    let bound = reading.files;
    if ctx.always
        || (certain
            && ctx
                .settings
                .approved
                .contains(&super::scripts::key(&key, &bound)))
    {
        return Ok(Permit::Interpreter);
    }
    let note = match &reading.uncertain {
        Some(why) => Some(unreadable(&ctx.settings.approved, &key, why)),
        None => asks_again(&ctx.settings.approved, &key, &bound),
    };
    let Some(prompt) = ctx.settings.prompt.clone() else {
        let why = list_off
            .map(|w| format!(" (it would run without asking, but {w})"))
            .or(note.map(|n| format!(" ({n})")))
            .unwrap_or_default();
        let how = match certain {
            true => {
                "approve it once interactively with \"always\" (kept with your approvals, in \
                 .git/clada/allowed-commands.json, out of any reply's reach), or re-run with \
                 --exec allow"
            }
            false => "run it from a terminal, which asks each time, or re-run with --exec allow",
        };
        return Err(super::NotRun::for_user(
            &format!(
                "exec: not run: the command is not approved and there is no terminal to ask \
                 (policy ask){why}"
            ),
            how,
        ));
    };
    let req = ExecRequest {
        block_id: block_id.to_string(),
        lang,
        code: code.to_string(),
        cwd: dir.to_path_buf(),
        bound,
        note: note.or(list_off.map(|w| format!("(it would run without asking, but {w})"))),
        no_always: reading.uncertain,
    };
    match prompt(&req) {
        Approval::Yes => Ok(Permit::Interpreter),
        Approval::Always if req.no_always.is_some() => Ok(Permit::Interpreter),
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

/// Why a command whose worktree files cannot be read with certainty (`why`) asks, and never
/// gets "always" — said differently when the user approved it before (issue 51 §8).
fn unreadable(approved: &std::collections::BTreeSet<String>, key: &str, why: &str) -> String {
    let before = approved
        .iter()
        .any(|a| a == key || super::scripts::split_key(a).0 == key);
    match before {
        true => format!(
            "you approved this command before, but git-clada cannot tell with certainty which \
             worktree files it runs ({why}), so it asks each time and cannot be approved for \
             always"
        ),
        false => format!(
            "it cannot be approved for always: git-clada cannot tell with certainty which \
             worktree files it runs ({why})"
        ),
    }
}

/// Why a command the user approved asks again: a worktree file it runs changed since (named),
/// or the approval predates approvals bound to the files a command runs, or to some of them
/// (approvals now follow wrappers, `-c` strings, a shell's input and `cd`: issue 51 §8) —
/// said once: an "always" now stores the binding.
fn asks_again(
    approved: &std::collections::BTreeSet<String>,
    key: &str,
    bound: &[(String, String)],
) -> Option<String> {
    if bound.is_empty() {
        return None;
    }
    let once = "so it asks once more: answer always to approve it with their current content";
    if approved.contains(key) {
        return Some(format!(
            "you approved this command before approvals were bound to the files a command \
             runs; it runs {}, {once}",
            names(bound.iter().map(|b| b.0.as_str()))
        ));
    }
    let before = approved
        .iter()
        .map(|a| super::scripts::split_key(a))
        .find(|(c, _)| c == key)?;
    let known = |p: &str| before.1.iter().any(|(bp, _)| bp == p);
    let changed: Vec<&str> = bound
        .iter()
        .filter(|(p, h)| known(p) && !before.1.iter().any(|(bp, bh)| bp == p && bh == h))
        .map(|(p, _)| p.as_str())
        .collect();
    let new: Vec<&str> = bound
        .iter()
        .filter(|(p, _)| !known(p))
        .map(|(p, _)| p.as_str())
        .collect();
    let mut said = Vec::new();
    if !changed.is_empty() {
        said.push(format!(
            "you approved this command, but {} changed since, so it asks again (review the \
             change with git diff or git clada log)",
            names(changed.into_iter())
        ));
    }
    if !new.is_empty() {
        said.push(format!(
            "you approved this command before approvals followed wrappers (timeout, nice, env, \
             …), `-c` strings, a shell's redirected input and `cd`: it also runs {}, {once}",
            names(new.into_iter())
        ));
    }
    if said.is_empty() {
        said.push(format!(
            "you approved this command when it ran other worktree files; it runs {}, {once}",
            names(bound.iter().map(|b| b.0.as_str()))
        ));
    }
    Some(said.join("; "))
}

fn names<'a>(it: impl Iterator<Item = &'a str>) -> String {
    it.collect::<Vec<_>>().join(", ")
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
