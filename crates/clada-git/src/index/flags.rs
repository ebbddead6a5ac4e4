//! The per-entry flags git keeps in the index (skip-worktree, assume-unchanged,
//! intent-to-add): reading them, and setting them again on the entries of a new index.

use super::*;

impl Index {
    /// The user's flags on the stage-0 entry of `path` (`None` when it has no entry).
    pub fn flags_of(&self, path: &BStr) -> Option<EntryFlags> {
        if let Some(e) = self.file.entry_by_path_and_stage(path, Stage::Unconflicted) {
            return Some(EntryFlags::of(e.flags));
        }
        // Inside a sparse directory of a sparse index: the directory entry's flags.
        let mut end = 0;
        while let Some(pos) = path[end..].find_byte(b'/') {
            end += pos + 1;
            if let Some(e) = self
                .file
                .entry_by_path_and_stage(path[..end].as_bstr(), Stage::Unconflicted)
                .filter(|e| e.mode == Mode::DIR)
            {
                return Some(EntryFlags::of(e.flags));
            }
        }
        None
    }

    /// Every stage-0 entry with a user flag set, sorted by path.
    pub fn flagged(&self) -> Vec<(BString, EntryFlags)> {
        self.file
            .entries()
            .iter()
            .filter(|e| e.stage() == Stage::Unconflicted)
            .filter_map(|e| {
                let f = EntryFlags::of(e.flags);
                (!f.is_empty()).then(|| (e.path(&self.file).to_owned(), f))
            })
            .collect()
    }

    /// Sets the user's flags of the given paths: on an existing entry the bits are set or
    /// cleared (intent-to-add only on an entry of the empty blob, which is what such an
    /// entry holds); a path without an entry gets an intent-to-add entry when `flags` say so
    /// and its worktree file exists (a file deleted since has nothing to intend to add).
    pub fn set_flags(&mut self, repo: &Repo, flags: &[(BString, EntryFlags)]) -> Result<()> {
        self.release_cached(repo);
        let empty_blob = ObjectId::empty_blob(self.file.object_hash());
        let mut added = Vec::new();
        for (path, f) in flags {
            if path.ends_with(b"/") {
                // A sparse directory of a sparse index: its flag is its files' flag, where an
                // index built from a tree holds them one by one.
                self.set_dir_flags(repo, path.as_bstr(), *f);
                continue;
            }
            match self
                .file
                .entry_index_by_path_and_stage(path.as_bstr(), Stage::Unconflicted)
            {
                Some(idx) => {
                    let e = &mut self.file_mut().entries_mut()[idx];
                    e.flags.set(Flags::SKIP_WORKTREE, f.skip_worktree);
                    e.flags.set(Flags::ASSUME_VALID, f.assume_unchanged);
                    e.flags
                        .set(Flags::INTENT_TO_ADD, f.intent_to_add && e.id == empty_blob);
                    if e.flags
                        .intersects(Flags::SKIP_WORKTREE | Flags::INTENT_TO_ADD)
                    {
                        e.flags.insert(Flags::EXTENDED);
                    }
                }
                None if f.intent_to_add => {
                    let Some(md) = repo.worktree_metadata(path.as_bstr())? else {
                        continue;
                    };
                    let mode = if md.is_symlink() {
                        Mode::SYMLINK
                    } else if !md.is_file() {
                        continue;
                    } else if md.is_executable() {
                        Mode::FILE_EXECUTABLE
                    } else {
                        Mode::FILE
                    };
                    added.push((path.clone(), mode));
                }
                None => {}
            }
        }
        if added.is_empty() {
            return Ok(());
        }
        // git keeps intent-to-add entries out of trees and invalidates the cache-tree above
        // them (to the root).
        repo.write_blob(b"")?;
        for (path, _) in &added {
            self.invalidate_cached_tree(path.as_bstr());
        }
        for (path, mode) in added {
            self.file_mut().dangerously_push_entry(
                Stat::default(),
                empty_blob,
                Flags::INTENT_TO_ADD | Flags::EXTENDED,
                mode,
                path.as_bstr(),
            );
        }
        self.sort_entries();
        Ok(())
    }

    /// Sets the skip-worktree and assume-unchanged bits of the directory entry `dir` (with
    /// its `/`, an entry of a sparse index). Where the index holds the directory's files
    /// instead (it was rebuilt from a tree), those absent from the worktree get the bits —
    /// a present file is an ordinary tracked file to git (`clear_skip_worktree_from_present_
    /// files`) — and when all are absent (and none conflicted or intent-to-add, and the
    /// cache-tree names the directory's tree) they become that one entry again: git expects
    /// a sparse index to stay sparse, and git 2.47 misreads a full index with an
    /// intent-to-add entry under `index.sparse` (`git ls-files` shows every entry as the
    /// first one).
    pub(super) fn set_dir_flags(&mut self, repo: &Repo, dir: &BStr, f: EntryFlags) {
        let range = match self
            .file
            .entry_index_by_path_and_stage(dir, Stage::Unconflicted)
        {
            Some(idx) => idx..idx + 1,
            None => match self.file.prefixed_entries_range(dir) {
                Some(range) => range,
                None => return,
            },
        };
        let mut present = Vec::new();
        let mut collapsible = f.skip_worktree && !f.assume_unchanged;
        for e in &self.file.entries()[range.clone()] {
            let path = e.path(&self.file);
            // A path the system cannot name from the root (longer than its limit) counts as
            // absent: skip-worktree, as recorded.
            let here =
                e.mode != Mode::DIR && repo.worktree_metadata(path).is_ok_and(|m| m.is_some());
            present.push(here);
            collapsible &= !here
                && e.stage() == Stage::Unconflicted
                && !e.flags.contains(Flags::INTENT_TO_ADD)
                && e.mode != Mode::DIR;
        }
        let tree = match (collapsible, self.cache_tree.as_mut()) {
            (true, Some(root)) => collapse_node(root, dir, range.len() as u32),
            _ => None,
        };
        if let Some(id) = tree {
            self.file_mut()
                .remove_entries(|idx, _, _| range.contains(&idx));
            self.file_mut().dangerously_push_entry(
                Stat::default(),
                id,
                Flags::SKIP_WORKTREE | Flags::EXTENDED,
                Mode::DIR,
                dir,
            );
            self.sort_entries();
            return;
        }
        for (e, here) in self.file_mut().entries_mut()[range].iter_mut().zip(present) {
            let skip = f.skip_worktree && !here;
            e.flags.set(Flags::SKIP_WORKTREE, skip);
            e.flags.set(Flags::ASSUME_VALID, f.assume_unchanged);
            if skip {
                e.flags.insert(Flags::EXTENDED);
            }
        }
    }
}
