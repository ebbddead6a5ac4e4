//! Exact texts of reports and messages that once misled or left the user guessing (issue 11),
//! beyond the reply corpus of `report_corpus.rs`: the index-lock error, the undo of a gathered
//! squash, `check` counting swallowed blocks, `apply` waiting on a terminal, `install-man`.

use crate::common;

use common::{write_block, TestRepo};

fn code(out: &std::process::Output) -> i32 {
    out.status.code().unwrap_or(-1)
}

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn the_index_lock_error_reads_as_one_sentence() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let lock = repo.path().join(".git/index.lock");
    std::fs::write(&lock, b"").expect("lock");
    let out = repo.apply(&write_block("l1", "b.txt", "b"), &[]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    let index = repo.path().join(".git/index");
    let err = stderr(&out).replace(&index.display().to_string(), "INDEX");
    assert_eq!(
        err,
        "git-clada: cannot lock the index: 'INDEX.lock' exists, so another git command is using the index (waited 2 s); if no other git command is running (one may have crashed), remove 'INDEX.lock' and try again\n"
    );
}

#[test]
fn undo_of_a_gathering_squash_names_the_squash_commit() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("h.txt", "h\n")]);
    for (id, path) in [("g11", "a.txt"), ("g21", "b.txt")] {
        if id == "g21" {
            repo.write("h.txt", "human\n");
            repo.git(&["commit", "-qam", "human work"]);
        }
        let out = repo.apply(&write_block(id, path, "x\n"), &[]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
    }
    let out = repo.clada(&["squash", "--mode", "ai_messages", "--no-contiguous-only"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(repo.subject("HEAD"), "human work");
    let squashed = repo.git(&["rev-parse", "HEAD~1"]).trim().to_string();
    let subject = repo.subject("HEAD~1");
    assert!(subject.starts_with("AI: "), "{subject}");

    let out = repo.clada(&["--format", "human", "--dry-run", "undo"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let first = stdout(&out).lines().next().unwrap_or_default().to_string();
    assert!(
        first.starts_with(&format!(
            "Would undo the squash {} \"{subject}\": HEAD would be at ",
            &squashed[..7]
        )),
        "{first}"
    );
    let out = repo.clada(&["--format", "json", "--dry-run", "undo"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["commit"], serde_json::json!(squashed));
    assert_eq!(v["subject"], serde_json::json!(subject));
}

#[test]
fn check_counts_the_blocks_an_unclosed_heredoc_swallowed() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let reply = "#!nesl [@three-char-SHA-256: hd1]\naction = \"file_write\"\npath = \"x.txt\"\ncontent = <<'EOT_hd1'\nx\nEOT_hd\n#!end_hd1\n\n#!nesl [@three-char-SHA-256: hd2]\naction = \"file_write\"\npath = \"y.txt\"\ncontent = \"y\"\n#!end_hd2\n";
    repo.write("reply.md", reply);
    let out = repo.clada(&["--format", "human", "check", "reply.md"]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "reply.md: 2 problem(s) in 1 blocks (and 1 more block swallowed by an unclosed heredoc)\n  \
         hd1 ❌ file_write - syntax error (line 1): Heredoc 'EOT_hd1' not closed before EOF: the \
         heredoc of `content` opened at line 4 was never closed (it needs a line ending with \
         `EOT_hd1`); line 6 `EOT_hd` looks like a misspelled terminator, so everything after line \
         4 was read as its text, including 1 later block header: line 9 (block hd2). Fix the \
         terminator, then resend this block and the swallowed one\n  \
         hd2 ❌ file_write - syntax error (line 9): not read: this block's header is inside the \
         unclosed heredoc of block hd1 (see its error); resend this block\n"
    );
    let out = repo.clada(&["--format", "json", "check", "reply.md"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v[0]["swallowedBlocks"], serde_json::json!(1));
    assert_eq!(v[0]["parseErrors"].as_array().map(Vec::len), Some(2));
}

#[test]
fn a_syntax_error_context_shows_the_header_once() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    // The duplicate key is on line 3, so the five lines around it start with the header.
    let reply = "#!nesl [@three-char-SHA-256: dk1]\npath = \"b.txt\"\npath = \"c.txt\"\naction = \"file_write\"\ncontent = \"c\"\n#!end_dk1\n";
    let out = repo.apply(reply, &[]);
    let v = TestRepo::report(&out);
    assert_eq!(
        v["parseErrors"][0]["neslContent"],
        serde_json::json!("#!nesl [@three-char-SHA-256: dk1]\npath = \"b.txt\"\npath = \"c.txt\"\naction = \"file_write\"\ncontent = \"c\"")
    );
    // Further down, the header is put in front of the window once.
    let reply = "#!nesl [@three-char-SHA-256: dk2]\naction = \"file_write\"\ncontent = \"c\"\npath = \"b.txt\"\npath = \"c.txt\"\n#!end_dk2\n";
    let v = TestRepo::report(&repo.apply(reply, &[]));
    assert_eq!(
        v["parseErrors"][0]["neslContent"],
        serde_json::json!("#!nesl [@three-char-SHA-256: dk2]\ncontent = \"c\"\npath = \"b.txt\"\npath = \"c.txt\"\n#!end_dk2")
    );
}

/// `git-clada apply` with its standard input on a terminal (a pseudo-terminal made by
/// `script`), the input ended at once with Ctrl-D.
#[test]
fn apply_on_a_terminal_says_it_is_reading_the_reply() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let bin = env!("CARGO_BIN_EXE_git-clada");
    let template = repo.clada_cmd();
    let mut cmd = std::process::Command::new("script");
    cmd.args([
        "-q",
        "-e",
        "-c",
        &format!("'{bin}' --format llm apply"),
        "/dev/null",
    ])
    .current_dir(repo.path());
    for (k, v) in template.get_envs() {
        match v {
            Some(v) => cmd.env(k, v),
            None => cmd.env_remove(k),
        };
    }
    let out = common::spawn_fed(cmd, "\u{4}")
        .wait_with_output()
        .expect("wait");
    let text = stdout(&out).replace("\r\n", "\n");
    assert!(
        text.contains(
            "reading the reply from stdin (end it with Ctrl-D, or pass a file: git clada apply reply.md)...\n"
        ),
        "{text}"
    );
    // Not on a terminal (a pipe), nothing is said.
    let out = repo.apply("", &[]);
    assert_eq!(stderr(&out), "");
}

#[test]
fn install_man_writes_the_pages_and_says_how_man_finds_them() {
    let repo = TestRepo::new();
    let dir = repo.home.path().join(".local/share/man/man1");
    let root = repo.home.path().join(".local/share/man");
    let mut cmd = repo.clada_cmd();
    cmd.env("MANPATH", "/nowhere").args(["install-man"]);
    let out = cmd.output().expect("run");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let pages = git_clada::cli::man::man_pages().expect("pages");
    for (name, page) in &pages {
        assert_eq!(
            &std::fs::read(dir.join(name)).expect("written"),
            page,
            "{name}"
        );
    }
    assert!(pages.iter().any(|(n, _)| n == "git-clada.1"));
    assert!(pages.iter().any(|(n, _)| n == "git-clada-install-man.1"));
    assert_eq!(
        stdout(&out),
        format!(
            "wrote {} man pages into {}\n`man` does not search {} yet; add this line to your shell's startup file (e.g. ~/.bashrc), then open a new shell:\n  export MANPATH=\"{}:$MANPATH\"\n",
            pages.len(),
            dir.display(),
            root.display(),
            root.display()
        )
    );
    // Once MANPATH lists it, `man git-clada` finds the page.
    let mut cmd = repo.clada_cmd();
    cmd.env("MANPATH", &root).args(["install-man"]);
    let out = cmd.output().expect("run");
    assert_eq!(
        stdout(&out),
        format!(
            "wrote {} man pages into {}\n`git clada --help` and `man git-clada` show them\n",
            pages.len(),
            dir.display()
        )
    );
    let man = std::process::Command::new("man")
        .env("MANPATH", &root)
        .env("MANPAGER", "cat")
        .env("PAGER", "cat")
        .args(["-w", "git-clada"])
        .output();
    if let Ok(man) = man {
        if man.status.success() {
            assert_eq!(
                stdout(&man).trim(),
                dir.join("git-clada.1").display().to_string()
            );
        }
    }
    // --dir elsewhere, and --dry-run writes nothing.
    let other = repo.home.path().join("elsewhere/man1");
    let out = repo.clada(&[
        "--dry-run",
        "install-man",
        "--dir",
        other.to_str().expect("utf-8"),
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).starts_with(&format!(
        "would write {} man pages into {}\n",
        pages.len(),
        other.display()
    )));
    assert!(!other.exists());
}
