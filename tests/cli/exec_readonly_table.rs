//! The read-only path under attack (issue 21): commands a hostile reply could send hoping they
//! run without asking. Each row says which wall holds: `List` — the argument rules refuse it
//! from the read-only list, so it asks (and, with no terminal, is refused); `Sandbox` — it
//! passes the rules and runs, but in the read-only OS sandbox, pinned git, where the attack
//! has no effect. Whatever the wall, after the whole table ran: every file of the worktree
//! (tracked, untracked, ignored) is byte-identical, nothing appeared outside the worktree,
//! no secret from outside reached the report, and no configured command (fsmonitor, pager)
//! ran. Real processes, a real repository, one apply with every row as an exec block.

use crate::common;

use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;

use common::{block, TestRepo};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wall {
    /// Refused by the read-only list's argument rules (then asks; no terminal: refused).
    List,
    /// Runs in the read-only sandbox, where the attack does nothing.
    Sandbox,
}
use Wall::*;

/// (command, working directory inside the worktree, expected wall, what the attack is)
const TABLE: &[(&str, &str, Wall, &str)] = &[
    // Write options of every listed tool.
    (
        "xxd - a.txt",
        "",
        List,
        "xxd's second operand is its output: truncates a.txt",
    ),
    ("xxd a.txt out.txt", "", List, "xxd IN OUT writes OUT"),
    (
        "xxd -r - a.txt",
        "",
        List,
        "xxd -r writes the reverted bytes to a.txt",
    ),
    (
        "xxd -r -p a.txt a.txt",
        "",
        List,
        "xxd -r IN OUT over the input",
    ),
    ("find . -delete", "", List, "find deletes everything"),
    (
        "find . -execdir touch pwned +",
        "",
        List,
        "find runs a command",
    ),
    (
        "find . -fprint a.txt",
        "",
        List,
        "find writes its list into a.txt",
    ),
    ("find . -fls out", "", List, "find -fls writes a file"),
    (
        "find . -fprintf out %p",
        "",
        List,
        "find -fprintf writes a file",
    ),
    ("find . -ok rm a.txt", "", List, "find -ok runs a command"),
    (
        "tree -o a.txt",
        "",
        List,
        "tree writes its output into a.txt",
    ),
    ("tree -Ro x", "", List, "tree -R writes 00Tree.html files"),
    (
        "file -C -m a.txt",
        "",
        List,
        "file -C compiles a magic file (writes a.txt.mgc)",
    ),
    ("file --compile -m a.txt", "", List, "file --compile"),
    (
        "file --comp -m a.txt",
        "",
        List,
        "an abbreviation getopt accepts for --compile",
    ),
    (
        "git diff --output a.txt",
        "",
        List,
        "git diff writes its output into a.txt",
    ),
    (
        "git diff --outp a.txt",
        "",
        List,
        "an abbreviation git accepts for --output",
    ),
    (
        "git log --ou a.txt",
        "",
        List,
        "a shorter abbreviation of --output",
    ),
    (
        "git diff --ext-diff",
        "",
        List,
        "runs a configured external diff program",
    ),
    ("git diff --ext", "", List, "abbreviated --ext-diff"),
    (
        "git log -p --textconv",
        "",
        List,
        "runs configured textconv programs",
    ),
    ("git branch evil", "", List, "creates a branch"),
    ("git branch -D main", "", List, "deletes a branch"),
    ("git branch -m x", "", List, "renames the branch"),
    ("git stash", "", List, "changes the worktree and refs"),
    ("git checkout a.txt", "", List, "not a read-only subcommand"),
    // Pagers and configuration on the command line.
    (
        "git -c core.pager=touch log",
        "",
        List,
        "a pager from the command line",
    ),
    ("git -p log", "", List, "forces the pager"),
    (
        "git --exec-path . status",
        "",
        List,
        "git programs from the worktree",
    ),
    (
        "git -C evil status",
        "",
        List,
        "points git at the nested repository",
    ),
    (
        "git log",
        "",
        Sandbox,
        "PAGER/GIT_PAGER in the environment name a command",
    ),
    (
        "git show HEAD",
        "",
        Sandbox,
        "pager and textconv from the environment and config",
    ),
    // Nested repositories a reply wrote (a bare-repository layout, no `.git` component).
    (
        "git status",
        "evil",
        Sandbox,
        "git would discover evil/ and run its core.fsmonitor",
    ),
    (
        "git diff",
        "evil",
        Sandbox,
        "the same discovery through diff",
    ),
    ("git log --oneline", "evil", Sandbox, "the same through log"),
    ("git ls-files", "evil", Sandbox, "the same through ls-files"),
    // Quoting and Unicode.
    ("cat 'a.txt'", "", List, "quotes are a shell's business"),
    ("cat \"a.txt\"", "", List, "double quotes"),
    ("cat a\\ b", "", List, "a backslash escape"),
    ("cat a.txt #comment", "", List, "a comment"),
    ("ls $(touch pwned)", "", List, "command substitution"),
    ("ls `touch pwned`", "", List, "backquotes"),
    ("cat a.txt > b", "", List, "a redirection"),
    ("ls ; touch pwned", "", List, "a command list"),
    ("ls & touch pwned", "", List, "a background job"),
    ("ls\ntouch pwned", "", List, "a second line"),
    (
        "ｃａｔ a.txt",
        "",
        List,
        "fullwidth letters are another program",
    ),
    (
        "xxd\u{2009}-\u{2009}a.txt",
        "",
        List,
        "thin spaces split like spaces: still xxd - a.txt",
    ),
    (
        "cat a.txt\u{202e}",
        "",
        Sandbox,
        "a right-to-left override is just a file name",
    ),
    (
        "find . \u{2010}delete",
        "",
        Sandbox,
        "a Unicode hyphen is not an option",
    ),
    // Environment tricks.
    ("FOO=1 ls", "", List, "an assignment prefix"),
    (
        "LD_PRELOAD=evil.so cat a.txt",
        "",
        List,
        "a preloaded library",
    ),
    (
        "GIT_DIR=evil git status",
        "",
        List,
        "git pointed at the nested repository",
    ),
    ("env ls", "", List, "env is not on the list"),
    // Symlinks and paths out of the worktree.
    (
        "cat link-key",
        "",
        List,
        "a committed symlink to ~/.ssh/id_rsa",
    ),
    ("head -c 4000 link-key", "", List, "the same through head"),
    ("diff link-key a.txt", "", List, "the same through diff"),
    ("wc -c link-key", "", List, "the same through wc"),
    (
        "grep -r PRIVATE link-home",
        "",
        List,
        "a symlinked directory leading to $HOME",
    ),
    (
        "ls -R link-home",
        "",
        List,
        "listing $HOME through the link",
    ),
    (
        "grep -R PRIVATE .",
        "",
        Sandbox,
        "grep -R follows link-home into $HOME",
    ),
    (
        "find -L . -name id_rsa",
        "",
        Sandbox,
        "find -L follows link-home",
    ),
    (
        "cat dev-zero",
        "",
        List,
        "a symlink to /dev/zero (endless output)",
    ),
    (
        "cat .git/config",
        "",
        List,
        "git's own files (remote URLs, tokens)",
    ),
    ("ls .git", "", List, "git's own folder"),
    ("cat sub/../../x", "", List, "a .. escape"),
    ("cat /etc/passwd", "", List, "an absolute path"),
    (
        "grep -f/etc/passwd a.txt",
        "",
        List,
        "a path attached to an option",
    ),
    ("cat ~/.ssh/id_rsa", "", List, "the home folder"),
    (
        "git show HEAD:../../x",
        "",
        List,
        "a .. inside a revision:path",
    ),
    (
        "tail -f a.txt",
        "",
        Sandbox,
        "never ends: the block's timeout kills it",
    ),
];

fn setup() -> (TestRepo, tempfile::TempDir) {
    // (Each row runs in the worktree root unless it names `evil`.)
    let r = TestRepo::with_files(&[
        ("a.txt", "alpha\n"),
        ("src/lib.rs", "pub fn f() {}\n"),
        ("sub/x.txt", "x\n"),
        (".gitignore", ".env\n"),
    ]);
    let outside = tempfile::tempdir().expect("tempdir");
    let home = r.home.path();
    fs::create_dir_all(home.join(".ssh")).expect("mkdir");
    fs::write(
        home.join(".ssh/id_rsa"),
        "-----BEGIN PRIVATE KEY----- TOPSECRET\n",
    )
    .expect("key");
    r.write(".env", "API_TOKEN=DOTENV\n");
    symlink(home.join(".ssh/id_rsa"), r.path().join("link-key")).expect("link");
    symlink(home, r.path().join("link-home")).expect("link");
    symlink("/dev/zero", r.path().join("dev-zero")).expect("link");
    // A repository in bare layout, as `file_write` blocks can write it (no `.git` component),
    // whose fsmonitor and pager would run a command.
    let marker = outside.path().join("ran");
    let config = format!(
        "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n\
         \tfsmonitor = \"touch {m}-fsmonitor; false\"\n\tpager = touch {m}-pager\n",
        m = marker.display()
    );
    r.write("evil/HEAD", "ref: refs/heads/evil-branch\n");
    r.write("evil/config", &config);
    fs::create_dir_all(r.path().join("evil/objects")).expect("mkdir");
    fs::create_dir_all(r.path().join("evil/refs/heads")).expect("mkdir");
    r.git(&["add", "-A"]);
    r.git(&["commit", "-q", "-m", "fixtures"]);
    (r, outside)
}

fn reply() -> String {
    let mut s = String::new();
    for (i, (cmd, cwd, _, _)) in TABLE.iter().enumerate() {
        let id = format!("t{i:02}");
        // Every row names its directory (a block without `cwd` would start where the
        // previous one ended).
        let dir = if cwd.is_empty() { "." } else { cwd };
        let props = vec![
            ("action", "exec"),
            ("lang", "bash"),
            ("code", *cmd),
            ("cwd", dir),
        ];
        let mut props = props;
        // (`grep -R` follows dev-zero into /dev/zero, which the sandbox may read: endless
        // input, stopped by the timeout like `tail -f`.)
        props.push((
            "timeout",
            if cmd.starts_with("tail -f") { "1" } else { "3" },
        ));
        s.push_str(&block(&id, &props));
    }
    s
}

fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

#[test]
fn every_adversarial_command_is_refused_by_the_list_or_contained_by_the_sandbox() {
    assert!(TABLE.len() >= 50, "the table has {} rows", TABLE.len());
    let (mut r, outside) = setup();
    let marker = outside.path().join("ran");
    r.env.push((
        "PAGER".into(),
        format!("touch {}-envpager", marker.display()),
    ));
    r.env.push((
        "GIT_PAGER".into(),
        format!("touch {}-envgitpager", marker.display()),
    ));
    let before = r.state();
    let home_before = listing(r.home.path());
    let tmp_before = listing(&std::env::temp_dir());

    let out = r.apply(&reply(), &[]);
    let report = TestRepo::report(&out);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let results = report["results"].as_array().expect("results");
    assert_eq!(results.len(), TABLE.len(), "{text}");

    let mut wrong = Vec::new();
    for (i, ((cmd, cwd, wall, why), res)) in TABLE.iter().zip(results).enumerate() {
        let error = res["error"].as_str().unwrap_or_default();
        let got = if error.contains("not approved and there is no terminal") {
            List
        } else {
            assert!(
                res["data"].is_object(),
                "row {i} `{cmd}` neither refused nor run: {res}"
            );
            Sandbox
        };
        if got != *wall {
            wrong.push(format!(
                "row {i} `{cmd}` (cwd '{cwd}', {why}): expected {wall:?}, got {got:?}: {res}"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));

    // Nothing changed in the worktree (tracked, untracked, ignored), HEAD, refs or index.
    let after = r.state();
    assert_eq!(after.files, before.files, "a file of the worktree changed");
    assert_eq!(
        (after.head, after.refs, after.index),
        (before.head, before.refs, before.index)
    );
    // Nothing appeared outside: no configured command ran, no file was written.
    assert!(
        listing(outside.path()).is_empty(),
        "{:?}",
        listing(outside.path())
    );
    assert_eq!(listing(r.home.path()), home_before);
    let leaked: Vec<String> = listing(&std::env::temp_dir())
        .into_iter()
        .filter(|n| !tmp_before.contains(n) && (n.contains("pwned") || n.starts_with("out")))
        .collect();
    assert!(leaked.is_empty(), "{leaked:?}");
    // No secret from outside the worktree reached the report.
    assert!(!text.contains("TOPSECRET"), "{text}");
    // Pinned git reports on this repository, never on the nested one.
    let status = TABLE
        .iter()
        .position(|(c, cwd, ..)| *c == "git status" && *cwd == "evil")
        .expect("row");
    let stdout = results[status]["data"]["stdout"]
        .as_str()
        .unwrap_or_default();
    assert!(stdout.contains("On branch main"), "{stdout}");
    // The endless one was stopped by its timeout.
    let tail = results.last().expect("row");
    assert!(
        tail["error"]
            .as_str()
            .unwrap_or_default()
            .contains("TIMEOUT"),
        "{tail}"
    );
    r.assert_fsck();
}

/// The table as the closing note shows it (printed with `--nocapture`).
#[test]
fn table_rows_are_unique_and_explained() {
    let mut seen = std::collections::BTreeSet::new();
    for (cmd, cwd, wall, why) in TABLE {
        assert!(seen.insert((cmd, cwd)), "duplicate row {cmd}");
        assert!(!why.is_empty());
        println!(
            "| `{}` | {} | {:?} | {why} |",
            cmd.escape_debug(),
            cwd,
            wall
        );
    }
}
