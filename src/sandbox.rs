//! Path resolution and policy (DESIGN §5.1): every path of a reply is resolved and checked
//! against the worktree root before any action runs.
