//! Read-only git under `paths.deny` (issue 37 §2). Pinned git on the read-only list is not
//! hidden from (a hidden tracked file would look modified, and `git diff` would print its
//! content from HEAD), so what it prints is cut instead:
//!
//! - every deny glob becomes `:(top,exclude)` pathspecs appended after `--` (the glob, and the
//!   glob followed by `/*` for what lies under a matching folder). Not `glob` magic: in git's
//!   default matching `*` crosses `/`, as it does in `paths.deny`; braces are expanded here, a
//!   leading `**/` also matches at the top, as in `paths.deny`. The command's own operands are
//!   sorted first: one that exists in the worktree goes after `--` as a path, others stay
//!   before it as revisions (git's own guess, made explicit);
//! - what pathspecs do not cut is refused, so the command asks instead: `<rev>:<path>` (any
//!   operand with `:`), a bare object id (it may name a blob), `--full-diff`, `--no-index`,
//!   and `git grep -f` (patterns read from a file). `cat-file` is not on the list at all.

use std::path::Path;

/// Options of `log`, `show` and `diff` whose value is the next argument (so it is neither a
/// revision nor a path). Flags that take an attached value only (`-C`, `-B`, `-M`, `-U`)
/// are not here: the next argument is an operand.
const VALUED: &[&str] = &[
    "-n",
    "--max-count",
    "--skip",
    "--since",
    "--after",
    "--until",
    "--before",
    "--author",
    "--committer",
    "--grep",
    "-S",
    "-G",
];

/// The same for `git grep`.
const GREP_VALUED: &[&str] = &[
    "-e",
    "--regexp",
    "-A",
    "-B",
    "-C",
    "-m",
    "--max-count",
    "--max-depth",
    "--context",
    "--after-context",
    "--before-context",
    "--threads",
];

/// The role of each argument after the subcommand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    Option,
    /// The value of the option before it, or `git grep`'s pattern.
    Value,
    /// Before any `--`: a revision or a path.
    Operand,
    /// After `--`.
    Path,
    DoubleDash,
}

pub(crate) fn roles(sub: &str, args: &[String]) -> Vec<Role> {
    let mut out = Vec::with_capacity(args.len());
    let mut after_dd = false;
    let mut value_next = false;
    // `git grep`'s first operand is its pattern unless `-e` gave one.
    let mut pattern_needed = sub == "grep";
    for a in args {
        let role = if after_dd {
            Role::Path
        } else if value_next {
            value_next = false;
            Role::Value
        } else if a == "--" {
            after_dd = true;
            Role::DoubleDash
        } else if a.starts_with('-') && a.len() > 1 {
            if a == "-e" || a == "--regexp" {
                pattern_needed = false;
            }
            let valued = if sub == "grep" { GREP_VALUED } else { VALUED };
            value_next = valued.contains(&a.as_str());
            Role::Option
        } else if pattern_needed {
            pattern_needed = false;
            Role::Value
        } else {
            Role::Operand
        };
        out.push(role);
    }
    out
}

/// Whether `a` (a revision operand) is or starts with an object id: `1a2b3c4`, `1a2b3c4~2`,
/// `1a2b3c4..HEAD`.
fn names_object_id(a: &str) -> bool {
    a.split("..").any(|side| {
        let head = side.split(['~', '^']).next().unwrap_or("");
        (4..=64).contains(&head.len()) && head.bytes().all(|b| b.is_ascii_hexdigit())
    })
}

/// Why read-only git with `args` (`[sub, …]`) cannot run without asking under `paths.deny`,
/// or `None`.
#[cfg(test)]
pub(crate) fn refusal(args: &[String]) -> Option<String> {
    refusal_with(args, &|_| false)
}

/// [`refusal`], where an operand `history` says names only commits of the history
/// (`git_refs.rs`) is no object id to refuse: the exclusions cut its files.
pub(crate) fn refusal_with(args: &[String], history: &dyn Fn(&str) -> bool) -> Option<String> {
    let (sub, rest) = args.split_first()?;
    let how = "run it with the path after `--` instead (git show <commit> -- <path>), or \
               the user approves the command";
    for (a, role) in rest.iter().zip(roles(sub, rest)) {
        // Every argument, values too: a misread option must not let one through.
        if a.contains(':') {
            return Some(format!(
                "'{a}' can name a file of a commit or of the index (<rev>:<path>), which may \
                 be one paths.deny denies, and read-only git does not show those: {how}"
            ));
        }
        if role == Role::Operand && names_object_id(a) && !history(a) {
            return Some(format!(
                "'{a}' looks like an object id, which may name a file's content that \
                 paths.deny denies: name the commit by a ref (HEAD~2, a branch, a tag), or \
                 the user approves the command"
            ));
        }
        // Exact, or a long option's abbreviation (git's option parser takes those).
        let refused = ["--full-diff", "--no-index", "-f", "--file"]
            .iter()
            .any(|r| a == r || (a.starts_with("--") && a.len() >= 4 && r.starts_with(a.as_str())));
        if role == Role::Option && refused {
            return Some(format!(
                "'git {sub} {a}' can show files paths.deny denies (read-only git excludes \
                 them with pathspecs, which {a} goes around): the user approves the command"
            ));
        }
    }
    None
}

/// The subcommands that take pathspecs.
fn takes_pathspecs(sub: &str) -> bool {
    matches!(
        sub,
        "status" | "diff" | "log" | "show" | "ls-files" | "grep"
    )
}

/// `args` (`[sub, …]`) with the deny globs excluded: operands that exist under `dir` moved
/// after `--`, then an exclude pathspec per glob. Unchanged without globs or pathspecs.
pub(crate) fn with_excludes(args: Vec<String>, deny: &[String], dir: &Path) -> Vec<String> {
    let Some((sub, rest)) = args.split_first() else {
        return args;
    };
    if deny.is_empty() || !takes_pathspecs(sub) {
        return args;
    }
    let paths_only = matches!(sub.as_str(), "status" | "ls-files");
    let mut before = vec![sub.clone()];
    let mut paths = Vec::new();
    for (a, role) in rest.iter().zip(roles(sub, rest)) {
        match role {
            Role::DoubleDash => {}
            Role::Path => paths.push(a.clone()),
            Role::Operand if paths_only || std::fs::symlink_metadata(dir.join(a)).is_ok() => {
                paths.push(a.clone())
            }
            _ => before.push(a.clone()),
        }
    }
    before.push("--".into());
    before.extend(paths);
    before.extend(excludes(deny));
    before
}

/// The exclude pathspecs for `deny`.
pub(crate) fn excludes(deny: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for glob in deny {
        for g in expand_braces(glob) {
            let g = g.trim_start_matches("./").trim_end_matches('/').to_string();
            if g.is_empty() {
                continue;
            }
            let mut forms = vec![g.clone()];
            if let Some(top) = g.strip_prefix("**/") {
                forms.push(top.to_string());
            }
            for f in forms {
                for p in [f.clone(), format!("{f}/*")] {
                    let spec = format!(":(top,exclude){p}");
                    if !out.contains(&spec) {
                        out.push(spec);
                    }
                }
            }
        }
    }
    out
}

/// `a{b,c}d` → `abd`, `acd` (nested groups too); a `\{` is literal.
fn expand_braces(glob: &str) -> Vec<String> {
    let bytes = glob.as_bytes();
    let mut open = None;
    let mut depth = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 1,
            b'{' => {
                if depth == 0 {
                    open = Some(i);
                }
                depth += 1;
            }
            b'}' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    let start = open.unwrap_or(0);
                    let (head, body, tail) = (&glob[..start], &glob[start + 1..i], &glob[i + 1..]);
                    let mut out = Vec::new();
                    for alt in split_top(body) {
                        for rest in expand_braces(&format!("{alt}{tail}")) {
                            out.push(format!("{head}{rest}"));
                        }
                    }
                    return out;
                }
            }
            _ => {}
        }
        i += 1;
    }
    vec![glob.to_string()]
}

/// `body` split at its top-level commas.
fn split_top(body: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0, 0);
    let bytes = body.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 1,
            b'{' => depth += 1,
            b'}' => depth -= 1,
            b',' if depth == 0 => {
                out.push(&body[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    out.push(&body[start..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn what_pathspecs_cannot_cut_is_refused() {
        for refused in [
            "show HEAD:secrets/key.txt",
            "show :secrets/key.txt",
            "show 1a2b3c4",
            "diff 1a2b3c4d..HEAD",
            "log -p deadbeef~2",
            "log -p --full-diff -- src",
            "diff --no-index a b",
            "grep -f patterns.txt",
            "log -L 1,2:src/a.rs",
        ] {
            assert!(refusal(&v(refused)).is_some(), "{refused}");
        }
        for fine in [
            "show HEAD",
            "log -p -n 1000",
            "log --author beef",
            "grep cafe",
            "grep -e cafe -- src",
            "diff HEAD~1 src",
            "status",
        ] {
            assert_eq!(refusal(&v(fine)), None, "{fine}");
        }
    }

    #[test]
    fn deny_globs_become_top_level_excludes() {
        assert_eq!(
            excludes(&["secrets".into(), "**/.env".into(), "*.{pem,key}".into()]),
            [
                ":(top,exclude)secrets",
                ":(top,exclude)secrets/*",
                ":(top,exclude)**/.env",
                ":(top,exclude)**/.env/*",
                ":(top,exclude).env",
                ":(top,exclude).env/*",
                ":(top,exclude)*.pem",
                ":(top,exclude)*.pem/*",
                ":(top,exclude)*.key",
                ":(top,exclude)*.key/*",
            ]
        );
        assert_eq!(expand_braces("a{b,{c,d}}e"), ["abe", "ace", "ade"]);
    }

    #[test]
    fn operands_that_exist_become_paths() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir(d.path().join("src")).unwrap();
        let deny = ["secrets".to_string()];
        let ex = [":(top,exclude)secrets", ":(top,exclude)secrets/*"];
        let got = with_excludes(v("diff HEAD~1 src --stat"), &deny, d.path());
        assert_eq!(
            got,
            [&["diff", "HEAD~1", "--stat", "--", "src"][..], &ex].concat()
        );
        let got = with_excludes(v("grep src -- src"), &deny, d.path());
        assert_eq!(got, [&["grep", "src", "--", "src"][..], &ex].concat());
        assert_eq!(
            with_excludes(v("branch -a"), &deny, d.path()),
            v("branch -a")
        );
        assert_eq!(with_excludes(v("diff"), &[], d.path()), v("diff"));
    }
}
