//! The loops a user or an agent lives in, around the engine: the instructions a model is given
//! (`prompt`), what it needs for its first turn (`context`), the listener that applies blocks as
//! a reply file grows (`watch`), the clipboard, and the bundled demo.

pub mod clipboard;
pub mod context;
pub mod demo;
pub mod prompt;
pub mod watch;
