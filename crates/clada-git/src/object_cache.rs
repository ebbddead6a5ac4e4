//! Objects a long-lived process read or wrote, kept across the repositories it opens call
//! after call (`git clada mcp`): the notes trees, the branch's trees and the last commit an
//! apply reads are the ones the previous call wrote. An object's content never changes for
//! its id, so a remembered one is always right; existence checks never consult this memory
//! (gix's `exists` goes to the store), so an object pruned from disk is never assumed there.
//! Only objects on disk are put here, never a dry run's objects kept in memory.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use gix::ObjectId;

/// The bytes kept at most; past it the memory starts again empty (the objects of one call
/// are far fewer).
const CAP: usize = 32 << 20;

/// The shared handle; cloning shares the memory.
#[derive(Clone, Default)]
pub struct ObjectCache {
    inner: Arc<Mutex<Kept>>,
}

#[derive(Default)]
struct Kept {
    objects: HashMap<ObjectId, (gix::objs::Kind, Vec<u8>)>,
    bytes: usize,
}

impl std::fmt::Debug for ObjectCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ObjectCache").finish_non_exhaustive()
    }
}

impl ObjectCache {
    pub fn new() -> ObjectCache {
        ObjectCache::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Kept> {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Keeps `data` as object `id` (which is on disk).
    pub(crate) fn keep(&self, id: ObjectId, kind: gix::objs::Kind, data: &[u8]) {
        if data.len() > CAP / 8 {
            return;
        }
        let mut kept = self.lock();
        if kept.objects.contains_key(&id) {
            return;
        }
        if kept.bytes + data.len() > CAP {
            kept.objects.clear();
            kept.bytes = 0;
        }
        kept.bytes += data.len();
        kept.objects.insert(id, (kind, data.to_vec()));
    }
}

impl gix::odb::pack::cache::Object for ObjectCache {
    fn put(&mut self, id: ObjectId, kind: gix::objs::Kind, data: &[u8]) {
        self.keep(id, kind, data);
    }

    fn get(&mut self, id: &ObjectId, out: &mut Vec<u8>) -> Option<gix::objs::Kind> {
        let kept = self.lock();
        let (kind, data) = kept.objects.get(id)?;
        out.clear();
        out.extend_from_slice(data);
        Some(*kind)
    }
}
