//! Embedded files for the page: text shown as text, anything else as a hex
//! dump of its first bytes.
//!
//! An embed is copied verbatim, so it may be anything. The first
//! [`TEXT_LIMIT`] bytes are looked at: when they are UTF-8 (a character cut
//! at the limit aside) with no NUL and few control characters, the file is
//! text and those bytes are answered as a string, with `truncated` set when
//! the file is longer. Otherwise the first [`HEX_LIMIT`] bytes are answered
//! as a hex dump.

use serde_json::{Value, json};

/// The most bytes of a text embed the page is sent.
pub const TEXT_LIMIT: usize = 64 * 1024;

/// The most bytes of a binary embed shown as hex.
pub const HEX_LIMIT: usize = 512;

/// The page's view of the embedded file `bytes` at `path`.
pub fn embed_json(path: &str, bytes: &[u8]) -> Value {
    match text_of(bytes) {
        Some(text) => json!({
            "path": path,
            "bytes": bytes.len(),
            "text": true,
            "content": text,
            "shown_bytes": text.len(),
            "truncated": text.len() < bytes.len(),
        }),
        None => {
            let shown = &bytes[..bytes.len().min(HEX_LIMIT)];
            json!({
                "path": path,
                "bytes": bytes.len(),
                "text": false,
                "hex": hex_dump(shown),
                "shown_bytes": shown.len(),
                "truncated": shown.len() < bytes.len(),
            })
        }
    }
}

/// The first [`TEXT_LIMIT`] bytes as text, when they are text: valid UTF-8
/// (a character cut by the limit is dropped), no NUL, and control
/// characters other than tab, line feed, carriage return and form feed in
/// at most one byte of a hundred.
pub fn text_of(bytes: &[u8]) -> Option<&str> {
    let cut = bytes.len() > TEXT_LIMIT;
    let head = &bytes[..bytes.len().min(TEXT_LIMIT)];
    let text = match std::str::from_utf8(head) {
        Ok(text) => text,
        // Only a character the limit cut in two may be incomplete.
        Err(e) if cut && e.error_len().is_none() => {
            std::str::from_utf8(&head[..e.valid_up_to()]).ok()?
        }
        Err(_) => return None,
    };
    let controls = text
        .chars()
        .filter(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r' | '\x0c'))
        .count();
    let binary = text.contains('\0') || controls * 100 > text.len();
    (!binary).then_some(text)
}

/// `bytes` as lines of 16: offset, hex bytes, and the printable ASCII.
pub fn hex_dump(bytes: &[u8]) -> String {
    bytes
        .chunks(16)
        .enumerate()
        .map(|(row, chunk)| {
            let hex: Vec<String> = chunk.iter().map(|b| format!("{b:02x}")).collect();
            let ascii: String = chunk
                .iter()
                .map(|&b| {
                    if b.is_ascii_graphic() || b == b' ' {
                        b as char
                    } else {
                        '.'
                    }
                })
                .collect();
            format!("{:08x}  {:<47}  |{ascii}|\n", row * 16, hex.join(" "))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_shown_as_text_and_cut_at_the_limit() {
        let shown = embed_json("data/a.json", b"{ \"name\": \"caf\xc3\xa9\" }\n");
        assert_eq!(shown["text"], true);
        assert_eq!(shown["content"], "{ \"name\": \"café\" }\n");
        assert_eq!(shown["truncated"], false);

        // A two-byte character straddling the limit is dropped, not refused.
        let mut long = vec![b'a'; TEXT_LIMIT - 1];
        long.extend("é and more".as_bytes());
        let shown = embed_json("data/long.txt", &long);
        assert_eq!(shown["text"], true);
        assert_eq!(shown["shown_bytes"], TEXT_LIMIT - 1);
        assert_eq!(shown["truncated"], true);
        assert_eq!(shown["bytes"], long.len());
    }

    #[test]
    fn binary_is_a_hex_dump() {
        let bytes: Vec<u8> = (0..=255).cycle().take(1000).collect();
        let shown = embed_json("data/blob.bin", &bytes);
        assert_eq!(shown["text"], false);
        assert!(shown.get("content").is_none());
        let hex = shown["hex"].as_str().unwrap();
        assert_eq!(hex.lines().count(), HEX_LIMIT / 16);
        assert!(hex.starts_with("00000000  00 01 02 03"), "{hex}");
        assert!(hex.lines().nth(2).unwrap().ends_with("| !\"#$%&'()*+,-./|"));
        assert_eq!(shown["truncated"], true);
        // Invalid UTF-8 and NUL-laden text are binary.
        assert_eq!(text_of(b"ok \xff\xfe"), None);
        assert_eq!(text_of(b"a\0b"), None);
        assert_eq!(text_of(b"tabs\tand\r\nlines"), Some("tabs\tand\r\nlines"));
    }
}
