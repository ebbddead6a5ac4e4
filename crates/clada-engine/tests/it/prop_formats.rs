//! Property: the same edits written in SHAM, CSL, CML and the replacer format give the same
//! tree and the same per-block success. The front ends differ only in spelling; everything
//! behind them is shared, so any difference here is a front-end bug.

use crate::engine_support;

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use clada_engine::action::ExecPolicy;
use proptest::prelude::*;

/// No path is a suffix of another, so the replacer's suffix rule never picks a different file.
const PATHS: [&str; 3] = ["a.txt", "b.md", "c/e.txt"];

#[derive(Debug, Clone)]
enum Edit {
    Write(usize, String),
    Replace(usize, String, String),
    /// A range edit (CSL `<---TO--->`, CML search-start/end; SHAM `file_replace_range`). The
    /// replacer format has none, so it is written there as a full replace only when the test
    /// runs the three formats that have it.
    Range(usize, String, String, String),
}

fn text(max: usize) -> impl Strategy<Value = String> {
    proptest::string::string_regex(&format!("[ab \\n]{{0,{max}}}")).expect("regex")
}

/// Replacement text: empty or with something besides whitespace (the replacer format reads a
/// whitespace-only REPLACE as a deletion, by its instructions).
fn new_text() -> impl Strategy<Value = String> {
    text(5).prop_filter("not whitespace-only", |s| {
        s.is_empty() || !s.trim().is_empty()
    })
}

fn needle() -> impl Strategy<Value = String> {
    proptest::string::string_regex("[ab\\n]{1,3}").expect("regex")
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (0..3usize, text(12)).prop_map(|(p, c)| Edit::Write(p, c)),
        (0..3usize, needle(), new_text()).prop_map(|(p, o, n)| Edit::Replace(p, o, n)),
        (0..3usize, needle(), needle(), new_text())
            .prop_map(|(p, s, e, n)| Edit::Range(p, s, e, n)),
    ]
}

/// `lines` of a value, each followed by a line break: reading them back between two markers
/// gives the value (lines joined by `\n`).
fn body(value: &str) -> String {
    value.split('\n').map(|l| format!("{l}\n")).collect()
}

fn sham(edits: &[Edit]) -> String {
    let mut out = String::new();
    for (i, e) in edits.iter().enumerate() {
        let id = format!("b{i:02}");
        let heredoc =
            |k: &str, v: &str| format!("{k} = <<'EOT_SHAM_{id}'\n{}EOT_SHAM_{id}\n", body(v));
        out.push_str(&format!("#!SHAM [@three-char-SHA-256: {id}]\n"));
        match e {
            Edit::Write(p, c) => {
                out.push_str(&format!(
                    "action = \"file_write\"\npath = \"{}\"\n",
                    PATHS[*p]
                ));
                out.push_str(&heredoc("content", c));
            }
            Edit::Replace(p, o, n) => {
                out.push_str(&format!(
                    "action = \"file_replace_text\"\npath = \"{}\"\n",
                    PATHS[*p]
                ));
                out.push_str(&heredoc("old_text", o));
                out.push_str(&heredoc("new_text", n));
            }
            Edit::Range(p, s, en, n) => {
                out.push_str(&format!(
                    "action = \"file_replace_range\"\npath = \"{}\"\n",
                    PATHS[*p]
                ));
                out.push_str(&heredoc("start_text", s));
                out.push_str(&heredoc("end_text", en));
                out.push_str(&heredoc("new_text", n));
            }
        }
        out.push_str(&format!("#!END_SHAM_{id}\n\n"));
    }
    out
}

fn csl(edits: &[Edit]) -> String {
    let mut out = String::new();
    for e in edits {
        match e {
            Edit::Write(p, c) => out.push_str(&format!(
                "<---WRITE file=\"{}\"--->\n{}<---END--->\n",
                PATHS[*p],
                body(c)
            )),
            Edit::Replace(p, o, n) => out.push_str(&format!(
                "<---SEARCH file=\"{}\"--->\n{}<---REPLACE--->\n{}<---END--->\n",
                PATHS[*p],
                body(o),
                body(n)
            )),
            Edit::Range(p, s, en, n) => out.push_str(&format!(
                "<---SEARCH file=\"{}\"--->\n{}<---TO--->\n{}<---REPLACE--->\n{}<---END--->\n",
                PATHS[*p],
                body(s),
                body(en),
                body(n)
            )),
        }
        out.push_str("some prose\n");
    }
    out
}

/// The edits as CML elements, inside one `<tasks>` block when `grouped`.
fn cml(edits: &[Edit], grouped: bool) -> String {
    let cdata = |s: &str| format!("<![CDATA[{s}]]>");
    let mut out = String::from(if grouped {
        "<tasks version=\"1.0\">\n"
    } else {
        ""
    });
    for e in edits {
        match e {
            Edit::Write(p, c) => out.push_str(&format!(
                "  <write path=\"{}\">{}</write>\n",
                PATHS[*p],
                cdata(c)
            )),
            Edit::Replace(p, o, n) => out.push_str(&format!(
                "  <edit path=\"{}\"><search>{}</search><replace>{}</replace></edit>\n",
                PATHS[*p],
                cdata(o),
                cdata(n)
            )),
            Edit::Range(p, s, en, n) => out.push_str(&format!(
                "  <edit path=\"{}\"><search-start>{}</search-start><search-end>{}</search-end><replace>{}</replace></edit>\n",
                PATHS[*p],
                cdata(s),
                cdata(en),
                cdata(n)
            )),
        }
    }
    if grouped {
        out.push_str("</tasks>\n");
    }
    out
}

fn replacer(edits: &[Edit]) -> Option<String> {
    let mut out = String::new();
    for e in edits {
        match e {
            Edit::Write(p, c) => out.push_str(&format!(
                "<<<EXPLANATION>>>\nwhy\n<<<FILE>>>\n{}\n<<<OVERWRITE>>>\n{}<<<END>>>\n\n",
                PATHS[*p],
                body(c)
            )),
            Edit::Replace(p, o, n) => out.push_str(&format!(
                "<<<FILE>>>\n{}\n<<<SEARCH>>>\n{}<<<REPLACE>>>\n{}<<<END>>>\n\n",
                PATHS[*p],
                body(o),
                body(n)
            )),
            Edit::Range(..) => return None,
        }
    }
    Some(out)
}

fn tree(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for p in PATHS {
        if let Ok(b) = fs::read(root.join(p)) {
            out.insert(p.to_string(), b);
        }
    }
    out
}

/// Runs `reply` on `files`; the tree after and each block's success.
fn run(files: &[Option<String>], reply: &str) -> (BTreeMap<String, Vec<u8>>, Vec<bool>, usize) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = fs::canonicalize(tmp.path()).expect("root");
    for (p, c) in PATHS.iter().zip(files) {
        if let Some(c) = c {
            let path = root.join(p);
            fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            fs::write(path, c).expect("write");
        }
    }
    let out = engine_support::run_reply(reply, &root, false, ExecPolicy::Deny);
    let success = out.result.results.iter().map(|r| r.success).collect();
    (tree(&root), success, out.result.parse_errors.len())
}

proptest! {
    #![proptest_config(ProptestConfig { max_shrink_iters: 200, ..ProptestConfig::default() })]

    #[test]
    fn same_edits_same_tree_in_every_format(
        files in proptest::collection::vec(proptest::option::of(text(12)), 3),
        edits in proptest::collection::vec(edit(), 1..6),
    ) {
        let (want_tree, want_ok, errs) = run(&files, &sham(&edits));
        prop_assert_eq!(errs, 0);
        prop_assert_eq!(want_ok.len(), edits.len());
        // Each CML task as its own element here: a <tasks> block stops at its first failure,
        // which the other formats do not (checked below).
        let mut replies = vec![("CSL", csl(&edits)), ("CML", cml(&edits, false))];
        if let Some(r) = replacer(&edits) {
            replies.push(("replacer", r));
        }
        for (name, reply) in replies {
            let (t, ok, errs) = run(&files, &reply);
            prop_assert_eq!(errs, 0, "{} reply:\n{}", name, reply);
            prop_assert_eq!(&t, &want_tree, "{} tree differs; reply:\n{}", name, reply);
            prop_assert_eq!(&ok, &want_ok, "{} successes differ; reply:\n{}", name, reply);
        }
        // A <tasks> block gives the same tree as the edits up to and including its first
        // failure.
        let first_fail = want_ok.iter().position(|ok| !ok).map_or(edits.len(), |i| i + 1);
        let (prefix_tree, _, _) = run(&files, &sham(&edits[..first_fail]));
        let (t, ok, _) = run(&files, &cml(&edits, true));
        prop_assert_eq!(&t, &prefix_tree, "CML <tasks> tree differs");
        prop_assert_eq!(&ok[..first_fail], &want_ok[..first_fail]);
        prop_assert!(ok[first_fail..].iter().all(|o| !o));
    }
}
