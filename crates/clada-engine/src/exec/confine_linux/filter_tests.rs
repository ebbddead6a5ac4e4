//! Unit tests of the Linux confinement (`filter_tests`).

use super::*;

/// In a forked child under the filter: the errno of `call` (0 when it succeeded).
fn errno_under_filter(call: fn() -> libc::c_long) -> i32 {
    let f = filter(true);
    // SAFETY: test only: the child makes system calls and leaves with `_exit`.
    unsafe {
        let pid = libc::fork();
        if pid == 0 {
            let prog = libc::sock_fprog {
                len: f.len() as libc::c_ushort,
                filter: f.as_ptr() as *mut libc::sock_filter,
            };
            libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
            libc::prctl(
                libc::PR_SET_SECCOMP,
                libc::SECCOMP_MODE_FILTER as libc::c_ulong,
                &prog as *const libc::sock_fprog as libc::c_ulong,
                0,
                0,
            );
            let r = call();
            let e = *libc::__errno_location();
            libc::_exit(if r < 0 { e } else { 0 });
        }
        let mut st = 0;
        libc::waitpid(pid, &mut st, 0);
        libc::WEXITSTATUS(st)
    }
}

#[test]
fn set_id_modes_are_refused_and_openat2_is_missing() {
    if !super::super::kernel_availability().available() {
        return;
    }
    // SAFETY (the calls below): system calls with static C strings.
    assert_eq!(
        errno_under_filter(|| unsafe {
            libc::syscall(
                libc::SYS_openat2,
                libc::AT_FDCWD,
                c"/".as_ptr(),
                0usize,
                0usize,
            )
        }),
        libc::ENOSYS
    );
    assert_eq!(
        errno_under_filter(|| unsafe {
            libc::syscall(
                libc::SYS_openat,
                libc::AT_FDCWD,
                c"/nonexistent-dir/x".as_ptr(),
                libc::O_CREAT | libc::O_WRONLY,
                0o4755,
            )
        }),
        libc::EPERM
    );
    assert_eq!(
        errno_under_filter(|| unsafe {
            libc::syscall(
                libc::SYS_fchmodat,
                libc::AT_FDCWD,
                c"/nonexistent-dir/x".as_ptr(),
                0o2755,
            )
        }),
        libc::EPERM
    );
    assert_eq!(
        errno_under_filter(|| unsafe {
            libc::syscall(
                libc::SYS_mknodat,
                libc::AT_FDCWD,
                c"/nonexistent-dir/x".as_ptr(),
                libc::S_IFREG | 0o4755,
                0,
            )
        }),
        libc::EPERM
    );
    // Without the bits the same calls reach the kernel (which finds no such folder).
    assert_eq!(
        errno_under_filter(|| unsafe {
            libc::syscall(
                libc::SYS_openat,
                libc::AT_FDCWD,
                c"/nonexistent-dir/x".as_ptr(),
                libc::O_CREAT | libc::O_WRONLY,
                0o755,
            )
        }),
        libc::ENOENT
    );
    // An open that does not create: its mode argument means nothing and is not read.
    assert_eq!(
        errno_under_filter(|| unsafe {
            libc::syscall(
                libc::SYS_openat,
                libc::AT_FDCWD,
                c"/nonexistent-dir/x".as_ptr(),
                libc::O_RDONLY,
                0o4755,
            )
        }),
        libc::ENOENT
    );
}
