//! `git clada stats` and `git clada blame` counted right (issue 52 items 3, 4, 6): AI commits
//! merged by a merge commit, non-ASCII paths under git's default `core.quotePath`, a pull
//! request's range summary in JSON and Markdown, and the HTML page (escaped, its numbers the
//! JSON's, rendered by headless Chromium).

use crate::common;

use std::collections::BTreeMap;

use common::{exit_code, output_text, replace_block, write_block, TestRepo};
use serde_json::{json, Value};

fn ok(out: &std::process::Output) {
    assert_eq!(exit_code(out), 0, "{}", output_text(out));
}

fn stats_json(repo: &TestRepo, args: &[&str]) -> Value {
    let mut all = vec!["--format", "json", "stats"];
    all.extend_from_slice(args);
    let out = repo.clada(&all);
    ok(&out);
    serde_json::from_slice(&out.stdout).expect("JSON")
}

fn ai(repo: &TestRepo, reply: &str, agent: &str, model: &str) {
    ok(&repo.apply(reply, &["--agent", agent, "--model", model]));
}

#[test]
fn stats_count_ai_commits_a_merge_commit_brought_in() {
    let repo = TestRepo::with_files(&[("base.txt", "b1\nb2\n")]);
    repo.git(&["switch", "-q", "-c", "feature"]);
    ai(
        &repo,
        &write_block("m01", "feat.py", "f1\nf2\nf3\n"),
        "claude",
        "opus",
    );
    let ai_commit = repo.head();
    repo.git(&["switch", "-q", "main"]);
    repo.write("main.txt", "m\n");
    repo.git(&["add", "main.txt"]);
    repo.git(&["commit", "-qm", "main moves on"]);
    let before = repo.head();
    repo.git(&["merge", "-q", "--no-ff", "feature", "-m", "Merge feature"]);

    let report = stats_json(&repo, &[]);
    assert_eq!(
        report["total"],
        json!({"ai": 3, "human": 0, "unknown": 3}),
        "{report:#}"
    );
    let rows = report["commits"].as_array().expect("commits");
    assert!(
        rows.iter()
            .any(|c| c["commit"] == ai_commit.trim() && c["ai"] == 3),
        "{report:#}"
    );
    assert_eq!(
        report["agents"],
        json!([{"agent": "claude", "model": "opus", "added": 3, "surviving": 3}]),
        "{report:#}"
    );
    // The pull request as a forge merges it: the merge and the branch it brings in.
    let range = format!("{}..HEAD", before.trim());
    let report = stats_json(&repo, &[&range]);
    assert_eq!(report["base"], before.trim(), "{report:#}");
    assert_eq!(
        report["added"],
        json!({"ai": 3, "human": 0, "unknown": 0}),
        "{report:#}"
    );
    assert_eq!(
        report["total"],
        json!({"ai": 3, "human": 0, "unknown": 0}),
        "{report:#}"
    );
}

#[test]
fn non_ascii_paths_keep_their_ai_lines_in_blame_and_stats() {
    let repo = TestRepo::with_files(&[("s.txt", "a\n")]);
    // git's default: core.quotePath unset (true).
    assert!(!repo
        .git_output(&["config", "--get", "core.quotePath"])
        .status
        .success());
    ai(
        &repo,
        &write_block("c01", "café.txt", "ai-1\nai-2\n"),
        "claude",
        "opus",
    );
    ai(
        &repo,
        &write_block("c02", "docs/naïve notes.md", "x\n"),
        "codex",
        "gpt-5",
    );

    let out = repo.clada(&["--format", "json", "blame", "café.txt"]);
    ok(&out);
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let origins: Vec<&str> = report["lines"]
        .as_array()
        .expect("lines")
        .iter()
        .map(|l| l["origin"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(origins, ["ai", "ai"], "{report:#}");
    assert_eq!(report["lines"][0]["model"], "opus", "{report:#}");
    let out = repo.clada(&["--format", "json", "blame", "docs/naïve notes.md"]);
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(report["lines"][0]["origin"], "ai", "{report:#}");

    let report = stats_json(&repo, &[]);
    assert_eq!(
        report["total"],
        json!({"ai": 3, "human": 0, "unknown": 1}),
        "{report:#}"
    );
    let files: Vec<&str> = report["files"]
        .as_array()
        .expect("files")
        .iter()
        .map(|f| f["path"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(files, ["café.txt", "docs/naïve notes.md", "s.txt"]);

    // Renamed by a commit with no log: still read, at its new name.
    repo.git(&["mv", "café.txt", "thé.txt"]);
    repo.git(&["commit", "-qm", "rename"]);
    let report = stats_json(&repo, &[]);
    assert_eq!(report["total"]["ai"], 3, "{report:#}");
    assert_eq!(report["files"][2]["path"], "thé.txt", "{report:#}");
    assert_eq!(report["files"][2]["ai"], 2, "{report:#}");
}

/// Base, then on a branch: claude/opus writes 4 lines, a person changes one and adds two,
/// codex/gpt-5 writes 2 lines in another file.
fn pull_request() -> (TestRepo, String) {
    let repo = TestRepo::with_files(&[("s.txt", "a\nb\nc\n")]);
    let base = repo.head().trim().to_string();
    repo.git(&["switch", "-q", "-c", "pr"]);
    ai(
        &repo,
        &write_block("r01", "a.txt", "1\n2\n3\n4\n"),
        "claude",
        "opus",
    );
    repo.write("a.txt", "1\nH\n3\n4\nh5\nh6\n");
    repo.git(&["commit", "-qam", "human edit"]);
    ai(
        &repo,
        &write_block("r02", "b.txt", "x\ny\n"),
        "codex",
        "gpt-5",
    );
    (repo, base)
}

#[test]
fn a_range_says_what_the_pull_request_added_and_what_survives() {
    let (repo, base) = pull_request();
    let range = format!("{base}..HEAD");
    let report = stats_json(&repo, &[&range]);
    assert_eq!(
        report["added"],
        json!({"ai": 6, "human": 0, "unknown": 3}),
        "{report:#}"
    );
    assert_eq!(
        report["total"],
        json!({"ai": 5, "human": 0, "unknown": 3}),
        "{report:#}"
    );
    assert_eq!(
        report["agents"],
        json!([
            {"agent": "claude", "model": "opus", "added": 4, "surviving": 3},
            {"agent": "codex", "model": "gpt-5", "added": 2, "surviving": 2},
        ]),
        "{report:#}"
    );
    assert_eq!(report["commits"].as_array().map(Vec::len), Some(3));

    let out = repo.clada(&["stats", &range, "--format", "markdown"]);
    ok(&out);
    let text = String::from_utf8_lossy(&out.stdout);
    let short = format!("{}..{}", &base[..8], &repo.head()[..8]);
    assert!(
        text.starts_with(&format!("### AI share of {short}\n")),
        "{text}"
    );
    for row in [
        "| added by the range | 6 | 0 | 3 | 67% |",
        "| still at the tip | 5 | 0 | 3 | 63% |",
        "| claude | opus | 4 | 3 |",
        "| codex | gpt\\-5 | 2 | 2 |",
    ] {
        assert!(text.lines().any(|l| l == row), "no `{row}` in:\n{text}");
    }
    let out = repo.clada(&["stats", &range, "--format", "human"]);
    ok(&out);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("claude/opus: 4 AI lines added, 3 at the tip"),
        "{text}"
    );
    // Three dots name no range stats reads.
    let out = repo.clada(&["stats", &format!("{base}...HEAD")]);
    assert_eq!(exit_code(&out), 3, "{}", output_text(&out));
    assert!(
        output_text(&out).contains("BASE..HEAD"),
        "{}",
        output_text(&out)
    );
}

const EVIL: &str = "<img src=x onerror=document.body.setAttribute('data-pwned',1)>";

/// A repository whose log names a model that is markup, and its page.
fn evil_page() -> (TestRepo, String) {
    let repo = TestRepo::with_files(&[("<b>.txt", "a\n")]);
    ai(
        &repo,
        &write_block("e01", "<b>.txt", "a\nai\n"),
        "claude",
        EVIL,
    );
    ai(
        &repo,
        &replace_block("e02", "<b>.txt", "ai\n", "ai\nmore\n"),
        "codex",
        "gpt-5",
    );
    let out = repo.clada(&["stats", "--format", "html"]);
    ok(&out);
    let page = String::from_utf8(out.stdout).expect("UTF-8 page");
    (repo, page)
}

#[test]
fn the_html_page_is_self_contained_and_escapes_what_notes_and_paths_say() {
    let (_repo, page) = evil_page();
    assert!(page.contains(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
    ));
    assert!(!page.contains("<img") && !page.contains("<b>"), "{page}");
    assert!(
        page.contains(
            "&lt;img src=x onerror=document.body.setAttribute(&#39;data-pwned&#39;,1)&gt;"
        ),
        "{page}"
    );
    assert!(page.contains("&lt;b&gt;.txt"), "{page}");
    for outside in ["<script", "<link", "http://", "https://", "url("] {
        assert!(!page.contains(outside), "{outside} in {page}");
    }
}

/// The text of each element with a `data-k` in Chromium's DOM: `key → text`, unescaped.
fn numbers_in(dom: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for part in dom.split("data-k=\"").skip(1) {
        let Some((key, rest)) = part.split_once('"') else {
            continue;
        };
        let Some(text) = rest.split_once('>').and_then(|(_, t)| t.split_once('<')) else {
            continue;
        };
        let text = text
            .0
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&amp;", "&");
        out.insert(key.to_string(), text);
    }
    out
}

/// The JSON report's value at `key` (`agents.0.model`, `added.ai`) as text.
fn json_at(report: &Value, key: &str) -> String {
    let mut v = report;
    for part in key.split('.') {
        v = match part.parse::<usize>() {
            Ok(i) => &v[i],
            Err(_) => &v[part],
        };
    }
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[test]
#[cfg_attr(not(has_chromium), ignore = "needs Debian's chromium")]
fn chromium_renders_the_page_with_the_jsons_numbers() {
    let (repo, page) = evil_page();
    let report = stats_json(&repo, &[]);
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("stats.html");
    std::fs::write(&file, &page).expect("write page");
    let profile = tempfile::tempdir().expect("tempdir");
    let out = repo
        .command("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg("--dump-dom")
        .arg(format!("file://{}", file.display()))
        .output()
        .expect("run chromium");
    assert!(out.status.success(), "{}", output_text(&out));
    let dom = String::from_utf8_lossy(&out.stdout);
    assert!(dom.contains("<h1>AI share of"), "{dom}");
    // The model's markup stayed text: no image element, no handler ran on the body.
    assert!(
        dom.contains("<body>") && !dom.contains("data-pwned=\""),
        "{dom}"
    );
    assert!(!dom.contains("<img"), "{dom}");
    let shown = numbers_in(&dom);
    let agents = report["agents"].as_array().map_or(0, Vec::len);
    assert_eq!(agents, 2, "{report:#}");
    assert_eq!(shown["agents.0.model"], EVIL, "{dom}");
    let mut keys = vec![];
    for c in ["added", "total", "files.0", "weeks.0"] {
        keys.extend(["ai", "human", "unknown"].map(|o| format!("{c}.{o}")));
    }
    for i in 0..agents {
        keys.extend(["agent", "model", "added", "surviving"].map(|f| format!("agents.{i}.{f}")));
    }
    keys.extend(["files.0.path".to_string(), "weeks.0.week".to_string()]);
    for key in &keys {
        assert_eq!(
            shown.get(key).map(String::as_str),
            Some(json_at(&report, key).as_str()),
            "{key} in the page and in the JSON:\n{report:#}"
        );
    }
    assert_eq!(shown.len(), keys.len(), "{shown:?}");
}
