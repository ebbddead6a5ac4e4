//! Objects: blobs from bytes or worktree files (through git's filters), tree edits that touch
//! only the changed paths, tree reads and tree-to-tree diffs.

use std::collections::BTreeMap;

use gix::bstr::{BStr, BString, ByteSlice};
use gix::objs::tree::EntryKind as GixKind;
use gix::ObjectId;

use super::odb::NameIndex;
use super::{GixContext, Repo, RepoError, Result};
use clada_base::beneath::Meta;
use gix::objs::tree::EntryMode;

/// Edits with at most this many changes are remembered (see `odb::Known::edits`)...
const MEMO_CHANGES: usize = 256;
/// ... and this many of them.
const MEMO_EDITS: usize = 4;

/// The kind of a tree entry, as git stores it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EntryKind {
    Blob,
    Executable,
    Link,
    /// A submodule (gitlink).
    Commit,
    Tree,
}

impl EntryKind {
    pub(crate) fn to_gix(self) -> GixKind {
        match self {
            EntryKind::Blob => GixKind::Blob,
            EntryKind::Executable => GixKind::BlobExecutable,
            EntryKind::Link => GixKind::Link,
            EntryKind::Commit => GixKind::Commit,
            EntryKind::Tree => GixKind::Tree,
        }
    }

    pub(crate) fn from_gix(kind: GixKind) -> Self {
        match kind {
            GixKind::Blob => EntryKind::Blob,
            GixKind::BlobExecutable => EntryKind::Executable,
            GixKind::Link => EntryKind::Link,
            GixKind::Commit => EntryKind::Commit,
            GixKind::Tree => EntryKind::Tree,
        }
    }

    pub(crate) fn from_mode(mode: gix::objs::tree::EntryMode) -> Self {
        Self::from_gix(mode.kind())
    }

    /// The octal mode git prints (`100644`, …).
    pub fn mode_str(self) -> &'static str {
        match self {
            EntryKind::Blob => "100644",
            EntryKind::Executable => "100755",
            EntryKind::Link => "120000",
            EntryKind::Commit => "160000",
            EntryKind::Tree => "040000",
        }
    }
}

/// A non-tree entry: what a path holds in a tree or the index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Entry {
    pub kind: EntryKind,
    pub id: ObjectId,
}

/// One edit of a tree: set `path` to `entry`, or remove it (`None`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeChange {
    pub path: BString,
    pub entry: Option<Entry>,
}

/// A path whose entry differs between two trees.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeDiff {
    pub path: BString,
    pub old: Option<Entry>,
    pub new: Option<Entry>,
}

impl Repo {
    pub fn write_blob(&self, data: &[u8]) -> Result<ObjectId> {
        self.put_object(gix::objs::Kind::Blob, data)
    }

    /// The id `data` has as a blob, written nowhere.
    pub fn blob_id(&self, data: &[u8]) -> ObjectId {
        use sha1::Digest;
        let mut h = sha1::Sha1::new();
        h.update(format!("blob {}\0", data.len()).as_bytes());
        h.update(data);
        let digest: [u8; 20] = h.finalize().into();
        ObjectId::from_bytes_or_panic(&digest)
    }

    pub fn read_blob(&self, id: ObjectId) -> Result<Vec<u8>> {
        if let Some((gix::objs::Kind::Blob, data)) = self.read_loose(id) {
            return Ok(data);
        }
        let blob = self
            .repo
            .find_blob(id)
            .ctx(format!("cannot read blob {id}"))?;
        Ok(blob.detach().data)
    }

    /// The id of the empty tree.
    pub fn empty_tree(&self) -> ObjectId {
        ObjectId::empty_tree(self.repo.object_hash())
    }

    /// The tree of a commit.
    pub fn tree_of(&self, commit: ObjectId) -> Result<ObjectId> {
        let c = self
            .repo
            .find_commit(commit)
            .ctx(format!("cannot read commit {commit}"))?;
        Ok(c.tree_id()
            .ctx(format!("cannot read the tree of {commit}"))?
            .detach())
    }

    /// Applies `changes` to `base` and writes the changed trees; only the trees on the changed
    /// paths are read and written, so the cost grows with the change, not the repository.
    pub fn edit_tree(&self, base: ObjectId, changes: &[TreeChange]) -> Result<ObjectId> {
        if changes.is_empty() {
            return Ok(base);
        }
        let done = self
            .known
            .borrow()
            .edits
            .iter()
            .find_map(|(b, c, out)| (*b == base && c.as_slice() == changes).then_some(*out));
        if let Some(done) = done {
            return Ok(done);
        }
        let edited = self.edit_tree_uncached(base, changes)?;
        if changes.len() <= MEMO_CHANGES {
            let edits = &mut self.known.borrow_mut().edits;
            if edits.len() == MEMO_EDITS {
                edits.remove(0);
            }
            edits.push((base, changes.to_vec(), edited));
        }
        Ok(edited)
    }

    fn edit_tree_uncached(&self, base: ObjectId, changes: &[TreeChange]) -> Result<ObjectId> {
        // gix-object's editor rather than gix's: gix's checks that the object of every entry
        // of every rewritten tree exists (a `stat` per entry in a loose repository: ~1,000 for
        // ten paths in folders of 100 files). Only what this edit adds can be missing, so
        // only that is checked (and its names validated as git would).
        let data = self.tree_data(base)?;
        let root: gix::objs::Tree = gix::objs::TreeRef::from_bytes(&data, self.repo.object_hash())
            .with_ctx(|| format!("cannot decode tree {base}"))?
            .into();
        let protect = self.protect_options();
        let finder = super::odb::ObjectWriter(self);
        let mut editor = gix::objs::tree::Editor::new(root, &finder, self.repo.object_hash());
        for change in changes {
            let components = change.path.split(|b| *b == b'/');
            match change.entry {
                Some(entry) => {
                    self.check_new_entry(change.path.as_bstr(), entry, protect)?;
                    editor
                        .upsert(components, entry.kind.to_gix(), entry.id)
                        .ctx(format!("cannot set '{}' in a tree", change.path))?;
                }
                None => {
                    editor
                        .remove(components)
                        .ctx(format!("cannot remove '{}' from a tree", change.path))?;
                }
            }
        }
        let written = editor.write(|tree| self.put_encoded(tree));
        written.map_err(|e| match e {
            RepoError::Invalid(m) => RepoError::Invalid(format!("cannot write a tree: {m}")),
            other => other,
        })
    }

    /// Refuses an entry git would not store: a path component git forbids (`.git`, `..`, and
    /// what `core.protectNTFS`/`core.protectHFS` forbid), or an object that is not there.
    fn check_new_entry(
        &self,
        path: &BStr,
        entry: Entry,
        protect: gix::validate::path::component::Options,
    ) -> Result<()> {
        let mode = (entry.kind == EntryKind::Link)
            .then_some(gix::validate::path::component::Mode::Symlink);
        for component in path.split(|b| *b == b'/') {
            if let Err(e) = gix::validate::path::component(component.as_bstr(), mode, protect) {
                return Err(RepoError::Invalid(format!(
                    "cannot set '{path}' in a tree: {e}"
                )));
            }
        }
        if entry.kind != EntryKind::Commit && !self.has_object(entry.id) {
            return Err(RepoError::Invalid(format!(
                "cannot set '{path}' in a tree: object {} ({:?}) not found",
                entry.id, entry.kind
            )));
        }
        Ok(())
    }

    /// Which path components git refuses to put in a tree here (`core.protectNTFS` is on
    /// unless turned off, `core.protectHFS` on macOS unless set).
    fn protect_options(&self) -> gix::validate::path::component::Options {
        let config = self.repo.config_snapshot();
        gix::validate::path::component::Options {
            protect_windows: config
                .boolean("gitoxide.core.protectWindows")
                .unwrap_or(cfg!(windows)),
            protect_hfs: config
                .boolean("core.protectHFS")
                .unwrap_or(clada_base::platform::MACOS),
            protect_ntfs: config.boolean("core.protectNTFS").unwrap_or(true),
        }
    }

    /// The entry at `path` in `tree`, if any (trees included).
    pub fn tree_entry(&self, tree: ObjectId, path: &BStr) -> Result<Option<Entry>> {
        // Folder by folder through `tree_data`: the folders an apply looks in are the ones it
        // has just read or written.
        let mut current = tree;
        let mut components = path.split(|b| *b == b'/').peekable();
        while let Some(name) = components.next() {
            let Some((mode, id)) = self.find_name(current, name)? else {
                return Ok(None);
            };
            if components.peek().is_none() {
                return Ok(Some(Entry {
                    kind: EntryKind::from_mode(mode),
                    id,
                }));
            }
            if !mode.is_tree() {
                return Ok(None);
            }
            current = id;
        }
        Ok(None)
    }

    /// The entry `name` of tree `tree`. The first lookup scans the entries up to it; a tree
    /// asked again gets a name index, so a walk asking one tree for many names (a records or
    /// notes tree, once per commit) does not scan it each time.
    fn find_name(&self, tree: ObjectId, name: &[u8]) -> Result<Option<(EntryMode, ObjectId)>> {
        if let Some(index) = self.known.borrow().names.get(&tree) {
            return Ok(index.get(name).copied());
        }
        let data = self.tree_data(tree)?;
        let again = {
            let mut known = self.known.borrow_mut();
            let seen = known.lookups.entry(tree).or_insert(0);
            *seen += 1;
            *seen > 1 && known.may_index(data.len())
        };
        if again {
            let mut index = NameIndex::with_capacity(data.len() / 32);
            for e in gix::objs::TreeRefIter::from_bytes(&data, self.repo.object_hash()) {
                let e = e.with_ctx(|| format!("cannot decode tree {tree}"))?;
                // The first of two entries of one name (a tree git would not write) is the
                // one a scan finds: kept, as the scan below would answer.
                index
                    .entry(e.filename.to_vec())
                    .or_insert((e.mode, e.oid.to_owned()));
            }
            let found = index.get(name).copied();
            self.known
                .borrow_mut()
                .names
                .insert(tree, std::rc::Rc::new(index));
            return Ok(found);
        }
        for e in gix::objs::TreeRefIter::from_bytes(&data, self.repo.object_hash()) {
            let e = e.with_ctx(|| format!("cannot decode tree {tree}"))?;
            if e.filename == name {
                return Ok(Some((e.mode, e.oid.to_owned())));
            }
        }
        Ok(None)
    }

    /// Every non-tree entry of `tree`, recursively, sorted by path.
    pub fn tree_files(&self, tree: ObjectId) -> Result<BTreeMap<BString, Entry>> {
        let mut out = BTreeMap::new();
        self.collect_tree(tree, BString::default(), &mut out)?;
        Ok(out)
    }

    fn collect_tree(
        &self,
        tree: ObjectId,
        prefix: BString,
        out: &mut BTreeMap<BString, Entry>,
    ) -> Result<()> {
        let data = self.tree_data(tree)?;
        let decoded = gix::objs::TreeRef::from_bytes(&data, self.repo.object_hash())
            .with_ctx(|| format!("cannot decode tree {tree}"))?;
        let entries: Vec<(BString, GixKind, ObjectId)> = decoded
            .entries
            .iter()
            .map(|e| (e.filename.to_owned(), e.mode.kind(), e.oid.to_owned()))
            .collect();
        for (name, kind, id) in entries {
            let mut path = prefix.clone();
            if !path.is_empty() {
                path.push(b'/');
            }
            path.extend_from_slice(&name);
            if kind == GixKind::Tree {
                self.collect_tree(id, path, out)?;
            } else {
                out.insert(
                    path,
                    Entry {
                        kind: EntryKind::from_gix(kind),
                        id,
                    },
                );
            }
        }
        Ok(())
    }

    /// The non-tree paths whose entry differs between `old` and `new`, sorted by path.
    /// Unchanged subtrees are skipped by id, so the cost grows with the difference.
    pub fn diff_trees(&self, old: ObjectId, new: ObjectId) -> Result<Vec<TreeDiff>> {
        if old == new {
            return Ok(Vec::new());
        }
        let old_tree = self.tree_data(old)?;
        let new_tree = self.tree_data(new)?;
        // gix's plain tree diff: `Repository::diff_tree_to_tree` would first set up a blob
        // diff cache for rename tracking, which loads (and checksums) the whole index for its
        // attributes — milliseconds per call at 100k files, for nothing this needs.
        let mut recorder = gix::diff::tree::Recorder::default();
        gix::diff::tree(
            gix::objs::TreeRefIter::from_bytes(&old_tree, old.kind()),
            gix::objs::TreeRefIter::from_bytes(&new_tree, new.kind()),
            gix::diff::tree::State::default(),
            super::odb::ObjectWriter(self),
            &mut recorder,
        )
        .map_err(|e| RepoError::Invalid(format!("cannot compare trees {old} and {new}: {e}")))?;
        let mut by_path: BTreeMap<BString, TreeDiff> = BTreeMap::new();
        let mut note = |path: BString, old: Option<Entry>, new: Option<Entry>| {
            let slot = by_path.entry(path.clone()).or_insert_with(|| TreeDiff {
                path,
                old: None,
                new: None,
            });
            if old.is_some() {
                slot.old = old;
            }
            if new.is_some() {
                slot.new = new;
            }
        };
        use gix::diff::tree::recorder::Change as C;
        for change in recorder.records {
            match change {
                C::Addition {
                    path,
                    entry_mode,
                    oid,
                    ..
                } => {
                    if !entry_mode.is_tree() {
                        note(path, None, Some(entry(entry_mode, oid)));
                    }
                }
                C::Deletion {
                    path,
                    entry_mode,
                    oid,
                    ..
                } => {
                    if !entry_mode.is_tree() {
                        note(path, Some(entry(entry_mode, oid)), None);
                    }
                }
                C::Modification {
                    path,
                    previous_entry_mode,
                    previous_oid,
                    entry_mode,
                    oid,
                } => {
                    let old = (!previous_entry_mode.is_tree())
                        .then(|| entry(previous_entry_mode, previous_oid));
                    let new = (!entry_mode.is_tree()).then(|| entry(entry_mode, oid));
                    if old.is_some() || new.is_some() {
                        note(path, old, new);
                    }
                }
            }
        }
        Ok(by_path.into_values().filter(|d| d.old != d.new).collect())
    }

    /// Starts hashing worktree files into blobs as `git add` would store them. Reads the
    /// index to learn whether any `.gitattributes` apply; prefer [`Repo::hasher_with`] when
    /// the index is at hand.
    pub fn hasher(&self) -> Result<Hasher<'_>> {
        let index = self.read_index()?;
        self.hasher_with(&index)
    }

    /// Like [`Repo::hasher`], with the index the caller already has. Setting up git's content
    /// filters (attribute stacks) costs milliseconds, so when nothing can filter — no
    /// `.gitattributes` anywhere, no `core.autocrlf` — files are hashed as they are, which is
    /// exactly what git stores then.
    pub fn hasher_with(&self, index: &super::Index) -> Result<Hasher<'_>> {
        let filters = if self.filters_possible(index) {
            let (pipeline, index) = self
                .repo
                .filter_pipeline(None)
                .ctx("cannot set up git's content filters")?;
            Some(Filters {
                pipeline,
                index,
                checked: Default::default(),
            })
        } else {
            None
        };
        let link_files = match self.symlinks() {
            true => Default::default(),
            false => index
                .entries()
                .into_iter()
                .filter(|(_, e)| e.kind == EntryKind::Link)
                .map(|(p, _)| p)
                .collect(),
        };
        Ok(Hasher {
            repo: self,
            filters,
            link_files,
        })
    }

    /// Whether any attribute or eol setting could make git's stored content differ from the
    /// worktree bytes.
    fn filters_possible(&self, index: &super::Index) -> bool {
        let cfg = self.repo.config_snapshot();
        let autocrlf = cfg
            .string("core.autocrlf")
            .is_some_and(|v| !v.eq_ignore_ascii_case(b"false"));
        if autocrlf || cfg.string("core.attributesFile").is_some() {
            return true;
        }
        let global = std::env::var_os("XDG_CONFIG_HOME")
            .map(std::path::PathBuf::from)
            .or_else(|| {
                std::env::var_os("HOME").map(|h| std::path::PathBuf::from(h).join(".config"))
            })
            .map(|d| d.join("git").join("attributes"));
        if global.is_some_and(|p| p.exists())
            || self.common_dir().join("info").join("attributes").exists()
            || self.workdir().join(".gitattributes").exists()
        {
            return true;
        }
        index.file.entries().iter().any(|e| {
            let p = e.path(&index.file);
            p == ".gitattributes" || p.ends_with(b"/.gitattributes")
        })
    }
}

fn entry(mode: gix::objs::tree::EntryMode, id: ObjectId) -> Entry {
    Entry {
        kind: EntryKind::from_mode(mode),
        id,
    }
}

/// Hashes worktree files into the object database. Create once per operation with
/// [`Repo::hasher`]: setting up the filters reads the attributes.
pub struct Hasher<'r> {
    repo: &'r Repo,
    /// `None` when no filter can apply: files are hashed as they are.
    filters: Option<Filters<'r>>,
    /// Where `core.symlinks` is false: the paths the index has as links, whose plain files
    /// hold a link's target and are hashed as links (git's `ce_mode_from_stat`).
    link_files: std::collections::HashSet<BString>,
}

struct Filters<'r> {
    pipeline: gix::filter::Pipeline<'r>,
    index: gix::worktree::IndexPersistedOrInMemory,
    /// The directories whose `.gitattributes` [`Filters::check_attributes`] found readable.
    checked: std::collections::HashSet<BString>,
}

/// The largest `.gitattributes` read, as git's `ATTR_MAX_FILE_SIZE`.
const ATTRIBUTES_LIMIT: u64 = 100 * 1024 * 1024;

impl Filters<'_> {
    /// Refuses to let gix read the `.gitattributes` of `rel`'s directories (it opens each
    /// without `O_NONBLOCK` and reads it whole) when one is a FIFO, a device or a socket, which
    /// would block the command for ever, or larger than git reads. A link or a directory there
    /// is fine: gix does not follow the one and skips the other.
    fn check_attributes(&mut self, repo: &Repo, rel: &BStr) -> Result<()> {
        let mut dir = BString::default();
        let parts: Vec<&[u8]> = rel.split_str("/").collect();
        for (i, part) in parts.iter().enumerate() {
            if !self.checked.contains(&dir) {
                let name: BString = if dir.is_empty() {
                    ".gitattributes".into()
                } else {
                    format!("{dir}/.gitattributes").into()
                };
                if let Ok(Some(md)) = repo.worktree_metadata(name.as_ref()) {
                    let bad = if md.is_file() {
                        (md.len > ATTRIBUTES_LIMIT).then_some("larger than 100 MiB")
                    } else if md.is_symlink() || md.is_dir() {
                        None
                    } else {
                        Some(md.kind_name())
                    };
                    if let Some(what) = bad {
                        return Err(RepoError::Invalid(format!(
                            "'{name}' is {what}: git-clada reads .gitattributes only as a regular \
                             file of at most 100 MiB, as git does (remove or replace it)"
                        )));
                    }
                }
                self.checked.insert(dir.clone());
            }
            if i + 1 < parts.len() {
                if !dir.is_empty() {
                    dir.push(b'/');
                }
                dir.extend_from_slice(part);
            }
        }
        Ok(())
    }
}

impl Hasher<'_> {
    /// Hashes the plain files at `paths` as files even where the index has a link there and
    /// `core.symlinks` is false: what an apply wrote there is a file (`git apply` records it
    /// so), not a link's stand-in.
    pub fn files_not_links<'p>(&mut self, paths: impl IntoIterator<Item = &'p BStr>) {
        for p in paths {
            self.link_files.remove(p);
        }
    }

    /// Writes the worktree file at `rel` as a blob and returns its entry and metadata; `None`
    /// when nothing trackable is there (missing, a directory, a socket…).
    pub fn hash(&mut self, rel: &BStr) -> Result<Option<(Entry, Meta)>> {
        let Some((bytes, kind, md)) = self.git_bytes(rel)? else {
            return Ok(None);
        };
        let id = self.repo.write_blob(&bytes)?;
        Ok(Some((Entry { kind, id }, md)))
    }

    /// The entry the worktree file at `rel` would have if added, without writing anything;
    /// `None` when nothing trackable is there.
    pub fn id_of(&mut self, rel: &BStr) -> Result<Option<Entry>> {
        let Some((bytes, kind, _)) = self.git_bytes(rel)? else {
            return Ok(None);
        };
        let id =
            gix::objs::compute_hash(self.repo.repo.object_hash(), gix::objs::Kind::Blob, &bytes)
                .map_err(|e| RepoError::Invalid(format!("cannot hash '{rel}': {e}")))?;
        Ok(Some(Entry { kind, id }))
    }

    /// The content git would store for the worktree path `rel` (a symlink's target for links,
    /// the filtered file otherwise), its kind and metadata. Read from handles opened from the
    /// worktree root (`repo::worktree`): whatever a directory of the path was swapped for, the
    /// bytes that go into a commit are never read through it.
    fn git_bytes(&mut self, rel: &BStr) -> Result<Option<(Vec<u8>, EntryKind, Meta)>> {
        use clada_base::beneath::Entry as Found;
        use std::io::Read;
        let path = || self.repo.abs_path(rel);
        let (file, md) = match self.repo.worktree_entry(rel)? {
            None | Some(Found::Other(_)) => return Ok(None),
            Some(Found::Link(t, md)) => {
                use std::os::unix::ffi::OsStrExt;
                return Ok(Some((
                    t.as_os_str().as_bytes().to_vec(),
                    EntryKind::Link,
                    md,
                )));
            }
            Some(Found::File(file, md)) => (file, md),
        };
        if self.link_files.contains(rel) {
            let mut target = Vec::new();
            let mut file = file;
            file.read_to_end(&mut target)
                .map_err(|e| super::io_err("cannot read", &path())(e))?;
            return Ok(Some((target, EntryKind::Link, md)));
        }
        let kind = if md.is_executable() {
            EntryKind::Executable
        } else {
            EntryKind::Blob
        };
        let mut file = file;
        let mut bytes = Vec::with_capacity(md.len as usize);
        match &mut self.filters {
            None => {
                file.read_to_end(&mut bytes)
                    .map_err(|e| super::io_err("cannot read", &path())(e))?;
            }
            Some(f) => {
                use gix::filter::plumbing::pipeline::convert::ToGitOutcome;
                f.check_attributes(self.repo, rel)?;
                let rel_path = gix::path::from_bstr(rel).ctx(format!("invalid path '{rel}'"))?;
                match f
                    .pipeline
                    .convert_to_git(file, &rel_path, &f.index)
                    .ctx(format!("cannot filter '{rel}'"))?
                {
                    ToGitOutcome::Unchanged(mut r) => {
                        r.read_to_end(&mut bytes)
                            .map_err(|e| super::io_err("cannot read", &path())(e))?;
                    }
                    ToGitOutcome::Buffer(b) => bytes.extend_from_slice(b),
                    ToGitOutcome::Process(mut r) => {
                        r.read_to_end(&mut bytes)
                            .map_err(|e| super::io_err("cannot read", &path())(e))?;
                    }
                }
            }
        }
        Ok(Some((bytes, kind, md)))
    }

    /// Whether git's content filters may change bytes on the way in or out (attributes or
    /// eol settings exist). Without, [`Hasher::to_worktree`] is a plain copy.
    pub fn filters(&self) -> bool {
        self.filters.is_some()
    }

    /// Converts a blob's content to what the worktree file should hold (smudge, eol). A
    /// filter driver runs to completion here: delayed output (git's `delay` capability of
    /// long-running filter processes) is not asked for.
    pub fn to_worktree(&mut self, rel: &BStr, data: &[u8]) -> Result<Vec<u8>> {
        use gix::filter::plumbing::driver::apply::{Delay, MaybeDelayed};
        use gix::filter::plumbing::pipeline::convert::{to_worktree, ToWorktreeOutcome};
        use std::io::Read;
        let Some(f) = &mut self.filters else {
            return Ok(data.to_vec());
        };
        f.check_attributes(self.repo, rel)?;
        let options = to_worktree::Options {
            can_delay: Delay::Forbid,
            ..Default::default()
        };
        let out = f
            .pipeline
            .convert_to_worktree(data, rel, options)
            .ctx(format!(
                "cannot convert '{rel}' for the worktree (git's smudge/eol filters for it failed)"
            ))?;
        Ok(match out {
            ToWorktreeOutcome::Unchanged(b) => b.to_vec(),
            ToWorktreeOutcome::Buffer(b) => b.to_vec(),
            ToWorktreeOutcome::Process(MaybeDelayed::Immediate(mut r)) => {
                let mut buf = Vec::with_capacity(data.len());
                r.read_to_end(&mut buf).map_err(|e| {
                    RepoError::Invalid(format!(
                        "the smudge filter of '{rel}' failed: {e}; fix the filter's configuration (`git config --get-regexp '^filter\\.'`) and try again"
                    ))
                })?;
                buf
            }
            ToWorktreeOutcome::Process(MaybeDelayed::Delayed(_)) => {
                return Err(RepoError::Invalid(format!(
                    "the filter process of '{rel}' delayed its output although git-clada asked it not to"
                )))
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(path: &str, id: ObjectId) -> TreeChange {
        TreeChange {
            path: path.into(),
            entry: Some(Entry {
                kind: EntryKind::Blob,
                id,
            }),
        }
    }

    fn loose_path(repo: &Repo, id: ObjectId) -> std::path::PathBuf {
        let hex = id.to_hex().to_string();
        repo.git_dir()
            .join("objects")
            .join(&hex[..2])
            .join(&hex[2..])
    }

    #[test]
    fn what_a_command_remembers_of_its_trees_answers_as_the_disk_does() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repo::init(dir.path()).unwrap();
        let a = repo.write_blob(b"a\n").unwrap();
        let b = repo.write_blob(b"b\n").unwrap();
        let changes = [
            set("src/x/a.txt", a),
            set("src/b.txt", b),
            set("top.txt", a),
        ];
        let tree = repo.edit_tree(repo.empty_tree(), &changes).unwrap();
        // A second handle has seen nothing: it reads every tree from disk, and gix's own
        // lookup is the reference.
        let fresh = Repo::discover(dir.path()).unwrap();
        let gix_tree = fresh.repo.find_tree(tree).unwrap();
        // Twice: the second round asks every tree again, answered by its name index.
        for path in [
            "src/x/a.txt",
            "src/b.txt",
            "top.txt",
            "src",
            "src/x",
            "missing",
            "src/missing",
            "top.txt/below",
            "src/x/a.txt/deeper",
            "",
        ]
        .repeat(2)
        {
            let ours = repo.tree_entry(tree, path.into()).unwrap();
            assert_eq!(ours, fresh.tree_entry(tree, path.into()).unwrap(), "{path}");
            let by_gix = gix_tree
                .lookup_entry(path.as_bytes().split(|b| *b == b'/'))
                .unwrap()
                .map(|e| Entry {
                    kind: EntryKind::from_mode(e.mode()),
                    id: e.object_id(),
                });
            assert_eq!(ours, by_gix, "{path}");
        }
        assert_eq!(
            repo.tree_files(tree).unwrap(),
            fresh.tree_files(tree).unwrap()
        );
        assert_eq!(repo.tree_data(tree).unwrap(), gix_tree.data);

        // The same edit again is answered from memory; a different one is made anew, and
        // both agree with a handle that remembers nothing.
        let again = repo.edit_tree(repo.empty_tree(), &changes).unwrap();
        assert_eq!(again, tree);
        let removed = [TreeChange {
            path: "src/b.txt".into(),
            entry: None,
        }];
        let smaller = repo.edit_tree(tree, &removed).unwrap();
        assert_ne!(smaller, tree);
        assert_eq!(smaller, fresh.edit_tree(tree, &removed).unwrap());
        let other = repo.edit_tree(tree, &[set("src/b.txt", a)]).unwrap();
        assert_eq!(
            other,
            fresh.edit_tree(tree, &[set("src/b.txt", a)]).unwrap()
        );
        assert_ne!(other, smaller);

        // Only presence is remembered: a missing object stays missing, for checks and edits.
        let missing = ObjectId::from_hex(b"0123456789abcdef0123456789abcdef01234567").unwrap();
        assert!(!repo.has_object(missing));
        assert!(repo.edit_tree(tree, &[set("c.txt", missing)]).is_err());
        assert!(!repo.has_object(missing));

        // What the command wrote is read from its memory: with the file gone, the handle that
        // wrote the tree still reads it; one that did not, cannot.
        std::fs::remove_file(loose_path(&repo, smaller)).unwrap();
        assert!(repo.tree_data(smaller).is_ok());
        let fresh = Repo::discover(dir.path()).unwrap();
        assert!(fresh.tree_data(smaller).is_err());
    }
}
