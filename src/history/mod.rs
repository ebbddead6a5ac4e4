//! History operations built on `repo` and `record`: undo/redo, squash, step-back/step-forward.
//! They act on the current branch's first-parent history only, never rewrite published
//! commits or cross merges, and each records what it did so it can itself be undone.

pub mod render;
pub mod step;
pub mod undo;
