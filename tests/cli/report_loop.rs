//! What the model is asked to do: refusals only the user can lift are `⏸` and never sent back
//! for correction, long outputs are trimmed to head and tail in the llm report, hints find
//! what the model meant, every failure has a stable code, and the report follows the reply's
//! order with one line shape for validation and run-time failures.

use crate::common;

use common::{block, TestRepo};
use serde_json::Value;

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn apply_as(repo: &TestRepo, format: &str, reply: &str, extra: &[&str]) -> String {
    let mut cmd = repo.clada_cmd();
    cmd.args(["--format", format, "apply"]).args(extra).arg("-");
    let out = common::spawn_fed(cmd, reply).wait_with_output().unwrap();
    stdout(&out)
}

fn json(repo: &TestRepo, reply: &str, extra: &[&str]) -> Value {
    serde_json::from_str(&apply_as(repo, "json", reply, extra)).unwrap()
}

/// A fresh repository for each format, so every apply sees the same state.
fn each_format(files: &[(&str, &str)], reply: &str, extra: &[&str]) -> (String, String, Value) {
    let run = |f: &str| {
        let repo = TestRepo::with_files(files);
        apply_as(&repo, f, reply, extra)
    };
    (
        run("human"),
        run("llm"),
        serde_json::from_str(&run("json")).unwrap(),
    )
}

#[test]
fn refusals_only_the_user_can_lift_wait_for_the_user_in_every_format() {
    let files = [
        ("a.txt", "a\n"),
        (".clada.yml", "paths:\n  deny: [\"secrets/**\"]\n"),
    ];
    let reply = [
        block(
            "u01",
            &[("action", "exec"), ("lang", "bash"), ("code", "make test")],
        ),
        block(
            "u02",
            &[
                ("action", "file_write"),
                ("path", "../outside.txt"),
                ("content", "x"),
            ],
        ),
        block(
            "u03",
            &[
                ("action", "file_write"),
                ("path", "secrets/key.txt"),
                ("content", "x"),
            ],
        ),
        block(
            "u04",
            &[
                ("action", "file_replace_text"),
                ("path", "a.txt"),
                ("old_text", "zzz"),
                ("new_text", "y"),
            ],
        ),
    ]
    .concat();
    let (human, llm, j) = each_format(&files, &reply, &["--exec", "deny"]);
    for id in ["u01", "u02", "u03"] {
        assert!(human.contains(&format!("{id} ⏸ ")), "{human}");
        assert!(llm.contains(&format!("{id} ⏸ ")), "{llm}");
    }
    assert!(human.contains("u04 ❌ "), "{human}");
    assert!(llm.contains("u04 ❌ "), "{llm}");
    assert!(human.contains("needs your approval"), "{human}");
    // The how-to is the user's: in the human report, not in the model's.
    for how in [
        "--exec allow",
        "--allow-outside",
        "paths.deny in the configuration",
    ] {
        assert!(human.contains(how), "{how}: {human}");
    }
    assert!(!llm.contains("--exec allow"), "{llm}");
    assert!(!llm.contains("--allow-outside"), "{llm}");
    assert!(human.contains("3 need your approval (⏸)"), "{human}");
    // The closing line asks for a correction of u04 only.
    let closing = llm.lines().last().unwrap();
    assert!(
        closing.contains("Send corrected versions of the 1 block marked ❌"),
        "{closing}"
    );
    assert!(
        closing.contains("The 3 blocks marked ⏸ wait for the user's approval"),
        "{closing}"
    );
    assert!(
        closing.contains("do not send them again unless the user asks"),
        "{closing}"
    );
    let results = j["results"].as_array().unwrap();
    let by_id = |id: &str| results.iter().find(|r| r["blockId"] == id).unwrap().clone();
    assert_eq!(by_id("u01")["code"], "command_not_allowed");
    assert!(by_id("u01")["needsUser"]["how"]
        .as_str()
        .unwrap()
        .contains("--exec allow"));
    assert_eq!(by_id("u02")["code"], "path_escape");
    assert!(by_id("u02")["needsUser"]["how"]
        .as_str()
        .unwrap()
        .contains("--allow-outside"));
    assert_eq!(by_id("u03")["code"], "path_denied");
    assert!(by_id("u03")["needsUser"].is_object());
    assert_eq!(by_id("u04")["code"], "search_not_found");
    assert!(by_id("u04").get("needsUser").is_none());
}

#[test]
fn a_reply_whose_only_blocks_wait_for_the_user_is_not_asked_to_resend_them() {
    let (_, llm, _) = each_format(
        &[("a.txt", "a\n")],
        &block(
            "w01",
            &[
                ("action", "exec"),
                ("lang", "bash"),
                ("code", "ls -la; rm -rf build"),
            ],
        ),
        &["--exec", "deny"],
    );
    let closing = llm.lines().last().unwrap();
    assert_eq!(
        closing,
        "No block was applied. The block marked ⏸ waits for the user's approval, which only the user can give; do not send it again unless the user asks."
    );
    assert!(!llm.contains("Send corrected"), "{llm}");
}

#[test]
fn a_block_waiting_for_the_user_is_not_counted_as_failed_in_the_commit_log_or_a_squash() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let reply = [
        block(
            "k01",
            &[
                ("action", "file_write"),
                ("path", "b.txt"),
                ("content", "b\n"),
            ],
        ),
        block(
            "k02",
            &[
                ("action", "file_replace_text"),
                ("path", "a.txt"),
                ("old_text", "nothing like it"),
                ("new_text", "x"),
            ],
        ),
        block(
            "k03",
            &[("action", "exec"), ("lang", "bash"), ("code", "true")],
        ),
    ]
    .concat();
    apply_as(&repo, "json", &reply, &["--exec", "deny"]);
    let body = repo.git(&["log", "-1", "--format=%B"]);
    assert!(body.contains("\nClada-Failed: k02\n"), "{body}");
    assert!(body.contains("\nClada-Waiting: k03\n"), "{body}");
    assert!(body.contains("- k03 exec bash: NEEDS THE USER "), "{body}");
    let log = stdout(&repo.clada(&["--format", "human", "log"]));
    assert!(
        log.contains("[1 ok, 1 failed, 1 ⏸ waiting for you]"),
        "{log}"
    );
    let j: Value =
        serde_json::from_str(&stdout(&repo.clada(&["--format", "json", "log"]))).unwrap();
    assert_eq!(j["entries"][0]["blocksFailed"], 1, "{j}");
    assert_eq!(j["entries"][0]["blocksWaiting"], 1, "{j}");
    // A second apply waiting for the user, then a squash: the waiting blocks stay apart.
    let again = [
        block(
            "k04",
            &[
                ("action", "file_write"),
                ("path", "c.txt"),
                ("content", "c\n"),
            ],
        ),
        block(
            "k05",
            &[("action", "exec"), ("lang", "bash"), ("code", "true")],
        ),
    ]
    .concat();
    apply_as(&repo, "json", &again, &["--exec", "deny"]);
    let out = repo.clada(&["--format", "json", "squash", "--mode", "auto_ai"]);
    assert_eq!(out.status.code(), Some(0), "{}", common::output_text(&out));
    let body = repo.git(&["log", "-1", "--format=%B"]);
    assert!(body.contains("\nClada-Failed: k02\n"), "{body}");
    assert!(body.contains("\nClada-Waiting: k03 k05\n"), "{body}");
}

#[test]
fn long_exec_output_is_trimmed_to_head_and_tail_in_the_llm_report_only() {
    let reply = block(
        "o01",
        &[
            ("action", "exec"),
            ("lang", "bash"),
            ("code", "seq 1 2000; echo FAILED 3 tests"),
        ],
    );
    let (human, llm, j) = each_format(&[("a.txt", "a\n")], &reply, &["--exec", "allow"]);
    assert!(llm.contains("\n1\n2\n"), "the head is kept");
    assert!(
        llm.contains(
            "\n50\n… (1801 lines omitted; the first 50 and the last 150 are shown)\n1852\n"
        ),
        "{}",
        &llm[..llm.len().min(3000)]
    );
    assert!(llm.contains("2000\nFAILED 3 tests"), "the tail is kept");
    assert!(!llm.contains("\n51\n"), "the middle is gone");
    assert!(llm.len() < 4000, "{} bytes", llm.len());
    // The JSON report keeps the whole (capped) output; the human report too.
    let out = j["results"][0]["data"]["stdout"].as_str().unwrap();
    assert_eq!(out.lines().count(), 2001);
    assert!(human.contains("\n1000\n"));
}

#[test]
fn a_one_line_old_text_finds_the_wrapped_signature() {
    let api = "import x\n\n\ndef post(url, data=None, json=None, **kwargs):\n    return request(\"post\", url, data=data, json=json, **kwargs)\n\n\ndef get(\n    url, params=None, **kwargs\n):\n    return request(\"get\", url, params=params, **kwargs)\n";
    let repo = TestRepo::with_files(&[("api.py", api)]);
    let j = json(
        &repo,
        &block(
            "h01",
            &[
                ("action", "file_replace_text"),
                ("path", "api.py"),
                ("old_text", "def get(url, params=None, **kwargs):"),
                (
                    "new_text",
                    "def get(url, params=None, timeout=None, **kwargs):",
                ),
            ],
        ),
        &[],
    );
    let c = &j["results"][0]["hint"]["closest"];
    assert_eq!(c["startLine"], 8, "{j}");
    assert_eq!(c["endLine"], 10, "{j}");
}

#[test]
fn a_missing_path_gets_the_close_name_in_its_folder() {
    let repo = TestRepo::with_files(&[
        ("src/requests/structures.py", "x = 1\n"),
        ("src/requests/utils.py", "y = 1\n"),
    ]);
    let reply = block(
        "m01",
        &[
            ("action", "file_replace_text"),
            ("path", "src/requests/structure.py"),
            ("old_text", "x = 1"),
            ("new_text", "x = 2"),
        ],
    );
    let j = json(&repo, &reply, &[]);
    assert_eq!(j["results"][0]["code"], "file_not_found");
    assert_eq!(
        j["results"][0]["hint"]["similar"],
        serde_json::json!(["src/requests/structures.py"])
    );
    let llm = apply_as(&repo, "llm", &reply, &[]);
    assert!(
        llm.contains("did you mean src/requests/structures.py? (a similar name exists)"),
        "{llm}"
    );
}

#[test]
fn a_misspelt_parameter_gets_did_you_mean_whether_or_not_validation_fails() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    // Required old_text misspelt: validation fails, and says which it probably is.
    let j = json(
        &repo,
        &block(
            "p01",
            &[
                ("action", "file_replace_text"),
                ("path", "a.txt"),
                ("old_txt", "a"),
                ("new_text", "b"),
            ],
        ),
        &[],
    );
    let e = &j["parseErrors"][0];
    assert_eq!(e["code"], "missing_param");
    assert_eq!(e["param"], "old_text");
    assert_eq!(e["expected"], "a value");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("(the block has 'old_txt': did you mean old_text?)"),
        "{e}"
    );
    // An optional parameter misspelt: the block runs, the warning says which.
    let j = json(
        &repo,
        &block(
            "p02",
            &[
                ("action", "exec"),
                ("lang", "bash"),
                ("code", "true"),
                ("timeot", "5"),
            ],
        ),
        &["--exec", "allow"],
    );
    let w = j["results"][0]["warnings"].to_string();
    assert!(
        w.contains("unknown parameter 'timeot' ignored: did you mean timeout?"),
        "{w}"
    );
    // An unknown action lists the actions there are.
    let j = json(
        &repo,
        &block(
            "p03",
            &[("action", "file_writ"), ("path", "a.txt"), ("content", "x")],
        ),
        &[],
    );
    let e = &j["parseErrors"][0];
    assert_eq!(e["code"], "unknown_action");
    assert_eq!(e["actual"], "file_writ");
    assert!(e["availableActions"]
        .as_array()
        .unwrap()
        .contains(&Value::from("file_write")));
    // A value of the wrong type names the parameter, what it must be and what it was.
    let j = json(
        &repo,
        &block(
            "p04",
            &[
                ("action", "file_edit"),
                ("path", "a.txt"),
                ("old_text", "a"),
                ("new_text", "b"),
                ("count", "two"),
            ],
        ),
        &[],
    );
    let e = &j["parseErrors"][0];
    assert_eq!(e["code"], "invalid_type");
    assert_eq!(e["param"], "count");
    assert_eq!(e["expected"], "integer");
    assert_eq!(e["actual"], "two");
}

#[test]
fn every_failed_result_has_a_stable_code() {
    let repo = TestRepo::with_files(&[("a.txt", "a\na\n"), ("d/x.txt", "x\n")]);
    let reply = [
        block("c01", &[("action", "file_read"), ("path", "nope.txt")]),
        block(
            "c02",
            &[
                ("action", "file_create"),
                ("path", "a.txt"),
                ("content", "x"),
            ],
        ),
        block(
            "c03",
            &[
                ("action", "file_replace_text"),
                ("path", "a.txt"),
                ("old_text", "a"),
                ("new_text", "b"),
            ],
        ),
        block(
            "c04",
            &[
                ("action", "file_replace_lines"),
                ("path", "a.txt"),
                ("lines", "9"),
                ("new_content", "z"),
            ],
        ),
        block("c05", &[("action", "dir_delete"), ("path", "d")]),
        block(
            "c06",
            &[("action", "exec"), ("lang", "bash"), ("code", "exit 3")],
        ),
        block(
            "c07",
            &[
                ("action", "file_write"),
                ("path", ".git/config"),
                ("content", "x"),
            ],
        ),
    ]
    .concat();
    let j = json(&repo, &reply, &["--exec", "allow"]);
    let codes: Vec<(String, String)> = j["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            assert_eq!(r["success"], false, "{r}");
            (
                r["blockId"].as_str().unwrap().to_string(),
                r["code"].as_str().unwrap_or("MISSING").to_string(),
            )
        })
        .collect();
    let want = [
        ("c01", "file_not_found"),
        ("c02", "file_exists"),
        ("c03", "match_count_mismatch"),
        ("c04", "line_out_of_range"),
        ("c05", "directory_not_empty"),
        ("c06", "exec_failed"),
        ("c07", "git_dir"),
    ];
    let want: Vec<(String, String)> = want
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(codes, want);
    // Every code used is documented.
    let doc = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/json-format.md"),
    )
    .unwrap();
    for (code, _) in clada_engine::action::CODES {
        assert!(
            doc.contains(&format!("`{code}`")),
            "{code} is not in docs/json-format.md"
        );
    }
}

#[test]
fn blocks_are_reported_in_reply_order_with_one_line_shape() {
    let reply = [
        block(
            "r01",
            &[
                ("action", "file_write"),
                ("path", "one.txt"),
                ("content", "1"),
            ],
        ),
        block("r02", &[("action", "file_write"), ("path", "two.txt")]),
        block(
            "r03",
            &[
                ("action", "file_replace_text"),
                ("path", "a.txt"),
                ("old_text", "zzz"),
                ("new_text", "y"),
            ],
        ),
    ]
    .concat();
    let (human, llm, _) = each_format(&[("a.txt", "a\n")], &reply, &[]);
    for report in [&human, &llm] {
        let at = |id: &str| {
            report
                .find(&format!("{id} "))
                .unwrap_or_else(|| panic!("{id}: {report}"))
        };
        assert!(at("r01") < at("r02") && at("r02") < at("r03"), "{report}");
        // The validation failure reads like the run-time one: `id ❌ action - message`.
        assert!(
            report.contains("r02 ❌ file_write - Missing required parameter: content (line "),
            "{report}"
        );
        assert!(
            report.contains("r03 ❌ file_replace_text a.txt - old_text not found in file"),
            "{report}"
        );
    }
}

#[test]
fn check_runs_the_matching_and_says_what_would_fail() {
    let repo = TestRepo::with_files(&[("a.txt", "alpha\n")]);
    let reply = [
        block(
            "k01",
            &[
                ("action", "file_replace_text"),
                ("path", "a.txt"),
                ("old_text", "beta"),
                ("new_text", "x"),
            ],
        ),
        block("k02", &[("action", "file_read"), ("path", "missing.txt")]),
        block(
            "k03",
            &[
                ("action", "file_replace_lines"),
                ("path", "a.txt"),
                ("lines", "7"),
                ("new_content", "x"),
            ],
        ),
        block("k04", &[("action", "file_delete"), ("path", "gone.txt")]),
    ]
    .concat();
    repo.write("reply.md", &reply);
    let before = repo.state();
    let out = repo.clada(&["--format", "human", "check", "reply.md"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.starts_with("reply.md: 4 problem(s) in 4 blocks\n"),
        "{text}"
    );
    for id in ["k01", "k02", "k03", "k04"] {
        assert!(text.contains(&format!("  {id} ❌ ")), "{id}: {text}");
    }
    assert!(!text.contains("would run"), "{text}");
    let out = repo.clada(&["--format", "json", "check", "reply.md"]);
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j[0]["failed"][0]["code"], "search_not_found");
    assert_eq!(j[0]["failed"][1]["code"], "file_not_found");
    assert_eq!(repo.state(), before, "check changes nothing");
    // A reply that would work says so, and that exec was not run.
    let good = [
        block(
            "g01",
            &[
                ("action", "file_replace_text"),
                ("path", "a.txt"),
                ("old_text", "alpha"),
                ("new_text", "x"),
            ],
        ),
        block(
            "g02",
            &[("action", "exec"), ("lang", "bash"), ("code", "touch ran")],
        ),
    ]
    .concat();
    repo.write("good.md", &good);
    let out = repo.clada(&["--format", "human", "check", "good.md"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert_eq!(
        stdout(&out),
        "good.md: ok (2 blocks; every action would run: checked against the files as they are; its exec block was not run)\n"
    );
    assert!(!repo.exists("ran"));
}

#[test]
fn a_fifteen_hunk_line_edit_gives_no_warnings_and_names_only_blocks_that_moved_lines() {
    let file: String = (1..=60).map(|i| format!("line {i}\n")).collect();
    let repo = TestRepo::with_files(&[("f.txt", &file)]);
    let mut reply = String::new();
    for i in 0..15 {
        let n = 1 + 4 * i;
        reply.push_str(&block(
            &format!("h{i:02}"),
            &[
                ("action", "file_replace_lines"),
                ("path", "f.txt"),
                ("lines", &n.to_string()),
                ("new_content", &format!("LINE {n}")),
            ],
        ));
    }
    let j = json(&repo, &reply, &[]);
    assert_eq!(j["success"], true, "{j}");
    for r in j["results"].as_array().unwrap() {
        assert!(r.get("warnings").is_none(), "{r}");
        assert!(r["data"].get("lineNote").is_none(), "{r}");
    }
    // A block that adds lines moves those below it: they say so, naming only that block.
    let repo = TestRepo::with_files(&[("f.txt", &file)]);
    let reply = [
        block(
            "g01",
            &[
                ("action", "file_replace_lines"),
                ("path", "f.txt"),
                ("lines", "2"),
                ("new_content", "a\nb\nc"),
            ],
        ),
        block(
            "g02",
            &[
                ("action", "file_replace_lines"),
                ("path", "f.txt"),
                ("lines", "5"),
                ("new_content", "five"),
            ],
        ),
        block(
            "g03",
            &[
                ("action", "file_replace_lines"),
                ("path", "f.txt"),
                ("lines", "9"),
                ("new_content", "nine"),
            ],
        ),
    ]
    .concat();
    let j = json(&repo, &reply, &[]);
    let note = j["results"][2]["data"]["lineNote"].as_str().unwrap();
    assert!(note.contains("moved by block g01 (+2 lines)"), "{note}");
    assert!(!note.contains("g02"), "{note}");
    assert!(j["results"][2].get("warnings").is_none());
    assert_eq!(repo.read("f.txt").lines().nth(10), Some("nine"));
}
