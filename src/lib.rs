//! git-clada's front ends: the command line (`cli`, one file per subcommand), the loops a user
//! lives in (`loops`: prompt, watch, clipboard, demo), the MCP server (`mcp`) and the agents'
//! hooks (`agent`). The engine they drive — plan, execute, record, report, history — is the
//! `clada-engine` crate; the binary is `main.rs`.
//!
//! Data flows one way (DESIGN §10; `docs/architecture.md` is the map):
//!
//! ```text
//! reply text ─▶ clada-read (one scanner, a front end per format) ─▶ blocks
//!            ─▶ clada-engine: action (plan, then execute), record (the AI commit, via
//!               clada-git), report (human / llm / json), history (undo, redo, squash, step)
//!            ─▶ this crate: how a user or an agent hands a reply over and reads the report
//! ```
//!
//! The layers, lowest first — a module may import only from layers below it (a test reads the
//! `use` lines of every crate and checks them against the order in `docs/architecture.md`).
//! Front ends hold no logic beyond turning what they are given into the engine's options and
//! its report into what their caller reads.

pub mod agent;
pub mod cli;
pub mod loops;
pub mod mcp;
