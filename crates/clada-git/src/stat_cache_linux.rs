//! The stat cache's watcher on Linux: inotify, through rustix (the platform seam's Linux side,
//! declared by `clada_base::linux!` in `stat_cache.rs`).

use std::path::Path;

use super::{Added, Event, Inotify};

impl Inotify {
    pub(super) fn new() -> Option<Inotify> {
        use rustix::fs::inotify::{self, CreateFlags};
        inotify::init(CreateFlags::NONBLOCK | CreateFlags::CLOEXEC)
            .ok()
            .map(Inotify)
    }

    pub(super) fn add(&self, dir: &Path) -> Added {
        use rustix::fs::inotify::{self, WatchFlags};
        use rustix::io::Errno;
        let mask = WatchFlags::MODIFY
            | WatchFlags::ATTRIB
            | WatchFlags::CLOSE_WRITE
            | WatchFlags::CREATE
            | WatchFlags::DELETE
            | WatchFlags::MOVED_FROM
            | WatchFlags::MOVED_TO
            | WatchFlags::DELETE_SELF
            | WatchFlags::MOVE_SELF
            | WatchFlags::ONLYDIR
            | WatchFlags::DONT_FOLLOW;
        match inotify::add_watch(&self.0, dir, mask) {
            Ok(wd) => Added::Watch(wd),
            Err(Errno::NOENT | Errno::NOTDIR) => Added::Absent,
            Err(_) => Added::Refused,
        }
    }

    /// The events one `read` returns (empty when none are queued); `None` on a read error.
    pub(super) fn read(&self) -> Option<Vec<Event>> {
        use rustix::fs::inotify::{ReadFlags, Reader};
        use std::mem::MaybeUninit;
        const LOST: ReadFlags = ReadFlags::QUEUE_OVERFLOW
            .union(ReadFlags::IGNORED)
            .union(ReadFlags::DELETE_SELF)
            .union(ReadFlags::MOVE_SELF)
            .union(ReadFlags::UNMOUNT);
        let mut buf = vec![MaybeUninit::<u8>::uninit(); 64 * 1024];
        let mut reader = Reader::new(&self.0, &mut buf);
        let mut events = Vec::new();
        loop {
            let ev = match reader.next() {
                Ok(ev) => ev,
                Err(rustix::io::Errno::AGAIN) => return Some(events),
                Err(_) => return None,
            };
            let mask = ev.events();
            events.push(Event {
                wd: ev.wd(),
                lost: mask.intersects(LOST),
                is_dir: mask.contains(ReadFlags::ISDIR),
                name: ev
                    .file_name()
                    .map(|n| n.to_bytes())
                    .unwrap_or_default()
                    .into(),
            });
            // One read's worth: the caller reads again until none are queued.
            if reader.is_buffer_empty() {
                return Some(events);
            }
        }
    }
}
