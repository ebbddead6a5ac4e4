//! A reader that goes away (`git clada log | head -1`) ends git-clada as it ends git: killed by
//! SIGPIPE (141 in a shell), nothing on stderr, the repository as it was; and an apply whose
//! stdout is closed still finishes its commit (`base::stdout` says why the signal's default is
//! restored only at that moment, never for the whole run).

use std::io::{BufRead, BufReader, Write as _};
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, ExitStatus, Stdio};

use crate::common::{self, TestRepo};

/// What a command did when its reader went away.
struct Ended {
    status: ExitStatus,
    first_line: String,
    stderr: String,
}

/// Runs `cmd` with stdout a pipe from which one line is read before the read end is closed,
/// as `| head -1` does.
fn head_1(mut cmd: Command) -> Ended {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn");
    let mut reader = BufReader::new(child.stdout.take().expect("stdout"));
    let mut first_line = String::new();
    reader.read_line(&mut first_line).expect("read a line");
    drop(reader);
    let out = child.wait_with_output().expect("wait");
    Ended {
        status: out.status,
        first_line,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs `cmd` with stdout a pipe whose read end is closed before it starts, as `| true` can.
fn closed_at_once(mut cmd: Command) -> Ended {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    cmd.stdin(Stdio::null())
        .stdout(writer)
        .stderr(Stdio::piped());
    let out = cmd.output().expect("run");
    Ended {
        status: out.status,
        first_line: String::new(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Asserts the process ended as git's does on a closed stdout: by SIGPIPE (or exit 141 where a
/// parent left the signal blocked), saying nothing.
fn assert_ended_as_git(ended: &Ended, what: &str) {
    let status = ended.status;
    assert!(
        status.signal() == Some(libc::SIGPIPE) || status.code() == Some(141),
        "{what}: ended with {status:?}, not by SIGPIPE; stderr:\n{}",
        ended.stderr
    );
    assert!(
        ended.stderr.is_empty(),
        "{what}: printed on stderr (a panic, a backtrace or an error about the pipe):\n{}",
        ended.stderr
    );
}

/// A fast-import stream of `n` AI commits on `main`, each adding a line to one of 20 files,
/// with an authorship log (refs/notes/ai) per commit: a history whose `log` and `stats`
/// outputs are several pipe buffers long, made in a second instead of `n` applies (few files,
/// so that `stats` blames little).
fn ai_history(n: usize) -> String {
    const FILES: usize = 20;
    fn data(out: &mut String, text: &str) {
        out.push_str(&format!("data {}\n{text}\n", text.len()));
    }
    let mut out = String::new();
    let mut files = vec![String::new(); FILES];
    let mut logs = Vec::new();
    for i in 1..=n {
        out.push_str(&format!(
            "commit refs/heads/main\nmark :{i}\ncommitter T <t@example.com> {} +0000\n",
            1_700_000_000 + i * 3600
        ));
        data(
            &mut out,
            &format!(
                "AI: change {i}\n\nApplied 1 of 1 blocks.\n\nClada-Version: 0.1.0\n\
                 Clada-Reply: 53407eb41ccc855c3eed4934166217724389e7a6\nClada-Blocks: a01\n"
            ),
        );
        if i > 1 {
            out.push_str(&format!("from :{}\n", i - 1));
        }
        let file = &mut files[i % FILES];
        file.push_str(&format!("line {i}\n"));
        let line = file.lines().count();
        out.push_str(&format!("M 100644 inline f{}.txt\n", i % FILES));
        data(&mut out, file);
        let session = format!("s_{i:014x}");
        let meta = serde_json::json!({
            "schema_version": "authorship/3.0.0",
            "base_commit_sha": format!("{i:040x}"),
            "prompts": {},
            "sessions": {session.clone(): {"agent_id": {
                "tool": "claude", "id": format!("{i:040x}"), "model": format!("model-{i}")
            }}}
        });
        logs.push(format!(
            "f{}.txt\n  {session}::t_{i:014x} {line}\n---\n{meta}",
            i % FILES
        ));
    }
    out.push_str("commit refs/notes/ai\ncommitter T <t@example.com> 1800000000 +0000\n");
    data(&mut out, "authorship logs");
    for (i, log) in logs.iter().enumerate() {
        out.push_str(&format!("N inline :{}\n", i + 1));
        data(&mut out, log);
    }
    out
}

/// A repository with a long AI history, then one real apply of a long file (a long `show`
/// and `blame`), and that reply kept outside the worktree (a long `parse`).
fn long_outputs() -> (TestRepo, std::path::PathBuf) {
    let repo = TestRepo::new();
    let mut import = repo.git_cmd();
    import.args(["fast-import", "--quiet"]);
    let out = common::spawn_fed(import, &ai_history(2000))
        .wait_with_output()
        .expect("fast-import");
    assert!(out.status.success(), "{}", common::output_text(&out));
    repo.git(&["reset", "-q", "--hard", "main"]);
    let long: String = (1..=4000)
        .map(|i| format!("line {i} of a long file, written by the model\n"))
        .collect();
    let reply = common::write_block("b00", "long.txt", &long);
    let applied = repo.apply(&reply, &[]);
    common::assert_ok(&applied, "the long apply");
    let reply_file = repo.home.path().join("reply.md");
    std::fs::write(&reply_file, &reply).expect("write the reply");
    (repo, reply_file)
}

#[test]
fn long_outputs_end_quietly_when_the_reader_stops_as_git_log_does() {
    let (repo, reply) = long_outputs();
    let reply = reply.to_str().expect("utf-8 path");
    let mut git_log = repo.git_cmd();
    git_log.args(["log", "--stat"]);
    let git = head_1(git_log);
    assert_eq!(
        git.status.signal(),
        Some(libc::SIGPIPE),
        "git log itself: {:?} {}",
        git.status,
        git.stderr
    );
    let before = repo.state();
    let commands: &[&[&str]] = &[
        &["log"],
        &["log", "--format", "json"],
        &["show"],
        &["show", "--format", "json"],
        &["blame", "long.txt"],
        &["blame", "--format", "json", "long.txt"],
        &["stats"],
        &["stats", "--format", "json"],
        &["stats", "--format", "html"],
        &["context", "long.txt"],
        &["parse", reply],
    ];
    for args in commands {
        let what = format!("git clada {}", args.join(" "));
        let mut cmd = repo.clada_cmd();
        cmd.args(*args);
        let ended = head_1(cmd);
        assert!(!ended.first_line.is_empty(), "{what}: printed nothing");
        assert_ended_as_git(&ended, &what);
    }
    common::assert_same_user_state(&repo.state(), &before, "after the closed pipes");
    assert_eq!(repo.status(), "", "git status --porcelain");
    repo.assert_fsck();
}

#[test]
fn short_outputs_end_quietly_when_stdout_is_closed_from_the_start() {
    let repo = TestRepo::with_files(&[("a.txt", "one\n")]);
    common::assert_ok(
        &repo.apply(&common::write_block("a01", "b.txt", "two\n"), &[]),
        "an apply to list",
    );
    let reply = repo.home.path().join("reply.md");
    std::fs::write(&reply, common::write_block("c01", "c.txt", "three\n")).expect("reply");
    let reply = reply.to_str().expect("utf-8 path");
    let before = repo.state();
    let commands: &[&[&str]] = &[
        &["log"],
        &["status"],
        &["status", "--format", "json"],
        &["undo", "--list"],
        &["undo", "--list", "--format", "json"],
        &["config"],
        &["config", "--format", "json"],
        &["prompt"],
        &["prompt", "--format", "json"],
        &["stats", "--format", "markdown"],
        &["check", reply],
        &["parse", reply],
        &["parse", "--format", "human", reply],
    ];
    for args in commands {
        let what = format!("git clada {}", args.join(" "));
        let mut cmd = repo.clada_cmd();
        cmd.args(*args);
        assert_ended_as_git(&closed_at_once(cmd), &what);
    }
    common::assert_same_user_state(&repo.state(), &before, "after the closed pipes");
    repo.assert_fsck();
}

#[test]
fn an_apply_whose_stdout_is_closed_finishes_its_commit_then_ends_quietly() {
    let repo = TestRepo::with_files(&[("a.txt", "one\n")]);
    repo.write("wip.txt", "my own work\n");
    let before = repo.head();
    let mut cmd = repo.clada_cmd();
    cmd.args(["--format", "json", "apply", "-"]);
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    cmd.stdin(Stdio::piped())
        .stdout(writer)
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn");
    let reply = common::write_block("a01", "b.txt", "two\n")
        + &common::replace_block("a02", "a.txt", "one", "uno");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(reply.as_bytes())
        .expect("feed the reply");
    let out = child.wait_with_output().expect("wait");
    let ended = Ended {
        status: out.status,
        first_line: String::new(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    assert_ended_as_git(&ended, "git clada apply");
    // The whole transaction happened: the AI commit on the branch, the files and the user's
    // work in place, no lock left, and it can be taken back.
    assert_eq!(repo.subject("HEAD"), "AI: create b.txt, edit a.txt");
    assert_eq!(repo.read("b.txt"), "two\n");
    assert_eq!(repo.read("a.txt"), "uno\n");
    assert_eq!(repo.read("wip.txt"), "my own work\n");
    assert_eq!(repo.status(), "?? wip.txt\n");
    repo.assert_fsck();
    common::assert_ok(&repo.clada(&["undo"]), "undo of the apply");
    assert_eq!(repo.head(), before);
    assert_eq!(repo.read("a.txt"), "one\n");
}

#[test]
fn hooks_install_with_a_closed_stdout_installs_every_hook_then_ends_quietly() {
    let repo = TestRepo::with_files(&[("a.txt", "one\n")]);
    let mut cmd = repo.clada_cmd();
    cmd.args(["hooks", "install"]);
    assert_ended_as_git(&closed_at_once(cmd), "git clada hooks install");
    let mut again = repo.clada_cmd();
    again.args(["hooks", "install"]);
    let out = again.output().expect("run");
    common::assert_ok(&out, "hooks install again");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        !text.contains(" installed:") && text.contains("already installed"),
        "the first install left hooks out:\n{text}"
    );
}
