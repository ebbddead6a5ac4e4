//! Read-only git and what lies outside the worktree's history (issue 51 §9). git-clada keeps
//! its records under `refs/clada/*` (the user's work before an apply, an agent's checkpoints,
//! squashed and stepped-over commits) and its reports and replies under `refs/notes/clada*`.
//! Their trees do not have the worktree's layout, so the exclude pathspecs that keep
//! `paths.deny` out of read-only git (`pathspec.rs`) cut nothing there: `git grep topsecret
//! refs/clada/records` or `git diff HEAD refs/clada/agent/main` would print a denied file.
//! So, whatever `paths.deny` says, read-only git asks before:
//!
//! - a revision naming those refs (`refs/clada/…`, `clada/…`, which git resolves to
//!   `refs/clada/…` first, `refs/notes/clada…`, `notes/clada…`), an option naming them
//!   (`--notes=clada`, `--glob=refs/clada/*`), `--glob`, `--reflog` and `--alternate-refs`
//!   (every ref they take is not listed), and `:/<text>` (it searches every ref);
//! - an object id that is not a commit reachable from `HEAD`, a branch, a remote-tracking
//!   branch or a tag: a blob, a tree, or a commit only git-clada's refs reach. The caller,
//!   which has the repository, answers that ([`ReachableCommit`]); without an answer every id
//!   asks.
//!
//! `--all` stays read-only: git-clada's refs are excluded from it ([`hide_internal`]), and
//! notes are shown from `refs/notes/commits` only ([`NOTES_ENV`]), whatever the repository's
//! `notes.displayRef` says. `<rev>:<path>` on branches, tags and `HEAD` is left to
//! `pathspec.rs`, as before.

use std::path::Path;

/// Whether an object id (4 to 64 hex digits) names a commit reachable from `HEAD`, a branch,
/// a remote-tracking branch or a tag (answered by the caller: exec knows no git).
pub type ReachableCommit = dyn Fn(&str) -> bool + Send + Sync;

/// What read-only git runs with so that notes come from `refs/notes/commits` alone.
pub(crate) const NOTES_ENV: [(&str, &str); 2] = [
    ("GIT_NOTES_REF", "refs/notes/commits"),
    ("GIT_NOTES_DISPLAY_REF", ""),
];

/// The refs `--all` leaves out.
const EXCLUDED: [&str; 2] = ["--exclude=refs/clada/*", "--exclude=refs/notes/clada*"];

/// Why read-only git with `args` (`[sub, …]`, run in `dir`) cannot run without asking, or
/// `None`.
pub(crate) fn refusal(
    args: &[String],
    dir: &Path,
    reachable: Option<&ReachableCommit>,
) -> Option<String> {
    let (sub, rest) = args.split_first()?;
    if !matches!(sub.as_str(), "diff" | "log" | "show" | "grep" | "ls-files") {
        return None;
    }
    let how = "name a branch, a tag or HEAD instead, or the user approves the command";
    for (a, role) in rest.iter().zip(super::pathspec::roles(sub, rest)) {
        use super::pathspec::Role;
        match role {
            Role::Option => {
                if let Some(why) = option_refusal(a) {
                    return Some(format!("'git {sub} {a}' {why}: {how}"));
                }
            }
            Role::Operand if std::fs::symlink_metadata(dir.join(a)).is_err() => {
                if let Some(why) = operand_refusal(a, reachable) {
                    return Some(format!("'{a}' {why}: {how}"));
                }
            }
            _ => {}
        }
    }
    None
}

/// Why an option takes in what the worktree's history does not hold.
fn option_refusal(a: &str) -> Option<&'static str> {
    let name = a.split('=').next().unwrap_or(a);
    if matches!(name, "--glob" | "--reflog" | "--alternate-refs") {
        return Some(
            "takes refs beyond the branches and tags (git-clada's records among them), whose \
             files read-only git cannot hide",
        );
    }
    a.split_once('=')
        .is_some_and(|(_, value)| value.to_ascii_lowercase().contains("clada"))
        .then_some(
            "names git-clada's own refs or notes, which hold files read-only git cannot hide",
        )
}

/// Why a revision operand names what lies outside the worktree's history.
fn operand_refusal(a: &str, reachable: Option<&ReachableCommit>) -> Option<&'static str> {
    if a.starts_with(":/") {
        return Some(
            "searches the messages of every ref, git-clada's records among them, whose files \
             read-only git cannot hide",
        );
    }
    // `<rev>:<path>`: the revision is what comes before the first colon.
    let rev = a.split(':').next().unwrap_or(a);
    for side in rev.split("..") {
        let side = side.trim_start_matches('.').trim_start_matches('^');
        let base = side.split(['~', '^']).next().unwrap_or(side);
        let base = base.split("@{").next().unwrap_or(base);
        if internal(base) {
            return Some(
                "names git-clada's own records or notes, whose files read-only git cannot hide \
                 (its paths.deny exclusions do not reach them)",
            );
        }
        let hex = (4..=64).contains(&base.len()) && base.bytes().all(|b| b.is_ascii_hexdigit());
        if hex && !reachable.is_some_and(|r| r(base)) {
            return Some(
                "looks like an object id that is not a commit of HEAD, a branch or a tag (a \
                 file's content, a tree, or one of git-clada's records), which read-only git \
                 does not show",
            );
        }
    }
    None
}

/// Whether every object id the revision operand `a` holds is a commit of the history (and it
/// names none of git-clada's refs): what `paths.deny`'s exclusions cut like a branch.
pub(crate) fn names_history(a: &str, reachable: Option<&ReachableCommit>) -> bool {
    !a.contains(':') && operand_refusal(a, reachable).is_none()
}

/// Whether the revision `base` resolves to one of git-clada's refs (git tries `refs/<name>`
/// before the branches, so `clada/x` is `refs/clada/x` when that exists).
fn internal(base: &str) -> bool {
    let name = base.strip_prefix("refs/").unwrap_or(base);
    name == "clada" || name.starts_with("clada/") || name.starts_with("notes/clada")
}

/// `args` (`[sub, …]`) with git-clada's refs excluded from every `--all`.
pub(crate) fn hide_internal(args: Vec<String>) -> Vec<String> {
    let mut out = Vec::with_capacity(args.len() + 2);
    let mut after_dd = false;
    for a in args {
        if a == "--" {
            after_dd = true;
        }
        if a == "--all" && !after_dd {
            out.extend(EXCLUDED.map(String::from));
        }
        out.push(a);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn git_cladas_refs_and_unreachable_ids_ask() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("clada-notes.txt"), "x").unwrap();
        let reachable = |id: &str| id.starts_with("c0ffee");
        let r: &ReachableCommit = &reachable;
        for refused in [
            "grep topsecret refs/clada/records",
            "diff HEAD refs/clada/agent/main",
            "diff HEAD clada/agent/main",
            "log -p refs/notes/clada",
            "show notes/clada-reply",
            "log -p HEAD..refs/clada/work/1a2b",
            "show refs/clada/records~1:secrets/key.txt",
            "show refs/clada/records^{tree}",
            "log -p ^HEAD clada/records",
            "log --notes=clada",
            "log --show-notes=refs/notes/clada-reply",
            "log --glob=refs/clada/*",
            "log --reflog -p",
            "show :/snapshot",
            "show 1a2b3c4",
            "diff deadbeef~2 HEAD",
            "grep -e x 1a2b3c4d",
        ] {
            assert!(
                refusal(&v(refused), d.path(), Some(r)).is_some(),
                "{refused}"
            );
        }
        for fine in [
            "log --all -p",
            "show c0ffee1",
            "diff c0ffee1..HEAD",
            "show HEAD:src/a.rs",
            "log -p main",
            "log --grep clada",
            "grep clada",
            "grep -e refs/clada/x",
            "diff HEAD -- clada/x",
            "log -p clada-notes.txt",
            "status",
            "branch -a",
        ] {
            assert_eq!(refusal(&v(fine), d.path(), Some(r)), None, "{fine}");
        }
        // Without the repository's answer, every id asks.
        assert!(refusal(&v("show c0ffee1"), d.path(), None).is_some());
    }

    #[test]
    fn all_leaves_git_cladas_refs_out() {
        assert_eq!(
            hide_internal(v("log --all -p -- --all")),
            v("log --exclude=refs/clada/* --exclude=refs/notes/clada* --all -p -- --all")
        );
    }
}
