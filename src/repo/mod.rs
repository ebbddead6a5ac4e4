//! Everything git, through gix: open, lock, status, snapshot, tree edit, commit, notes,
//! in-place checkout/reset, stash-format commits, history walk. The only module that imports
//! gix.
