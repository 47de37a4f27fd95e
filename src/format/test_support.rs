//! Helpers the format modules' unit tests share: patching bytes of a
//! sample file and checking which field and offset an error names.

use super::error::FormatResult;

/// Writes `value` little-endian over `bytes[at..at + 4]`.
pub fn put_u32(bytes: &mut [u8], at: usize, value: u32) {
    bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
}

/// Asserts that `result` is an error naming `field` at byte `offset`.
#[track_caller]
pub fn assert_error<T: core::fmt::Debug>(result: FormatResult<T>, field: &str, offset: u64) {
    match result {
        Ok(value) => panic!("expected {field} at {offset}, got Ok({value:?})"),
        Err(err) => assert_eq!((err.field, err.offset), (field, offset), "{err}"),
    }
}
