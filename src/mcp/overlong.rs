//! The id of a message longer than the server reads (issue 51 §13). Such a line is not kept,
//! so it cannot be parsed; but a client waits for the answer to its request's id, and an
//! answer with `"id": null` leaves it waiting forever. [`IdScan`] reads the line's bytes as
//! they stream past, keeping nothing but its place in the JSON, and finds the top-level
//! `"id"` wherever it stands (before or after a huge `params`).

use serde_json::Value;

/// The longest id value kept (a longer one is no usable id).
const MAX_ID_BYTES: usize = 1024;

/// What the scan knows so far.
#[derive(Debug, Clone, PartialEq)]
pub enum Found {
    /// Not yet known: more bytes may hold the id.
    Scanning,
    /// The top-level `"id"`: a string or an integer, as JSON-RPC allows.
    Id(Value),
    /// The line has no usable id (not an object, the object ended without one, or its id is
    /// null, fractional, an object or too long).
    None,
}

/// Where the scan is inside the top-level object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    Key,
    Colon,
    Value,
    /// After a value, before `,` or `}`.
    Next,
}

/// A streaming reader of the top-level `"id"` of one JSON object (see the module docs).
#[derive(Debug)]
pub struct IdScan {
    started: bool,
    depth: usize,
    in_string: bool,
    escaped: bool,
    expect: Expect,
    /// The key being read at depth 1 (only its first bytes: enough to tell `id`).
    key: Vec<u8>,
    /// The value after the key `id` is being read.
    is_id: bool,
    /// The id value's raw bytes while it is read.
    capture: Option<Vec<u8>>,
    found: Found,
}

impl Default for IdScan {
    fn default() -> Self {
        IdScan {
            started: false,
            depth: 0,
            in_string: false,
            escaped: false,
            expect: Expect::Key,
            key: Vec::new(),
            is_id: false,
            capture: None,
            found: Found::Scanning,
        }
    }
}

impl IdScan {
    /// What is known after the bytes fed so far.
    pub fn found(&self) -> &Found {
        &self.found
    }

    /// The id to answer with: the one found, else `null`.
    pub fn id(&self) -> Value {
        match &self.found {
            Found::Id(v) => v.clone(),
            _ => Value::Null,
        }
    }

    /// Reads `bytes`, the next part of the line (no line break in it); stops as soon as the
    /// answer is known.
    pub fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if self.found != Found::Scanning {
                return;
            }
            self.byte(b);
        }
    }

    /// The line ended: an id not found by now is not there.
    pub fn end(&mut self) {
        if self.found == Found::Scanning && !self.in_string {
            self.finish_capture();
        }
        if self.found == Found::Scanning {
            self.found = Found::None;
        }
    }

    fn byte(&mut self, b: u8) {
        if !self.started {
            match b {
                b'{' => {
                    self.started = true;
                    self.depth = 1;
                }
                // A UTF-8 byte order mark, and blanks, before the object.
                b' ' | b'\t' | b'\r' | 0xEF | 0xBB | 0xBF => {}
                _ => self.found = Found::None,
            }
            return;
        }
        if self.in_string {
            self.string_byte(b);
            return;
        }
        if let Some(c) = &mut self.capture {
            // A number or literal ends at the first byte that cannot continue it.
            if matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\r') {
                self.finish_capture();
                return;
            } else {
                c.push(b);
                if c.len() > MAX_ID_BYTES {
                    self.found = Found::None;
                }
                return;
            }
        }
        let top = self.depth == 1;
        match b {
            b'"' => {
                self.in_string = true;
                if top && self.expect == Expect::Key {
                    self.key.clear();
                } else if top && self.expect == Expect::Value && self.is_id {
                    self.capture = Some(vec![b'"']);
                }
            }
            b'{' | b'[' => {
                if top && self.expect == Expect::Value {
                    if self.is_id {
                        self.found = Found::None;
                    }
                    self.expect = Expect::Next;
                }
                self.depth += 1;
            }
            b'}' | b']' => {
                self.depth = self.depth.saturating_sub(1);
                if self.depth == 0 {
                    self.found = Found::None;
                }
            }
            b':' if top && self.expect == Expect::Colon => self.expect = Expect::Value,
            b',' if top => {
                self.expect = Expect::Key;
                self.is_id = false;
            }
            b' ' | b'\t' | b'\r' => {}
            _ if top && self.expect == Expect::Value => {
                if self.is_id {
                    self.capture = Some(vec![b]);
                }
                self.expect = Expect::Next;
            }
            _ => {}
        }
    }

    fn string_byte(&mut self, b: u8) {
        let top = self.depth == 1;
        let closing = !self.escaped && b == b'"';
        self.escaped = !self.escaped && b == b'\\';
        if let Some(c) = &mut self.capture {
            c.push(b);
            if c.len() > MAX_ID_BYTES {
                self.found = Found::None;
                return;
            }
        } else if top && self.expect == Expect::Key && !closing && self.key.len() < 8 {
            self.key.push(b);
        }
        if !closing {
            return;
        }
        self.in_string = false;
        if !top {
            return;
        }
        match self.expect {
            Expect::Key => {
                self.is_id = self.key == b"id";
                self.expect = Expect::Colon;
            }
            Expect::Value => {
                self.expect = Expect::Next;
                if self.capture.is_some() {
                    self.finish_capture();
                }
            }
            _ => {}
        }
    }

    fn finish_capture(&mut self) {
        let Some(raw) = self.capture.take() else {
            return;
        };
        self.found = match serde_json::from_slice::<Value>(&raw) {
            Ok(v) if v.is_string() || v.is_i64() || v.is_u64() => Found::Id(v),
            _ => Found::None,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The id of `line` fed in pieces of `step` bytes.
    fn id_of(line: &str, step: usize) -> Found {
        let mut s = IdScan::default();
        for part in line.as_bytes().chunks(step) {
            s.feed(part);
        }
        s.end();
        s.found().clone()
    }

    #[test]
    fn the_top_level_id_is_found_wherever_it_stands() {
        let big = "x".repeat(5000);
        for step in [1, 3, 4096] {
            for (line, want) in [
                (
                    format!(r#"{{"jsonrpc":"2.0","id":7,"method":"m","params":{{"r":"{big}"}}}}"#),
                    Found::Id(json!(7)),
                ),
                (
                    format!(
                        r#"{{"method":"m","params":{{"id":1,"r":"{big}\"}}","a":[{{"id":2}}]}},"id" : "req-\"9\""}}"#
                    ),
                    Found::Id(json!("req-\"9\"")),
                ),
                (
                    format!(r#"{{"params":{{"r":"{big}"}},"id":12}}"#),
                    Found::Id(json!(12)),
                ),
                (
                    format!("\u{feff}{{ \"id\"\t:\t\"a\\u0062\" , \"params\": \"{big}\"}}"),
                    Found::Id(json!("ab")),
                ),
                // A notification, nested ids only, a null or fractional id, not an object.
                (
                    format!(r#"{{"method":"m","params":{{"id":3,"r":"{big}"}}}}"#),
                    Found::None,
                ),
                (format!(r#"{{"id":null,"r":"{big}"}}"#), Found::None),
                (format!(r#"{{"id":1.5,"r":"{big}"}}"#), Found::None),
                (format!(r#"{{"id":{{"a":1}},"r":"{big}"}}"#), Found::None),
                (format!(r#"[{{"id":1,"r":"{big}"}}]"#), Found::None),
                (format!(r#"{{"idx":1,"r":"{big}""#), Found::None),
            ] {
                assert_eq!(id_of(&line, step), want, "step {step}: {}", &line[..60]);
            }
        }
        // Known as soon as it is read: the rest is not needed.
        let mut s = IdScan::default();
        s.feed(br#"{"jsonrpc":"2.0","id":"abc","params":{"#);
        assert_eq!(s.found(), &Found::Id(json!("abc")));
        // A number is known at the byte that ends it.
        let mut s = IdScan::default();
        s.feed(br#"{"id":42"#);
        assert_eq!(s.found(), &Found::Scanning);
        s.feed(b",");
        assert_eq!(s.id(), json!(42));
    }
}
