//! What git-clada and the processes it confines keep and drop around a contained run (issue
//! 51 items 4, 5 and 12), on Linux:
//!
//! - **git-clada itself** is not dumpable while a contained child runs ([`undumpable`]): its
//!   `/proc/<pid>/environ` holds every secret the environment filter kept from the child, and
//!   a non-dumpable process's `/proc` files and memory are reachable only with
//!   `CAP_SYS_PTRACE` in its namespace. Restored once the last such child ended, for the
//!   processes that live on (the MCP server, watch).
//! - **Every child** marks each descriptor above 2 close-on-exec before its exec
//!   ([`close_inherited_on_exec`]): `git clada apply r.md 5<secret` gives the block nothing on
//!   5. The block's init re-opens its own two (the report pipe, the Landlock ruleset) for
//!   itself and closes them for the program.
//! - **The confined program** keeps only the capabilities a container's root gets from
//!   Docker's default set, less `CAP_SETFCAP` ([`drop_capabilities`], from every set and the
//!   bounding set): no `CAP_SYS_PTRACE`, `CAP_DAC_READ_SEARCH` (`open_by_handle_at` opens any
//!   file past Landlock), `CAP_SYS_ADMIN`, `CAP_SETFCAP` (`security.capability` is setuid by
//!   another name, and seccomp cannot read an xattr's name), nor the ones that reach the
//!   kernel (`CAP_SYS_MODULE`, `CAP_SYS_RAWIO`, `CAP_BPF`, …). Root's `tar -xf` still keeps
//!   owners (`CAP_CHOWN`, `CAP_FOWNER`, `CAP_DAC_OVERRIDE` stay).
//!
//! The child's functions run between fork and exec: system calls only, no allocation.

/// The capabilities a confined program keeps (bit numbers of `linux/capability.h`): Docker's
/// default set for a container's root without `CAP_SETFCAP` — `CHOWN`, `DAC_OVERRIDE`,
/// `FOWNER`, `FSETID`, `KILL`, `SETGID`, `SETUID`, `SETPCAP`, `NET_BIND_SERVICE`, `NET_RAW`,
/// `SYS_CHROOT`, `MKNOD`, `AUDIT_WRITE`. Landlock and the seccomp filter still hold the
/// files, devices, sockets and mode bits these would reach.
// Read by the Linux side of the platform seam only.
#[allow(dead_code)]
pub(crate) const KEPT_CAPABILITIES: u64 = (1 << 0)
    | (1 << 1)
    | (1 << 3)
    | (1 << 4)
    | (1 << 5)
    | (1 << 6)
    | (1 << 7)
    | (1 << 8)
    | (1 << 10)
    | (1 << 13)
    | (1 << 18)
    | (1 << 27)
    | (1 << 29);

/// Held while a contained child runs: git-clada is not dumpable until the last one is dropped.
#[must_use]
pub struct Undumpable(());

/// How many [`Undumpable`] are held, and whether git-clada was dumpable before the first.
static HELD: std::sync::Mutex<(usize, bool)> = std::sync::Mutex::new((0, false));

/// Makes git-clada non-dumpable until the returned guard (and every other one) is dropped.
pub fn undumpable() -> Undumpable {
    let mut held = HELD
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if held.0 == 0 {
        held.1 = sys::dumpable();
        sys::set_dumpable(false);
    }
    held.0 += 1;
    Undumpable(())
}

impl Drop for Undumpable {
    fn drop(&mut self) {
        let mut held = HELD
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        held.0 = held.0.saturating_sub(1);
        // A process that was not dumpable before (a setuid start) stays so.
        if held.0 == 0 && held.1 {
            sys::set_dumpable(true);
        }
    }
}

clada_base::linux! {
    pub(crate) use sys::{close_inherited_on_exec, drop_capabilities, dumpable_again};
}

clada_base::linux! {
    mod sys {
        /// Whether this process is dumpable (`PR_GET_DUMPABLE` is 1).
        pub fn dumpable() -> bool {
            // SAFETY: a prctl query without pointers.
            unsafe { libc::prctl(libc::PR_GET_DUMPABLE, 0, 0, 0, 0) == 1 }
        }

        pub fn set_dumpable(on: bool) {
            // SAFETY: a prctl without pointers; it cannot fail for 0 or 1.
            unsafe {
                libc::prctl(libc::PR_SET_DUMPABLE, libc::c_ulong::from(on), 0, 0, 0);
            }
        }

        /// In a child of a non-dumpable git-clada: dumpable again, so that it may write its own
        /// `/proc/self/uid_map` (owned by root while it is not). It holds a copy of git-clada's
        /// memory only until its exec, and no confined process may trace one outside its domain.
        ///
        /// # Safety
        /// Between fork and exec: one system call.
        pub unsafe fn dumpable_again() {
            libc::prctl(libc::PR_SET_DUMPABLE, 1, 0, 0, 0);
        }

        /// Marks every descriptor above 2 close-on-exec (`close_range`, Linux ≥ 5.11; one by one
        /// up to the open-files limit before). A caller that hands one on clears the flag after.
        ///
        /// # Safety
        /// Between fork and exec: system calls only.
        pub unsafe fn close_inherited_on_exec() -> std::io::Result<()> {
            let r = libc::syscall(
                libc::SYS_close_range,
                3 as libc::c_uint,
                libc::c_uint::MAX,
                libc::CLOSE_RANGE_CLOEXEC,
            );
            if r == 0 {
                return Ok(());
            }
            let mut lim: libc::rlimit = std::mem::zeroed();
            if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            let top = lim.rlim_cur.min(1 << 20) as libc::c_int;
            for fd in 3..top {
                libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC);
            }
            Ok(())
        }

        /// `struct __user_cap_header_struct`.
        #[repr(C)]
        struct CapHeader {
            version: u32,
            pid: libc::c_int,
        }

        /// `struct __user_cap_data_struct`: one per 32 capabilities.
        #[repr(C)]
        #[derive(Clone, Copy)]
        struct CapData {
            effective: u32,
            permitted: u32,
            inheritable: u32,
        }

        /// `_LINUX_CAPABILITY_VERSION_3` (64 capabilities in two [`CapData`]).
        const CAP_V3: u32 = 0x2008_0522;

        /// Drops every capability but [`super::KEPT_CAPABILITIES`] from the bounding set (so no
        /// exec gets it back) and from the effective, permitted and inheritable sets (the ambient
        /// set follows). Without `CAP_SETPCAP` (an unprivileged user) the bounding set cannot
        /// change and there is nothing in the others to drop.
        ///
        /// # Safety
        /// Between fork and exec: system calls only.
        pub unsafe fn drop_capabilities() -> std::io::Result<()> {
            let kept = super::KEPT_CAPABILITIES;
            for cap in 0..64 {
                if kept & (1 << cap) == 0 {
                    // EINVAL: no such capability on this kernel; EPERM: see above.
                    libc::prctl(libc::PR_CAPBSET_DROP, cap as libc::c_ulong, 0, 0, 0);
                }
            }
            let mut head = CapHeader {
                version: CAP_V3,
                pid: 0,
            };
            let empty = CapData {
                effective: 0,
                permitted: 0,
                inheritable: 0,
            };
            let mut data = [empty; 2];
            if libc::syscall(libc::SYS_capget, &mut head, data.as_mut_ptr()) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            for (i, d) in data.iter_mut().enumerate() {
                let keep = (kept >> (32 * i)) as u32;
                d.effective &= keep;
                d.permitted &= keep;
                d.inheritable &= keep;
            }
            if libc::syscall(libc::SYS_capset, &head, data.as_ptr()) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        }
    }
}

clada_base::portable! {
    mod sys {
        pub fn dumpable() -> bool {
            false
        }
        pub fn set_dumpable(_: bool) {}
    }
}

clada_base::linux! {
    #[cfg(test)]
    mod tests {
        use super::*;

        /// The guard turns dumpable off and the last one turns it back on (other tests of this
        /// binary may hold one at the same time: the state is read under the guards' lock).
        #[test]
        fn git_clada_is_undumpable_while_held_and_dumpable_after() {
            let a = undumpable();
            let b = undumpable();
            assert!(!sys::dumpable());
            drop(a);
            assert!(!sys::dumpable());
            drop(b);
            let held = HELD
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            assert_eq!(sys::dumpable(), held.0 == 0);
        }

        #[test]
        fn the_kept_capabilities_are_dockers_default_without_setfcap() {
            // CAP_SETFCAP (31), CAP_SYS_PTRACE (19), CAP_DAC_READ_SEARCH (2), CAP_SYS_ADMIN (21).
            for cap in [31, 19, 2, 21, 16, 17] {
                assert_eq!(KEPT_CAPABILITIES & (1 << cap), 0, "{cap}");
            }
            // CAP_CHOWN, CAP_DAC_OVERRIDE, CAP_FOWNER: what root's `tar -xf` needs.
            for cap in [0, 1, 3] {
                assert_ne!(KEPT_CAPABILITIES & (1 << cap), 0, "{cap}");
            }
            assert_eq!(KEPT_CAPABILITIES.count_ones(), 13);
        }
    }
}
