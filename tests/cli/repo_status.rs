//! The repository layer's status (our own stat scan) agrees with `git status` on every kind of
//! change, including racily-clean files and type changes, and never writes objects.

use crate::common;

use std::collections::BTreeSet;

use clada_git::Repo;
use common::TestRepo;

/// Paths git reports as changed in the worktree (second status column) or staged (first).
fn git_view(repo: &TestRepo) -> (BTreeSet<String>, BTreeSet<String>) {
    let out = repo.git(&[
        "status",
        "--porcelain=v1",
        "--untracked-files=no",
        "--no-renames",
    ]);
    let mut staged = BTreeSet::new();
    let mut unstaged = BTreeSet::new();
    for line in out.lines() {
        let (x, y, path) = (&line[0..1], &line[1..2], line[3..].to_string());
        if x != " " {
            staged.insert(path.clone());
        }
        if y != " " {
            unstaged.insert(path);
        }
    }
    (staged, unstaged)
}

fn our_view(repo: &TestRepo) -> (BTreeSet<String>, BTreeSet<String>) {
    let r = Repo::open(repo.path()).unwrap();
    let head = r.head().unwrap().commit().unwrap();
    let tree = r.tree_of(head).unwrap();
    let index = r.read_index().unwrap();
    let st = r.status(tree, &index, false).unwrap();
    (
        st.staged.iter().map(|p| p.to_string()).collect(),
        st.unstaged.iter().map(|(p, _)| p.to_string()).collect(),
    )
}

#[test]
fn scan_agrees_with_git_status_on_every_kind_of_change() {
    let repo = TestRepo::with_files(&[
        ("same-size.txt", "aaaa\n"),
        ("deleted.txt", "d\n"),
        ("to-link.txt", "l\n"),
        ("mode.sh", "echo\n"),
        ("dir/inner.txt", "i\n"),
        ("dir/deep/x.txt", "x\n"),
        ("gone/a.txt", "a\n"),
        ("becomes-dir", "f\n"),
        ("staged.txt", "s\n"),
        ("untouched.txt", "u\n"),
    ]);
    // Same size, same second as the index: only a content check can tell (racy git).
    repo.write("same-size.txt", "bbbb\n");
    std::fs::remove_file(repo.path().join("deleted.txt")).unwrap();
    std::fs::remove_file(repo.path().join("to-link.txt")).unwrap();
    std::os::unix::fs::symlink("untouched.txt", repo.path().join("to-link.txt")).unwrap();
    repo.set_executable("mode.sh");
    repo.write("dir/deep/x.txt", "changed\n");
    std::fs::remove_dir_all(repo.path().join("gone")).unwrap();
    std::fs::remove_file(repo.path().join("becomes-dir")).unwrap();
    repo.write("becomes-dir/child.txt", "c\n");
    repo.write("staged.txt", "staged change\n");
    repo.git(&["add", "staged.txt"]);
    repo.write("untracked.txt", "not part of the comparison\n");
    let objects_before = common::files_of(&repo.path().join(".git/objects"));
    let ours = our_view(&repo);
    assert_eq!(ours, git_view(&repo));
    assert_eq!(ours.1.len(), 7, "{ours:?}");
    assert_eq!(
        common::files_of(&repo.path().join(".git/objects")),
        objects_before,
        "status wrote objects"
    );
}

#[test]
fn touched_but_unchanged_files_are_clean() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("b/c.txt", "c\n")]);
    // New mtimes, same content: suspects that the content check clears.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    repo.write("a.txt", "a\n");
    repo.write("b/c.txt", "c\n");
    let (staged, unstaged) = our_view(&repo);
    assert!(
        staged.is_empty() && unstaged.is_empty(),
        "{staged:?} {unstaged:?}"
    );
    assert_eq!(git_view(&repo), (BTreeSet::new(), BTreeSet::new()));
}

#[test]
fn crlf_conversion_is_applied_before_comparing() {
    let repo = TestRepo::with_files(&[
        (".gitattributes", "*.txt text eol=crlf\n"),
        ("a.txt", "one\ntwo\n"),
    ]);
    // The worktree copy is CRLF after a checkout with eol=crlf; git stores LF.
    std::fs::remove_file(repo.path().join("a.txt")).unwrap();
    repo.git(&["checkout", "--", "a.txt"]);
    assert_eq!(
        std::fs::read(repo.path().join("a.txt")).unwrap(),
        b"one\r\ntwo\r\n"
    );
    std::thread::sleep(std::time::Duration::from_millis(1100));
    repo.write_bytes("a.txt", b"one\r\ntwo\r\n");
    assert_eq!(our_view(&repo), git_view(&repo));
    assert!(our_view(&repo).1.is_empty());
}

/// git trusts a valid cache-tree blindly (`git write-tree` returns it), so ours must be exact.
#[track_caller]
fn assert_cache_tree_exact(repo: &TestRepo) {
    let ours = repo.git(&["write-tree"]);
    let tmp = repo.home.path().join("fresh-index");
    let _ = std::fs::remove_file(&tmp);
    let fresh = {
        let mut cmd = std::process::Command::new("git");
        cmd.current_dir(repo.path())
            .env("GIT_INDEX_FILE", &tmp)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", repo.home.path());
        // Rebuild an index from the same entries without any cache-tree.
        let ls = repo.git(&["ls-files", "-s"]);
        cmd.args(["update-index", "--index-info"]);
        let built = common::spawn_fed(cmd, &ls).wait_with_output().unwrap();
        assert!(built.status.success());
        let out = std::process::Command::new("git")
            .current_dir(repo.path())
            .env("GIT_INDEX_FILE", &tmp)
            .args(["write-tree"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    assert_eq!(
        ours, fresh,
        "the cache-tree does not match the index entries"
    );
}

#[test]
fn cache_tree_written_by_apply_undo_and_redo_is_exact() {
    let repo = TestRepo::with_files(&[
        ("a/b/c.txt", "c\n"),
        ("a/d.txt", "d\n"),
        ("e/f.txt", "f\n"),
        ("top.txt", "t\n"),
    ]);
    repo.write("e/f.txt", "user\n");
    repo.git(&["add", "e/f.txt"]);
    let reply = [
        common::block(
            "c1",
            &[
                ("action", "file_write"),
                ("path", "a/b/new.txt"),
                ("content", "n\n"),
            ],
        ),
        common::block("c2", &[("action", "file_delete"), ("path", "a/d.txt")]),
        common::block(
            "c3",
            &[
                ("action", "file_write"),
                ("path", "g/h/i.txt"),
                ("content", "i\n"),
            ],
        ),
    ]
    .concat();
    assert_eq!(repo.apply(&reply, &[]).status.code(), Some(0));
    // The user's staged change stays staged: the index is HEAD plus e/f.txt.
    assert_eq!(repo.git(&["diff", "--cached", "--name-only"]), "e/f.txt\n");
    assert_cache_tree_exact(&repo);
    assert_eq!(repo.clada(&["undo"]).status.code(), Some(0));
    assert_cache_tree_exact(&repo);
    assert_eq!(repo.clada(&["redo"]).status.code(), Some(0));
    assert_cache_tree_exact(&repo);
    repo.assert_fsck();
}

#[test]
fn a_corrupt_index_is_refused_with_a_way_out() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let index = repo.path().join(".git/index");
    let mut bytes = std::fs::read(&index).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0xff;
    std::fs::write(&index, bytes).unwrap();
    let out = repo.apply(
        &common::block(
            "x1",
            &[
                ("action", "file_write"),
                ("path", "b.txt"),
                ("content", "b\n"),
            ],
        ),
        &[],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("is corrupt (bad checksum)") && err.contains("git reset"),
        "{err}"
    );
    assert!(!repo.exists("b.txt"));
}

/// The untracked files our walk lists are exactly the ones `git status
/// --untracked-files=all` lists: ignore rules at every level (negations, directory patterns,
/// `info/exclude`), untracked directories entered, empty ones not listed, a nested repository
/// listed as the directory, symlinks, untracked files inside tracked directories and none
/// inside an ignored one.
#[test]
fn untracked_files_agree_with_git_status() {
    let repo = TestRepo::with_files(&[
        (
            ".gitignore",
            "*.log\nbuild/\n/only-root.txt\nkeep/*\n!keep/this.txt\n",
        ),
        ("src/lib.rs", "fn f() {}\n"),
        ("src/.gitignore", "gen-*\n"),
        ("built/tracked.txt", "t\n"),
        ("weird name/é.txt", "w\n"),
    ]);
    for (path, content) in [
        ("new.txt", "n\n"),
        ("debug.log", "ignored\n"),
        ("src/new.rs", "n\n"),
        ("src/gen-out.rs", "ignored\n"),
        ("src/deep/er/file.txt", "n\n"),
        ("build/out.o", "ignored\n"),
        ("only-root.txt", "ignored\n"),
        ("sub/only-root.txt", "not ignored below the root\n"),
        ("keep/this.txt", "re-included\n"),
        ("keep/that.txt", "ignored\n"),
        ("weird name/ü new.txt", "n\n"),
        ("untracked-dir/a/b/c.txt", "n\n"),
        ("built/extra.txt", "n\n"),
    ] {
        repo.write(path, content);
    }
    std::fs::create_dir_all(repo.path().join("empty/inner")).unwrap();
    std::fs::write(repo.path().join(".git/info/exclude"), "excluded-by-info\n").unwrap();
    repo.write("excluded-by-info", "ignored\n");
    std::os::unix::fs::symlink("src/lib.rs", repo.path().join("link")).unwrap();
    let nested = repo.path().join("nested");
    std::fs::create_dir_all(&nested).unwrap();
    assert!(std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&nested)
        .status()
        .unwrap()
        .success());
    std::fs::write(nested.join("inside.txt"), "n\n").unwrap();

    let out = repo.git(&[
        "-c",
        "core.quotePath=false",
        "status",
        "--porcelain=v1",
        "-z",
        "--untracked-files=all",
    ]);
    let git: BTreeSet<String> = out
        .split('\0')
        .filter_map(|e| e.strip_prefix("?? "))
        .map(|p| p.trim_end_matches('/').to_string())
        .collect();
    let r = Repo::open(repo.path()).unwrap();
    let tree = r.tree_of(r.head().unwrap().commit().unwrap()).unwrap();
    let index = r.read_index().unwrap();
    let ours: BTreeSet<String> = r
        .status(tree, &index, true)
        .unwrap()
        .untracked
        .iter()
        .map(|p| p.to_string())
        .collect();
    assert_eq!(ours, git);
    assert!(
        ours.contains("keep/this.txt") && ours.contains("nested"),
        "{ours:?}"
    );
    assert!(!ours
        .iter()
        .any(|p| p.ends_with(".log") || p.starts_with("build")));
}
