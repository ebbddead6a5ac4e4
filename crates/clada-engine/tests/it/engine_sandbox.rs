//! The sandbox against hostile paths (DESIGN §5.1): each row is refused with its named code,
//! as a failed result, and nothing on disk changes — inside the root or outside it.

use crate::engine_support;

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use clada_engine::action::ExecPolicy;
use engine_support::run_reply;

struct World {
    _root: tempfile::TempDir,
    _out: tempfile::TempDir,
    root: PathBuf,
    out: PathBuf,
}

/// A root with a `.git`, nested `.git`, and symlinks pointing inside and outside; plus a
/// directory outside with a secret.
fn world() -> World {
    let r = tempfile::tempdir().expect("temp");
    let o = tempfile::tempdir().expect("temp");
    let root = fs::canonicalize(r.path()).expect("canonical");
    let out = fs::canonicalize(o.path()).expect("canonical");
    fs::write(root.join("a.txt"), "A").expect("write");
    fs::create_dir_all(root.join("sub/.git")).expect("mkdir");
    fs::write(root.join("sub/b.txt"), "B").expect("write");
    fs::write(root.join("sub/.git/HEAD"), "ref").expect("write");
    fs::create_dir_all(root.join(".git/hooks")).expect("mkdir");
    fs::write(root.join(".git/config"), "[core]").expect("write");
    fs::write(out.join("secret.txt"), "secret").expect("write");
    symlink(&out, root.join("link_out")).expect("symlink");
    symlink(out.join("secret.txt"), root.join("file_link_out")).expect("symlink");
    symlink("sub", root.join("link_in")).expect("symlink");
    symlink("a.txt", root.join("file_link_in")).expect("symlink");
    symlink(".git", root.join("gitlink")).expect("symlink");
    World {
        _root: r,
        _out: o,
        root,
        out,
    }
}

/// Every entry below `dir`: file contents, symlink targets, directories.
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
                format!("file:{}", fs::read_to_string(&p).unwrap_or_default())
            };
            m.insert(p, v);
        }
    }
    m
}

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

/// (what, block action, params, expected code). `{OUT}` is the outside directory, `{ROOT}`
/// the root.
type Row = (
    &'static str,
    &'static str,
    Vec<(&'static str, String)>,
    &'static str,
);

fn hostile_rows() -> Vec<Row> {
    let long_component = "x".repeat(300);
    let long_path = "d/".repeat(2100);
    vec![
        (
            "dot-dot escape",
            "file_write",
            vec![("path", "../x.txt".into()), ("content", "x".into())],
            "path_escape",
        ),
        (
            "dot-dot after a subdir",
            "file_write",
            vec![("path", "sub/../../x.txt".into()), ("content", "x".into())],
            "path_escape",
        ),
        (
            "absolute outside, write",
            "file_write",
            vec![("path", "{OUT}/new.txt".into()), ("content", "x".into())],
            "path_escape",
        ),
        (
            "absolute outside, read",
            "file_read",
            vec![("path", "/etc/passwd".into())],
            "path_escape",
        ),
        (
            "absolute outside, overwrite secret",
            "file_write",
            vec![("path", "{OUT}/secret.txt".into()), ("content", "x".into())],
            "path_escape",
        ),
        (
            "symlinked dir to outside, write",
            "file_write",
            vec![("path", "link_out/new.txt".into()), ("content", "x".into())],
            "symlink_escape",
        ),
        (
            "symlinked dir to outside, read",
            "file_read",
            vec![("path", "link_out/secret.txt".into())],
            "symlink_escape",
        ),
        (
            "symlinked dir to outside, replace",
            "file_replace_text",
            vec![
                ("path", "link_out/secret.txt".into()),
                ("old_text", "secret".into()),
                ("new_text", "x".into()),
            ],
            "symlink_escape",
        ),
        (
            "final symlink to outside, write through",
            "file_write",
            vec![("path", "file_link_out".into()), ("content", "x".into())],
            "symlink_escape",
        ),
        (
            "final symlink to outside, append",
            "file_append",
            vec![("path", "file_link_out".into()), ("content", "x".into())],
            "symlink_escape",
        ),
        (
            "final symlink to outside, delete",
            "file_delete",
            vec![("path", "file_link_out".into())],
            "symlink_escape",
        ),
        (
            "final symlink to outside, replace by move",
            "file_move",
            vec![
                ("old_path", "a.txt".into()),
                ("new_path", "file_link_out".into()),
            ],
            "symlink_escape",
        ),
        (
            ".git/config",
            "file_write",
            vec![("path", ".git/config".into()), ("content", "x".into())],
            "git_dir",
        ),
        (
            ".git/hooks/*",
            "file_write",
            vec![
                ("path", ".git/hooks/pre-commit".into()),
                ("content", "#!/bin/sh".into()),
            ],
            "git_dir",
        ),
        (
            "upper-case .GIT",
            "file_write",
            vec![("path", ".GIT/config".into()), ("content", "x".into())],
            "git_dir",
        ),
        (
            "nested sub/.git",
            "file_delete",
            vec![("path", "sub/.git/HEAD".into())],
            "git_dir",
        ),
        (
            "read .git",
            "file_read",
            vec![("path", ".git/config".into())],
            "git_dir",
        ),
        (
            "symlink into .git",
            "file_write",
            vec![("path", "gitlink/config".into()), ("content", "x".into())],
            "git_dir",
        ),
        (
            "delete the .git dir",
            "dir_delete",
            vec![("path", ".git".into()), ("recursive", "true".into())],
            "git_dir",
        ),
        (
            "move target outside",
            "file_move",
            vec![
                ("old_path", "a.txt".into()),
                ("new_path", "../moved.txt".into()),
            ],
            "path_escape",
        ),
        (
            "move target into .git",
            "file_move",
            vec![
                ("old_path", "a.txt".into()),
                ("new_path", ".git/a.txt".into()),
            ],
            "git_dir",
        ),
        (
            "move source outside",
            "file_move",
            vec![
                ("old_path", "{OUT}/secret.txt".into()),
                ("new_path", "here.txt".into()),
            ],
            "path_escape",
        ),
        (
            "NUL byte",
            "file_write",
            vec![("path", "a\u{0}b.txt".into()), ("content", "x".into())],
            "invalid_path",
        ),
        (
            "empty path",
            "file_write",
            vec![("path", String::new()), ("content", "x".into())],
            "invalid_path",
        ),
        (
            "path over 4096 bytes",
            "file_write",
            vec![("path", long_path), ("content", "x".into())],
            "invalid_path",
        ),
        (
            "component over 255 bytes",
            "file_write",
            vec![("path", long_component), ("content", "x".into())],
            "invalid_path",
        ),
        (
            "the root itself",
            "dir_delete",
            vec![("path", ".".into()), ("recursive", "true".into())],
            "root_dir",
        ),
        (
            "the root by absolute path",
            "dir_delete",
            vec![("path", "{ROOT}".into()), ("recursive", "true".into())],
            "root_dir",
        ),
        (
            "one bad path in files_read",
            "files_read",
            vec![("paths", "a.txt\n../x".into())],
            "path_escape",
        ),
        (
            "exec cwd outside",
            "exec",
            vec![
                ("lang", "bash".into()),
                ("code", "touch pwned".into()),
                ("cwd", "{OUT}".into()),
            ],
            "path_escape",
        ),
        (
            "ls outside",
            "ls",
            vec![("path", "{OUT}".into())],
            "path_escape",
        ),
        (
            "grep outside",
            "grep",
            vec![("pattern", "secret".into()), ("path", "link_out".into())],
            "symlink_escape",
        ),
        (
            "glob outside",
            "glob",
            vec![("pattern", "*".into()), ("base_path", "..".into())],
            "path_escape",
        ),
        (
            "dir_create outside",
            "dir_create",
            vec![("path", "../newdir".into())],
            "path_escape",
        ),
    ]
}

fn fill(w: &World, s: &str) -> String {
    s.replace("{OUT}", &w.out.display().to_string())
        .replace("{ROOT}", &w.root.display().to_string())
}

#[test]
fn hostile_paths_are_refused_and_nothing_changes() {
    let mut failures = Vec::new();
    for (i, (what, action, params, code)) in hostile_rows().into_iter().enumerate() {
        let w = world();
        let before = (snapshot(&w.root), snapshot(&w.out));
        let params: Vec<(&str, String)> =
            params.into_iter().map(|(k, v)| (k, fill(&w, &v))).collect();
        let refs: Vec<(&str, &str)> = params.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let reply = block(&format!("h{i:02}"), action, &refs);
        let out = run_reply(&reply, &w.root, false, ExecPolicy::Allow);
        let after = (snapshot(&w.root), snapshot(&w.out));
        let r = out.result.results.first();
        let refused = r.is_some_and(|r| {
            !r.success
                && r.refused
                && r.error
                    .as_deref()
                    .is_some_and(|e| e.starts_with(&format!("{code}: ")))
        });
        if !refused {
            failures.push(format!(
                "{what}: expected {code}, got {:?} / parse errors {:?}",
                r.map(|r| (&r.error, r.refused)),
                out.result.parse_errors
            ));
        }
        if before != after {
            failures.push(format!("{what}: the filesystem changed"));
        }
        if !out.changes.is_empty() {
            failures.push(format!("{what}: changes recorded: {:?}", out.changes));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn refused_blocks_do_not_stop_the_others() {
    let w = world();
    let mut reply = String::new();
    reply.push_str(&block(
        "e01",
        "file_write",
        &[("path", "../x"), ("content", "x")],
    ));
    reply.push_str(&block(
        "ok1",
        "file_write",
        &[("path", "new.txt"), ("content", "fine")],
    ));
    reply.push_str(&block(
        "e02",
        "file_write",
        &[("path", ".git/x"), ("content", "x")],
    ));
    let out = run_reply(&reply, &w.root, false, ExecPolicy::Deny);
    let r = &out.result.results;
    assert_eq!(r.len(), 3);
    assert!(r[0].refused && !r[0].success);
    assert!(r[1].success, "{:?}", r[1]);
    assert!(r[2].refused && !r[2].success);
    assert_eq!(
        fs::read_to_string(w.root.join("new.txt")).expect("written"),
        "fine"
    );
}

#[test]
fn symlinks_that_stay_inside_are_followed_or_acted_on() {
    let w = world();
    let mut reply = String::new();
    reply.push_str(&block(
        "s01",
        "file_write",
        &[("path", "link_in/b.txt"), ("content", "B2")],
    ));
    reply.push_str(&block(
        "s02",
        "file_write",
        &[("path", "file_link_in"), ("content", "A2")],
    ));
    reply.push_str(&block("s03", "file_delete", &[("path", "link_in")]));
    let out = run_reply(&reply, &w.root, false, ExecPolicy::Deny);
    assert!(out.result.success, "{:#?}", out.result);
    assert_eq!(
        fs::read_to_string(w.root.join("sub/b.txt")).expect("b"),
        "B2"
    );
    // Written through: the link is still a link, the target has the content.
    assert!(fs::symlink_metadata(w.root.join("file_link_in"))
        .expect("link")
        .file_type()
        .is_symlink());
    assert_eq!(fs::read_to_string(w.root.join("a.txt")).expect("a"), "A2");
    // Deleting a link removes the link, not the directory it points to.
    assert!(fs::symlink_metadata(w.root.join("link_in")).is_err());
    assert!(w.root.join("sub/b.txt").exists());
    let rels: Vec<_> = out.changes.iter().map(|c| c.rel.clone()).collect();
    assert!(rels.contains(&Some("sub/b.txt".into())), "{rels:?}");
    assert!(rels.contains(&Some("a.txt".into())), "{rels:?}");
    assert!(rels.contains(&Some("link_in".into())), "{rels:?}");
}

#[test]
fn allow_outside_permits_outside_paths_but_never_git() {
    let w = world();
    let target = w.out.join("new.txt");
    let mut reply = String::new();
    reply.push_str(&block(
        "o01",
        "file_write",
        &[("path", &target.display().to_string()), ("content", "out")],
    ));
    reply.push_str(&block(
        "o02",
        "file_read",
        &[("path", "link_out/secret.txt")],
    ));
    reply.push_str(&block(
        "o03",
        "file_write",
        &[("path", ".git/config"), ("content", "x")],
    ));
    let git_outside = w.out.join(".git/config").display().to_string();
    reply.push_str(&block(
        "o04",
        "file_write",
        &[("path", &git_outside), ("content", "x")],
    ));
    let out = run_reply(&reply, &w.root, true, ExecPolicy::Deny);
    let r = &out.result.results;
    assert!(r[0].success, "{:?}", r[0]);
    assert!(r[1].success, "{:?}", r[1]);
    assert!(
        r[2].refused
            && r[2]
                .error
                .as_deref()
                .is_some_and(|e| e.starts_with("git_dir: "))
    );
    assert!(
        r[3].refused
            && r[3]
                .error
                .as_deref()
                .is_some_and(|e| e.starts_with("git_dir: "))
    );
    assert_eq!(fs::read_to_string(&target).expect("written"), "out");
    let change = out
        .changes
        .iter()
        .find(|c| c.path == target)
        .expect("recorded");
    assert_eq!(
        change.rel, None,
        "outside changes have no root-relative path"
    );
    assert_eq!(
        fs::read_to_string(w.root.join(".git/config")).expect("kept"),
        "[core]"
    );
}

#[test]
fn recursive_delete_or_move_of_a_tree_holding_git_is_refused() {
    let w = world();
    let before = snapshot(&w.root);
    let mut reply = String::new();
    reply.push_str(&block(
        "g01",
        "dir_delete",
        &[("path", "sub"), ("recursive", "true")],
    ));
    reply.push_str(&block(
        "g02",
        "file_move",
        &[("old_path", "sub"), ("new_path", "moved")],
    ));
    let out = run_reply(&reply, &w.root, false, ExecPolicy::Deny);
    for r in &out.result.results {
        assert!(!r.success);
        assert!(
            r.error.as_deref().is_some_and(|e| e.contains(".git")),
            "{:?}",
            r.error
        );
    }
    assert_eq!(before, snapshot(&w.root));
}
