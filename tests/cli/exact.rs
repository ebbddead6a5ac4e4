//! Issue 22: exactly what the reply says, once. The AI commit holds only the AI's change
//! (moves, deletes and writes over the user's uncommitted work, formatters, pre-commit hooks
//! that fix files, exec running git), bytes are exactly as the reply says (CRLF files, a
//! re-pasted reply, CML content holding its own end tag, replacer paths, symlinks, the
//! final-newline setting, git's path rules), and a failure mid-apply loses nothing (a full
//! disk, a kill, a read-only file, a detached HEAD). Every test runs the real binary on a
//! real repository and checks it with the git CLI.

use crate::common;

use common::{block, exit_code as code, output_text, replace_block as replace, TestRepo};

#[track_caller]
fn ok(out: &std::process::Output) -> serde_json::Value {
    assert_eq!(code(out), 0, "{}", output_text(out));
    TestRepo::report(out)
}

#[track_caller]
fn succeeded(out: &std::process::Output) {
    assert_eq!(code(out), 0, "{}", output_text(out));
}

fn warnings(report: &serde_json::Value) -> String {
    report["warnings"].to_string()
}

fn show(repo: &TestRepo, rev_path: &str) -> Vec<u8> {
    repo.git_output(&["show", rev_path]).stdout
}

fn changed_in_head(repo: &TestRepo) -> String {
    repo.git(&[
        "diff-tree",
        "--no-commit-id",
        "--name-status",
        "-r",
        "-M",
        "HEAD",
    ])
}

// ---- Bytes exactly as the reply says ----

#[test]
fn crlf_file_gets_crlf_breaks_in_a_multi_line_new_text() {
    let repo = TestRepo::new();
    repo.write_bytes("win.txt", b"one\r\ntwo\r\nthree\r\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "initial"]);
    let report = ok(&repo.apply(&replace("c1", "win.txt", "two", "two\nand a half"), &[]));
    assert_eq!(
        std::fs::read(repo.path().join("win.txt")).unwrap(),
        b"one\r\ntwo\r\nand a half\r\nthree\r\n"
    );
    assert!(
        report["results"][0]["warnings"]
            .to_string()
            .contains("CRLF"),
        "{report}"
    );
    let range = block(
        "c2",
        &[
            ("action", "file_replace_range"),
            ("path", "win.txt"),
            ("start_text", "one"),
            ("end_text", "two"),
            ("new_text", "1\n2"),
        ],
    );
    ok(&repo.apply(&range, &[]));
    assert_eq!(
        std::fs::read(repo.path().join("win.txt")).unwrap(),
        b"1\r\n2\r\nand a half\r\nthree\r\n"
    );
}

fn replacer_search(path: &str, search: &str, replace: &str) -> String {
    format!("<<<FILE>>>\n{path}\n<<<SEARCH>>>\n{search}\n<<<REPLACE>>>\n{replace}\n<<<END>>>\n")
}

fn replacer_overwrite(path: &str, content: &str) -> String {
    format!("<<<FILE>>>\n{path}\n<<<OVERWRITE>>>\n{content}\n<<<END>>>\n")
}

#[test]
fn replacer_paths_with_the_project_folder_or_an_absolute_path_mean_the_repository_file() {
    let repo = TestRepo::with_files(&[("src/x.py", "a = 1\n"), ("src/y.py", "b = 1\n")]);
    let name = repo
        .path()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let report = ok(&repo.apply(
        &replacer_search(&format!("{name}/src/x.py"), "a = 1", "a = 2"),
        &[],
    ));
    assert_eq!(repo.read("src/x.py"), "a = 2\n");
    assert!(report.to_string().contains("project folder"), "{report}");
    ok(&repo.apply(
        &replacer_overwrite(&format!("{name}/src/y.py"), "b = 2"),
        &[],
    ));
    assert_eq!(repo.read("src/y.py"), "b = 2\n");
    assert!(!repo.exists(&name), "a nested project folder was created");
    // An absolute path of the user's machine, which is not this checkout's.
    ok(&repo.apply(
        &replacer_search(&format!("/home/someone/{name}/src/x.py"), "a = 2", "a = 3"),
        &[],
    ));
    assert_eq!(repo.read("src/x.py"), "a = 3\n");
    ok(&repo.apply(
        &replacer_overwrite(&format!("/home/someone/{name}/src/new.py"), "c = 1"),
        &[],
    ));
    assert_eq!(repo.read("src/new.py"), "c = 1\n");
    assert_eq!(repo.status(), "");
}

#[test]
fn a_write_through_a_symlink_names_the_link_target_in_a_warning() {
    let repo = TestRepo::with_files(&[("real/config.txt", "old\n")]);
    std::os::unix::fs::symlink("real/config.txt", repo.path().join("link.txt")).unwrap();
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "link"]);
    let report = ok(&repo.apply(&replace("s1", "link.txt", "old", "new"), &[]));
    assert_eq!(repo.read("real/config.txt"), "new\n");
    let result = report["results"][0].to_string();
    assert!(
        result.contains("symlink") && result.contains("real/config.txt"),
        "{report}"
    );
}

#[test]
fn a_configured_final_newline_wins_over_editorconfig_and_config_shows_what_applies() {
    let repo = TestRepo::with_files(&[(
        ".editorconfig",
        "root = true\n[*]\ninsert_final_newline = true\n",
    )]);
    // Left at its default, .editorconfig decides, and `config` says so.
    let out = repo.clada(&["--format", "json", "config"]);
    assert_eq!(code(&out), 0, "{}", output_text(&out));
    let cfg: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let entry = cfg["settings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["key"] == "files.final_newline")
        .unwrap()
        .clone();
    assert!(
        entry["source"]
            .as_str()
            .unwrap()
            .contains(".editorconfig insert_final_newline applies where set: [*] = true"),
        "{entry}"
    );
    ok(&repo.apply(&common::write_block("w1", "a.txt", "no newline"), &[]));
    assert_eq!(repo.read("a.txt"), "no newline\n");
    // The user's explicit setting wins.
    repo.write(".clada.yml", "files:\n  final_newline: false\n");
    ok(&repo.apply(&common::write_block("w2", "b.txt", "no newline"), &[]));
    assert_eq!(repo.read("b.txt"), "no newline");
    let out = repo.clada(&["config"]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let line = text
        .lines()
        .find(|l| l.starts_with("files.final_newline"))
        .unwrap()
        .to_string();
    assert!(
        line.contains("false") && line.contains(".clada.yml"),
        "{text}"
    );
}

#[test]
fn file_move_of_a_file_into_a_folder_of_its_own_name() {
    let repo = TestRepo::with_files(&[("bench", "#!/bin/sh\necho bench\n")]);
    repo.set_executable("bench");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "x"]);
    let before = repo.state();
    let mv = block(
        "m1",
        &[
            ("action", "file_move"),
            ("old_path", "bench"),
            ("new_path", "bench/bench"),
        ],
    );
    ok(&repo.apply(&mv, &[]));
    assert_eq!(repo.read("bench/bench"), "#!/bin/sh\necho bench\n");
    assert_eq!(
        repo.git(&["ls-tree", "-r", "HEAD", "--format=%(objectmode) %(path)"]),
        "100755 bench/bench\n"
    );
    assert_eq!(repo.status(), "");
    succeeded(&repo.clada(&["undo"]));
    common::assert_same_user_state(&repo.state(), &before, "undo of a move into its own folder");
}

#[test]
fn backslash_paths_git_would_refuse_on_windows_are_refused() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let head = repo.head();
    let out = repo.apply(
        &common::write_block("b1", ".git\\hooks\\post-checkout", "#!/bin/sh\necho pwned"),
        &[],
    );
    let report = TestRepo::report(&out);
    assert_ne!(code(&out), 0, "{report}");
    assert!(
        report.to_string().contains("backslashes") && report.to_string().contains("protectNTFS"),
        "{report}"
    );
    assert_eq!(repo.head(), head);
    assert!(!repo.exists(".git\\hooks\\post-checkout"));
    // Inside a folder too.
    let out = repo.apply(&common::write_block("b2", "sub/x\\.GIT\\config", "x"), &[]);
    assert_ne!(code(&out), 0, "{}", output_text(&out));
    assert_eq!(repo.head(), head);
    repo.assert_fsck();
}

// ---- The AI commit holds only the AI's change ----

fn file_move(id: &str, from: &str, to: &str) -> String {
    block(
        id,
        &[
            ("action", "file_move"),
            ("old_path", from),
            ("new_path", to),
        ],
    )
}

#[test]
fn file_move_of_a_dirty_file_commits_heads_blob_and_the_users_edit_stays_unstaged() {
    let repo = TestRepo::with_files(&[(
        "old.py",
        "def a():\n    return 1\n\n\ndef b():\n    return 2\n",
    )]);
    let head_blob = show(&repo, "HEAD:old.py");
    // The user's unstaged edit.
    repo.write(
        "old.py",
        "def a():\n    return 1  # mine\n\n\ndef b():\n    return 2\n",
    );
    let before = repo.state();
    let reply = [
        file_move("m1", "old.py", "new.py"),
        replace("e1", "new.py", "return 2", "return 3"),
    ]
    .concat();
    let report = ok(&repo.apply(&reply, &[]));
    assert!(report.get("snapshotCommit").is_none(), "{report}");
    // The AI commit moves HEAD's blob, plus the AI's own edit; not the user's edit.
    let committed = show(&repo, "HEAD:new.py");
    assert_eq!(
        String::from_utf8(committed).unwrap(),
        String::from_utf8(head_blob)
            .unwrap()
            .replace("return 2", "return 3")
    );
    // The user's edit is still there, unstaged, at the new path.
    assert_eq!(
        repo.read("new.py"),
        "def a():\n    return 1  # mine\n\n\ndef b():\n    return 3\n"
    );
    assert_eq!(repo.status(), " M new.py\n");
    assert!(
        !warnings(&report).contains("no longer in the worktree"),
        "{report}"
    );
    succeeded(&repo.clada(&["undo"]));
    common::assert_same_user_state(&repo.state(), &before, "undo of a move of a dirty file");
}

/// The ref or commit a "no longer in the worktree" warning for `path` names.
fn keeper_of(report: &serde_json::Value, path: &str) -> String {
    let w = warnings(report);
    let start = format!("your uncommitted change to {path} is no longer in the worktree");
    let at = w
        .find(&start)
        .unwrap_or_else(|| panic!("no warning for {path}: {report}"));
    let rest = &w[at..];
    let kept = rest.find("it is kept in ").unwrap() + "it is kept in ".len();
    rest[kept..].split(':').next().unwrap().to_string()
}

#[test]
fn file_delete_or_file_write_over_uncommitted_work_names_where_it_is_kept() {
    let repo = TestRepo::with_files(&[("gone.txt", "g0\n"), ("over.txt", "o0\n")]);
    repo.write("gone.txt", "g1 mine\n");
    let before = repo.state();
    let reply = block("d1", &[("action", "file_delete"), ("path", "gone.txt")]);
    let report = ok(&repo.apply(&reply, &[]));
    // The user's work stayed uncommitted; its copy is under refs/clada/work/<commit>.
    let keeper = keeper_of(&report, "gone.txt");
    assert_eq!(keeper, format!("refs/clada/work/{}", repo.head()));
    assert_eq!(
        repo.git(&["show", &format!("{keeper}:gone.txt")]),
        "g1 mine\n"
    );
    succeeded(&repo.clada(&["undo"]));
    common::assert_same_user_state(&repo.state(), &before, "undo of a delete over dirty work");

    // A whole-file write over the user's edit: the two cannot be kept apart, so the AI's
    // version stays in the worktree, uncommitted (issue 38), and the report says where the
    // user's is: undo brings it back.
    repo.write("over.txt", "o1 mine\n");
    let before = repo.state();
    let head = repo.head();
    let report = ok(&repo.apply(&common::write_block("w1", "over.txt", "AI's"), &[]));
    let w = warnings(&report);
    assert!(w.contains("⏸ not committed"), "{report}");
    assert!(
        w.contains("your uncommitted change to over.txt is no longer in the worktree")
            && w.contains("`git clada undo`"),
        "{report}"
    );
    assert_eq!(repo.head(), head, "nothing of the user's was committed");
    assert_eq!(repo.read("over.txt"), "AI's\n");
    succeeded(&repo.clada(&["undo"]));
    common::assert_same_user_state(&repo.state(), &before, "undo of a write over dirty work");
    assert_eq!(repo.read("over.txt"), "o1 mine\n");
}

/// The user's own configuration turns the OS sandbox off, for exec blocks and for hooks: what
/// these tests reproduce (exec rewriting `.git/index`, a hook writing outside the worktree)
/// is only possible without it (issues 21 and 35), and the AI commit must still hold only the
/// AI's change.
fn sandbox_off(repo: &TestRepo) {
    repo.user_config("sandbox:\n  level: off\nhooks:\n  sandbox: off\n");
}

fn exec(id: &str, code: &str) -> String {
    block(id, &[("action", "exec"), ("lang", "bash"), ("code", code)])
}

#[test]
fn a_read_only_git_status_in_exec_that_rewrites_the_index_file_is_no_change_of_gits_state() {
    let repo = TestRepo::with_files(&[("a.txt", "a0\n"), ("b.txt", "b0\n")]);
    sandbox_off(&repo);
    // Stale stat data, so `git status` refreshes it and writes the index file.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    repo.write("b.txt", "b0\n");
    let reply = [
        replace("r1", "a.txt", "a0", "a1"),
        exec(
            "x1",
            "a=$(stat -c %i .git/index); git status --porcelain >/dev/null; \
             b=$(stat -c %i .git/index); [ \"$a\" != \"$b\" ] && echo REWROTE-INDEX",
        ),
    ]
    .concat();
    let report = ok(&repo.apply(&reply, &["--exec", "allow"]));
    // (git status did rewrite the index file, or the test would prove nothing.)
    assert!(
        report["results"][1].to_string().contains("REWROTE-INDEX"),
        "{report}"
    );
    assert!(
        !warnings(&report).contains("exec changed git's state"),
        "{report}"
    );
    assert!(report["gitCommit"].is_string(), "{report}");
    assert_eq!(changed_in_head(&repo), "M\ta.txt\n");
    assert_eq!(repo.status(), "");
    succeeded(&repo.clada(&["undo"]));
    assert_eq!(repo.read("a.txt"), "a0\n");
}

#[test]
fn a_reply_pasted_again_is_reported_already_applied_and_force_runs_it() {
    let repo = TestRepo::with_files(&[("app.py", "import os\n\nmain()\n")]);
    let reply = replace("a1", "app.py", "import os\n", "import os\nimport sys\n");
    let first = ok(&repo.apply(&reply, &[]));
    let commit = first["gitCommit"].as_str().unwrap().to_string();
    let once = repo.read("app.py");
    assert_eq!(once, "import os\nimport sys\n\nmain()\n");
    // A human commit in between does not matter: the reply is still the last one applied,
    // and its file is as it left it (issue 38: otherwise it would run again).
    repo.write("other.txt", "x\n");
    repo.git(&["add", "other.txt"]);
    repo.git(&["commit", "-q", "-m", "human"]);
    let head = repo.head();
    let out = repo.apply(&reply, &[]);
    let second = ok(&out);
    assert_eq!(repo.read("app.py"), once, "the block ran a second time");
    assert_eq!(repo.head(), head, "{second}");
    assert_eq!(second["results"][0]["alreadyApplied"], commit.as_str());
    let human = {
        let mut cmd = repo.clada_cmd();
        cmd.args(["--format", "llm", "apply", "-"]);
        common::spawn_fed(cmd, &reply).wait_with_output().unwrap()
    };
    assert!(
        output_text(&human).contains(&format!(
            "this reply was applied last, in {}",
            &commit[..12]
        )),
        "{}",
        output_text(&human)
    );
    // --force runs it anyway.
    ok(&repo.apply(&reply, &["--force"]));
    assert_eq!(
        repo.read("app.py"),
        "import os\nimport sys\nimport sys\n\nmain()\n"
    );
    // Once the AI commit is no longer on the branch, the block runs again.
    succeeded(&repo.clada(&["undo"]));
    repo.git(&["reset", "-q", "--hard", &format!("{commit}~1")]);
    assert_eq!(repo.read("app.py"), "import os\n\nmain()\n");
    ok(&repo.apply(&reply, &[]));
    assert_eq!(repo.read("app.py"), once);
}

/// `git clada watch --once FILE` in `repo`, with `env`.
fn watch_once(
    repo: &TestRepo,
    file: &std::path::Path,
    env: &[(&str, &str)],
) -> std::process::Output {
    let mut cmd = repo.clada_cmd();
    cmd.envs(env.iter().copied())
        .args(["watch", "--once", "--poll", "--exec", "allow"])
        .arg(file);
    cmd.output().unwrap()
}

fn ai_commits(repo: &TestRepo) -> usize {
    repo.git(&["log", "--format=%s", "HEAD"])
        .lines()
        .filter(|l| l.starts_with("AI:"))
        .count()
}

#[test]
fn watch_records_its_blocks_with_the_commit_so_a_kill_right_after_applies_nothing_twice() {
    // Killed right after the branch moved, and (where the record was a second ref
    // transaction) right after the apply finished.
    for point in ["apply:after-ref", "refs:before-lock#2"] {
        let repo = TestRepo::with_files(&[
            ("app.py", "import os\n"),
            ("ran.txt", ""),
            (".gitignore", "reply.md\n"),
        ]);
        let file = repo.path().join("reply.md");
        // An exec block too: running it twice would show (it is no file edit that a second
        // paste is recognised by).
        std::fs::write(
            &file,
            [
                replace("w1", "app.py", "import os\n", "import os\nimport sys\n"),
                exec("w2", "echo ran >> ran.txt"),
            ]
            .concat(),
        )
        .unwrap();
        let _ = watch_once(&repo, &file, &[("GIT_CLADA_FAILPOINT", point)]);
        let status = repo.clada(&["--format", "json", "status"]);
        let status: serde_json::Value = serde_json::from_slice(&status.stdout).unwrap();
        if !status["interrupted"].is_null() {
            succeeded(&repo.clada(&["undo"]));
        }
        // The restarted watcher applies what the killed one did not finish, once.
        succeeded(&watch_once(&repo, &file, &[]));
        assert_eq!(repo.read("app.py"), "import os\nimport sys\n", "{point}");
        assert_eq!(repo.read("ran.txt"), "ran\n", "{point}");
        assert_eq!(
            ai_commits(&repo),
            1,
            "{point}: {}",
            repo.git(&["log", "--oneline"])
        );
        repo.assert_fsck();
    }
}

// ---- CML and CSL ----

#[test]
fn cml_content_holding_its_own_end_tag_is_read_whole_and_never_rescanned() {
    let repo = TestRepo::with_files(&[("keep.txt", "keep\n")]);
    let doc = "# CML\nUse <write path=\"x\">text</write> to write a file.\n<remove path=\"keep.txt\"/>\n<run>touch ran-from-docs</run>\n";
    let reply = format!("<write path=\"docs/cml.md\"><![CDATA[{doc}]]></write>\n");
    let report = ok(&repo.apply(&reply, &["--exec", "allow"]));
    assert_eq!(repo.read("docs/cml.md"), doc, "{report}");
    assert_eq!(repo.read("keep.txt"), "keep\n");
    assert!(!repo.exists("ran-from-docs"));
    assert_eq!(report["results"].as_array().unwrap().len(), 1, "{report}");
    // A CDATA section that never ends: the element fails, and its content is not read as
    // blocks either.
    let broken = "<write path=\"docs/b.md\"><![CDATA[text\n<remove path=\"keep.txt\"/>\n</write>\n";
    let out = repo.apply(broken, &[]);
    assert_ne!(code(&out), 0, "{}", output_text(&out));
    assert_eq!(repo.read("keep.txt"), "keep\n");
    assert!(!repo.exists("docs/b.md"));
}

#[test]
fn cml_a_second_element_on_the_same_line_is_read() {
    let repo = TestRepo::with_files(&[("c.txt", "c\n")]);
    let reply = "<tasks><write path=\"a.txt\">a</write></tasks> <write path=\"b.txt\">b</write><remove path=\"c.txt\"/>\n";
    let report = ok(&repo.apply(reply, &[]));
    assert_eq!(repo.read("a.txt"), "a\n");
    assert_eq!(repo.read("b.txt"), "b\n");
    assert!(!repo.exists("c.txt"), "{report}");
}

#[test]
fn cml_deep_nesting_is_refused_with_a_clear_error() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let depth = 200_000;
    let mut reply = "<tasks>".repeat(depth);
    reply.push_str(&"</tasks>".repeat(depth));
    reply.push_str("\n<write path=\"after.txt\">still read</write>\n");
    let out = repo.apply(&reply, &[]);
    let report = TestRepo::report(&out);
    assert!(
        report
            .to_string()
            .contains("nested more than 64 levels deep"),
        "{report}"
    );
    assert_eq!(repo.read("after.txt"), "still read\n");
}

#[test]
fn cml_run_and_csl_run_start_in_a_fresh_shell_at_the_root() {
    let repo = TestRepo::with_files(&[("sub/f.txt", "f\n")]);
    let cml =
        "<run>cd sub</run>\n<run>pwd</run>\n<run dir=\"sub\">cd ..; cd sub</run>\n<run>ls</run>\n";
    let report = ok(&repo.apply(cml, &["--exec", "allow"]));
    let root = repo.path().canonicalize().unwrap();
    let stdout = |i: usize| {
        report["results"][i]["data"]["stdout"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(stdout(1).trim(), root.display().to_string(), "{report}");
    assert!(stdout(3).contains("sub"), "{report}");
    let csl = "<---RUN--->\ncd sub\n<---END--->\n<---RUN--->\npwd\n<---END--->\n";
    let report = ok(&repo.apply(csl, &["--exec", "allow"]));
    let stdout = report["results"][1]["data"]["stdout"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(stdout.trim(), root.display().to_string(), "{report}");
    // SHAM/NESL exec blocks keep their session: the second starts where the first ended.
    let nesl = [exec("s1", "cd sub"), exec("s2", "pwd")].concat();
    let report = ok(&repo.apply(&nesl, &["--exec", "allow"]));
    let stdout = report["results"][1]["data"]["stdout"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        stdout.trim(),
        root.join("sub").display().to_string(),
        "{report}"
    );
}

// ---- SHAM/NESL blocks without a header, duplicate ids ----

#[test]
fn a_block_without_a_header_and_a_stray_end_marker_are_reported() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let reply = format!(
        "Here is the change.\n\naction = \"file_write\"\npath = \"b.txt\"\ncontent = \"b\"\n#!end_k9x\n\n{}",
        common::write_block("ok1", "c.txt", "c")
    );
    let out = repo.apply(&reply, &[]);
    let report = TestRepo::report(&out);
    assert_eq!(code(&out), 1, "{report}");
    let text = report.to_string();
    assert!(
        text.contains("lines 3-6 are a block without a header")
            && text.contains("#!nesl [@three-char-SHA-256: k9x]"),
        "{report}"
    );
    assert_eq!(repo.read("c.txt"), "c\n");
    assert!(!repo.exists("b.txt"));
    // A stray end marker alone.
    let out = repo.apply("Done.\n#!end_zz1\n", &[]);
    assert_eq!(code(&out), 1, "{}", output_text(&out));
    assert!(output_text(&out).contains("ends a block that was never opened"));
}

#[test]
fn duplicate_block_ids_in_one_reply_get_a_warning() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let reply = [
        common::write_block("dup", "x.txt", "x"),
        common::write_block("dup", "y.txt", "y"),
    ]
    .concat();
    let report = ok(&repo.apply(&reply, &[]));
    assert!(
        report["results"][1]["warnings"]
            .to_string()
            .contains("the block id 'dup' is used by the block on line 1 too"),
        "{report}"
    );
}

// ---- Nothing lost: permissions, detached HEAD, kills, a full disk ----

#[test]
fn undo_keeps_a_read_only_file_read_only() {
    use std::os::unix::fs::PermissionsExt;
    let repo = TestRepo::with_files(&[("ro.txt", "r0\n"), ("rw.txt", "w0\n")]);
    let ro = repo.path().join("ro.txt");
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o444)).unwrap();
    let reply = [
        replace("p1", "ro.txt", "r0", "r1"),
        replace("p2", "rw.txt", "w0", "w1"),
    ]
    .concat();
    ok(&repo.apply(&reply, &[]));
    assert_eq!(repo.read("ro.txt"), "r1\n");
    assert_eq!(
        std::fs::metadata(&ro).unwrap().permissions().mode() & 0o777,
        0o444
    );
    succeeded(&repo.clada(&["undo"]));
    assert_eq!(repo.read("ro.txt"), "r0\n");
    assert_eq!(
        std::fs::metadata(&ro).unwrap().permissions().mode() & 0o777,
        0o444
    );
    succeeded(&repo.clada(&["redo"]));
    assert_eq!(repo.read("ro.txt"), "r1\n");
    assert_eq!(
        std::fs::metadata(&ro).unwrap().permissions().mode() & 0o777,
        0o444
    );
}

#[test]
fn apply_on_a_detached_head_is_refused_like_undo() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    repo.git(&["checkout", "-q", "--detach"]);
    let before = repo.state();
    let out = repo.apply(&replace("d1", "a.txt", "a", "b"), &[]);
    assert_eq!(code(&out), 3, "{}", output_text(&out));
    assert!(output_text(&out).contains("HEAD is detached"));
    assert_eq!(repo.state(), before);
    let undo = repo.clada(&["undo"]);
    assert_eq!(code(&undo), 3, "{}", output_text(&undo));
    assert!(output_text(&undo).contains("HEAD is detached"));
}

#[test]
fn a_full_disk_while_recording_rolls_back_on_the_spot_and_reports_the_blocks_that_ran() {
    let repo = TestRepo::with_files(&[("a.txt", "a0\n"), ("b.txt", "b0\n")]);
    repo.write("b.txt", "b0 mine\n");
    let before = repo.state();
    let reply = [
        replace("f1", "a.txt", "a0", "a1"),
        common::write_block("f2", "new.txt", "new"),
    ]
    .concat();
    let out = repo
        .spawn_apply(
            &[("GIT_CLADA_FAILPOINT", "enospc@apply:write-tree")],
            &reply,
            &[],
        )
        .wait_with_output()
        .unwrap();
    assert_eq!(code(&out), 1, "{}", output_text(&out));
    let report = TestRepo::report(&out);
    assert_eq!(report["results"].as_array().unwrap().len(), 2, "{report}");
    for r in report["results"].as_array().unwrap() {
        assert_eq!(r["rolledBack"], true, "{report}");
        assert!(
            r["error"]
                .as_str()
                .unwrap()
                .contains("No space left on device"),
            "{report}"
        );
    }
    common::assert_same_user_state(&repo.state(), &before, "rolled back after a full disk");
    assert!(!repo.path().join(".git/clada/transaction.json").exists());
    // The llm and human reports say why, and that no block needs correcting.
    for (format, says) in [
        ("llm", "every change was rolled back because recording the commit failed. No block needs correcting: send all 2 blocks again once that is fixed."),
        ("human", "0 of 2 blocks applied: recording the commit failed, so every change was rolled back"),
    ] {
        let mut cmd = repo.clada_cmd();
        cmd.env("GIT_CLADA_FAILPOINT", "enospc@apply:write-tree")
            .args(["--format", format, "apply", "-"]);
        let out = common::spawn_fed(cmd, &reply).wait_with_output().unwrap();
        assert!(output_text(&out).contains(says), "{}", output_text(&out));
    }
    // Nothing blocks the next apply.
    ok(&repo.apply(&reply, &[]));
    assert_eq!(repo.read("a.txt"), "a1\n");
}

#[test]
fn a_full_disk_after_exec_ran_reports_the_blocks_that_ran_and_that_undo_restores_the_state() {
    // Exec ran, so the reply cannot be taken back on the spot: the report still lists the
    // blocks that ran (exit 1, not "nothing was changed"), and `git clada undo` restores.
    let repo = TestRepo::with_files(&[("a.txt", "a0\n"), ("b.txt", "b0\n"), ("c.txt", "c0\n")]);
    repo.write("b.txt", "b0 mine\n");
    let before = repo.state();
    let reply = [
        replace("f1", "a.txt", "a0", "a1"),
        exec("f2", "echo c1 > c.txt"),
    ]
    .concat();
    let out = repo
        .spawn_apply(
            &[("GIT_CLADA_FAILPOINT", "enospc@apply:write-tree")],
            &reply,
            &["--exec", "allow"],
        )
        .wait_with_output()
        .unwrap();
    assert_eq!(code(&out), 1, "{}", output_text(&out));
    let report = TestRepo::report(&out);
    let fatal = report["fatalError"].as_str().unwrap_or_default();
    assert!(
        fatal.contains("No space left on device")
            && fatal.contains("`git clada undo` restores the state before the apply"),
        "{report}"
    );
    let results = report["results"].as_array().unwrap();
    assert_eq!(results.len(), 2, "{report}");
    for r in results {
        assert_eq!(r["success"], false, "{report}");
        assert!(
            r["error"].as_str().unwrap().contains("ran, but recording"),
            "{report}"
        );
    }
    // The changes are in the worktree, the journal stays and blocks other applies.
    assert_eq!(repo.read("a.txt"), "a1\n");
    assert_eq!(repo.read("c.txt"), "c1\n");
    assert!(repo.path().join(".git/clada/transaction.json").exists());
    let blocked = repo.apply(&replace("f3", "a.txt", "a1", "a2"), &[]);
    assert_ne!(code(&blocked), 0, "{}", output_text(&blocked));
    assert_eq!(repo.read("a.txt"), "a1\n");
    // The llm report names the blocks too.
    let llm = {
        let repo = TestRepo::with_files(&[("a.txt", "a0\n")]);
        let mut cmd = repo.clada_cmd();
        cmd.env("GIT_CLADA_FAILPOINT", "enospc@apply:write-tree")
            .args(["--format", "llm", "apply", "--exec", "allow", "-"]);
        common::spawn_fed(cmd, &reply).wait_with_output().unwrap()
    };
    let text = output_text(&llm);
    assert!(
        text.contains("f1")
            && text.contains("f2")
            && text.contains("FATAL:")
            && text.contains("No block needs correcting: once the user has fixed that and run `git clada undo`, send all 2 blocks again."),
        "{text}"
    );
    succeeded(&repo.clada(&["undo"]));
    common::assert_same_user_state(&repo.state(), &before, "undo after a full disk");
    assert!(!repo.path().join(".git/clada/transaction.json").exists());
}

#[test]
fn recovery_finds_a_same_size_change_exec_made_in_the_second_the_index_was_written() {
    // "Racily clean": exec rewrites c.txt to the same size and the same mtime second as the
    // index entry and the index file. Only a content check sees the change; recovery must
    // not take the stat data for proof (it built its index with the timestamp "now").
    let repo = TestRepo::with_files(&[("a.txt", "a0\n"), ("c.txt", "c0\n")]);
    repo.git(&["config", "core.trustctime", "false"]);
    let stamp = "2026-01-01 00:00:00";
    let touch = |path: &str| {
        let ok = std::process::Command::new("touch")
            .args(["-d", stamp])
            .arg(repo.path().join(path))
            .status()
            .unwrap()
            .success();
        assert!(ok);
    };
    touch("c.txt");
    // The index entry takes the stamped stat data.
    repo.git(&["update-index", "--really-refresh"]);
    let before = repo.state();
    touch(".git/index");
    let reply = [
        replace("r1", "a.txt", "a0", "a1"),
        exec(
            "r2",
            &format!("echo c1 > c.txt && touch -d '{stamp}' c.txt"),
        ),
    ]
    .concat();
    let out = repo
        .spawn_apply(
            &[("GIT_CLADA_FAILPOINT", "apply:after-execute")],
            &reply,
            &["--exec", "allow"],
        )
        .wait_with_output()
        .unwrap();
    assert!(out.status.code() != Some(0), "{}", output_text(&out));
    assert_eq!(repo.read("c.txt"), "c1\n");
    let undo = repo.clada(&["undo"]);
    succeeded(&undo);
    assert!(
        output_text(&undo).contains("c.txt"),
        "{}",
        output_text(&undo)
    );
    assert_eq!(repo.read("c.txt"), "c0\n");
    common::assert_same_user_state(&repo.state(), &before, "recovered");
}

#[test]
fn a_killed_apply_leaves_no_empty_new_directory_after_recovery() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let before = repo.state();
    let reply = common::write_block("k1", "brand/new/dir/x.rs", "fn x() {}");
    let out = repo
        // Killed with the new file's temporary copy written, before its rename.
        .spawn_apply(
            &[("GIT_CLADA_FAILPOINT", "engine:before-rename")],
            &reply,
            &[],
        )
        .wait_with_output()
        .unwrap();
    assert!(
        out.status.code().is_none() || code(&out) != 0,
        "{}",
        output_text(&out)
    );
    let temp = std::fs::read_dir(repo.path().join("brand/new/dir"))
        .unwrap()
        .count();
    assert_eq!(
        temp, 1,
        "the kill left the temporary file in the new directory"
    );
    succeeded(&repo.clada(&["undo"]));
    common::assert_same_user_state(&repo.state(), &before, "recovered");
    assert!(
        !repo.path().join("brand").exists(),
        "an empty directory was left behind"
    );
}

fn trust_config(repo: &TestRepo, yaml: &str) {
    repo.write(".clada.yml", yaml);
    succeeded(&repo.clada(&["config", "--trust"]));
}

#[test]
fn a_hooks_after_formatter_gets_the_changed_paths_and_its_changes_elsewhere_are_put_back() {
    let repo = TestRepo::with_files(&[
        ("ai.py", "x=1\n"),
        ("mine.py", "y=1\n"),
        ("clean.py", "z=1\n"),
    ]);
    sandbox_off(&repo);
    let seen = repo.home.path().join("seen");
    trust_config(
        &repo,
        &format!(
            "hooks:\n  after:\n    - \"for f in *.py; do echo '# fmt' >> \\\"$f\\\"; done; echo {{paths}} > {s}; printf '%s' \\\"$CLADA_CHANGED_PATHS\\\" >> {s}\"\n",
            s = seen.display()
        ),
    );
    repo.write("mine.py", "y=2  # my edit\n");
    let report = ok(&repo.apply(&replace("h1", "ai.py", "x=1", "x=2"), &[]));
    // The formatter saw the reply's path, as {paths} (`./`-prefixed, so a name is never an
    // option) and in the environment.
    assert_eq!(std::fs::read_to_string(&seen).unwrap(), "./ai.py\nai.py");
    // Its change to the reply's file is in the AI commit; nothing else is.
    assert_eq!(repo.git(&["show", "HEAD:ai.py"]), "x=2\n# fmt\n");
    assert_eq!(changed_in_head(&repo), "M\tai.py\n");
    // The user's dirty file and the clean file are as they were.
    assert_eq!(repo.read("mine.py"), "y=2  # my edit\n");
    assert_eq!(repo.read("clean.py"), "z=1\n");
    let w = warnings(&report);
    assert!(
        w.contains("hooks.after changed paths the reply did not change")
            && w.contains("mine.py")
            && w.contains("clean.py"),
        "{report}"
    );
    assert_eq!(repo.status(), " M mine.py\n?? .clada.yml\n");
}

fn install_pre_commit(repo: &TestRepo, script: &str) {
    let hook = repo.path().join(".git/hooks/pre-commit");
    std::fs::create_dir_all(hook.parent().unwrap()).unwrap();
    std::fs::write(&hook, format!("#!/bin/sh\n{script}")).unwrap();
    repo.set_executable(".git/hooks/pre-commit");
}

/// A fixer as the pre-commit framework runs them: it rewrites staged files in the worktree
/// and fails when it changed something; `BAD` it cannot fix.
const FIXER: &str = "rc=0\nfor f in $(git diff --cached --name-only); do\n  if grep -q TODO \"$f\"; then sed -i 's/TODO/DONE/' \"$f\"; echo \"fixed $f\"; rc=1; fi\n  if grep -q BAD \"$f\"; then echo \"$f is BAD\"; rc=1; fi\ndone\nexit $rc\n";

#[test]
fn a_pre_commit_hook_that_fixes_the_replys_files_and_fails_gets_one_retry() {
    let repo = TestRepo::with_files(&[("a.py", "x = 1\n")]);
    install_pre_commit(&repo, FIXER);
    repo.write("mine.txt", "my work\n");
    repo.git(&["add", "mine.txt"]);
    repo.git(&["commit", "-q", "-m", "mine"]);
    repo.write("mine.txt", "my work, uncommitted\n");
    let report = ok(&repo.apply(&replace("h1", "a.py", "x = 1", "x = 2  # TODO"), &[]));
    assert!(report["gitCommit"].is_string(), "{report}");
    assert_eq!(repo.git(&["show", "HEAD:a.py"]), "x = 2  # DONE\n");
    assert_eq!(repo.read("a.py"), "x = 2  # DONE\n");
    assert_eq!(repo.status(), " M mine.txt\n");
    let steps = report["steps"].to_string();
    assert!(
        steps.contains("the pre-commit hook rewrote a.py")
            && steps.contains("nothing needs resending"),
        "{report}"
    );
}

#[test]
fn ai_changes_a_failing_hook_left_pending_go_into_the_next_ai_commit_or_git_clada_commit() {
    let repo = TestRepo::with_files(&[("a.py", "x = 1\n"), ("b.py", "y = 1\n")]);
    install_pre_commit(&repo, FIXER);
    repo.write("mine.txt", "untracked work\n");
    let head = repo.head();
    let out = repo.apply(&replace("p1", "a.py", "x = 1", "x = BAD"), &[]);
    assert_eq!(code(&out), 1, "{}", output_text(&out));
    assert_eq!(repo.head(), head);
    assert!(
        output_text(&out).contains("stay pending"),
        "{}",
        output_text(&out)
    );
    // The user fixes what the hook said; the next apply's AI commit holds both changes.
    repo.write("a.py", "x = 3\n");
    let report = ok(&repo.apply(&replace("p2", "b.py", "y = 1", "y = 2"), &[]));
    assert!(warnings(&report).contains("left pending"), "{report}");
    assert_eq!(changed_in_head(&repo), "M\ta.py\nM\tb.py\n");
    assert_eq!(repo.git(&["show", "HEAD:a.py"]), "x = 3\n");
    assert_eq!(repo.status(), "?? mine.txt\n");

    // Or `git clada commit` commits them on their own.
    let repo = TestRepo::with_files(&[("a.py", "x = 1\n")]);
    install_pre_commit(&repo, FIXER);
    let out = repo.apply(&replace("p3", "a.py", "x = 1", "x = BAD"), &[]);
    assert_eq!(code(&out), 1, "{}", output_text(&out));
    repo.write("a.py", "x = 4\n");
    let out = repo.clada(&["--format", "json", "commit"]);
    let report = ok(&out);
    assert!(report["gitCommit"].is_string(), "{report}");
    assert!(
        repo.subject("HEAD").starts_with("AI:"),
        "{}",
        repo.subject("HEAD")
    );
    assert_eq!(repo.git(&["show", "HEAD:a.py"]), "x = 4\n");
    assert_eq!(repo.status(), "");
    // Nothing pending any more.
    let out = repo.clada(&["commit"]);
    assert_eq!(code(&out), 3, "{}", output_text(&out));
}

#[test]
fn exec_checking_out_over_the_users_edit_keeps_it_reachable_and_undo_brings_back_ignored_files() {
    let repo = TestRepo::with_files(&[
        ("a.txt", "a0\n"),
        ("b.txt", "b0\n"),
        (".gitignore", ".env\ntarget/\n"),
    ]);
    sandbox_off(&repo);
    repo.write("a.txt", "a1 my edit\n");
    repo.write(".env", "SECRET=1\n");
    let before = repo.state();
    let reply = [
        replace("g1", "b.txt", "b0", "b1"),
        exec("g2", "git checkout -- a.txt && rm .env"),
    ]
    .concat();
    let report = ok(&repo.apply(&reply, &["--exec", "allow"]));
    assert_eq!(repo.read("a.txt"), "a0\n");
    assert!(!repo.exists(".env"));
    let commit = repo.head();
    let keeper = format!("refs/clada/work/{commit}");
    assert!(
        warnings(&report).contains("your uncommitted change to a.txt is no longer in the worktree")
            && warnings(&report).contains(&keeper),
        "{report}"
    );
    assert_eq!(
        repo.git(&["show", &format!("{keeper}:a.txt")]),
        "a1 my edit\n"
    );
    succeeded(&repo.clada(&["undo"]));
    common::assert_same_user_state(&repo.state(), &before, "undo after exec's checkout");
    assert_eq!(repo.read(".env"), "SECRET=1\n");
}
