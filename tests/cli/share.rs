//! The AI attribution logs travel with the code (issue 52 items 1 and 2): after `git clada
//! hooks install` in each clone, a plain `git push` also pushes `refs/notes/ai`, a plain `git
//! fetch`/`git pull` brings the remote's logs in and git-clada merges them, over `file://` and
//! over git's own protocol (`git daemon` on 127.0.0.1). A bare remote and several clones.

use crate::common;

use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

use clada_engine::authorship::Log;
use common::{exit_code, output_text, write_block, TestRepo};
use serde_json::Value;

fn ok(out: &Output, what: &str) {
    assert_eq!(exit_code(out), 0, "{what}: {}", output_text(out));
}

/// A bare repository (the remote) holding one commit, and its folder.
fn remote() -> tempfile::TempDir {
    let seed = TestRepo::with_files(&[("README", "hello\n")]);
    let dir = tempfile::tempdir().expect("tempdir");
    seed.git(&[
        "clone",
        "-q",
        "--bare",
        ".",
        &dir.path().join("r.git").to_string_lossy(),
    ]);
    dir
}

/// A clone of `url` whose git finds git-clada (as the hooks need), with `hooks install` run
/// when `install`.
fn clone(url: &str, install: bool) -> TestRepo {
    let r = TestRepo {
        dir: tempfile::tempdir().expect("tempdir"),
        home: tempfile::tempdir().expect("tempdir"),
        env: vec![("PATH".into(), common::path_with_clada(&[]))],
    };
    r.git(&["clone", "-q", url, "."]);
    r.git(&["config", "commit.gpgsign", "false"]);
    if install {
        ok(&r.clada(&["hooks", "install"]), "hooks install");
    }
    r
}

fn git_in(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .expect("git");
    assert!(out.status.success(), "git {args:?}: {}", output_text(&out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// An AI commit by claude writing `path`.
fn ai_commit(r: &TestRepo, id: &str, path: &str) {
    let out = r.apply(
        &write_block(id, path, "ai-1\nai-2\n"),
        &["--agent", "claude", "--model", "opus"],
    );
    ok(&out, "apply");
}

fn run(r: &TestRepo, args: &[&str]) -> Output {
    let out = r.git_output(args);
    ok(&out, &format!("git {args:?}"));
    out
}

/// The lines of `path` at HEAD that `git clada blame` says the AI (claude) wrote.
fn ai_lines(r: &TestRepo, path: &str) -> usize {
    let out = r.clada(&["--format", "json", "blame", path]);
    ok(&out, "blame");
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    report["lines"]
        .as_array()
        .expect("lines")
        .iter()
        .filter(|l| l["origin"] == "ai" && l["agent"] == "claude")
        .count()
}

/// Every note of the remote's `refs/notes/ai` is a valid log of its own commit; how many.
fn remote_logs(bare: &Path) -> usize {
    let list = git_in(bare, &["notes", "--ref=ai", "list"]);
    for line in list.lines() {
        let commit = line.split_whitespace().nth(1).expect("object");
        let text = git_in(bare, &["notes", "--ref=ai", "show", commit]);
        let log = Log::parse(&text).unwrap_or_else(|e| panic!("note on {commit}: {e}\n{text}"));
        assert_eq!(log.meta.base_commit_sha, commit);
    }
    list.lines().count()
}

/// git-clada's lines on stderr.
fn clada_lines(out: &Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.contains("git-clada"))
        .map(str::to_string)
        .collect()
}

/// Three clones of one remote at `url` (bare repository at `bare`): AI commits pushed from
/// two of them, one push rejected for the logs another clone pushed first (fetched, merged,
/// pushed again), one after a `pull --rebase`; the third pulls and sees every AI line, and a
/// fresh clone sees them after its first fetch.
fn three_clones(url: &str, bare: &Path) {
    let a = clone(url, true);
    let b = clone(url, true);
    let c = clone(url, true);

    ai_commit(&a, "a01", "a.txt");
    let out = run(&a, &["push", "-q", "origin", "main"]);
    assert!(clada_lines(&out).is_empty(), "{}", output_text(&out));
    assert_eq!(remote_logs(bare), 1);

    // b has not fetched a's logs: its notes push is rejected, fetched, merged, pushed again.
    b.git(&["checkout", "-qb", "feature"]);
    ai_commit(&b, "b01", "b.txt");
    let out = run(&b, &["push", "-q", "origin", "feature"]);
    assert!(clada_lines(&out).is_empty(), "{}", output_text(&out));
    assert_eq!(remote_logs(bare), 2);

    // Both commit on main; b pulls with --rebase (its AI commit gets a new id) and pushes.
    ai_commit(&a, "a02", "a2.txt");
    run(&a, &["push", "-q", "origin", "main"]);
    b.git(&["checkout", "-q", "main"]);
    ai_commit(&b, "b02", "b2.txt");
    run(&b, &["pull", "-q", "--rebase", "origin", "main"]);
    run(&b, &["push", "-q", "origin", "main"]);
    // a01, b01, a02, b02 before the rebase (its log stays on the old commit) and after.
    assert_eq!(remote_logs(bare), 5);
    assert_eq!(
        ai_lines(&b, "b2.txt"),
        2,
        "b's rebased commit keeps its log"
    );
    assert_eq!(ai_lines(&b, "a2.txt"), 2, "b sees a's lines");

    run(&a, &["pull", "-q"]);
    assert_eq!(ai_lines(&a, "b2.txt"), 2, "a sees b's lines after a pull");

    run(&c, &["pull", "-q"]);
    for f in ["a.txt", "a2.txt", "b2.txt"] {
        assert_eq!(ai_lines(&c, f), 2, "c sees {f}'s AI lines");
    }
    // git itself (and git-ai) reads the merged ref: the post-merge hook merged them.
    let listed = c.git(&["notes", "--ref=ai", "list"]);
    assert_eq!(listed.lines().count(), 5, "{listed}");

    let d = clone(url, true);
    run(&d, &["fetch", "-q"]);
    d.git(&["merge", "-q", "origin/feature"]);
    for f in ["a.txt", "a2.txt", "b.txt", "b2.txt"] {
        assert_eq!(ai_lines(&d, f), 2, "a fresh clone sees {f}'s AI lines");
    }
    d.assert_fsck();
}

#[test]
fn three_clones_share_the_logs_over_file_urls() {
    let dir = remote();
    let bare = dir.path().join("r.git");
    three_clones(&format!("file://{}", bare.display()), &bare);
}

/// `git daemon` serving `base` on 127.0.0.1 (pushes allowed); killed when dropped.
struct Daemon(Child, u16);

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn daemon(base: &Path) -> Daemon {
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port();
    let child = Command::new("git")
        .arg("daemon")
        .arg("--export-all")
        .arg("--enable=receive-pack")
        .arg("--reuseaddr")
        .arg("--listen=127.0.0.1")
        .arg(format!("--port={port}"))
        .arg(format!("--base-path={}", base.display()))
        .arg(base)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("git daemon");
    let d = Daemon(child, port);
    for _ in 0..200 {
        if TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return d;
        }
        std::thread::sleep(std::time::Duration::from_millis(25));
    }
    panic!("git daemon did not listen on 127.0.0.1:{port}");
}

#[test]
fn three_clones_share_the_logs_over_the_git_protocol() {
    let dir = remote();
    let d = daemon(dir.path());
    let bare = dir.path().join("r.git");
    three_clones(&format!("git://127.0.0.1:{}/r.git", d.1), &bare);
}

#[test]
fn a_remote_without_logs_is_no_error() {
    let dir = remote();
    let url = format!("file://{}", dir.path().join("r.git").display());
    let r = clone(&url, true);
    let specs = r.git(&["config", "--get-all", "remote.origin.fetch"]);
    assert!(
        specs.contains("refs/notes/ai*:refs/notes/remotes/origin/ai*"),
        "{specs}"
    );
    run(&r, &["fetch"]);
    run(&r, &["pull"]);
    r.write("h.txt", "human\n");
    r.git(&["add", "h.txt"]);
    r.git(&["commit", "-qm", "human"]);
    let out = run(&r, &["push", "-q"]);
    assert!(clada_lines(&out).is_empty(), "{}", output_text(&out));
    assert_eq!(r.git(&["for-each-ref", "refs/notes"]), "");
}

#[test]
fn a_notes_push_the_remote_refuses_is_one_line_and_the_push_goes_through() {
    let dir = remote();
    let bare = dir.path().join("r.git");
    let hook = bare.join("hooks/pre-receive");
    std::fs::write(
        &hook,
        "#!/bin/sh\nwhile read old new ref; do case \"$ref\" in refs/notes/*) echo 'no notes here'; exit 1;; esac; done\n",
    )
    .expect("hook");
    std::fs::set_permissions(&hook, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");
    let r = clone(&format!("file://{}", bare.display()), true);
    ai_commit(&r, "a01", "a.txt");
    let out = r.git_output(&["push", "-q", "origin", "main"]);
    ok(&out, "the user's push");
    let lines = clada_lines(&out);
    assert_eq!(lines.len(), 1, "{}", output_text(&out));
    assert!(
        lines[0].contains("not pushed to origin") && lines[0].contains("no notes here"),
        "{lines:?}"
    );
    assert_eq!(
        git_in(&bare, &["rev-parse", "main"]),
        r.git(&["rev-parse", "HEAD"])
    );
    assert_eq!(git_in(&bare, &["for-each-ref", "refs/notes"]), "");
}

/// What `for-each-ref` lists in a bare repository, without its notes.
fn refs_but_notes(bare: &Path) -> String {
    git_in(bare, &["for-each-ref", "--format=%(refname) %(objectname)"])
        .lines()
        .filter(|l| !l.starts_with("refs/notes/"))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// `agent-hook status`'s sharing line.
fn sharing_line(r: &TestRepo) -> String {
    let out = r.clada(&["agent-hook", "status"]);
    ok(&out, "status");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find(|l| l.starts_with("the attribution logs"))
        .unwrap_or_else(|| panic!("no sharing line: {}", output_text(&out)))
        .to_string()
}

#[test]
fn a_plain_push_pushes_what_it_did_plus_the_logs_and_a_later_remote_waits_for_install() {
    let dir = remote();
    let bare = dir.path().join("r.git");
    let plain = dir.path().join("plain.git");
    git_in(dir.path(), &["clone", "-q", "--bare", "r.git", "plain.git"]);
    let r = clone(&format!("file://{}", bare.display()), true);
    r.git(&[
        "remote",
        "add",
        "plain",
        &format!("file://{}", plain.display()),
    ]);
    assert!(
        sharing_line(&r).contains("not shared with plain"),
        "{}",
        sharing_line(&r)
    );
    ai_commit(&r, "a01", "a.txt");
    r.git(&["tag", "v1"]);
    for remote in ["origin", "plain"] {
        let out = run(&r, &["push", "-q", "--follow-tags", remote, "main"]);
        assert!(clada_lines(&out).is_empty(), "{}", output_text(&out));
    }
    assert_eq!(refs_but_notes(&bare), refs_but_notes(&plain));
    assert_eq!(
        git_in(&bare, &["rev-parse", "refs/notes/ai"]),
        r.git(&["rev-parse", "refs/notes/ai"])
    );
    assert_eq!(git_in(&plain, &["for-each-ref", "refs/notes"]), "");

    let out = r.clada(&["hooks", "install"]);
    ok(&out, "install again");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("plain ("),
        "{}",
        output_text(&out)
    );
    assert!(
        sharing_line(&r).contains("shared with origin, plain"),
        "{}",
        sharing_line(&r)
    );
    run(&r, &["push", "-q", "plain", "main"]);
    assert_eq!(remote_logs(&plain), 1);

    // --no-share leaves sharing out; uninstall removes the refspec and the push step.
    ok(&r.clada(&["hooks", "install", "--no-share"]), "--no-share");
    let spec =
        |remote: &str| r.git_output(&["config", "--get-all", &format!("remote.{remote}.fetch")]);
    assert!(!output_text(&spec("origin")).contains("refs/notes"));
    assert!(!r.path().join(".git/hooks/pre-push").exists());
    ok(&r.clada(&["hooks", "install"]), "install");
    assert!(output_text(&spec("origin")).contains("refs/notes/remotes/origin/ai*"));
    ok(&r.clada(&["hooks", "uninstall"]), "uninstall");
    assert!(!output_text(&spec("plain")).contains("refs/notes"));
    assert!(!r.path().join(".git/hooks/pre-push").exists());
}

#[test]
fn a_fetched_note_that_is_no_log_is_never_taken() {
    let dir = remote();
    let url = format!("file://{}", dir.path().join("r.git").display());
    let a = clone(&url, true);
    ai_commit(&a, "a01", "a.txt");
    run(&a, &["push", "-q", "origin", "main"]);
    // Someone without git-clada puts a note that is no log on the first commit.
    let other = clone(&url, false);
    other.git(&["fetch", "-q", "origin", "refs/notes/ai:refs/notes/ai"]);
    other.git(&[
        "notes",
        "--ref=ai",
        "add",
        "-m",
        "\u{1b}]0;pwned\u{7} not a log",
        "HEAD~1",
    ]);
    other.git(&["push", "-q", "origin", "refs/notes/ai"]);

    let fresh = clone(&url, true);
    run(&fresh, &["fetch", "-q"]);
    assert_eq!(ai_lines(&fresh, "a.txt"), 2);
    let first = fresh.git(&["rev-parse", "HEAD~1"]);
    assert!(fresh
        .git_output(&["notes", "--ref=ai", "show", first.trim()])
        .stderr
        .starts_with(b"error: no note found"));
    assert_eq!(fresh.git(&["notes", "--ref=ai", "list"]).lines().count(), 1);
}

/// A git-clada log of `commit` crediting line `line` of `path` to cursor.
fn cursor_log(commit: &str, path: &str, line: u32) -> String {
    use clada_engine::authorship::{ids, LineSet, Metadata};
    let sid = ids::session_id("cursor", "conv-1");
    let mut log = Log {
        files: Vec::new(),
        meta: Metadata::new(commit),
    };
    log.meta.sessions.insert(
        sid.clone(),
        serde_json::from_value(serde_json::json!({
            "agent_id": {"tool": "cursor", "id": "conv-1", "model": "m"}
        }))
        .expect("session"),
    );
    log.attest(
        path,
        &format!("{sid}::t_0123456789abcd"),
        &LineSet::from_lines([line]),
    );
    log.serialize()
}

#[test]
fn two_git_clada_logs_of_one_commit_merge_line_by_line_the_later_winning() {
    let dir = remote();
    let bare = dir.path().join("r.git");
    let url = format!("file://{}", bare.display());
    let a = clone(&url, true);
    let b = clone(&url, true);
    ai_commit(&a, "a01", "a.txt"); // claude: lines 1-2
    run(&a, &["push", "-q", "origin", "main"]);
    // b takes the commit without its log and, later, writes its own log of it: line 2 cursor's.
    b.git(&["-c", "core.hooksPath=/dev/null", "pull", "-q"]);
    let head = b.git(&["rev-parse", "HEAD"]).trim().to_string();
    let mut add = b.git_cmd();
    add.env("GIT_COMMITTER_DATE", "2026-01-02T12:00:00 +0000")
        .args([
            "notes",
            "--ref=ai",
            "add",
            "-m",
            &cursor_log(&head, "a.txt", 2),
            &head,
        ]);
    ok(&add.output().expect("git notes"), "notes add");
    // b's notes push is rejected, fetched, merged and pushed again.
    b.write("h.txt", "human\n");
    b.git(&["add", "h.txt"]);
    b.git(&["commit", "-qm", "human"]);
    run(&b, &["push", "-q", "origin", "main"]);
    let text = git_in(&bare, &["notes", "--ref=ai", "show", &head]);
    let log = Log::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let tools: Vec<(String, String)> = log.files[0]
        .entries
        .iter()
        .map(|e| {
            (
                log.session_of(&e.key)
                    .expect("session")
                    .agent_id
                    .tool
                    .clone(),
                e.lines.to_string(),
            )
        })
        .collect();
    assert_eq!(
        tools,
        vec![
            ("claude".to_string(), "1".to_string()),
            ("cursor".to_string(), "2".to_string())
        ],
        "{text}"
    );
    assert_eq!(remote_logs(&bare), 1);
}
