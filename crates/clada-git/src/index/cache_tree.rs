//! git's cache-tree extension: building it from trees, collapsing nodes into sparse-directory
//! leaves, invalidating it above changed paths, and checking it as git would believe it.

use super::*;

/// Where a cache-tree disagrees with the entries it describes, as git would have to believe
/// it: a node marked valid whose count is not the number of entries under it, or that covers
/// an intent-to-add or conflicted entry (git keeps those out of trees). git-clada before
/// issue 33 wrote such a node beside an intent-to-add entry, and git then committed a tree
/// with duplicate entries that lost files. `None` when the cache-tree (if any) is sound.
pub(crate) fn cache_tree_problem(state: &gix::index::State, tree: &CacheTree) -> Option<String> {
    fn walk(state: &gix::index::State, node: &CacheTree, prefix: &mut Vec<u8>) -> Option<String> {
        let entries = state.entries();
        let range = if prefix.is_empty() {
            0..entries.len()
        } else {
            state
                .prefixed_entries_range(prefix.as_bstr())
                .unwrap_or(0..0)
        };
        let here = if prefix.is_empty() {
            "the root".to_string()
        } else {
            format!("'{}'", prefix[..prefix.len() - 1].as_bstr())
        };
        if let Some(counted) = node.num_entries {
            // A sparse-directory entry for this very directory is one entry.
            let n = range.len() as u32;
            if counted != n {
                return Some(format!(
                    "the cache-tree of {here} counts {counted} entries, the index has {n}"
                ));
            }
            if let Some(e) = entries[range].iter().find(|e| {
                e.stage() != Stage::Unconflicted || e.flags.contains(Flags::INTENT_TO_ADD)
            }) {
                return Some(format!(
                    "the cache-tree of {here} is marked valid over '{}', which git keeps out of trees",
                    e.path(state)
                ));
            }
        }
        for child in &node.children {
            let len = prefix.len();
            prefix.extend_from_slice(&child.name);
            prefix.push(b'/');
            let found = walk(state, child, prefix);
            prefix.truncate(len);
            if found.is_some() {
                return found;
            }
        }
        None
    }
    walk(state, tree, &mut Vec::new())
}
/// Turns the valid cache-tree node of directory `dir` (with its `/`), which counts `files`
/// entries, into the leaf of one sparse-directory entry, as git counts it, and returns its
/// tree id; the counts of the valid nodes above it shrink by as much. `None` (and nothing
/// changed) when the node is missing or not valid.
pub(super) fn collapse_node(root: &mut CacheTree, dir: &BStr, files: u32) -> Option<ObjectId> {
    let components: Vec<&[u8]> = dir[..dir.len().checked_sub(1)?]
        .split(|b| *b == b'/')
        .collect();
    let mut node: &CacheTree = root;
    for comp in &components {
        node = node.children.iter().find(|c| c.name.as_slice() == *comp)?;
    }
    if node.num_entries != Some(files) {
        return None;
    }
    let id = node.id;
    let shrink = files - 1;
    let mut node: &mut CacheTree = root;
    for comp in &components {
        node.num_entries = node.num_entries.map(|n| n - shrink);
        node = node
            .children
            .iter_mut()
            .find(|c| c.name.as_slice() == *comp)?;
    }
    node.num_entries = Some(1);
    node.children.clear();
    Some(id)
}

/// Marks `tree`'s nodes on `path`'s directories (the root included) as invalid.
pub(super) fn invalidate_path(tree: &mut CacheTree, path: &BStr) {
    let mut node = tree;
    node.num_entries = None;
    let mut components: Vec<&[u8]> = path.split(|b| *b == b'/').collect();
    components.pop();
    for comp in components {
        match node.children.iter_mut().find(|c| c.name.as_slice() == comp) {
            Some(child) => {
                child.num_entries = None;
                node = child;
            }
            None => break,
        }
    }
}

/// Builds the cache-tree node for `id` at `path` (its directory path with a trailing `/`,
/// empty for the root), reusing `old` where the ids match. A directory in `sparse` (a
/// sparse-directory entry of the index) is a leaf of one entry, as git counts it. git orders
/// subtrees by name length, then bytes.
pub(super) fn build_cache_tree(
    repo: &Repo,
    id: ObjectId,
    path: &mut Vec<u8>,
    sparse: &std::collections::HashSet<&BStr>,
    old: Option<&CacheTree>,
) -> Result<CacheTree> {
    let name = match path.len() {
        0 => &[][..],
        n => {
            let dir = &path[..n - 1];
            &dir[dir.rfind_byte(b'/').map_or(0, |i| i + 1)..]
        }
    };
    if sparse.contains(path.as_bstr()) {
        return Ok(CacheTree {
            name: name.into(),
            id,
            num_entries: Some(1),
            children: Vec::new(),
        });
    }
    if let Some(o) = old {
        // A sparse index's leaves were counted differently: reuse only without one.
        if o.num_entries.is_some() && o.id == id && sparse.is_empty() {
            let mut reused = o.clone();
            reused.name = name.into();
            return Ok(reused);
        }
    }
    let name: Vec<u8> = name.to_vec();
    let data = repo.tree_data(id)?;
    let decoded = gix::objs::TreeRef::from_bytes(&data, repo.repo.object_hash())
        .with_ctx(|| format!("cannot decode tree {id}"))?;
    let mut files = 0u32;
    let mut subtrees: Vec<(Vec<u8>, ObjectId)> = Vec::new();
    for e in &decoded.entries {
        if e.mode.is_tree() {
            subtrees.push((e.filename.to_vec(), e.oid.to_owned()));
        } else {
            files += 1;
        }
    }
    let mut children = Vec::with_capacity(subtrees.len());
    for (child_name, child_id) in subtrees {
        let old_child = old.and_then(|o| {
            o.children
                .iter()
                .find(|c| c.name.as_slice() == child_name.as_slice())
        });
        let len = path.len();
        path.extend_from_slice(&child_name);
        path.push(b'/');
        let child = build_cache_tree(repo, child_id, path, sparse, old_child);
        path.truncate(len);
        children.push(child?);
    }
    children.sort_by(|a, b| {
        a.name
            .len()
            .cmp(&b.name.len())
            .then_with(|| a.name.cmp(&b.name))
    });
    let total = files
        + children
            .iter()
            .map(|c| c.num_entries.unwrap_or(0))
            .sum::<u32>();
    Ok(CacheTree {
        name: name.into(),
        id,
        num_entries: Some(total),
        children,
    })
}
