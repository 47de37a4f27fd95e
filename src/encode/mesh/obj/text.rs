//! Line handling shared by the OBJ and MTL readers.

/// What is wrong at one line of an OBJ or MTL file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct LineError {
    /// One-based line number.
    pub line: usize,
    /// What is wrong.
    pub what: String,
}

/// Decodes a file's bytes: a UTF-8 byte-order mark is dropped, and bytes that
/// are not UTF-8 (a Latin-1 comment or name, say) become U+FFFD rather than
/// failing the whole file.
pub(super) fn decode(bytes: &[u8]) -> String {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    String::from_utf8_lossy(bytes).into_owned()
}

/// A line's statement: the text before its comment, trimmed. A `#` at the
/// start of the line or after whitespace begins a comment, so a name such as
/// `tex#1.png` survives.
pub(super) fn statement(raw: &str) -> &str {
    let mut previous_is_space = true;
    for (offset, ch) in raw.char_indices() {
        if ch == '#' && previous_is_space {
            return raw.get(..offset).unwrap_or(raw).trim();
        }
        previous_is_space = ch.is_whitespace();
    }
    raw.trim()
}

/// Splits a statement into its keyword and the trimmed rest; `None` for an
/// empty statement.
pub(super) fn split_keyword(statement: &str) -> Option<(&str, &str)> {
    if statement.is_empty() {
        return None;
    }
    Some(match statement.split_once(char::is_whitespace) {
        Some((keyword, rest)) => (keyword, rest.trim()),
        None => (statement, ""),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_start_at_a_word() {
        assert_eq!(statement("  Kd 1 1 1 # white\r"), "Kd 1 1 1");
        assert_eq!(statement("map_Kd tex#1.png"), "map_Kd tex#1.png");
        assert_eq!(statement("# only a comment"), "");
        assert_eq!(
            split_keyword("usemtl\tWood Dark"),
            Some(("usemtl", "Wood Dark"))
        );
        assert_eq!(split_keyword("g"), Some(("g", "")));
        assert_eq!(split_keyword(""), None);
    }

    #[test]
    fn decoding_drops_the_bom_and_survives_latin1() {
        assert_eq!(decode(b"\xEF\xBB\xBFv 1 2 3"), "v 1 2 3");
        assert_eq!(decode(b"o caf\xE9"), "o caf\u{FFFD}");
    }
}
