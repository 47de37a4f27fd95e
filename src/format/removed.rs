//! `assets.removed`: the entry of a patch pack that lists the paths of its
//! base pack which the new tree no longer has.
//!
//! The payload is UTF-8 text: every removed path, sorted byte-wise with no
//! path twice, each followed by one `\n` (LF) byte, including the last. No
//! removed path gives an empty payload. Every path obeys the runtime path
//! rules of `.hman` and `.hpack` ([`check_runtime_path`]) and fits a pack's
//! 16-bit path length; a path holding a newline cannot be listed.
//!
//! [`parse_removed_list`] checks all of this and reports the byte offset of
//! the first fault; [`write_removed_list`] writes the one valid encoding of a
//! set of paths. See [`super::patch`] for how a patch pack uses the list.
//!
//! [`check_runtime_path`]: super::bytes::check_runtime_path

use super::bytes::{ByteReader, check_path_field, check_path_order};
use super::error::{FormatError, FormatResult};
use super::hpack::PackError;

/// The path of the list in a patch pack, reserved: no asset may use it.
pub const REMOVED_LIST_PATH: &str = "assets.removed";

/// The field name errors about the list give.
const FIELD: &str = "assets.removed";

/// The byte that ends every listed path.
const NEWLINE: u8 = b'\n';

/// A checked removed list, borrowing its paths from the payload.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RemovedList<'a> {
    /// The paths, strictly ascending.
    paths: Vec<&'a str>,
}

impl<'a> RemovedList<'a> {
    /// The listed paths, sorted byte-wise.
    pub fn paths(&self) -> &[&'a str] {
        &self.paths
    }

    /// Number of listed paths.
    pub fn len(&self) -> usize {
        self.paths.len()
    }

    /// Whether nothing was removed.
    pub fn is_empty(&self) -> bool {
        self.paths.is_empty()
    }

    /// Whether `path` is listed, found by binary search.
    pub fn contains(&self, path: &str) -> bool {
        self.paths.binary_search(&path).is_ok()
    }
}

/// Parses and checks the payload of an `assets.removed` entry.
///
/// Refuses bytes that are not UTF-8, a path the runtime path rules refuse
/// (an empty line among them) or longer than 65535 bytes, paths out of
/// byte order or repeated, and a last path without its newline. Offsets in
/// errors count from the start of `bytes`.
pub fn parse_removed_list(bytes: &[u8]) -> FormatResult<RemovedList<'_>> {
    let mut reader = ByteReader::new(bytes);
    let mut paths: Vec<&str> = Vec::new();
    while reader.remaining() > 0 {
        let at = reader.offset();
        let path = reader.path(line_length(bytes, at)?, FIELD)?;
        reader.u8(FIELD)?;
        if let Some(previous) = paths.last() {
            check_path_order(previous, path, at, FIELD, "paths")?;
        }
        paths.push(path);
    }
    Ok(RemovedList { paths })
}

/// The bytes from `at` to the next newline; an error when there is none or
/// the line is longer than a pack path may be.
fn line_length(bytes: &[u8], at: u64) -> FormatResult<usize> {
    let rest = usize::try_from(at)
        .ok()
        .and_then(|start| bytes.get(start..))
        .unwrap_or_default();
    let length = rest
        .iter()
        .position(|&byte| byte == NEWLINE)
        .ok_or_else(|| FormatError::new(at, FIELD, "the last path is not followed by a newline"))?;
    if length > usize::from(u16::MAX) {
        return Err(FormatError::new(
            at,
            FIELD,
            format!(
                "a path of {length} bytes exceeds the {} a pack entry can hold",
                u16::MAX
            ),
        ));
    }
    Ok(length)
}

/// The payload of an `assets.removed` entry listing `paths` (in any order).
///
/// Fails on a path twice, a path a pack could not hold (see
/// [`check_runtime_path`](super::bytes::check_runtime_path)) or one holding a
/// newline.
pub fn write_removed_list<'p>(
    paths: impl IntoIterator<Item = &'p str>,
) -> Result<Vec<u8>, PackError> {
    let mut sorted: Vec<&str> = paths.into_iter().collect();
    sorted.sort_unstable();
    if let Some(pair) = sorted.windows(2).find(|pair| pair[0] == pair[1]) {
        return Err(PackError::DuplicatePath {
            path: pair[0].to_owned(),
        });
    }
    let mut out = Vec::with_capacity(sorted.iter().map(|path| path.len() + 1).sum());
    for path in sorted {
        check_listable(path)?;
        out.extend_from_slice(path.as_bytes());
        out.push(NEWLINE);
    }
    Ok(out)
}

/// Refuses a path a pack could not hold, or one the list cannot hold.
fn check_listable(path: &str) -> Result<(), PackError> {
    check_path_field::<PackError>(path)?;
    if path.as_bytes().contains(&NEWLINE) {
        return Err(PackError::InvalidPath {
            path: path.to_owned(),
            reason: "it contains a newline, which ends a path in assets.removed",
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(bytes: &[u8]) -> Vec<&str> {
        parse_removed_list(bytes).unwrap().paths().to_vec()
    }

    /// The offset and message of the error `bytes` give.
    fn refused(bytes: &[u8]) -> (u64, String) {
        let err = parse_removed_list(bytes).unwrap_err();
        assert_eq!(err.field, "assets.removed");
        (err.offset, err.what)
    }

    #[test]
    fn an_empty_payload_lists_nothing() {
        let list = parse_removed_list(b"").unwrap();
        assert!(list.is_empty());
        assert!(!list.contains("a"));
        assert_eq!(write_removed_list([]).unwrap(), b"");
    }

    #[test]
    fn writes_sorted_paths_each_with_its_newline_and_reads_them_back() {
        let bytes = write_removed_list(["ui/b.ktx2", "Z.bin", "caf\u{e9}/x", "a b/c"]).unwrap();
        assert_eq!(bytes, "Z.bin\na b/c\ncaf\u{e9}/x\nui/b.ktx2\n".as_bytes());
        let list = parse_removed_list(&bytes).unwrap();
        assert_eq!(list.paths(), ["Z.bin", "a b/c", "caf\u{e9}/x", "ui/b.ktx2"]);
        assert_eq!(list.len(), 4);
        assert!(list.contains("a b/c") && !list.contains("a b") && !list.contains("z.bin"));
    }

    #[test]
    fn refuses_a_last_path_without_its_newline() {
        assert_eq!(refused(b"a\nb").0, 2);
        assert!(refused(b"a").1.contains("not followed by a newline"));
    }

    #[test]
    fn refuses_unsorted_and_repeated_paths_at_the_later_line() {
        let (at, what) = refused(b"a\nc\nb\n");
        assert_eq!(at, 4);
        assert!(what.contains("not sorted"), "{what}");
        let (at, what) = refused(b"a\nb\nb\n");
        assert_eq!(at, 4);
        assert!(what.contains("twice"), "{what}");
        // Byte order: "B" (0x42) sorts before "a" (0x61).
        assert_eq!(parsed(b"B\na\n"), ["B", "a"]);
        assert_eq!(refused(b"a\nB\n").0, 2);
    }

    #[test]
    fn refuses_unclean_paths_and_empty_lines() {
        for (bytes, at) in [
            (&b"\n"[..], 0),
            (b"a\n\n", 2),
            (b"/a\n", 0),
            (b"a\\b\n", 0),
            (b"a/../b\n", 0),
            (b"a//b\n", 0),
            (b"a/\n", 0),
            (b"x\n./a\n", 2),
            (b"a\0b\n", 0),
        ] {
            let (offset, what) = refused(bytes);
            assert_eq!(offset, at, "{bytes:?}");
            assert!(what.contains("invalid path"), "{bytes:?}: {what}");
        }
    }

    #[test]
    fn refuses_bytes_that_are_not_utf8_where_they_stop_being_so() {
        let (at, what) = refused(b"ok\nab\xc3(\n");
        assert_eq!(at, 5);
        assert!(what.contains("UTF-8"), "{what}");
    }

    #[test]
    fn refuses_a_path_longer_than_a_pack_path() {
        let longest = "p".repeat(usize::from(u16::MAX));
        let bytes = write_removed_list([longest.as_str()]).unwrap();
        assert_eq!(parsed(&bytes), [longest.as_str()]);
        let too_long = format!("{longest}p\n");
        let (at, what) = refused(too_long.as_bytes());
        assert_eq!(at, 0);
        assert!(what.contains("65536 bytes"), "{what}");
        let err = write_removed_list([&too_long[..too_long.len() - 1]]).unwrap_err();
        assert!(matches!(err, PackError::PathTooLong { .. }), "{err}");
    }

    #[test]
    fn the_writer_refuses_what_the_reader_would() {
        let err = write_removed_list(["a", "b", "a"]).unwrap_err();
        assert_eq!(err, PackError::DuplicatePath { path: "a".into() });
        for bad in ["", "a/./b", "/a"] {
            let err = write_removed_list([bad]).unwrap_err();
            assert!(
                matches!(err, PackError::InvalidPath { .. }),
                "{bad:?}: {err}"
            );
        }
        let err = write_removed_list(["two\nlines"]).unwrap_err();
        assert!(err.to_string().contains("newline"), "{err}");
    }

    #[test]
    fn survives_every_truncation_and_byte_value() {
        let bytes = write_removed_list(["a/b", "c", "d\u{e9}/e"]).unwrap();
        for len in 0..bytes.len() {
            let _ = parse_removed_list(&bytes[..len]);
        }
        for at in 0..bytes.len() {
            for value in 0..=255u8 {
                let mut damaged = bytes.clone();
                damaged[at] = value;
                if let Ok(list) = parse_removed_list(&damaged) {
                    let again = write_removed_list(list.paths().iter().copied()).unwrap();
                    assert_eq!(again, damaged, "the writer must reproduce an accepted list");
                }
            }
        }
    }
}
