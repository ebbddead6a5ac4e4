//! History operations built on `repo`: undo/redo, squash, step-back/step-forward.
