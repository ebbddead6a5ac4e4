//! The interface the git transaction uses: `plan`, `execute` (real and dry run), the recorded
//! `changes`, `restore`; plus byte fidelity and the exec policy.

use crate::engine_support;

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use clada_engine::action::{
    self, Approval, EngineOptions, ExecPolicy, ExecRequest, FileChange, FileState,
};
use clada_engine::sandbox::Sandbox;
use clada_read::Dialect;
use engine_support::run_reply;

fn block(id: &str, action: &str, params: &[(&str, &str)]) -> String {
    let mut s = format!("#!nesl [@three-char-SHA-256: {id}]\naction = \"{action}\"\n");
    for (k, v) in params {
        s.push_str(&format!(
            "{k} = {}\n",
            serde_json::to_string(v).expect("json")
        ));
    }
    s.push_str(&format!("#!end_{id}\n"));
    s
}

/// Paths below `dir` with kind, mode and content.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, String> {
    let mut m = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).expect("readable").flatten() {
            let p = e.path();
            let md = fs::symlink_metadata(&p).expect("stat");
            let v = if md.file_type().is_symlink() {
                format!("link:{}", fs::read_link(&p).expect("link").display())
            } else if md.is_dir() {
                stack.push(p.clone());
                "dir".to_string()
            } else {
                format!(
                    "file {:o}:{:?}",
                    md.permissions().mode() & 0o777,
                    fs::read(&p).expect("read")
                )
            };
            m.insert(p.strip_prefix(dir).expect("below").to_path_buf(), v);
        }
    }
    m
}

struct Tree {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

/// A small project: a CRLF file, an executable script, a BOM file, a tree to delete.
fn tree() -> Tree {
    let d = tempfile::tempdir().expect("temp");
    let root = fs::canonicalize(d.path()).expect("canonical");
    fs::write(root.join("win.txt"), "one\r\ntwo\r\nthree\r\n").expect("w");
    fs::write(root.join("run.sh"), "#!/bin/sh\necho old\n").expect("w");
    fs::set_permissions(root.join("run.sh"), fs::Permissions::from_mode(0o750)).expect("chmod");
    fs::write(root.join("bom.txt"), "\u{feff}first\nsecond").expect("w");
    fs::write(root.join("gone.txt"), "bye").expect("w");
    fs::write(root.join("mv.txt"), "move me").expect("w");
    fs::create_dir_all(root.join("old/inner")).expect("mkdir");
    fs::write(root.join("old/inner/x.txt"), "x").expect("w");
    Tree { _dir: d, root }
}

/// A reply touching every kind of change.
fn busy_reply() -> String {
    [
        block(
            "a01",
            "file_replace_text",
            &[
                ("path", "win.txt"),
                ("old_text", "two\nthree"),
                ("new_text", "2\n3"),
            ],
        ),
        block(
            "a02",
            "file_replace_text",
            &[("path", "run.sh"), ("old_text", "old"), ("new_text", "new")],
        ),
        block(
            "a03",
            "file_replace_lines",
            &[
                ("path", "bom.txt"),
                ("lines", "1"),
                ("new_content", "FIRST"),
            ],
        ),
        block(
            "a04",
            "file_write",
            &[("path", "new/dir/n.txt"), ("content", "n")],
        ),
        block("a05", "file_delete", &[("path", "gone.txt")]),
        block(
            "a06",
            "file_move",
            &[("old_path", "mv.txt"), ("new_path", "moved/mv.txt")],
        ),
        block(
            "a07",
            "dir_delete",
            &[("path", "old"), ("recursive", "true")],
        ),
        block(
            "a08",
            "file_write",
            &[("path", "tmp.txt"), ("content", "t")],
        ),
        block("a09", "file_delete", &[("path", "tmp.txt")]),
        block(
            "a10",
            "grep",
            &[("pattern", "^n$"), ("path", "new"), ("regex", "true")],
        ),
        block("a11", "file_read", &[("path", "moved/mv.txt")]),
        block("a12", "exec", &[("lang", "bash"), ("code", "echo hi")]),
    ]
    .concat()
}

fn run(root: &Path, text: &str, dry_run: bool) -> action::Execution {
    let sandbox = Sandbox::new(root, false).expect("sandbox");
    let plan = action::plan(&clada_read::parse(text, Dialect::Auto), &sandbox);
    let opts = EngineOptions {
        dry_run,
        exec: ExecPolicy::Allow,
        ..EngineOptions::default()
    };
    action::execute(&plan, &sandbox, &opts)
}

fn change_summary(changes: &[FileChange]) -> Vec<(Option<String>, FileState, FileState)> {
    changes
        .iter()
        .map(|c| (c.rel.clone(), c.before.clone(), c.after.clone()))
        .collect()
}

#[test]
fn real_run_records_each_path_once_with_first_before_and_last_after() {
    let t = tree();
    let out = run(&t.root, &busy_reply(), false);
    assert!(out.result.success, "{:#?}", out.result);
    let by_rel: BTreeMap<String, &FileChange> = out
        .changes
        .iter()
        .map(|c| (c.rel.clone().expect("inside"), c))
        .collect();
    let rels: Vec<&String> = by_rel.keys().collect();
    assert_eq!(out.changes.len(), by_rel.len(), "one entry per path");
    // Created then deleted in the same reply: no change at all.
    assert!(!by_rel.contains_key("tmp.txt"), "{rels:?}");
    // Both sides of a move.
    assert_eq!(by_rel["mv.txt"].after, FileState::Absent);
    assert_eq!(
        by_rel["moved/mv.txt"].after,
        FileState::File {
            bytes: b"move me".to_vec(),
            executable: false
        }
    );
    assert_eq!(by_rel["moved/mv.txt"].before, FileState::Absent);
    // Created directories are recorded (restore removes them).
    assert_eq!(by_rel["new"].after, FileState::Dir);
    assert_eq!(by_rel["new/dir"].after, FileState::Dir);
    // Every file of a deleted tree.
    assert_eq!(by_rel["old/inner/x.txt"].after, FileState::Absent);
    assert_eq!(by_rel["old"].before, FileState::Dir);
    // The executable bit is part of the states.
    assert_eq!(
        by_rel["run.sh"].after,
        FileState::File {
            bytes: b"#!/bin/sh\necho new\n".to_vec(),
            executable: true
        }
    );
    for c in &out.changes {
        assert!(c.path.is_absolute() && c.path.starts_with(&t.root));
    }
}

#[test]
fn byte_fidelity_crlf_bom_mode_and_trailing_newline() {
    let t = tree();
    let out = run(&t.root, &busy_reply(), false);
    assert!(out.result.success);
    assert_eq!(
        fs::read(t.root.join("win.txt")).expect("r"),
        b"one\r\n2\r\n3\r\n"
    );
    assert!(out.result.results[0].warnings[0].contains("CRLF"));
    assert_eq!(
        fs::read(t.root.join("bom.txt")).expect("r"),
        "\u{feff}FIRST\nsecond".as_bytes()
    );
    let mode = fs::metadata(t.root.join("run.sh"))
        .expect("m")
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o750, "permissions kept by the atomic write");
    // No temp files left behind.
    let leftovers: Vec<_> = snapshot(&t.root)
        .into_keys()
        .filter(|p| p.to_string_lossy().contains(".clada-tmp-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn dry_run_changes_nothing_and_reports_the_same() {
    let dry_tree = tree();
    let real_tree = tree();
    let before = snapshot(&dry_tree.root);
    let dry = run(&dry_tree.root, &busy_reply(), true);
    assert_eq!(before, snapshot(&dry_tree.root), "dry run touched the disk");
    let real = run(&real_tree.root, &busy_reply(), false);
    assert!(dry.result.dry_run && !real.result.dry_run);
    assert_eq!(change_summary(&dry.changes), change_summary(&real.changes));
    for (d, r) in dry.result.results.iter().zip(&real.result.results) {
        if d.action == "exec" {
            assert!(
                d.skipped && d.success,
                "exec is skipped in a dry run: {d:?}"
            );
            continue;
        }
        assert_eq!(
            (&d.success, &d.error, &d.data, &d.hint),
            (&r.success, &r.error, &r.data, &r.hint),
            "block {}",
            d.block_id
        );
    }
}

#[test]
fn restore_puts_every_before_back() {
    let t = tree();
    let before = snapshot(&t.root);
    let out = run(&t.root, &busy_reply(), false);
    assert!(out.result.success);
    assert_ne!(before, snapshot(&t.root));
    let disk = action::disk::Disk::new(Sandbox::new(&t.root, false).expect("sandbox").handle());
    action::restore(&disk, &out.changes).expect("restore");
    assert_eq!(before, snapshot(&t.root));
}

#[test]
fn text_actions_refuse_files_over_10_mib() {
    let t = tree();
    let big = vec![b'a'; 10 * 1024 * 1024 + 1];
    fs::write(t.root.join("big.txt"), &big).expect("w");
    let reply = block(
        "b01",
        "file_replace_text",
        &[("path", "big.txt"), ("old_text", "aaa"), ("new_text", "b")],
    );
    let out = run_reply(&reply, &t.root, false, ExecPolicy::Deny);
    let err = out.result.results[0].error.clone().unwrap_or_default();
    assert!(err.contains("over the 10 MiB limit"), "{err}");
    assert_eq!(
        fs::metadata(t.root.join("big.txt")).expect("m").len(),
        big.len() as u64
    );
}

#[test]
fn exec_policy_deny_ask_and_always() {
    let t = tree();
    let reply = [
        block("x01", "exec", &[("lang", "bash"), ("code", "echo one")]),
        block("x02", "exec", &[("lang", "bash"), ("code", "echo two")]),
    ]
    .concat();
    let sandbox = Sandbox::new(&t.root, false).expect("sandbox");
    let plan = action::plan(&clada_read::parse(&reply, Dialect::Auto), &sandbox);

    let denied = action::execute(&plan, &sandbox, &EngineOptions::default());
    for r in &denied.result.results {
        assert!(
            !r.success
                && r.code.as_deref() == Some("command_not_allowed")
                && r.needs_user
                    .as_ref()
                    .is_some_and(|n| n.how.contains("--exec allow"))
                && r.error
                    .as_deref()
                    .is_some_and(|e| !e.contains("--exec allow"))
        );
    }

    let asked = Arc::new(AtomicUsize::new(0));
    let counter = asked.clone();
    let root = t.root.clone();
    let always = EngineOptions {
        exec: ExecPolicy::Ask,
        prompt: Some(Arc::new(move |req: &ExecRequest| {
            counter.fetch_add(1, Ordering::SeqCst);
            assert_eq!(req.cwd, root, "exec runs in the root by default");
            Approval::Always
        })),
        ..EngineOptions::default()
    };
    let out = action::execute(&plan, &sandbox, &always);
    assert!(out.result.success, "{:#?}", out.result);
    assert_eq!(asked.load(Ordering::SeqCst), 1, "always is asked once");

    let no = EngineOptions {
        exec: ExecPolicy::Ask,
        prompt: Some(Arc::new(|_: &ExecRequest| Approval::No)),
        ..EngineOptions::default()
    };
    let out = action::execute(&plan, &sandbox, &no);
    assert!(out.result.results.iter().all(|r| !r.success));
}

#[test]
fn plan_exposes_counts_refusals_and_write_paths() {
    let t = tree();
    let reply = [
        block("p01", "file_write", &[("path", "a.txt"), ("content", "a")]),
        block(
            "p02",
            "file_write",
            &[("path", "../b.txt"), ("content", "b")],
        ),
        block("p03", "nope", &[]),
        block(
            "p04",
            "file_move",
            &[("old_path", "mv.txt"), ("new_path", "x/y.txt")],
        ),
    ]
    .concat();
    let sandbox = Sandbox::new(&t.root, false).expect("sandbox");
    let plan = action::plan(&clada_read::parse(&reply, Dialect::Auto), &sandbox);
    assert_eq!(plan.total_blocks, 4);
    assert_eq!(plan.actions.len(), 3);
    assert_eq!(plan.errors.len(), 1);
    assert_eq!(plan.refusals().count(), 1);
    let moved: Vec<_> = plan.actions[2]
        .write_paths()
        .iter()
        .map(|p| p.rel.clone())
        .collect();
    assert_eq!(
        moved,
        vec![Some("mv.txt".to_string()), Some("x/y.txt".to_string())]
    );
}
