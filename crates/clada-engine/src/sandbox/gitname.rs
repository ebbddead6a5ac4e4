//! Path components that git refuses or warns about because some filesystem reads them as one
//! of git's own names (git's `verify_path` with `core.protectHFS`/`core.protectNTFS`, and the
//! `hasDotgit`/`gitmodulesSymlink`… checks of `git fsck`, which every hosting server runs on a
//! push):
//!
//! - `.git` itself in any letter case;
//! - HFS+ (macOS) ignores some invisible code points when comparing names, so `.g<U+200C>it`
//!   is `.git` there;
//! - NTFS (Windows) drops trailing dots and spaces (`.git.`, `.git `), treats `name:stream` as
//!   a stream of `name` (`.git::$INDEX_ALLOCATION`), and gives every long name an 8.3 short
//!   name (`GIT~1`);
//! - for a symlink, the same look-alikes of the files git reads from the worktree without
//!   following links: `.gitmodules` (refused), `.gitattributes`, `.gitignore` and `.mailmap`
//!   (fsck warnings).
//!
//! The rules are git's (checked against gix's implementation of them in `tests/cli/gitname.rs`);
//! the code here is our own. Comparisons are ASCII-case-insensitive, as git's are.

/// Code points that HFS+ skips when it compares names.
const HFS_IGNORABLE: &[char] = &[
    '\u{200C}', '\u{200D}', '\u{200E}', '\u{200F}', '\u{202A}', '\u{202B}', '\u{202C}', '\u{202D}',
    '\u{202E}', '\u{206A}', '\u{206B}', '\u{206C}', '\u{206D}', '\u{206E}', '\u{206F}', '\u{FEFF}',
];

/// The worktree files git opens without following symlinks: (the name, the 6-character
/// prefix NTFS uses in fall-back short names like `GI7EBA~1`).
const SYMLINK_SENSITIVE: &[(&str, &str)] = &[
    (".gitmodules", "gi7eba"),
    (".gitattributes", "gi7d29"),
    (".gitignore", "gi250a"),
    (".mailmap", "maba30"),
];

/// Why a component stands for a name git protects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookalike {
    /// The name itself, in some letter case.
    Exact,
    /// The name with code points HFS+ ignores (the first one found).
    Hfs(char),
    /// The name followed by dots or spaces, which NTFS drops.
    NtfsTrailing,
    /// The name followed by `:` — an NTFS alternate data stream of it.
    NtfsStream,
    /// An NTFS 8.3 short name of it.
    NtfsShortName,
    /// A part between backslashes, which Windows reads as directory separators
    /// (`.git\hooks\post-checkout` is `.git/hooks/post-checkout` there).
    NtfsBackslash,
}

impl Lookalike {
    /// The git setting under which git refuses this form (on by default where it matters).
    pub fn git_setting(&self) -> &'static str {
        match self {
            Lookalike::Exact => "always",
            Lookalike::Hfs(_) => "core.protectHFS",
            _ => "core.protectNTFS",
        }
    }

    /// How the filesystem in question reads `component` as `name` (for messages).
    pub fn explain(&self, component: &str, name: &str) -> String {
        match self {
            Lookalike::Exact => format!("'{}' is {name} in another letter case", shown(component)),
            Lookalike::Hfs(c) => format!(
                "'{}' contains the invisible {}, which macOS (HFS+) ignores in names, so it \
                 is {name} there",
                shown(component),
                describe_char(*c)
            ),
            Lookalike::NtfsTrailing => format!(
                "'{}' is {name} on Windows, which drops trailing dots and spaces",
                shown(component)
            ),
            Lookalike::NtfsStream => format!(
                "'{}' is a data stream of {name} on Windows (NTFS)",
                shown(component)
            ),
            Lookalike::NtfsShortName => format!(
                "'{}' is the Windows (NTFS 8.3) short name of {name}",
                shown(component)
            ),
            Lookalike::NtfsBackslash => format!(
                "'{}' holds {name} between backslashes, which Windows reads as directory \
                 separators",
                shown(component)
            ),
        }
    }
}

/// `.git` or a name some filesystem reads as `.git`; with backslashes, which Windows reads
/// as directory separators (so git's path check does with `core.protectNTFS`), each part.
pub fn dotgit(component: &str) -> Option<Lookalike> {
    if component.contains('\\') {
        return component
            .split('\\')
            .any(|part| dotgit_part(part).is_some())
            .then_some(Lookalike::NtfsBackslash);
    }
    dotgit_part(component)
}

/// [`dotgit`] for a name without backslashes.
fn dotgit_part(component: &str) -> Option<Lookalike> {
    if component.eq_ignore_ascii_case(".git") {
        return Some(Lookalike::Exact);
    }
    if let Some(c) = hfs_match(component, "git") {
        return Some(Lookalike::Hfs(c));
    }
    for short in [".git", "git~1"] {
        if let Some(rest) = strip_prefix_ci(component, short) {
            if let Some(how) = ntfs_tail(rest, short == "git~1") {
                return Some(how);
            }
        }
    }
    None
}

/// For a symlink named `component`: the protected file it would stand for (`.gitmodules`,
/// …), and how.
pub fn symlink_name(component: &str) -> Option<(&'static str, Lookalike)> {
    for &(full, prefix) in SYMLINK_SENSITIVE {
        let name = &full[1..];
        if component.eq_ignore_ascii_case(full) {
            return Some((full, Lookalike::Exact));
        }
        if let Some(c) = hfs_match(component, name) {
            return Some((full, Lookalike::Hfs(c)));
        }
        if let Some(how) = ntfs_dot_name(component, name, prefix) {
            return Some((full, how));
        }
    }
    None
}

/// Why git would refuse the worktree path `rel` (`/`-separated) in a commit, if it would: a
/// component that is `.git` or a look-alike, or a symlink named like `.gitmodules` & co.
/// For paths the sandbox never saw (an exec created them).
pub fn refused_path(rel: &str, is_symlink: bool) -> Option<String> {
    if let Some((c, how)) = rel.split('/').find_map(|c| dotgit(c).map(|how| (c, how))) {
        return Some(format!(
            "'{}' was not committed: {}, and git refuses such paths ({}); rename or remove it",
            shown(rel),
            how.explain(c, ".git"),
            how.git_setting()
        ));
    }
    let leaf = rel.rsplit('/').next().unwrap_or(rel);
    match symlink_name(leaf) {
        Some((name, how)) if is_symlink => Some(format!(
            "'{}' was not committed: {}; replace it with a regular file",
            shown(rel),
            symlink_refusal(leaf, name, &how)
        )),
        _ => None,
    }
}

/// Why a symlink named `leaf` (standing for `name`) is refused.
pub fn symlink_refusal(leaf: &str, name: &str, how: &Lookalike) -> String {
    let because = if leaf == name {
        String::new()
    } else {
        format!(" ({})", how.explain(leaf, name))
    };
    format!(
        "git reads {name} without following symlinks and refuses or warns about a symlink named \
         so{because}"
    )
}

/// `component` is `.` + `name` once the HFS+-ignorable code points are dropped, and it has at
/// least one of them (the first is returned).
fn hfs_match(component: &str, name: &str) -> Option<char> {
    let first = component.chars().find(|c| HFS_IGNORABLE.contains(c))?;
    let mut kept = component.chars().filter(|c| !HFS_IGNORABLE.contains(c));
    if kept.next() != Some('.') {
        return None;
    }
    let mut want = name.chars();
    loop {
        match (want.next(), kept.next()) {
            (None, None) => return Some(first),
            (Some(a), Some(b)) if a.eq_ignore_ascii_case(&b) => {}
            _ => return None,
        }
    }
}

/// What NTFS makes of the bytes after a matched name: nothing but dots and spaces up to the
/// end or a `:`. `None` when something else follows. `short` says the name was a short name.
fn ntfs_tail(rest: &str, short: bool) -> Option<Lookalike> {
    let kept = rest.find(':').map_or(rest, |i| &rest[..i]);
    if !kept.bytes().all(|b| b == b'.' || b == b' ') {
        return None;
    }
    Some(if short {
        Lookalike::NtfsShortName
    } else if kept.len() < rest.len() {
        Lookalike::NtfsStream
    } else if rest.is_empty() {
        Lookalike::Exact
    } else {
        Lookalike::NtfsTrailing
    })
}

/// NTFS forms of `.name`: the name with a trailing-dots/spaces/stream tail, its regular short
/// name (first six letters, `~1`…`~4`), or a fall-back short name (up to six letters of
/// `prefix`, `~`, a digit 1-9, more digits, eight characters in all).
fn ntfs_dot_name(component: &str, name: &str, prefix: &str) -> Option<Lookalike> {
    let b = component.as_bytes();
    if let Some(rest) = component.strip_prefix('.') {
        return strip_prefix_ci(rest, name).and_then(|tail| ntfs_tail(tail, false));
    }
    let six = &name.as_bytes()[..6];
    if b.len() >= 8
        && b[..6].eq_ignore_ascii_case(six)
        && b[6] == b'~'
        && (b'1'..=b'4').contains(&b[7])
    {
        return ntfs_tail(&component[8..], true);
    }
    let prefix = prefix.as_bytes();
    let mut i = 0;
    let mut saw_tilde = false;
    while i < 8 {
        let c = *b.get(i)?;
        if saw_tilde {
            if !c.is_ascii_digit() {
                return None;
            }
        } else if c == b'~' {
            i += 1;
            if !(b'1'..=b'9').contains(b.get(i)?) {
                return None;
            }
            saw_tilde = true;
        } else if i >= 6 || !c.is_ascii() || !c.eq_ignore_ascii_case(&prefix[i]) {
            return None;
        }
        i += 1;
    }
    // Eight ASCII bytes were matched, so `i` is a character boundary.
    ntfs_tail(&component[i..], true)
}

/// `s` without a leading `prefix` compared ASCII-case-insensitively.
fn strip_prefix_ci<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.as_bytes().get(..prefix.len())?;
    if head.eq_ignore_ascii_case(prefix.as_bytes()) {
        // `prefix` is ASCII, so the match ends on a character boundary.
        s.get(prefix.len()..)
    } else {
        None
    }
}

/// A component for a message: invisible and control characters as `<U+XXXX>`.
pub fn shown(component: &str) -> String {
    component
        .chars()
        .map(|c| {
            if HFS_IGNORABLE.contains(&c) || c.is_control() {
                format!("<U+{:04X}>", c as u32)
            } else {
                c.to_string()
            }
        })
        .collect()
}

fn describe_char(c: char) -> String {
    let name = match c {
        '\u{200C}' => "ZERO WIDTH NON-JOINER",
        '\u{200D}' => "ZERO WIDTH JOINER",
        '\u{200E}' => "LEFT-TO-RIGHT MARK",
        '\u{200F}' => "RIGHT-TO-LEFT MARK",
        '\u{202A}' => "LEFT-TO-RIGHT EMBEDDING",
        '\u{202B}' => "RIGHT-TO-LEFT EMBEDDING",
        '\u{202C}' => "POP DIRECTIONAL FORMATTING",
        '\u{202D}' => "LEFT-TO-RIGHT OVERRIDE",
        '\u{202E}' => "RIGHT-TO-LEFT OVERRIDE",
        '\u{FEFF}' => "ZERO WIDTH NO-BREAK SPACE",
        _ => "formatting character",
    };
    format!("U+{:04X} ({name})", c as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dotgit_forms() {
        for (name, how) in [
            (".git", Lookalike::Exact),
            (".GiT", Lookalike::Exact),
            (".g\u{200C}it", Lookalike::Hfs('\u{200C}')),
            ("\u{FEFF}.GIT\u{200E}", Lookalike::Hfs('\u{FEFF}')),
            (".git.", Lookalike::NtfsTrailing),
            (".git ", Lookalike::NtfsTrailing),
            (".git. . ", Lookalike::NtfsTrailing),
            (".git::$INDEX_ALLOCATION", Lookalike::NtfsStream),
            (".GIT:x", Lookalike::NtfsStream),
            ("GIT~1", Lookalike::NtfsShortName),
            ("git~1", Lookalike::NtfsShortName),
            ("git~1.", Lookalike::NtfsShortName),
            ("Git~1:stream", Lookalike::NtfsShortName),
        ] {
            assert_eq!(dotgit(name), Some(how), "{name:?}");
        }
        for name in [
            ".gitignore",
            ".git-x",
            "git",
            ".gi",
            "x.git",
            "git~2",
            "GIT~10",
            ".g\u{200C}itx",
            ".g\u{00E9}it",
            ".git.x",
            "",
        ] {
            assert_eq!(dotgit(name), None, "{name:?}");
        }
    }

    #[test]
    fn symlink_names() {
        for (name, full) in [
            (".gitmodules", ".gitmodules"),
            (".GITMODULES", ".gitmodules"),
            (".gitmodules .", ".gitmodules"),
            (".gitmodules:$DATA", ".gitmodules"),
            (".git\u{200C}modules", ".gitmodules"),
            ("GITMOD~1", ".gitmodules"),
            ("gitmod~4", ".gitmodules"),
            ("GI7EBA~1", ".gitmodules"),
            ("gi7eba~9", ".gitmodules"),
            ("gi7eb~12", ".gitmodules"),
            (".gitattributes", ".gitattributes"),
            ("GITATT~1", ".gitattributes"),
            ("gi7d29~1", ".gitattributes"),
            (".gitignore.", ".gitignore"),
            ("gi250a~1", ".gitignore"),
            (".mailmap", ".mailmap"),
            ("maba30~2", ".mailmap"),
        ] {
            assert_eq!(symlink_name(name).map(|(n, _)| n), Some(full), "{name:?}");
        }
        for name in [
            "gitmodules",
            ".gitmodulesx",
            "GITMOD~5",
            "GITMOD~0",
            "gi7eba~0",
            "gi7ebax1",
            ".gitmodule",
            "modules",
        ] {
            assert_eq!(symlink_name(name), None, "{name:?}");
        }
    }

    #[test]
    fn invisible_characters_are_shown() {
        assert_eq!(shown(".g\u{200C}it"), ".g<U+200C>it");
        assert!(Lookalike::Hfs('\u{200C}')
            .explain(".g\u{200C}it", ".git")
            .contains("U+200C (ZERO WIDTH NON-JOINER)"));
    }
}
