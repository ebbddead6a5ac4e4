//! Unit tests of `fsx`.

use super::*;
use std::os::unix::fs::PermissionsExt;

/// A canonical temporary root and the disk below it.
fn disk() -> (tempfile::TempDir, PathBuf, Disk) {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let handle = clada_base::beneath::Root::open(&root).unwrap();
    (dir, root, Disk::new(std::sync::Arc::new(handle)))
}

#[test]
fn node_error_texts() {
    let e = io::Error::from_raw_os_error(libc::ENOENT);
    assert_eq!(
        node_error(&e, "/p", "open", None),
        "ENOENT: no such file or directory, open '/p'"
    );
    assert_eq!(
        node_error(&e, "/a", "rename", Some("/b")),
        "ENOENT: no such file or directory, rename '/a' -> '/b'"
    );
    let e = io::Error::from_raw_os_error(libc::EPERM);
    assert_eq!(
        node_error(&e, "/p", "unlink", None),
        "EPERM: operation not permitted, unlink '/p'"
    );
}

#[test]
fn atomic_write_keeps_mode_and_sets_new_exec() {
    let (_dir, root, disk) = disk();
    let p = root.join("x.sh");
    std::fs::write(&p, "a").unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o750)).unwrap();
    disk.write(&p, b"b", false).unwrap();
    assert_eq!(std::fs::read(&p).unwrap(), b"b");
    assert_eq!(
        std::fs::metadata(&p).unwrap().permissions().mode() & 0o777,
        0o750
    );
    let q = root.join("new.sh");
    disk.write(&q, b"c", true).unwrap();
    assert_ne!(
        std::fs::metadata(&q).unwrap().permissions().mode() & 0o100,
        0
    );
    let leftovers: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains(".clada-tmp-"))
        .collect();
    assert!(leftovers.is_empty());
}

#[test]
fn held_content_is_seen_by_reads_and_written_once_at_flush() {
    let (_dir, root, disk) = disk();
    let p = root.join("f.txt");
    std::fs::write(&p, "a\r\n").unwrap();
    let mut v = Vfs::new(false, disk);
    v.set_holding(true);
    v.set_writer(0);
    v.append(&p, b"b\r\n").unwrap();
    v.set_writer(1);
    v.append(&p, b"c").unwrap();
    assert_eq!(std::fs::read(&p).unwrap(), b"a\r\n", "not written yet");
    assert_eq!(v.read(&p).unwrap(), b"a\r\nb\r\nc");
    let info = v.text_info(&p).unwrap();
    assert!(info.crlf && !info.ends_with_lf && info.len == 7);
    v.flush().unwrap();
    assert_eq!(std::fs::read(&p).unwrap(), b"a\r\nb\r\nc");
    assert_eq!(v.held_path(), None);
    let changes = v.changes(&Sandbox::new(&root, false).unwrap());
    assert_eq!(changes.len(), 1);
    assert_eq!(
        changes[0].before,
        FileState::File {
            bytes: b"a\r\n".to_vec(),
            executable: false
        }
    );
}

#[test]
fn a_failed_flush_names_every_writer() {
    let (_dir, root, disk) = disk();
    let sub = root.join("sub");
    std::fs::create_dir(&sub).unwrap();
    let p = sub.join("new.txt");
    let mut v = Vfs::new(false, disk);
    v.set_holding(true);
    v.set_writer(3);
    v.write_file(&p, b"x", false).unwrap();
    v.set_writer(4);
    v.append(&p, b"y").unwrap();
    // The directory disappears before the content reaches the disk.
    std::fs::remove_dir(&sub).unwrap();
    let e = v.flush().unwrap_err();
    assert_eq!(e.writers, vec![3, 4]);
    assert_eq!(e.path, p);
    assert_eq!(e.error.kind(), io::ErrorKind::NotFound);
}

#[test]
fn overlay_sees_its_own_writes_and_leaves_disk_alone() {
    let (_dir, root, disk) = disk();
    let root = root.as_path();
    std::fs::write(root.join("a.txt"), "old").unwrap();
    let mut v = Vfs::new(true, disk);
    v.write_file(&root.join("a.txt"), b"new", false).unwrap();
    v.create_dir_all(&root.join("d/e")).unwrap();
    v.write_file(&root.join("d/e/f.txt"), b"f", false).unwrap();
    assert_eq!(v.read(&root.join("a.txt")).unwrap(), b"new");
    assert_eq!(v.read(&root.join("d/e/f.txt")).unwrap(), b"f");
    v.rename(&root.join("d"), &root.join("m")).unwrap();
    assert_eq!(v.read(&root.join("m/e/f.txt")).unwrap(), b"f");
    assert!(!v.exists(&root.join("d/e/f.txt")));
    assert_eq!(std::fs::read(root.join("a.txt")).unwrap(), b"old");
    assert!(!root.join("d").exists());
    let names: Vec<String> = v.list_dir(root).unwrap().into_iter().map(|e| e.0).collect();
    assert_eq!(names, vec!["a.txt", "m"]);
}

#[test]
fn a_kept_folder_handle_serves_until_forgotten_or_a_folder_changes() {
    let (_dir, root, disk) = disk();
    std::fs::create_dir(root.join("d")).unwrap();
    disk.write(&root.join("d/first.txt"), b"1", false).unwrap();
    // Someone else (an exec block) moves the folder and makes a new one: the handle kept from
    // the write above still names the old folder, so the disk is told to forget it.
    std::fs::rename(root.join("d"), root.join("d.old")).unwrap();
    std::fs::create_dir(root.join("d")).unwrap();
    disk.forget();
    disk.write(&root.join("d/second.txt"), b"2", false).unwrap();
    assert!(root.join("d/second.txt").exists());
    assert!(!root.join("d.old/second.txt").exists());
    // Without being told, the handle serves the folder it opened (what one block's
    // operations on one file share)...
    disk.write(&root.join("d/third.txt"), b"3", false).unwrap();
    std::fs::rename(root.join("d"), root.join("d.gone")).unwrap();
    std::fs::create_dir(root.join("d")).unwrap();
    disk.write(&root.join("d/fourth.txt"), b"4", false).unwrap();
    assert!(root.join("d.gone/fourth.txt").exists());
    // ...until an operation of its own changes folders.
    disk.mkdir(&root.join("e")).unwrap();
    std::fs::rename(root.join("d"), root.join("d.again")).unwrap();
    std::fs::create_dir(root.join("d")).unwrap();
    disk.write(&root.join("d/fifth.txt"), b"5", false).unwrap();
    assert!(root.join("d/fifth.txt").exists());
}
