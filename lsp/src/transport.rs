//! The base protocol's framing: `Content-Length: N\r\n\r\n` then N bytes of JSON, both ways.
//!
//! Written here rather than taken from `lsp-server`, whose reader ends the connection on the
//! first malformed header or body (and allocates whatever `Content-Length` claims): an editor
//! session must survive anything on its input. This reader never allocates more than
//! [`MAX_BODY`] (plus a header line) for one message; on a header it cannot use (missing,
//! non-numeric, negative or absurd length, over-long header) it reports the problem and
//! resynchronises on the next `Content-Length:` it finds, discarding the bytes in between as
//! they arrive. A message shorter than its header said is noticed when the next message's
//! header shows up inside its body (a header's raw line breaks cannot be part of JSON): it is
//! skipped and the next message read whole, without waiting for bytes that will not come.

use std::io::{Read, Write};

/// The largest body read. Full-document synchronisation sends a whole text per change, with
/// JSON escaping: 64 MiB is far above any source file an editor would send, and below what
/// would exhaust a robot's memory. Longer bodies are skipped without being stored.
pub const MAX_BODY: usize = 64 << 20;

/// The longest header block kept while looking for its end.
const MAX_HEADER: usize = 8 << 10;

const HEADER: &[u8] = b"content-length:";

/// What the framer found in the input.
#[derive(Debug, PartialEq, Eq)]
pub enum Frame {
    /// A complete body.
    Body(Vec<u8>),
    /// Bytes that were not a usable message, and why (for the log).
    Skipped { bytes: usize, why: String },
}

/// An incremental reader of framed messages: bytes in, frames out.
#[derive(Default)]
pub struct Framer {
    buf: Vec<u8>,
    state: State,
}

#[derive(Default, Debug)]
enum State {
    /// Reading a header block.
    #[default]
    Header,
    /// Reading a body of this length (the first `scanned` bytes hold no header).
    Body { len: usize, scanned: usize },
    /// Discarding input until the next `Content-Length:`; counts what was discarded.
    Resync { skipped: usize, why: String },
}

impl Framer {
    pub fn new() -> Framer {
        Framer::default()
    }

    /// Adds input and returns the frames it completes.
    pub fn push(&mut self, bytes: &[u8], out: &mut Vec<Frame>) {
        self.buf.extend_from_slice(bytes);
        loop {
            let progressed = match std::mem::take(&mut self.state) {
                State::Header => self.header(),
                State::Body { len, scanned } => self.body(len, scanned, out),
                State::Resync { skipped, why } => self.resync(skipped, why, out),
            };
            if !progressed {
                return;
            }
        }
    }

    /// The end of the input: what is left is reported as skipped.
    pub fn finish(&mut self, out: &mut Vec<Frame>) {
        let pending = self.buf.len();
        match std::mem::take(&mut self.state) {
            State::Resync { skipped, why } => out.push(Frame::Skipped {
                bytes: skipped + pending,
                why,
            }),
            _ if pending > 0 => out.push(Frame::Skipped {
                bytes: pending,
                why: "the input ended inside a message".into(),
            }),
            _ => {}
        }
        self.buf.clear();
    }

    fn header(&mut self) -> bool {
        // Blank lines between messages are tolerated.
        let lead = self
            .buf
            .iter()
            .take_while(|b| matches!(b, b'\r' | b'\n'))
            .count();
        self.buf.drain(..lead);
        let Some(end) = find(&self.buf, b"\r\n\r\n") else {
            if self.buf.len() > MAX_HEADER {
                self.state = State::Resync {
                    skipped: 0,
                    why: format!("a header longer than {MAX_HEADER} bytes"),
                };
                return true;
            }
            // A header that cannot be one is given up early (junk with no blank line).
            if !self.buf.is_empty() && !could_be_header(&self.buf) {
                self.state = State::Resync {
                    skipped: 0,
                    why: "input that is not a message header".into(),
                };
                return true;
            }
            self.state = State::Header;
            return false;
        };
        let parsed = content_length(&self.buf[..end]);
        match parsed {
            Ok(n) if n <= MAX_BODY => {
                self.buf.drain(..end + 4);
                self.state = State::Body { len: n, scanned: 0 };
            }
            Ok(n) => {
                self.buf.drain(..end + 4);
                self.state = State::Resync {
                    skipped: end + 4,
                    why: format!("a body of {n} bytes, above the limit of {MAX_BODY}"),
                };
            }
            Err(why) => {
                // Past the header's first byte, so the same header is not found again.
                self.buf.drain(..1);
                self.state = State::Resync { skipped: 1, why };
            }
        }
        true
    }

    /// Reads a body of `n` bytes; `scanned` bytes of it are known to hold no header.
    fn body(&mut self, n: usize, scanned: usize, out: &mut Vec<Frame>) -> bool {
        self.state = State::Header;
        // A message cut short: the next message's header is inside this body. A complete
        // header (raw line breaks around `Content-Length: N`) cannot be part of JSON, so
        // the body is not one and the next message starts there.
        let end = self.buf.len().min(n);
        match next_header(&self.buf, scanned.max(1), end) {
            Ok(at) => {
                self.buf.drain(..at);
                out.push(Frame::Skipped {
                    bytes: at,
                    why: "a message shorter than its Content-Length".into(),
                });
                return true;
            }
            Err(scanned) if self.buf.len() < n => {
                self.state = State::Body { len: n, scanned };
                return false;
            }
            Err(_) => {}
        }
        let rest = self.buf.split_off(n);
        let body = std::mem::replace(&mut self.buf, rest);
        out.push(Frame::Body(body));
        true
    }

    /// Drops input up to the next `Content-Length:` header; only a header's length of input
    /// is kept while it may still be arriving.
    fn resync(&mut self, skipped: usize, why: String, out: &mut Vec<Frame>) -> bool {
        match find_header(&self.buf) {
            Some(at) => {
                self.buf.drain(..at);
                out.push(Frame::Skipped {
                    bytes: skipped + at,
                    why,
                });
                self.state = State::Header;
                true
            }
            None => {
                // Keep a tail that may be the start of a header split across reads.
                let keep = HEADER.len().min(self.buf.len());
                let drop = self.buf.len() - keep;
                self.buf.drain(..drop);
                self.state = State::Resync {
                    skipped: skipped + drop,
                    why,
                };
                false
            }
        }
    }
}

/// The `Content-Length` of a header block.
fn content_length(block: &[u8]) -> Result<usize, String> {
    let text = std::str::from_utf8(block).map_err(|_| "a header that is not text".to_string())?;
    let mut length = None;
    for line in text.split("\r\n") {
        let Some((name, value)) = line.split_once(':') else {
            return Err(format!("a header line without a colon: {:?}", clip(line)));
        };
        if name.trim().eq_ignore_ascii_case("content-length") {
            let v = value.trim();
            if v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit()) {
                return Err(format!(
                    "a Content-Length that is not a number: {:?}",
                    clip(v)
                ));
            }
            // Digits only: a failure is an overflow, which is over any cap.
            length = Some(v.parse::<usize>().unwrap_or(usize::MAX));
        }
    }
    length.ok_or_else(|| "a header without Content-Length".to_string())
}

/// Whether `buf` may still grow into a header block: it starts like `Name: value`.
fn could_be_header(buf: &[u8]) -> bool {
    let line_end = find(buf, b"\r\n").unwrap_or(buf.len());
    let line = &buf[..line_end];
    match line.iter().position(|&b| b == b':') {
        Some(colon) => line[..colon]
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || *b == b'-'),
        None => line.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'-'),
    }
}

fn clip(s: &str) -> String {
    s.chars().take(40).collect()
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// The next `Content-Length:`, in any case.
fn find_header(hay: &[u8]) -> Option<usize> {
    hay.windows(HEADER.len())
        .position(|w| w.eq_ignore_ascii_case(HEADER))
}

/// The start of a complete header block (`Content-Length: N` and the blank line after it)
/// in `buf[from..to]`; else how far the search may resume next time (a header may be
/// arriving at the end).
fn next_header(buf: &[u8], from: usize, to: usize) -> Result<usize, usize> {
    let mut at = from.min(to);
    while let Some(i) = find_header(&buf[at..to]) {
        let start = at + i;
        let block_end = find(&buf[start..buf.len().min(start + MAX_HEADER)], b"\r\n\r\n");
        match block_end {
            Some(e) if content_length(&buf[start..start + e]).is_ok() => return Ok(start),
            Some(_) => at = start + 1,
            // Not complete yet: look again from here when more has arrived.
            None if buf.len() < start + MAX_HEADER => return Err(start),
            None => at = start + 1,
        }
    }
    Err(to.saturating_sub(HEADER.len()).max(at.min(to)).min(to))
}

/// Writes one message.
pub fn write_message(w: &mut impl Write, body: &[u8]) -> std::io::Result<()> {
    write!(w, "Content-Length: {}\r\n\r\n", body.len())?;
    w.write_all(body)?;
    w.flush()
}

/// Reads frames from `r` until it ends, handing each to `f` (which returns false to stop).
pub fn read_frames(r: &mut impl Read, mut f: impl FnMut(Frame) -> bool) {
    let mut framer = Framer::new();
    let mut chunk = vec![0u8; 64 << 10];
    let mut frames = Vec::new();
    loop {
        let n = match r.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        framer.push(&chunk[..n], &mut frames);
        for fr in frames.drain(..) {
            if !f(fr) {
                return;
            }
        }
    }
    framer.finish(&mut frames);
    for fr in frames.drain(..) {
        f(fr);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(input: &[u8]) -> Vec<Frame> {
        let mut f = Framer::new();
        let mut out = Vec::new();
        f.push(input, &mut out);
        f.finish(&mut out);
        out
    }

    fn msg(body: &str) -> String {
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    }

    fn bodies(fr: &[Frame]) -> Vec<String> {
        fr.iter()
            .filter_map(|f| match f {
                Frame::Body(b) => Some(String::from_utf8_lossy(b).into_owned()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn bad_headers_are_skipped_up_to_the_next_message() {
        let good = r#"{"id":1}"#;
        for bad in [
            "Content-Length: abc\r\n\r\n{}".to_string(),
            "Content-Length: -5\r\n\r\n{}".to_string(),
            "Content-Length: 1000000000000\r\n\r\n{}".to_string(),
            "Content-Length: 99999999999999999999999999\r\n\r\n".to_string(),
            "Content-Type: text\r\n\r\n{}".to_string(),
            "garbage without any header at all".to_string(),
            "no colon here\r\n\r\n".to_string(),
        ] {
            let fr = frames(format!("{bad}{}", msg(good)).as_bytes());
            assert_eq!(bodies(&fr), [good], "after {bad:.60}");
            assert!(
                fr.iter().any(|f| matches!(f, Frame::Skipped { .. })),
                "{bad:.60}"
            );
        }
    }

    #[test]
    fn a_header_that_never_ends_is_given_up() {
        let mut f = Framer::new();
        let mut out = Vec::new();
        f.push(
            format!("X: {}", "y".repeat(MAX_HEADER * 2)).as_bytes(),
            &mut out,
        );
        assert!(f.buf.len() <= MAX_HEADER, "{} bytes kept", f.buf.len());
        f.push(b"\r\n\r\n", &mut out);
        f.push(msg("{}").as_bytes(), &mut out);
        assert_eq!(bodies(&out), ["{}"]);
    }

    #[test]
    fn a_message_shorter_than_its_header_says_gives_way_to_the_next() {
        let next = r#"{"id":2,"method":"shutdown"}"#;
        let input = format!("Content-Length: 40\r\n\r\n{{\"id\":1}}{}", msg(next));
        assert_eq!(bodies(&frames(input.as_bytes())), [next]);
    }

    #[test]
    fn messages_split_anywhere_are_read_whole() {
        let input = format!(
            "{}{}",
            msg(r#"{"a":1}"#),
            msg(r#"{"b":"Content-Length: 3"}"#)
        );
        for cut in 0..input.len() {
            let mut f = Framer::new();
            let mut out = Vec::new();
            f.push(&input.as_bytes()[..cut], &mut out);
            f.push(&input.as_bytes()[cut..], &mut out);
            f.finish(&mut out);
            assert_eq!(
                bodies(&out),
                [r#"{"a":1}"#, r#"{"b":"Content-Length: 3"}"#],
                "cut at {cut}"
            );
        }
    }

    #[test]
    fn a_body_over_the_cap_is_dropped_as_it_arrives() {
        let mut f = Framer::new();
        let mut out = Vec::new();
        f.push(
            format!("Content-Length: {}\r\n\r\n", MAX_BODY + 1).as_bytes(),
            &mut out,
        );
        let chunk = vec![b'x'; 1 << 20];
        for _ in 0..(MAX_BODY >> 20) + 1 {
            f.push(&chunk, &mut out);
            assert!(f.buf.len() <= HEADER.len(), "{} bytes kept", f.buf.len());
        }
        f.push(msg("{}").as_bytes(), &mut out);
        assert_eq!(bodies(&out), ["{}"]);
    }
}
