//! Actions: the schema (as data), validation and conversion of block properties into typed
//! actions, and their executors. Never touches git.
