//! log, show and status (placeholder).
