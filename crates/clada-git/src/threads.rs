//! How many threads a pass over the worktree or the index may use: the cores this process
//! may run on, asked once (std reads the cgroup files each time it is asked), at most 8.

/// The cores to split a full pass over.
pub(crate) fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| {
        std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .clamp(1, 8)
    })
}
