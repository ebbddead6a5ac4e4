//! The engine touches only what it checked (issue 36 §1): a directory swapped for a symlink
//! to `.git` after the sandbox checked a path can redirect neither a write, nor a roll-back,
//! nor a read whose bytes go into a commit. Every operation goes through directory handles
//! opened from the worktree root; what meets a swapped directory fails with `path_changed`.
//! On real repositories, checked with the real git CLI.

use crate::common;

use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::Command;

use common::{block, exit_code, output_text, write_block, TestRepo};

/// What `.git/config` holds: the marker a leak into a commit would show.
const SECRET: &str = "[clada-test]\n\ttoken = do-not-commit-4f1c\n";

fn repo_with_secret() -> TestRepo {
    let repo = TestRepo::with_files(&[("d/keep.txt", "keep\n"), ("a.txt", "a\n")]);
    let config = repo.path().join(".git/config");
    let mut text = std::fs::read_to_string(&config).expect("config");
    text.push_str(SECRET);
    std::fs::write(&config, text).expect("write config");
    repo
}

fn git_config(repo: &TestRepo) -> Vec<u8> {
    std::fs::read(repo.path().join(".git/config")).expect(".git/config is still there")
}

/// No object reachable from any ref holds the secret.
fn assert_no_secret_committed(repo: &TestRepo) {
    let log = repo.git(&["log", "--all", "-p", "--format=%H"]);
    assert!(
        !log.contains("do-not-commit-4f1c"),
        "a commit holds .git/config:\n{log}"
    );
}

/// The swapper child: when `CLADA_SWAPPER_DIR` is set, swaps `d` and `l` there with
/// `renameat2(RENAME_EXCHANGE)` until the file `stop` appears, then leaves `d` a directory.
#[test]
fn swapper_child() {
    let Some(dir) = std::env::var_os("CLADA_SWAPPER_DIR") else {
        return;
    };
    let dir = Path::new(&dir);
    let c = |name: &str| {
        std::ffi::CString::new(dir.join(name).into_os_string().into_encoded_bytes()).expect("path")
    };
    let (d, l) = (c("d"), c("l"));
    let mut swaps = 0u64;
    while !dir.join("stop").exists() {
        // SAFETY: plain system call on two NUL-terminated paths.
        let rc = unsafe {
            libc::renameat2(
                libc::AT_FDCWD,
                d.as_ptr(),
                libc::AT_FDCWD,
                l.as_ptr(),
                libc::RENAME_EXCHANGE,
            )
        };
        assert_eq!(rc, 0, "renameat2: {}", std::io::Error::last_os_error());
        swaps += 1;
    }
    // Leave `d` the directory again.
    if std::fs::symlink_metadata(dir.join("d"))
        .expect("d")
        .file_type()
        .is_symlink()
    {
        // SAFETY: as above.
        unsafe {
            libc::renameat2(
                libc::AT_FDCWD,
                d.as_ptr(),
                libc::AT_FDCWD,
                l.as_ptr(),
                libc::RENAME_EXCHANGE,
            )
        };
    }
    eprintln!("swapped {swaps} times");
}

#[test]
fn a_directory_swapped_for_a_link_to_git_in_a_loop_never_redirects_a_write() {
    swap_loop(repo_with_secret());
}

/// The same, with the component-by-component walk that replaces `openat2` where the kernel
/// lacks it or a seccomp profile forbids it.
#[test]
fn the_same_through_the_walk_without_openat2() {
    let mut repo = repo_with_secret();
    repo.env.push(("GIT_CLADA_NO_OPENAT2".into(), "1".into()));
    swap_loop(repo);
}

/// The swapper child, killed if the test ends early (a failed assertion).
struct Swapper(std::process::Child);

impl Drop for Swapper {
    fn drop(&mut self) {
        if matches!(self.0.try_wait(), Ok(None)) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

/// 300 applies writing `d/config` while a child swaps `d` and `l -> .git` in a loop.
fn swap_loop(repo: TestRepo) {
    symlink(".git", repo.path().join("l")).expect("symlink");
    // The link is the user's: excluded, so status and the applies do not pick it up.
    std::fs::write(repo.path().join(".git/info/exclude"), "l\nstop\n").expect("exclude");
    let before = git_config(&repo);
    let mut swapper = Swapper(
        Command::new(std::env::current_exe().expect("test binary"))
            .args([
                "--exact",
                "path_swap::swapper_child",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("CLADA_SWAPPER_DIR", repo.path())
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("spawn the swapper"),
    );
    let mut outcomes = std::collections::BTreeMap::<i32, usize>::new();
    for i in 0..300 {
        let reply = write_block(
            &format!("w{i:02x}"),
            "d/config",
            &format!("[core]\n\tfsmonitor = touch pwned-{i}\n"),
        );
        let out = repo.apply(&reply, &["--exec", "deny"]);
        *outcomes.entry(exit_code(&out)).or_default() += 1;
        assert_eq!(
            git_config(&repo),
            before,
            "apply {i} changed .git/config: {}",
            output_text(&out)
        );
        // An apply a swap stopped after its write keeps its journal; undo (which may itself
        // meet a swap and stop) takes it back before the next one.
        if repo.path().join(".git/clada/transaction.json").exists() {
            let out = repo.clada(&["undo"]);
            assert_eq!(
                git_config(&repo),
                before,
                "undo after apply {i}: {}",
                output_text(&out)
            );
        }
    }
    std::fs::write(repo.path().join("stop"), "").expect("stop");
    let status = swapper.0.wait().expect("swapper");
    assert!(status.success(), "the swapper failed");
    std::fs::remove_file(repo.path().join("stop")).expect("rm stop");
    assert!(repo.path().join("d").is_dir() && !repo.path().join("d").is_symlink());
    assert_eq!(git_config(&repo), before);
    // An apply left interrupted by a swap is finished by undo, as any other.
    if repo.path().join(".git/clada/transaction.json").exists() {
        let out = repo.clada(&["undo"]);
        assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    }
    assert_no_secret_committed(&repo);
    repo.assert_fsck();
    eprintln!("apply exit codes: {outcomes:?}");
}

/// An exec block that swaps `d` for a link to `.git`: `d/config` is tracked and written by
/// the reply, so the apply hashes it for the commit — through the link, it would commit
/// `.git/config`. As git sees it, nothing is at `d/config` any more (a leading symlink).
#[test]
fn a_swap_by_exec_never_puts_git_config_into_a_commit() {
    let repo = repo_with_secret();
    repo.write("d/config", "tracked\n");
    repo.git(&["add", "d/config"]);
    repo.git(&["commit", "-q", "-m", "config in d"]);
    let before = git_config(&repo);
    let reply = format!(
        "{}{}",
        write_block("w01", "d/config", "from the model"),
        block(
            "x01",
            &[
                ("action", "exec"),
                ("lang", "bash"),
                ("code", "mv d d.real && ln -s .git d"),
            ],
        )
    );
    let out = repo.apply(&reply, &["--exec", "allow"]);
    let text = output_text(&out);
    assert_eq!(git_config(&repo), before, "{text}");
    assert_no_secret_committed(&repo);
    // Put the directory back; undo takes back whatever the apply left.
    std::fs::remove_file(repo.path().join("d")).expect("rm link");
    std::fs::rename(repo.path().join("d.real"), repo.path().join("d")).expect("mv back");
    let _ = repo.clada(&["undo"]);
    assert_eq!(git_config(&repo), before);
    assert_no_secret_committed(&repo);
    repo.assert_fsck();
}

/// A folder handle the engine keeps for one block's operations on a file serves that block
/// only: after an exec block moved `d` away and made a new `d`, the next write to `d/…` lands in
/// the new folder, not in the one moved to `d.old`.
#[test]
fn a_write_after_an_exec_that_moved_its_folder_goes_to_the_folder_now_there() {
    let repo = TestRepo::with_files(&[("d/keep.txt", "keep\n"), ("a.txt", "a\n")]);
    let reply = format!(
        "{}{}{}",
        write_block("w01", "d/first.txt", "first\n"),
        block(
            "x01",
            &[
                ("action", "exec"),
                ("lang", "bash"),
                ("code", "mv d d.old && mkdir d"),
            ],
        ),
        write_block("w02", "d/second.txt", "second\n"),
    );
    let out = repo.apply(&reply, &["--exec", "allow"]);
    let text = output_text(&out);
    assert_eq!(exit_code(&out), 0, "{text}");
    assert_eq!(repo.read("d/second.txt"), "second\n", "{text}");
    assert!(!repo.exists("d.old/second.txt"), "{text}");
    assert_eq!(repo.read("d.old/first.txt"), "first\n", "{text}");
    repo.assert_fsck();
}

/// `--atomic` rolls the reply back after a block failed; by then an exec block swapped `d`
/// for a link to `.git`. The roll-back of the new `d/config` must not delete `.git/config`
/// through the link: it stops, keeps the journal and says so.
#[test]
fn a_roll_back_that_meets_a_swapped_directory_stops_and_deletes_nothing_by_name() {
    let repo = repo_with_secret();
    let before_state = repo.state();
    let before = git_config(&repo);
    let reply = format!(
        "{}{}{}",
        write_block("w01", "d/config", "new file in d"),
        block(
            "x01",
            &[
                ("action", "exec"),
                ("lang", "bash"),
                ("code", "mv d d.real && ln -s .git d"),
            ],
        ),
        common::replace_block("r01", "a.txt", "not there", "x"),
    );
    let out = repo.apply(&reply, &["--exec", "allow", "--atomic"]);
    let text = output_text(&out);
    assert_ne!(exit_code(&out), 0, "{text}");
    assert_eq!(git_config(&repo), before, "{text}");
    assert!(text.contains("replaced"), "{text}");
    // The journal stays for undo, which finishes once the directory is back.
    assert!(
        repo.path().join(".git/clada/transaction.json").exists(),
        "{text}"
    );
    std::fs::remove_file(repo.path().join("d")).expect("rm link");
    std::fs::rename(repo.path().join("d.real"), repo.path().join("d")).expect("mv back");
    let out = repo.clada(&["undo"]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    assert_eq!(git_config(&repo), before);
    common::assert_same_user_state(&repo.state(), &before_state, "after undo");
    assert_no_secret_committed(&repo);
    repo.assert_fsck();
}

/// Undo's restore through a directory swapped for a link to `.git`: refused or stopped,
/// never a write or delete inside `.git`.
#[test]
fn undo_never_restores_through_a_swapped_directory() {
    let repo = repo_with_secret();
    let out = repo.apply(&write_block("w01", "d/config", "from the model"), &[]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    let before = git_config(&repo);
    std::fs::rename(repo.path().join("d"), repo.path().join("d.real")).expect("mv");
    symlink(".git", repo.path().join("d")).expect("symlink");
    let out = repo.clada(&["undo"]);
    assert_ne!(exit_code(&out), 0, "{}", output_text(&out));
    assert_eq!(git_config(&repo), before);
    assert!(repo.path().join(".git/HEAD").exists());
    std::fs::remove_file(repo.path().join("d")).expect("rm link");
    std::fs::rename(repo.path().join("d.real"), repo.path().join("d")).expect("mv back");
    let out = repo.clada(&["undo"]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    assert!(!repo.exists("d/config"));
    repo.assert_fsck();
}

/// A link inside the root to a directory inside `.git` (`l -> .git/hooks`): writing through
/// it is refused however the path is spelled.
#[test]
fn a_link_into_git_hooks_is_refused() {
    let repo = repo_with_secret();
    symlink(".git/hooks", repo.path().join("l")).expect("symlink");
    let out = repo.apply(
        &write_block("w01", "l/pre-commit", "#!/bin/sh\ntouch pwned\n"),
        &[],
    );
    assert_ne!(exit_code(&out), 0, "{}", output_text(&out));
    assert!(!repo.path().join(".git/hooks/pre-commit").exists());
    repo.assert_fsck();
}

/// An apply killed after its write leaves its journal; the directory of the written file is
/// then swapped for a link to `.git`. Rolling the apply back (undo) would delete `d/config` —
/// through the link, `.git/config`. It stops there instead, says so and keeps its journal;
/// once the directory is back, undo finishes.
#[test]
fn the_roll_back_of_an_interrupted_apply_stops_at_a_swapped_directory() {
    let repo = repo_with_secret();
    let before_state = repo.state();
    let before = git_config(&repo);
    let out = repo
        .spawn_apply(
            &[("GIT_CLADA_FAILPOINT", "apply:before-ref")],
            &write_block("w01", "d/config", "new file in d"),
            &[],
        )
        .wait_with_output()
        .expect("apply");
    common::assert_aborted(&out, "apply at apply:before-ref");
    assert!(repo.path().join("d/config").exists());
    std::fs::rename(repo.path().join("d"), repo.path().join("d.real")).expect("mv");
    symlink(".git", repo.path().join("d")).expect("symlink");

    let out = repo.clada(&["undo"]);
    let text = output_text(&out);
    assert_ne!(exit_code(&out), 0, "{text}");
    assert_eq!(git_config(&repo), before, "{text}");
    assert!(
        text.contains("stopped") && text.contains("replaced"),
        "{text}"
    );
    assert!(
        repo.path().join(".git/clada/transaction.json").exists(),
        "{text}"
    );

    std::fs::remove_file(repo.path().join("d")).expect("rm link");
    std::fs::rename(repo.path().join("d.real"), repo.path().join("d")).expect("mv back");
    let out = repo.clada(&["undo"]);
    assert_eq!(exit_code(&out), 0, "{}", output_text(&out));
    assert_eq!(git_config(&repo), before);
    common::assert_same_user_state(&repo.state(), &before_state, "after undo");
    repo.assert_fsck();
}

/// The checks made again before each block remember the folders they looked up, until a
/// block runs code: after an exec block swapped `d` for a link (inside the worktree), a write
/// to `d/…` is refused by that check, which names both places, not let through on the memory
/// of the `d` it saw before.
#[test]
fn the_check_before_a_block_looks_again_after_an_exec_block() {
    let repo = TestRepo::with_files(&[("d/keep.txt", "keep\n"), ("a.txt", "a\n")]);
    let reply = format!(
        "{}{}{}",
        write_block("w01", "d/first.txt", "first\n"),
        block(
            "x01",
            &[
                ("action", "exec"),
                ("lang", "bash"),
                ("code", "mv d d.old && ln -s d.old d"),
            ],
        ),
        write_block("w02", "d/second.txt", "second\n"),
    );
    let out = repo.apply(&reply, &["--exec", "allow"]);
    let text = output_text(&out);
    assert!(
        text.contains("when the reply was checked but to"),
        "the check before w02 saw the link: {text}"
    );
    assert!(!repo.exists("d.old/second.txt"), "{text}");
    repo.assert_fsck();
}

/// The same after a block that moved a folder: `lnk` leads to `real`, a block moves `real`
/// away, and the next write through `lnk/…` is refused by the check before it instead of
/// making a new `real/` where the remembered lookup said `lnk` led.
#[test]
fn the_check_before_a_block_looks_again_after_a_block_moved_a_folder() {
    let repo = TestRepo::with_files(&[("real/keep.txt", "keep\n"), ("a.txt", "a\n")]);
    symlink("real", repo.path().join("lnk")).expect("symlink");
    repo.git(&["add", "lnk"]);
    repo.git(&["commit", "-qm", "link"]);
    let reply = format!(
        "{}{}{}",
        write_block("w01", "lnk/first.txt", "first\n"),
        block(
            "m01",
            &[
                ("action", "file_move"),
                ("old_path", "real"),
                ("new_path", "moved"),
            ],
        ),
        write_block("w02", "lnk/second.txt", "second\n"),
    );
    let out = repo.apply(&reply, &[]);
    let text = output_text(&out);
    assert!(
        text.contains("when the reply was checked but to"),
        "the check before w02 saw the move: {text}"
    );
    assert!(!repo.exists("real/second.txt"), "{text}");
    assert!(!repo.exists("real"), "{text}");
    repo.assert_fsck();
}
