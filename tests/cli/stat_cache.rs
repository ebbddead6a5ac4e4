//! The stat cache of a long-lived process (`git clada mcp`): a status computed with it agrees
//! with `git status` after every kind of change, over a long random sequence of changes, and
//! the limit it documents (a change no inotify event reports) is closed for the paths an
//! apply is about to write.

use crate::common;

use std::collections::BTreeSet;

use clada_git::{BStr, Entry, EntryKind, IndexUpdate, Repo, StatCache};
use common::TestRepo;

/// Paths git reports as changed in the worktree (second status column).
fn git_unstaged(repo: &TestRepo) -> BTreeSet<String> {
    unstaged_in(&repo.git(&[
        "status",
        "--porcelain=v1",
        "--untracked-files=no",
        "--no-renames",
    ]))
}

/// [`git_unstaged`] without writing the index (git's status refreshes and rewrites it when it
/// can): a rewritten index is one the next apply reads afresh, and the applies are to start
/// from the one they wrote.
fn git_unstaged_read_only(repo: &TestRepo) -> BTreeSet<String> {
    unstaged_in(&repo.git(&[
        "--no-optional-locks",
        "status",
        "--porcelain=v1",
        "--untracked-files=no",
        "--no-renames",
    ]))
}

/// The paths of `git status --porcelain=v1` output changed in the worktree.
fn unstaged_in(out: &str) -> BTreeSet<String> {
    out.lines()
        .filter(|l| &l[1..2] != " ")
        .map(|l| l[3..].to_string())
        .collect()
}

/// The worktree's changes as an apply sees them, through `cache`, with `fresh` re-checked.
fn cached_unstaged(repo: &TestRepo, cache: &StatCache, fresh: &[&str]) -> BTreeSet<String> {
    let mut r = Repo::open(repo.path()).expect("open");
    r.use_stat_cache(cache.clone());
    let head = r.head().expect("head").commit().expect("a commit");
    let tree = r.tree_of(head).expect("tree");
    let prefetch = r.prefetch_status();
    let fresh: Vec<&BStr> = fresh.iter().map(|f| BStr::new(f.as_bytes())).collect();
    let (_, st) = r.finish_status(prefetch, tree, &fresh).expect("status");
    st.unstaged.iter().map(|(p, _)| p.to_string()).collect()
}

/// One apply as `git clada mcp` makes it, through `cache`: the status first (prefetched, the
/// path about to be written re-checked), then `file` written and its index entry set to the
/// new content, the index written through the lock — which the cache remembers, so the next
/// call's stat pass starts from this one's and looks only at what changed since. Returns the
/// worktree's changes the status saw.
fn cached_apply(repo: &TestRepo, cache: &StatCache, file: &str, content: &str) -> BTreeSet<String> {
    let mut r = Repo::open(repo.path()).expect("open");
    r.use_stat_cache(cache.clone());
    let head = r.head().expect("head").commit().expect("a commit");
    let tree = r.tree_of(head).expect("tree");
    let prefetch = r.prefetch_status();
    let (mut index, st) = r
        .finish_status(prefetch, tree, &[BStr::new(file.as_bytes())])
        .expect("status");
    let lock = r.lock_index().expect("lock");
    std::fs::write(repo.path().join(file), content).expect("write");
    let id = r.write_blob(content.as_bytes()).expect("blob");
    let update = IndexUpdate {
        path: file.into(),
        entry: Some(Entry {
            kind: EntryKind::Blob,
            id,
        }),
        worktree_matches: true,
    };
    index.apply(&r, &[update]).expect("apply");
    lock.commit(&index).expect("index");
    st.unstaged.iter().map(|(p, _)| p.to_string()).collect()
}

/// A small deterministic generator (no dependency): the sequence is the same on every run.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n
    }
}

const FILES: &[&str] = &[
    "a.txt",
    "b.txt",
    "d1/c.txt",
    "d1/e.txt",
    "d1/sub/f.txt",
    "d2/g.txt",
    "d2/h.sh",
];

/// Writes `rel` (and its directories), whatever is in the way failing quietly: a random
/// step may meet a file where a directory was, and that is a state like any other.
fn put(repo: &TestRepo, rel: &str, content: &str) {
    let path = repo.path().join(rel);
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let _ = std::fs::write(path, content);
}

/// One random change to the worktree or the index, described for the failure message.
fn change(repo: &TestRepo, rng: &mut Lcg, step: usize) -> String {
    let file = FILES[rng.next(FILES.len())];
    let path = repo.path().join(file);
    match rng.next(12) {
        0 => {
            put(repo, file, &format!("content {step}\n"));
            format!("write {file}")
        }
        1 => {
            // Same size as the committed text: only stat data or content can tell.
            put(
                repo,
                file,
                &format!("{:<width$}\n", step, width = file.len()),
            );
            format!("same-size write {file}")
        }
        2 => {
            let _ = std::fs::remove_file(&path);
            format!("delete {file}")
        }
        3 => {
            let _ = repo.git_output(&["checkout", "--", "."]);
            "checkout -- .".into()
        }
        4 => {
            use std::os::unix::fs::PermissionsExt;
            if let Ok(md) = std::fs::metadata(&path) {
                let mode = md.permissions().mode() ^ 0o111;
                let _ = std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode));
            }
            format!("chmod {file}")
        }
        5 => {
            // Replaced by a rename over it (an editor's save).
            let tmp = repo.path().join(format!("{file}.tmp"));
            if std::fs::write(&tmp, format!("renamed {step}\n")).is_ok() {
                let _ = std::fs::rename(&tmp, &path);
            }
            format!("rename over {file}")
        }
        6 => {
            let dir = if file.contains('/') { "d1" } else { "d2" };
            let _ = std::fs::remove_dir_all(repo.path().join(dir));
            format!("rm -r {dir}")
        }
        7 => {
            // The directory renamed away and back: its files are the same inodes.
            let from = repo.path().join("d1");
            let away = repo.path().join("d1-away");
            if std::fs::rename(&from, &away).is_ok() {
                let _ = std::fs::rename(&away, &from);
            }
            "mv d1 away and back".into()
        }
        8 => {
            let _ = repo.git_output(&["add", "-A"]);
            "git add -A".into()
        }
        9 => {
            let _ = repo.git_output(&["commit", "-qam", &format!("step {step}"), "--allow-empty"]);
            "git commit -a".into()
        }
        10 => {
            put(repo, &format!("d1/untracked-{step}/x.txt"), "noise\n");
            put(repo, &format!("noise-{step}.txt"), "noise\n");
            "untracked noise".into()
        }
        _ => {
            // A file becomes a directory.
            let _ = std::fs::remove_file(&path);
            put(repo, &format!("{file}/inner.txt"), "now a directory\n");
            format!("{file} becomes a directory")
        }
    }
}

#[test]
fn a_cached_status_agrees_with_git_status_over_random_changes() {
    let files: Vec<(&str, &str)> = FILES.iter().map(|f| (*f, "initial text\n")).collect();
    let repo = TestRepo::with_files(&files);
    let cache = StatCache::new();
    let mut rng = Lcg(0x5eed);
    let mut log = Vec::new();
    for step in 0..160 {
        // Some steps cross a second, so files stop being racily clean and stat data alone
        // decides; the others change files within the index's second.
        if step % 40 == 39 {
            std::thread::sleep(std::time::Duration::from_millis(1100));
        }
        // Between changes the repository is looked at, as an MCP server does between calls.
        log.push(change(&repo, &mut rng, step));
        let ours = cached_unstaged(&repo, &cache, &[]);
        let git = git_unstaged(&repo);
        assert_eq!(ours, git, "after step {step}: {}", log.join("; "));
        if step % 16 == 15 {
            // Back to a clean state now and then, so later changes are seen against one.
            let _ = repo.git_output(&["clean", "-qfdx"]);
            repo.git(&["reset", "-q", "--hard"]);
            log.push("reset --hard".into());
            assert_eq!(cached_unstaged(&repo, &cache, &[]), git_unstaged(&repo));
        }
    }
}

#[test]
fn a_change_no_event_reports_is_still_seen_on_the_paths_about_to_be_written() {
    let repo = TestRepo::with_files(&[("src/a.txt", "one\n"), ("src/b.txt", "two\n")]);
    // A second hard link in a directory nobody watches: a write through it changes the
    // tracked file without an event in `src/` (as a shared `mmap` write would).
    std::fs::create_dir(repo.path().join("elsewhere")).expect("mkdir");
    std::fs::hard_link(
        repo.path().join("src/a.txt"),
        repo.path().join("elsewhere/a-link"),
    )
    .expect("link");
    // The link changed the file's ctime: the index takes the new stat data a second later,
    // so the cache's first look finds the entry clean by stat alone, neither racily clean
    // nor different (whichever seconds the commit, the link and the sleep fell in).
    std::thread::sleep(std::time::Duration::from_millis(1100));
    repo.git(&["update-index", "--refresh"]);
    let cache = StatCache::new();
    assert!(cached_unstaged(&repo, &cache, &[]).is_empty());
    std::fs::write(repo.path().join("elsewhere/a-link"), "changed unseen\n").expect("write");
    assert_eq!(
        git_unstaged(&repo),
        BTreeSet::from(["src/a.txt".to_string()])
    );
    let expected = BTreeSet::from(["src/a.txt".to_string()]);
    if !clada_base::platform::LINUX {
        // The portable side has no watcher: every pass looks at every path, and sees it.
        assert_eq!(cached_unstaged(&repo, &cache, &[]), expected);
        return;
    }
    // The cache vouches for `src/a.txt` (which shows it is used) …
    assert!(cached_unstaged(&repo, &cache, &[]).is_empty());
    // … except on a path about to be written, or under a directory about to be.
    assert_eq!(cached_unstaged(&repo, &cache, &["src/a.txt"]), expected);
    assert_eq!(cached_unstaged(&repo, &cache, &["src"]), expected);
    assert!(cached_unstaged(&repo, &cache, &["src/b.txt"]).is_empty());
    // A write the watch sees is seen without help.
    repo.write("src/b.txt", "three\n");
    assert_eq!(
        cached_unstaged(&repo, &cache, &[]),
        BTreeSet::from(["src/b.txt".to_string()])
    );
}

#[test]
fn applies_through_the_cache_agree_with_git_status_over_random_changes() {
    // `ai.txt` is what the applies write; the random changes never name it.
    let mut files: Vec<(&str, &str)> = FILES.iter().map(|f| (*f, "initial text\n")).collect();
    files.push(("ai.txt", "ai init\n"));
    let repo = TestRepo::with_files(&files);
    let cache = StatCache::new();
    let mut rng = Lcg(0xa991);
    let mut log = Vec::new();
    for step in 0..160 {
        if step % 40 == 39 {
            std::thread::sleep(std::time::Duration::from_millis(1100));
        }
        // Between calls the user changes the worktree (or runs git, which rewrites the index
        // and makes the next call read it again); the call must see exactly what git sees.
        log.push(change(&repo, &mut rng, step));
        let git = git_unstaged_read_only(&repo);
        // Same size every time: only the stat data written with the entry tells them apart.
        let ours = cached_apply(&repo, &cache, "ai.txt", &format!("ai {step:04}\n"));
        assert_eq!(ours, git, "at step {step}: {}", log.join("; "));
        let after = git_unstaged_read_only(&repo);
        assert!(!after.contains("ai.txt"), "after step {step}: {after:?}");
        let staged = repo.git(&[
            "--no-optional-locks",
            "diff",
            "--cached",
            "--name-only",
            "--",
            "ai.txt",
        ]);
        assert_eq!(staged.trim(), "ai.txt", "after step {step}");
        if step % 16 == 15 {
            let _ = repo.git_output(&["clean", "-qfdx"]);
            repo.git(&["reset", "-q", "--hard"]);
            log.push("reset --hard".into());
        }
    }
    repo.git(&["fsck", "--no-progress"]);
    repo.git(&["status", "--porcelain"]);
}
