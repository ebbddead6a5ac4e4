//! Unit tests of the Linux confinement (`tests`).

use super::*;

fn sh(plan: &ChildPlan, dir: &Path, code: &str) -> (bool, String) {
    let mut cmd = std::process::Command::new("sh");
    cmd.args(["-c", code]).current_dir(dir);
    plan.install(&mut cmd, false);
    let out = cmd.output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Where user namespaces are not allowed: the root's entries but `.git` are writable.
#[test]
fn per_entry_fallback_keeps_git_and_the_root_itself() {
    if !super::super::kernel_availability().available() {
        return; // (exercised where Landlock exists; CI's kernel has it)
    }
    let root = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(root.path().join(".git")).unwrap();
    std::fs::create_dir_all(root.path().join("src")).unwrap();
    std::fs::write(root.path().join("a.txt"), "a").unwrap();
    let extra = Extra::default();
    let grants = Grants {
        extra: &extra,
        overlaid: false,
    };
    let fd = ruleset(
        Level::Workspace,
        &Confine::default(),
        root.path(),
        tmp.path(),
        Some(&[std::fs::canonicalize(root.path()).unwrap().join(".git")]),
        &grants,
    )
    .unwrap();
    let plan = ChildPlan {
        landlock: Some(Arc::new(fd)),
        seccomp: Some(Arc::new(socket_filter())),
        ..ChildPlan::unconfined()
    };
    let r = root.path();
    assert!(sh(&plan, r, "echo b > src/b.txt && echo x >> a.txt").0);
    assert_eq!(std::fs::read_to_string(r.join("a.txt")).unwrap(), "ax\n");
    let (ok, err) = sh(&plan, r, "echo x > .git/config");
    assert!(!ok && err.contains("Permission denied"), "{err}");
    assert!(!sh(&plan, r, "echo x > new.txt").0);
    assert!(!r.join(".git/config").exists() && !r.join("new.txt").exists());
}

#[test]
fn the_filter_refuses_sockets() {
    let f = socket_filter();
    assert!(f.len() >= 8);
    assert_eq!(f.last().unwrap().k, libc::SECCOMP_RET_ALLOW);
    if !super::super::kernel_availability().available() {
        return;
    }
    let plan = ChildPlan {
        seccomp: Some(Arc::new(f)),
        ..ChildPlan::unconfined()
    };
    let mut cmd = std::process::Command::new("bash");
    cmd.args(["-c", "exec 3<>/dev/udp/127.0.0.1/9"]);
    plan.install(&mut cmd, false);
    let out = cmd.output().unwrap();
    let (ok, err) = (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert!(!ok && err.contains("Permission denied"), "{err}");
}
