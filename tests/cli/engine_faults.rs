//! Engine faults of issue 10 on real repositories: background processes of exec, many appends
//! to one file, and the leftovers of kills and undo/redo (temporary files, directories).

use crate::common;

use common::{block, exit_code as code, output_text as text, TestRepo};

fn exec(id: &str, code: &str) -> String {
    block(id, &[("action", "exec"), ("lang", "bash"), ("code", code)])
}

fn append(id: &str, path: &str, content: &str) -> String {
    block(
        id,
        &[
            ("action", "file_append"),
            ("path", path),
            ("content", content),
        ],
    )
}

#[test]
fn exec_background_processes_are_killed_when_the_script_exits() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    for script in [
        // Holding the output pipes.
        "echo hello; (sleep 3; touch late.txt) &",
        // Not holding them: without the kill it would change the worktree after the commit.
        "echo hello; (sleep 3; touch late.txt) >/dev/null 2>&1 &",
    ] {
        let out = repo.apply(&exec("ex1", script), &["--exec", "allow"]);
        assert_eq!(code(&out), 0, "{script}: {}", text(&out));
        let report = TestRepo::report(&out);
        let r = &report["results"][0];
        assert_eq!(r["data"]["stdout"], "hello\n", "{script}: {r}");
        assert_eq!(r["data"]["exit_code"], 0);
        let warnings = r["warnings"].to_string();
        assert!(warnings.contains("background"), "{script}: {warnings}");
        // Longer than the background job needed: it would have run by now.
        std::thread::sleep(std::time::Duration::from_secs(4));
        assert!(!repo.exists("late.txt"), "{script}: the background job ran");
        assert_eq!(repo.status(), "", "{script}");
    }
}

#[test]
fn exec_without_background_processes_has_no_warning() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let out = repo.apply(
        &exec("ex2", "echo out; echo err >&2; echo made > made.txt"),
        &["--exec", "allow"],
    );
    assert_eq!(code(&out), 0, "{}", text(&out));
    let r = &TestRepo::report(&out)["results"][0];
    assert_eq!(r["data"]["stdout"], "out\n");
    assert_eq!(r["data"]["stderr"], "err\n");
    assert!(r.get("warnings").is_none(), "{r}");
    assert_eq!(repo.read("made.txt"), "made\n");
}

#[test]
fn thousands_of_appends_to_one_file_give_exactly_the_appended_text() {
    let repo = TestRepo::with_files(&[("log.txt", "head\n"), ("other.txt", "o\n")]);
    let mut reply = String::new();
    let mut want = String::from("head\n");
    for i in 0..3000 {
        let line = format!("line {i}\n");
        reply.push_str(&append(&format!("a{i}"), "log.txt", &line));
        want.push_str(&line);
        if i == 1500 {
            // An edit in the middle of the run, on the same file.
            reply.push_str(&block(
                "mid",
                &[
                    ("action", "file_replace_text"),
                    ("path", "log.txt"),
                    ("old_text", "line 7\n"),
                    ("new_text", "line seven\n"),
                ],
            ));
            want = want.replace("line 7\n", "line seven\n");
        }
    }
    // Original line 1 is still addressable after the appends.
    reply.push_str(&block(
        "rl1",
        &[
            ("action", "file_replace_lines"),
            ("path", "log.txt"),
            ("lines", "1"),
            ("new_content", "HEAD"),
        ],
    ));
    want = want.replacen("head\n", "HEAD\n", 1);
    // Alternating appends to two files.
    for i in 0..50 {
        reply.push_str(&append(&format!("x{i}"), "other.txt", "x\n"));
        reply.push_str(&append(&format!("y{i}"), "new/created.txt", "y\n"));
    }
    let out = repo.apply(&reply, &[]);
    assert_eq!(
        code(&out),
        0,
        "{}",
        &text(&out)[..2000.min(text(&out).len())]
    );
    assert_eq!(repo.read("log.txt"), want);
    assert_eq!(repo.git(&["show", "HEAD:log.txt"]), want);
    assert_eq!(repo.read("other.txt"), format!("o\n{}", "x\n".repeat(50)));
    assert_eq!(repo.read("new/created.txt"), "y\n".repeat(50));
    assert_eq!(repo.status(), "");
    let leftovers: Vec<String> = common::files_of(repo.path())
        .into_keys()
        .filter(|p| p.contains(".clada-tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    repo.assert_fsck();
}

#[test]
fn appends_to_a_crlf_file_stay_crlf_across_a_run() {
    let repo = TestRepo::new();
    repo.write("w.txt", "a\r\nb\r\n");
    repo.git(&["add", "w.txt"]);
    repo.git(&["commit", "-q", "-m", "crlf"]);
    let reply = format!(
        "{}{}",
        append("c1", "w.txt", "c\n"),
        append("c2", "w.txt", "d\ne\n")
    );
    let out = repo.apply(&reply, &[]);
    assert_eq!(code(&out), 0, "{}", text(&out));
    assert_eq!(repo.read("w.txt"), "a\r\nb\r\nc\r\nd\r\ne\r\n");
}

/// A repository with one file in a sub-directory, and the reply that edits it.
fn edit_scenario() -> (TestRepo, String) {
    let repo = TestRepo::with_files(&[("src/a.txt", "one\n"), ("b.txt", "b\n")]);
    let reply = block(
        "ed1",
        &[
            ("action", "file_replace_text"),
            ("path", "src/a.txt"),
            ("old_text", "one"),
            ("new_text", "two"),
        ],
    );
    (repo, reply)
}

fn temp_files(repo: &TestRepo) -> Vec<String> {
    common::files_of(repo.path())
        .into_keys()
        .filter(|p| p.contains(".clada-tmp-"))
        .collect()
}

#[test]
fn undo_after_a_kill_mid_write_removes_the_temporary_file() {
    let (repo, reply) = edit_scenario();
    // Files that only look like ours, or belong to paths the apply never touched, stay.
    repo.write("src/.a.txt.clada-tmp-notours", "keep\n");
    repo.write(".b.txt.clada-tmp-1-1", "keep\n");
    let before = repo.state();
    let out = repo
        .spawn_apply(
            &[("GIT_CLADA_FAILPOINT", "engine:before-rename")],
            &reply,
            &[],
        )
        .wait_with_output()
        .expect("wait");
    assert_eq!(
        code(&out),
        -1,
        "the apply should have been killed: {}",
        text(&out)
    );
    let left = temp_files(&repo);
    assert!(
        left.iter()
            .any(|p| p.starts_with("src/.a.txt.clada-tmp-") && !p.ends_with("notours")),
        "{left:?}"
    );
    let undo = repo.clada(&["undo"]);
    assert_eq!(code(&undo), 0, "{}", text(&undo));
    common::assert_same_user_state(&repo.state(), &before, "after undo");
    assert_eq!(
        temp_files(&repo),
        vec![".b.txt.clada-tmp-1-1", "src/.a.txt.clada-tmp-notours"]
    );
    repo.assert_fsck();
}

#[test]
fn an_undo_killed_mid_write_leaves_no_temporary_file_once_finished() {
    let (repo, reply) = edit_scenario();
    let before = repo.state();
    let out = repo.apply(&reply, &[]);
    assert_eq!(code(&out), 0, "{}", text(&out));
    let crashed = repo
        .clada_cmd()
        .env("GIT_CLADA_FAILPOINT", "checkout:before-rename")
        .arg("undo")
        .output()
        .expect("run");
    assert_eq!(code(&crashed), -1, "undo should have been killed");
    assert!(!temp_files(&repo).is_empty());
    let undo = repo.clada(&["undo"]);
    assert_eq!(code(&undo), 0, "{}", text(&undo));
    assert_eq!(temp_files(&repo), Vec::<String>::new());
    common::assert_same_user_state(&repo.state(), &before, "after the finished undo");
}

#[test]
fn undo_keeps_empty_directories_that_existed_before_the_apply() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    std::fs::create_dir_all(repo.path().join("empty/inner")).expect("mkdir");
    let before = repo.state();
    let reply = block(
        "nd1",
        &[
            ("action", "file_write"),
            ("path", "empty/inner/new.txt"),
            ("content", "new\n"),
        ],
    );
    let out = repo.apply(&reply, &[]);
    assert_eq!(code(&out), 0, "{}", text(&out));
    let undo = repo.clada(&["undo"]);
    assert_eq!(code(&undo), 0, "{}", text(&undo));
    assert!(repo.path().join("empty/inner").is_dir());
    assert_eq!(repo.state().files, before.files);
}

#[test]
fn undo_removes_the_directories_the_apply_created() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let before = repo.state();
    let reply = block(
        "nd2",
        &[
            ("action", "file_write"),
            ("path", "made/deep/new.txt"),
            ("content", "new\n"),
        ],
    );
    let out = repo.apply(&reply, &[]);
    assert_eq!(code(&out), 0, "{}", text(&out));
    let undo = repo.clada(&["undo"]);
    assert_eq!(code(&undo), 0, "{}", text(&undo));
    assert!(!repo.path().join("made").exists());
    assert_eq!(repo.state().files, before.files);
}

#[test]
fn redo_gives_exactly_the_worktree_the_apply_left_and_undo_the_one_before() {
    for (name, reply) in [
        (
            "delete the last file of a directory",
            block("rd1", &[("action", "file_delete"), ("path", "a/b/x.txt")]),
        ),
        (
            "move a file out of nested directories",
            block(
                "rd2",
                &[
                    ("action", "file_move"),
                    ("old_path", "a/b/x.txt"),
                    ("new_path", "moved/x.txt"),
                ],
            ),
        ),
        (
            "delete a directory",
            block(
                "rd3",
                &[
                    ("action", "dir_delete"),
                    ("path", "a/b"),
                    ("recursive", "true"),
                ],
            ),
        ),
    ] {
        let repo = TestRepo::with_files(&[("a/b/x.txt", "x\n"), ("k.txt", "k\n")]);
        // An empty directory that was there before stays through everything.
        std::fs::create_dir_all(repo.path().join("keep/me")).expect("mkdir");
        let before = repo.state();
        let out = repo.apply(&reply, &[]);
        assert_eq!(code(&out), 0, "{name}: {}", text(&out));
        let applied = repo.state();
        // Like `git rm`: the directories the change emptied are gone.
        assert!(!repo.path().join("a").exists(), "{name}");
        assert!(repo.path().join("keep/me").is_dir(), "{name}");
        let undo = repo.clada(&["undo"]);
        assert_eq!(code(&undo), 0, "{name}: {}", text(&undo));
        common::assert_same_user_state(&repo.state(), &before, name);
        let redo = repo.clada(&["redo"]);
        assert_eq!(code(&redo), 0, "{name}: {}", text(&redo));
        assert_eq!(repo.state().files, applied.files, "{name}: redo");
        repo.assert_fsck();
    }
}

/// An object store git-clada cannot write to (here `objects/xx` is a file where the folder
/// of the new blob belongs): the apply fails with an error that names the object and says
/// what to check, and nothing is lost: the worktree, the index and HEAD are as before.
#[test]
fn an_unwritable_object_store_fails_the_apply_and_changes_nothing() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let head = repo.head();
    let content = "a new line that no object holds yet\n";
    let id = {
        let p = repo.path().join("probe.tmp");
        std::fs::write(&p, content).unwrap();
        let id = repo.git(&["hash-object", "probe.tmp"]).trim().to_string();
        std::fs::remove_file(p).unwrap();
        id
    };
    let fanout = repo.path().join(".git/objects").join(&id[..2]);
    if fanout.is_dir() {
        std::fs::remove_dir_all(&fanout).unwrap();
    }
    std::fs::write(&fanout, "not a folder").unwrap();
    let out = repo.apply(
        &block(
            "uw1",
            &[
                ("action", "file_write"),
                ("path", "a.txt"),
                ("content", content),
            ],
        ),
        &[],
    );
    assert_ne!(code(&out), 0, "{}", text(&out));
    let all = text(&out);
    assert!(
        all.contains(&format!("cannot write object {id}")) && all.contains("writable"),
        "{all}"
    );
    std::fs::remove_file(&fanout).unwrap();
    assert_eq!(repo.head(), head);
    assert_eq!(repo.read("a.txt"), "a\n");
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
}
