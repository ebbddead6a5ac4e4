//! The loops a user or an agent lives in, around the engine: the instructions a model is given
//! (`prompt`), the listener that applies blocks as a reply file grows (`watch`), the
//! clipboard, the bundled demo, and the MCP server an agent calls as its edit tool (`mcp`).

pub mod clipboard;
pub mod demo;
pub mod mcp;
pub mod prompt;
pub mod watch;
