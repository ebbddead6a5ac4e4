//! Unit tests of the Linux confinement (`namespace_tests`).

use super::*;

#[test]
fn workspace_mounts_git_read_only_where_namespaces_work() {
    if !super::super::kernel_availability().available() {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(root.path().join(".git")).unwrap();
    let m = git_mount(&root.path().join(".git")).unwrap();
    // SAFETY: test only: the child makes system calls and exits.
    let pid = unsafe { libc::fork() };
    if pid == 0 {
        let code = match unsafe { mount_git_read_only(&m) } {
            Ok(()) => 0,
            Err(e) => e.raw_os_error().unwrap_or(1),
        };
        unsafe { libc::_exit(code) };
    }
    let mut status = 0;
    unsafe { libc::waitpid(pid, &mut status, 0) };
    let errno = libc::WEXITSTATUS(status);
    eprintln!("namespace probe: errno {errno}");
    let plan = plan(
        Level::Workspace,
        &Confine::default(),
        root.path(),
        tmp.path(),
        &Extra::default(),
        None,
    )
    .unwrap();
    assert_eq!(plan.note.is_none(), errno == 0, "{:?}", plan.note);
}

/// A hook's view: `.git` behind a discarded overlay hiding `index.lock`; `/etc/shadow`
/// never readable.
#[test]
fn an_overlaid_git_directory_takes_writes_and_keeps_none() {
    if !super::super::kernel_availability().available() {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let layers = tempfile::tempdir().unwrap();
    let git = root.path().join(".git");
    std::fs::create_dir_all(git.join("refs")).unwrap();
    std::fs::write(git.join("index.lock"), "held").unwrap();
    std::fs::write(git.join("HEAD"), "ref: refs/heads/main\n").unwrap();
    let git = std::fs::canonicalize(git).unwrap();
    let extra = Extra {
        overlay: vec![super::super::OverlayDir {
            dir: git.clone(),
            hide: vec!["index.lock".into()],
        }],
        ..Extra::default()
    };
    let plan = plan(
        Level::Workspace,
        &Confine::default(),
        root.path(),
        tmp.path(),
        &extra,
        Some(layers.path()),
    )
    .unwrap();
    if let Some(Err(why)) = &plan.overlay {
        eprintln!("no overlay here: {why}");
        assert!(!plan.git_mounts.is_empty() || plan.note.is_some());
        return;
    }
    let code = "echo x > .git/refs/stash && echo mine > .git/index.lock && cat .git/HEAD \
                && cat .git/index.lock && (cat /etc/shadow >/dev/null 2>&1 || echo NO-SHADOW)";
    let mut cmd = std::process::Command::new("sh");
    cmd.args(["-c", code]).current_dir(root.path());
    plan.install(&mut cmd, false);
    let out = cmd.output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(text, "ref: refs/heads/main\nmine\nNO-SHADOW\n");
    assert!(!git.join("refs/stash").exists());
    assert_eq!(
        std::fs::read_to_string(git.join("index.lock")).unwrap(),
        "held"
    );
}
