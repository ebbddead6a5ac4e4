//! Lexical path arithmetic: what `..` and `.` mean in a path, without asking the file
//! system (so a link is never followed to find out).

use std::path::{Component, Path, PathBuf};

/// Removes `.` and resolves `..` without touching the filesystem (`..` at `/` stays at `/`).
pub fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::Prefix(_) | Component::RootDir => out.push(c.as_os_str()),
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(s) => out.push(s),
        }
    }
    out
}
