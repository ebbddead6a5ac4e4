//! The other formats (CSL, CML, replacer) end to end: `parse` output, `--dialect`, the
//! block-like diagnostics (exit 1) versus plain text (exit 0), and applies in real
//! repositories checked with git (the tracked-file suffix rule, a rolled-back TASKS group).

use crate::common;

use common::{exit_code, output_text, TestRepo};

/// (id, format, action) of each block `parse` printed.
fn summary(blocks: &[serde_json::Value]) -> Vec<(String, String, String)> {
    blocks
        .iter()
        .map(|b| {
            (
                b["id"].as_str().unwrap_or("").to_string(),
                b["format"].as_str().unwrap_or("").to_string(),
                b["properties"]["action"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

fn expect(id: &str, format: &str, action: &str) -> (String, String, String) {
    (id.to_string(), format.to_string(), action.to_string())
}

const CSL_TASKS: &str =
    "<---TASKS--->\n<---WRITE file=\"a.txt\"--->\na\n<---END--->\n<---END--->\n";

#[test]
fn parse_prints_each_formats_blocks_with_format_and_group() {
    let repo = TestRepo::new();
    let mut cmd = repo.clada_cmd();
    cmd.args(["parse", "-"]);
    let reply = format!(
        "{CSL_TASKS}\n<tasks><run><![CDATA[ls]]></run></tasks>\n<<<FILE>>>\nx.py\n<<<OVERWRITE>>>\ny\n<<<END>>>\n"
    );
    let out = common::spawn_fed(cmd, &reply)
        .wait_with_output()
        .expect("parse");
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let blocks = json["blocks"].as_array().expect("blocks");
    let summary = summary(blocks);
    assert_eq!(
        summary,
        vec![
            expect("task-1.1", "csl", "file_write"),
            expect("task-2", "cml", "exec"),
            expect("task-3", "replacer", "file_write"),
        ]
    );
    assert_eq!(
        blocks[0]["group"],
        serde_json::json!({"id": "task-1", "kind": "atomic"})
    );
    assert_eq!(
        blocks[1]["group"],
        serde_json::json!({"id": "task-2", "kind": "stop-on-failure"})
    );
    assert_eq!(blocks[2]["startLine"], 8);
    assert_eq!(blocks[2]["endLine"], 12);
}

#[test]
fn parse_reports_malformed_xml_with_line_and_column() {
    let repo = TestRepo::new();
    let mut cmd = repo.clada_cmd();
    cmd.args(["parse", "-"]);
    let out = common::spawn_fed(cmd, "prose\n<tasks>\n  <write path=\"a\"><![CDATA[x]]></write>\n  <edit path=\"a\"></edt>\n</tasks>\n")
        .wait_with_output()
        .expect("parse");
    assert_eq!(exit_code(&out), 1);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let e = &json["errors"][0];
    assert_eq!(e["code"], "MALFORMED_XML");
    assert_eq!(e["line"], 4, "{e}");
    assert_eq!(e["column"], 18, "{e}");
    assert!(json["blocks"].as_array().is_some_and(|b| b.is_empty()));
}

#[test]
fn dialect_forces_one_format() {
    let repo = TestRepo::with_files(&[("keep.txt", "k\n")]);
    let reply = format!(
        "{}\n<---WRITE file=\"csl.txt\"--->\ncsl\n<---END--->\n",
        common::write_block("abc", "sham.txt", "sham")
    );
    let out = repo.apply(&reply, &["--dialect", "csl"]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    assert!(repo.exists("csl.txt"));
    assert!(!repo.exists("sham.txt"), "--dialect csl must not read SHAM");
    repo.assert_fsck();

    // Nothing of the forced format, but a block of another: exit 1, naming it.
    let repo = TestRepo::with_files(&[("keep.txt", "k\n")]);
    let out = repo.apply(
        &common::write_block("abc", "sham.txt", "x"),
        &["--dialect", "cml"],
    );
    assert_eq!(exit_code(&out), 1, "{}", output_text(&out));
    let text = output_text(&out);
    assert!(
        text.contains("--dialect cml") && text.contains("line 1"),
        "{text}"
    );
    assert_eq!(repo.status(), "");
}

/// Replies with no block of any format but something block-like: exit 1 and a message naming
/// what was seen and where. Nothing changes.
#[test]
fn block_like_text_is_exit_1_with_what_and_where() {
    let cases = [
        (
            "Sure!\n\n```diff\n@@ -1 +1 @@\n-a\n+b\n```\n",
            "line 3 looks like a diff fence with no diff read in it",
        ),
        (
            "Change it so:\n@@ -1 +1 @@\n-a\n+b\n",
            "line 2 looks like a diff hunk (`@@ -1 +1 @@`) without the file headers",
        ),
        (
            "*** Update File: a.txt\n@@\n-a\n+b\n",
            "line 1 looks like an apply_patch file header (`*** Update File:`) outside a patch",
        ),
        (
            "intro\n<--WRITE file=\"a.txt\"-->\nx\n<--END-->\n",
            "line 2 looks like a misspelled CSL marker",
        ),
        (
            "<<FILE>>\na.txt\n<<OVERWRITE>>\nx\n<<END>>\n",
            "line 1 looks like a misspelled replacer marker",
        ),
        (
            "text\n#!Nesl [@three-char-SHA-256: abc]\naction = \"file_write\"\npath = \"a\"\ncontent = \"x\"\n#!end_abc\n",
            "line 2",
        ),
        (
            "<<<<<<<\nours\n=======\ntheirs\n>>>>>>>\n",
            "line 1 looks like an aider SEARCH/REPLACE marker without `SEARCH`",
        ),
    ];
    for (reply, want) in cases {
        let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
        let mut cmd = repo.clada_cmd();
        cmd.args(["--format", "human", "apply", "-"]);
        let out = common::spawn_fed(cmd, reply)
            .wait_with_output()
            .expect("apply");
        let text = output_text(&out);
        assert_eq!(exit_code(&out), 1, "{reply}\n{text}");
        assert!(text.contains(want), "{reply}\nwanted {want:?} in:\n{text}");
        assert!(!text.contains("no action blocks found"), "{text}");
        assert_eq!(repo.status(), "", "{reply}");
    }
}

#[test]
fn plain_text_stays_exit_0() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let mut cmd = repo.clada_cmd();
    cmd.args(["--format", "human", "apply", "-"]);
    let reply = "Just an explanation.\n\n- a list <- with arrows\n```rust\nfn main() {}\n```\n";
    let out = common::spawn_fed(cmd, reply)
        .wait_with_output()
        .expect("apply");
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    assert!(output_text(&out).contains("no action blocks found"));
}

/// The suffix rule searches the tracked files: an untracked file with the same ending is no
/// candidate, so the path resolves to the one tracked file; the commit holds the change.
#[test]
fn replacer_suffix_rule_uses_tracked_files() {
    let repo = TestRepo::with_files(&[("src/pkg/mod.py", "x = 1\n")]);
    repo.write("scratch/pkg/mod.py", "x = 1\n");
    let reply = "<<<FILE>>>\npkg/mod.py\n<<<SEARCH>>>\nx = 1\n<<<REPLACE>>>\nx = 2\n<<<END>>>\n";
    let out = repo.apply(reply, &[]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    let report = TestRepo::report(&out);
    let warning = report["results"][0]["warnings"][0].as_str().unwrap_or("");
    assert!(warning.contains("used 'src/pkg/mod.py'"), "{report}");
    assert_eq!(repo.git(&["show", "HEAD:src/pkg/mod.py"]), "x = 2\n");
    assert_eq!(repo.read("scratch/pkg/mod.py"), "x = 1\n");
    assert_eq!(repo.status(), "?? scratch/pkg/mod.py\n");
    repo.assert_fsck();

    // Two tracked candidates: a failure listing both, nothing changed.
    let repo = TestRepo::with_files(&[("a/util.py", "u\n"), ("b/util.py", "u\n")]);
    let reply = "<<<FILE>>>\nutil.py\n<<<SEARCH>>>\nu\n<<<REPLACE>>>\nv\n<<<END>>>\n";
    let out = repo.apply(reply, &[]);
    assert_eq!(exit_code(&out), 1);
    let report = TestRepo::report(&out);
    let message = report["parseErrors"][0]["message"].as_str().unwrap_or("");
    assert!(message.contains("a/util.py, b/util.py"), "{report}");
    assert_eq!(repo.status(), "");
}

/// A TASKS group that fails at run time leaves nothing of itself in the commit or worktree;
/// the block after it is committed.
#[test]
fn rolled_back_tasks_group_is_not_committed() {
    let repo = TestRepo::with_files(&[("keep.txt", "original\n")]);
    let reply = "<---TASKS--->\n<---WRITE file=\"keep.txt\"--->\nchanged\n<---END--->\n<---WRITE file=\"new.txt\"--->\nnew\n<---END--->\n<---SEARCH file=\"keep.txt\"--->\nabsent\n<---REPLACE--->\nx\n<---END--->\n<---END--->\n<---WRITE file=\"after.txt\"--->\nafter\n<---END--->\n";
    let out = repo.apply(reply, &[]);
    assert_eq!(exit_code(&out), 1, "{}", output_text(&out));
    assert_eq!(repo.read("keep.txt"), "original\n");
    assert!(!repo.exists("new.txt"));
    assert_eq!(repo.status(), "");
    let files = repo.git(&["show", "--name-only", "--format=", "HEAD"]);
    assert_eq!(files, "after.txt\n");
    repo.assert_fsck();
    // And undo takes the reply back.
    let undo = repo.clada(&["undo"]);
    assert_eq!(exit_code(&undo), 0, "{}", output_text(&undo));
    assert!(!repo.exists("after.txt"));
}

/// A CSL syntax error stops the whole reply: nothing changes, exit 1.
#[test]
fn csl_syntax_error_changes_nothing() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let reply = format!(
        "{}\n<---WRITE file=\"b.txt\"--->\nb\n<---END--->\n<---WRITE file=\"c.txt\"--->\nunterminated\n",
        common::write_block("abc", "sham.txt", "x")
    );
    let out = repo.apply(&reply, &[]);
    assert_eq!(exit_code(&out), 1, "{}", output_text(&out));
    let report = TestRepo::report(&out);
    assert!(report["gitCommit"].is_null(), "{report}");
    assert_eq!(repo.status(), "");
    assert!(!repo.exists("sham.txt") && !repo.exists("b.txt"));
}

/// The formats models write today: `parse` shows each one's blocks with its format, the
/// apply_patch envelope's blocks as a stop-on-failure group and the diff's as an atomic one.
#[test]
fn parse_prints_aider_apply_patch_and_diff_blocks() {
    let repo = TestRepo::new();
    let mut cmd = repo.clada_cmd();
    cmd.args(["parse", "-"]);
    let reply = "a.py\n```python\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```\n\n*** Begin Patch\n*** Add File: b.txt\n+b\n*** Delete File: c.txt\n*** End Patch\n\n```diff\n--- a/d.txt\n+++ b/d.txt\n@@ -1 +1 @@\n-d\n+D\n```\n";
    let out = common::spawn_fed(cmd, reply)
        .wait_with_output()
        .expect("parse");
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let blocks = json["blocks"].as_array().expect("blocks");
    let summary = summary(blocks);
    assert_eq!(
        summary,
        vec![
            expect("task-1", "aider", "file_search_replace"),
            expect("task-2", "apply-patch", "file_write"),
            expect("task-3", "apply-patch", "file_delete"),
            expect("task-4", "diff", "file_patch"),
        ]
    );
    assert!(blocks[0]["group"].is_null());
    assert_eq!(
        blocks[2]["group"],
        serde_json::json!({"id": "task-2", "kind": "stop-on-failure"})
    );
    assert_eq!(
        blocks[3]["group"],
        serde_json::json!({"id": "task-4", "kind": "atomic"})
    );
    assert_eq!(
        blocks[3]["properties"]["hunks"],
        "@@ -1,1 +1,1 @@\n-d\n+D\n"
    );
}

/// One reply in the three formats, with a rename and a mode change: one AI commit holding
/// exactly the edits (modes included), a clean worktree, and `undo` takes it all back.
#[test]
fn edit_formats_commit_and_undo_in_a_repository() {
    let repo = TestRepo::with_files(&[
        ("app.py", "def f():\n    return 1\n"),
        ("old/name.txt", "keep\n"),
        ("run.sh", "echo hi\n"),
        ("gone.txt", "bye\n"),
    ]);
    let before = repo.head();
    let reply = "app.py\n```python\n<<<<<<< SEARCH\n    return 1\n=======\n    return 2\n>>>>>>> REPLACE\n```\n\n*** Begin Patch\n*** Delete File: gone.txt\n*** End Patch\n\n```diff\ndiff --git a/old/name.txt b/new/name.txt\nsimilarity index 100%\nrename from old/name.txt\nrename to new/name.txt\ndiff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n```\n";
    let out = repo.apply(reply, &[]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    assert_eq!(
        repo.git(&["show", "HEAD:app.py"]),
        "def f():\n    return 2\n"
    );
    let files = repo.git(&["ls-tree", "-r", "--format=%(objectmode) %(path)", "HEAD"]);
    assert_eq!(
        files, "100644 app.py\n100644 new/name.txt\n100755 run.sh\n",
        "the commit holds the rename, the deletion and the mode"
    );
    assert_eq!(repo.status(), "");
    assert!(
        !repo.path().join("old").exists(),
        "the emptied directory is gone"
    );
    repo.assert_fsck();
    let undo = repo.clada(&["undo"]);
    assert_eq!(exit_code(&undo), 0, "{}", output_text(&undo));
    assert_eq!(repo.head(), before);
    assert_eq!(repo.read("gone.txt"), "bye\n");
    assert_eq!(repo.read("old/name.txt"), "keep\n");
    assert_eq!(repo.status(), "");
}

/// A diff is all or nothing: one hunk that does not apply leaves every file as it was, no
/// commit, exit 1, and the report shows the closest lines.
#[test]
fn a_diff_with_a_hunk_that_does_not_apply_changes_nothing() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("b.txt", "one\ntwo\n")]);
    let head = repo.head();
    let reply = "```diff\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+A\n--- a/b.txt\n+++ b/b.txt\n@@ -1,2 +1,2 @@\n one\n-too\n+2\n```\n";
    let out = repo.apply(reply, &[]);
    assert_eq!(exit_code(&out), 1, "{}", output_text(&out));
    let report = TestRepo::report(&out);
    assert_eq!(report["results"][0]["rolledBack"], true, "{report:#}");
    assert_eq!(
        report["results"][1]["hint"]["kind"], "not_found",
        "{report:#}"
    );
    assert_eq!(repo.head(), head);
    assert_eq!(repo.status(), "");
    assert_eq!(repo.read("a.txt"), "a\n");
}

/// `--dialect` forces one of the new formats: the others in the reply are not read.
#[test]
fn dialect_forces_an_edit_format() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("b.txt", "b\n")]);
    let reply = "a.txt\n<<<<<<< SEARCH\na\n=======\nA\n>>>>>>> REPLACE\n\n--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-b\n+B\n";
    let out = repo.apply(reply, &["--dialect", "diff"]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    assert_eq!(
        repo.read("a.txt"),
        "a\n",
        "--dialect diff must not read the aider block"
    );
    assert_eq!(repo.read("b.txt"), "B\n");
    let out = repo.apply(
        "*** Begin Patch\n*** Add File: c.txt\n+c\n*** End Patch\n",
        &["--dialect", "aider"],
    );
    assert_eq!(exit_code(&out), 1, "{}", output_text(&out));
    assert!(
        output_text(&out).contains("apply_patch block, which `--dialect aider` does not read"),
        "{}",
        output_text(&out)
    );
    assert!(!repo.exists("c.txt"));
}

/// Text the apply_patch and aider rules cannot read (not UTF-8) is refused with the reason; a
/// unified diff patches bytes, so it still applies. A symlink is not deleted through a diff.
/// Nothing else changes.
#[test]
fn non_utf8_files_and_symlinks_are_refused_with_the_reason() {
    let repo = TestRepo::with_files(&[("target.txt", "t\n")]);
    repo.write_bytes("latin1.txt", b"caf\xe9\nbar\n");
    std::os::unix::fs::symlink("target.txt", repo.path().join("link.txt")).expect("symlink");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "files"]);
    let head = repo.head();
    let out = repo.apply(
        "*** Begin Patch\n*** Update File: latin1.txt\n@@\n-bar\n+BAR\n*** End Patch\n",
        &[],
    );
    assert_eq!(exit_code(&out), 1, "{}", output_text(&out));
    let report = TestRepo::report(&out);
    let error = report["results"][0]["error"].as_str().unwrap_or("");
    assert!(error.contains("not valid UTF-8 (line 1)"), "{report:#}");
    let out = repo.apply(
        "latin1.txt\n<<<<<<< SEARCH\nbar\n=======\nBÄR\n>>>>>>> REPLACE\n",
        &[],
    );
    assert_eq!(exit_code(&out), 1, "{}", output_text(&out));
    let report = TestRepo::report(&out);
    let error = report["results"][0]["error"].as_str().unwrap_or("");
    assert!(
        error.contains("is not UTF-8") && error.contains("REPLACE holds non-ASCII text"),
        "{report:#}"
    );
    assert_eq!(repo.head(), head);

    let out = repo.apply("--- a/link.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-t\n", &[]);
    assert_eq!(exit_code(&out), 1, "{}", output_text(&out));
    let report = TestRepo::report(&out);
    let error = report["results"][0]["error"].as_str().unwrap_or("");
    assert!(error.contains("is a symbolic link"), "{report:#}");
    assert_eq!(repo.head(), head);
    assert_eq!(repo.status(), "");

    let out = repo.apply(
        "--- a/latin1.txt\n+++ b/latin1.txt\n@@ -1,2 +1,2 @@\n caf\u{fffd}\n-bar\n+BAR\n",
        &[],
    );
    // The diff's context is U+FFFD, the file's a Latin-1 byte: no match, a clean failure.
    assert_eq!(exit_code(&out), 1, "{}", output_text(&out));
    assert_eq!(repo.status(), "");
}

/// aider SEARCH/REPLACE on a Latin-1 file (aider with `--encoding`, issue 54.4): ASCII SEARCH
/// and REPLACE edit its bytes, the others kept; a `...` edit too; non-ASCII SEARCH or
/// REPLACE, and a match through a Latin-1 no-break space, are refused and change nothing.
#[test]
fn aider_edits_an_8_bit_file_with_ascii_text_and_refuses_to_mix_encodings() {
    let repo = TestRepo::with_files(&[("k.txt", "k\n")]);
    repo.write_bytes(
        "l.c",
        b"/* caf\xe9 */\r\nint a;\r\nint b;\r\n\xa0int c;\r\n",
    );
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "files"]);
    let out = repo.apply(
        "l.c\n<<<<<<< SEARCH\nint a;\n=======\nlong a;\n>>>>>>> REPLACE\n",
        &[],
    );
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    let bytes = std::fs::read(repo.path().join("l.c")).expect("read");
    assert_eq!(
        bytes,
        b"/* caf\xe9 */\r\nlong a;\r\nint b;\r\n\xa0int c;\r\n"
    );
    assert_eq!(repo.status(), "");
    // `...` elides unchanged code: the whole text is rebuilt, byte for byte.
    let out = repo.apply(
        "l.c\n<<<<<<< SEARCH\nlong a;\n...\nint b;\n=======\nlong a;\n...\nint bb;\n>>>>>>> REPLACE\n",
        &[],
    );
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    let bytes = std::fs::read(repo.path().join("l.c")).expect("read");
    assert_eq!(
        bytes,
        b"/* caf\xe9 */\r\nlong a;\r\nint bb;\r\n\xa0int c;\r\n"
    );
    let head = repo.head();
    for (reply, why) in [
        (
            "l.c\n<<<<<<< SEARCH\n/* café */\n=======\n/* x */\n>>>>>>> REPLACE\n",
            "SEARCH holds non-ASCII",
        ),
        (
            "l.c\n<<<<<<< SEARCH\nint bb;\n=======\nint ß;\n>>>>>>> REPLACE\n",
            "REPLACE holds non-ASCII",
        ),
        (
            "l.c\n<<<<<<< SEARCH\n  int c;\n=======\n  int d;\n>>>>>>> REPLACE\n",
            "hold non-ASCII bytes",
        ),
    ] {
        let out = repo.apply(reply, &[]);
        assert_eq!(exit_code(&out), 1, "{}", output_text(&out));
        let report = TestRepo::report(&out);
        let error = report["results"][0]["error"].as_str().unwrap_or("");
        assert!(error.contains(why), "{why}: {report:#}");
    }
    assert_eq!(repo.head(), head);
    assert_eq!(repo.status(), "");
    // git-clada's own file_replace_text edits bytes and says when it mixes encodings.
    let reply = common::block(
        "lx1",
        &[
            ("action", "file_replace_text"),
            ("path", "l.c"),
            ("old_text", "int bb;"),
            ("new_text", "int ß;"),
        ],
    );
    let out = repo.apply(&reply, &[]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    let report = TestRepo::report(&out);
    let warnings = report["results"][0]["warnings"].to_string();
    assert!(warnings.contains("mixes two encodings"), "{report:#}");
}

/// `--dry-run` of a diff with a rename, a deletion and a mode change changes nothing and
/// reports what would happen.
#[test]
fn a_dry_run_of_a_diff_changes_nothing() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("b.txt", "b\n"), ("run.sh", "x\n")]);
    let state = repo.state();
    let reply = "diff --git a/a.txt b/c.txt\nrename from a.txt\nrename to c.txt\ndiff --git a/b.txt b/b.txt\ndeleted file mode 100644\n--- a/b.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-b\ndiff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n";
    let out = repo.apply(reply, &["--dry-run"]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    let report = TestRepo::report(&out);
    assert_eq!(report["dryRun"], true);
    assert_eq!(
        report["results"][2]["data"]["executable"], true,
        "{report:#}"
    );
    common::assert_same_user_state(&repo.state(), &state, "dry run");
}

/// A unified diff that is not UTF-8 (`git diff` of a Latin-1 file, issue 54.5) applies its
/// bytes and is stored as the bytes it was; bytes that are not UTF-8 anywhere but in its hunks'
/// lines, and a reply holding the code points git-clada carries such bytes as, are refused
/// whole with the offset and line, changing nothing.
#[test]
fn a_diff_that_is_not_utf8_applies_its_bytes_and_only_it() {
    let repo = TestRepo::with_files(&[("k.txt", "k\n")]);
    repo.write_bytes("l.txt", b"caf\xe9\nna\xefve\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "files"]);
    let diff = b"diff --git a/l.txt b/l.txt\n--- a/l.txt\n+++ b/l.txt\n@@ -1,2 +1,2 @@\n-caf\xe9\n+caf\xe8\n na\xefve\n";
    let out = repo.apply_bytes(diff, &[]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    assert_eq!(
        std::fs::read(repo.path().join("l.txt")).expect("read"),
        b"caf\xe8\nna\xefve\n"
    );
    assert_eq!(repo.status(), "");
    // The reply is kept as its bytes (the commit's Clada-Reply blob and the reply note).
    let note = repo
        .git_output(&["notes", "--ref=clada-reply", "show", "HEAD"])
        .stdout;
    assert_eq!(note, diff);
    repo.assert_fsck();

    let head = repo.head();
    for (reply, byte_at) in [
        // A path that is not UTF-8.
        (
            &b"--- a/caf\xe9\n+++ b/caf\xe9\n@@ -1 +1 @@\n-a\n+b\n"[..],
            9,
        ),
        // Prose.
        (
            b"Voil\xe0 :\n\n--- a/l.txt\n+++ b/l.txt\n@@ -1 +1 @@\n-caf\xe8\n+cafe\n",
            4,
        ),
    ] {
        let out = repo.apply_bytes(reply, &[]);
        assert_eq!(exit_code(&out), 2, "{}", output_text(&out));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("not valid UTF-8")
                && err.contains(&format!("byte offset {byte_at} (line 1)"))
                && err.contains("only the lines of a unified diff's hunks"),
            "{err}"
        );
        assert_eq!(repo.head(), head);
    }
    // `--dialect aider` reads no diff, so none of its bytes may be other than UTF-8.
    let out = repo.apply_bytes(diff, &["--dialect", "aider"]);
    assert_eq!(exit_code(&out), 2, "{}", output_text(&out));
    let out = repo.apply(
        "--- a/l.txt\n+++ b/l.txt\n@@ -1 +1 @@\n-caf\u{10FFE8}\n+cafe\n",
        &[],
    );
    assert_eq!(exit_code(&out), 2, "{}", output_text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("U+10FFE8 at byte offset") && err.contains("line 4"),
        "{err}"
    );
    assert_eq!(repo.head(), head);
    // A file that holds those code points itself cannot be matched with such bytes.
    repo.write("r.txt", "x\u{10FFE9}\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "reserved"]);
    let head = repo.head();
    let out = repo.apply_bytes(b"--- a/r.txt\n+++ b/r.txt\n@@ -1 +1 @@\n-x\xe9\n+y\n", &[]);
    assert_eq!(exit_code(&out), 1, "{}", output_text(&out));
    let report = TestRepo::report(&out);
    let error = report["results"][0]["error"].as_str().unwrap_or("");
    assert!(error.contains("holds U+10FFE9 (line 1)"), "{report:#}");
    assert_eq!(repo.head(), head);
    assert_eq!(repo.status(), "");
}
