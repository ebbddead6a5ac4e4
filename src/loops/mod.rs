//! The loops a user or an agent lives in, around the engine: the instructions a model is given
//! (`prompt` for the action blocks, `prompt_formats` for the edit formats models already
//! write), what it needs for its first turn (`context`), the listener that applies blocks as a
//! reply file grows (`watch`), the clipboard and the bundled demo. The MCP server an agent
//! calls as its edit tool is its own front end, `crate::mcp`.

pub mod clipboard;
pub mod context;
pub mod demo;
pub mod options;
pub mod prompt;
pub mod prompt_formats;
pub mod watch;
