//! Process-level outcome of a command and the two error kinds the CLI boundary distinguishes.
//!
//! Exit codes (DESIGN §2): 0 everything succeeded; 1 some block or action failed (partial
//! result); 2 usage or fatal error, nothing changed; 3 refused for safety, nothing changed.

use std::fmt;

/// What a successfully *run* command reports back to `main` (errors are carried by `anyhow`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Exit 0.
    Success,
    /// Exit 1: some block or action failed; the report says which.
    Partial,
}

impl Outcome {
    pub fn code(self) -> u8 {
        match self {
            Outcome::Success => 0,
            Outcome::Partial => 1,
        }
    }
}

/// A refusal for safety (exit 3): nothing was changed; the message says why and what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal(pub String);

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refusal {}

/// A usage error detected after clap parsing (exit 2), e.g. a subcommand not built yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// Exit code for an error reaching the CLI boundary: 3 for a [`Refusal`] anywhere in the
/// chain, 2 for everything else.
pub fn exit_code_for(err: &anyhow::Error) -> u8 {
    if err.chain().any(|e| e.is::<Refusal>()) {
        3
    } else {
        2
    }
}
