//! The format-neutral result of reading a reply: [`Block`]s (id, string properties in key
//! order, line span, format, group) and [`ParseError`]s in the reference implementation's
//! shape (codes, positions in UTF-16 columns, messages), plus the notices the reports add.
//! Every front end produces these and nothing else; nothing here knows a format's syntax.

use indexmap::IndexMap;
use serde::Serialize;

/// Which formats to read: all of them, each block by its opening marker, or only one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Dialect {
    #[default]
    Auto,
    Only(Format),
}

/// The format of one block (for SHAM/NESL, its spelling), decided by its opening marker.
///
/// Each front end declares its formats as associated constants (`Format::CSL` in `csl.rs`),
/// so a new format needs no change here. `id` is the format's name in JSON, on the command
/// line (`--dialect`) and in `git clada parse`; `name` is how messages call it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Format {
    pub id: &'static str,
    pub name: &'static str,
    /// Blocks in the nesl-js reference shape: they carry their own ids, and `git clada parse`
    /// prints them without a `format` key (SHAM, NESL, nesl).
    pub reference: bool,
}

impl Format {
    /// One of the SHAM/NESL spellings (the reference parser's blocks).
    pub fn is_nesl(&self) -> bool {
        self.reference
    }
}

impl Serialize for Format {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.id)
    }
}

/// How the members of a group of blocks (a CSL `<---TASKS--->`, a CML `<tasks>`, the files of
/// one apply_patch envelope or of one unified diff, a tool call's `edits` of one file) depend
/// on each other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum GroupKind {
    /// CSL TASKS, a unified diff (as `git apply`), a tool call's `edits` (as editor tools'
    /// multi-edit): all or nothing. A member that fails
    /// validation skips the whole group; a member that fails at run time rolls back the changes
    /// of the members before it.
    Atomic,
    /// CML `<tasks>`, an apply_patch envelope (as Codex's `apply_patch`): members run in order
    /// and the first failure stops the rest; what ran stays.
    StopOnFailure,
}

/// The group a block belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Group {
    /// The group's own id (`task-3` for a TASKS block whose members are `task-3.1`, …; the
    /// first member's id for a CML `<tasks>` block, an apply_patch envelope or a diff).
    pub id: String,
    pub kind: GroupKind,
    /// What reports call the group: `TASKS group`, `<tasks> block`, `patch`, `diff`, `list of edits`.
    #[serde(skip)]
    pub noun: &'static str,
}

/// One parsed block. Serialises to the reference shape `{id, properties, startLine, endLine}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Block {
    pub id: String,
    /// Every value is a string; keys keep their first-insertion order.
    pub properties: IndexMap<String, String>,
    /// 1-based line of the header.
    pub start_line: usize,
    /// 1-based line of the end marker; `None` when closed by EOF or by the next header.
    pub end_line: Option<usize>,
    /// The format, shown for blocks of the other formats only (so SHAM/NESL output keeps the
    /// reference shape).
    #[serde(skip_serializing_if = "Format::is_nesl")]
    pub format: Format,
    /// The group (CSL TASKS, CML `<tasks>`) the block is a member of.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group: Option<Group>,
    /// Why the block cannot run although it parsed (a missing attribute, an empty search…):
    /// planning reports it as a validation error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub invalid: Option<String>,
    /// Tolerances the front end applied, reported on the block's result.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// The block's text as written (other formats only), shown when it is rejected.
    #[serde(skip)]
    pub source: Option<String>,
}

impl Block {
    /// A block of one of the other formats.
    pub fn foreign(
        format: Format,
        id: String,
        properties: IndexMap<String, String>,
        start_line: usize,
        end_line: usize,
    ) -> Block {
        Block {
            id,
            properties,
            start_line,
            end_line: Some(end_line),
            format,
            group: None,
            invalid: None,
            warnings: Vec::new(),
            source: None,
        }
    }
}

/// Error codes, spelled as the reference spells them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ErrorCode {
    MalformedHeader,
    InvalidBlockId,
    UnclosedBlock,
    MismatchedEnd,
    MalformedEnd,
    MalformedAssignment,
    InvalidAssignmentOperator,
    EmptyKey,
    InvalidValue,
    UnclosedQuote,
    TrailingContent,
    InvalidKey,
    DuplicateKey,
    InvalidHeredocDelimiter,
    UnclosedHeredoc,
    /// A CSL syntax error (seed 002: fatal, the reply does not run).
    CslSyntax,
    /// CML that is not well-formed XML (seed 004's `malformed_xml`).
    MalformedXml,
    /// A replacer block whose markers are out of order or unclosed.
    ReplacerSyntax,
    /// A tool call that is not JSON, or not one of the shapes a tool call takes.
    ToolCallSyntax,
    /// An aider SEARCH/REPLACE block without its file name, `=======` or `>>>>>>> REPLACE`.
    AiderSyntax,
    /// An apply_patch envelope that Codex's `apply_patch` would refuse to parse.
    ApplyPatchSyntax,
    /// A unified diff whose file headers or hunks cannot be read.
    DiffSyntax,
    /// A line that looks like a block of some format but is none.
    NotABlock,
    /// A byte that is not UTF-8 outside the lines of a unified diff's hunks (`raw`): the
    /// reply is not read.
    NotUtf8,
}

impl ErrorCode {
    /// Errors that stop the whole reply (CSL's syntax errors, as its seed says; bytes that are
    /// not UTF-8 where only UTF-8 may stand).
    pub fn is_fatal(self) -> bool {
        matches!(self, ErrorCode::CslSyntax | ErrorCode::NotUtf8)
    }
}

/// One syntax error, in the reference shape.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ParseError {
    pub code: ErrorCode,
    /// 1-based line (N+1 for errors at end of input).
    pub line: usize,
    /// 1-based column in UTF-16 code units.
    pub column: usize,
    /// Length in UTF-16 code units.
    pub length: usize,
    /// The block open when the error was raised.
    pub block_id: Option<String>,
    /// The text of line `line` (without its line break).
    pub content: String,
    /// Up to five lines of input around the error.
    pub context: String,
    pub message: String,
    /// What this parser adds for the reports (never serialised, so the reference shape stays
    /// exact).
    #[serde(skip)]
    pub note: Option<ErrorNote>,
}

/// The explanation a report adds to a reference error message: why, where, what to do.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ErrorNote {
    /// Appended to the message in reports.
    pub detail: String,
    /// For a header that opened no block: the id and action the block seems to have.
    pub block_id: Option<String>,
    pub action: Option<String>,
    /// Block headers an unclosed heredoc swallowed.
    pub swallowed: Vec<Swallowed>,
}

/// A block header read as heredoc text because an earlier heredoc was never closed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Swallowed {
    /// 1-based line of the header.
    pub line: usize,
    pub id: String,
    /// The `action` value the swallowed block seems to have.
    pub action: Option<String>,
}

/// A problem the reference parser passes over silently (so its parse is kept unchanged), which
/// the reports still show: a line that looks like a block header but is not one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    /// 1-based line.
    pub line: usize,
    /// The id and action the block seems to have.
    pub block_id: Option<String>,
    pub action: Option<String>,
    pub message: String,
}

/// Blocks in order of their start lines and errors in emission (line) order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct ParseResult {
    pub blocks: Vec<Block>,
    pub errors: Vec<ParseError>,
    /// Near-miss headers and the like (not part of the reference shape).
    #[serde(skip)]
    pub notices: Vec<Notice>,
    /// Byte ranges of the text where escaped bytes ([`crate::raw`]) may stand: the lines of
    /// the unified diffs' hunks that were read. Sorted and disjoint.
    #[serde(skip)]
    pub(crate) raw_spans: Vec<std::ops::Range<usize>>,
}

impl ParseResult {
    /// Adds `other`'s blocks, errors and notices after this result's own (moving the vectors
    /// when this one is empty: the usual case, and a copy of a million blocks otherwise).
    pub(crate) fn absorb(&mut self, other: ParseResult) {
        fn join<T>(into: &mut Vec<T>, from: Vec<T>) {
            if into.is_empty() {
                *into = from;
            } else {
                into.extend(from);
            }
        }
        join(&mut self.blocks, other.blocks);
        join(&mut self.errors, other.errors);
        join(&mut self.notices, other.notices);
        join(&mut self.raw_spans, other.raw_spans);
    }
}

/// The input was not valid UTF-8.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("input is not valid UTF-8: invalid byte 0x{byte:02X} at byte offset {offset} (line {line}); re-save the reply as UTF-8 (only the lines of a unified diff's hunks may hold other bytes, taken as they are)")]
pub struct InvalidUtf8 {
    pub offset: usize,
    pub byte: u8,
    pub line: usize,
}

/// Decodes raw input bytes strictly: replies are edited into source files, so silently
/// replacing bad bytes with U+FFFD would corrupt them.
pub fn decode(bytes: &[u8]) -> Result<&str, InvalidUtf8> {
    std::str::from_utf8(bytes).map_err(|e| {
        let offset = e.valid_up_to();
        InvalidUtf8 {
            offset,
            byte: bytes.get(offset).copied().unwrap_or(0),
            line: 1 + bytes[..offset].iter().filter(|&&b| b == b'\n').count(),
        }
    })
}
