//! The 64-bit asset id shared by every file assetc writes.
//!
//! Material refs in `.hmesh`, texture refs in `.hmat` and the keys of
//! `assets.hman` all live in one hash space: FNV-1a 64 computed over the ref
//! string after folding ASCII `A`–`Z` to lowercase. Folding inside the hash means
//! `Court/TEX_0` and `court/tex_0` name the same asset even when a caller forgot
//! to normalise; bytes outside `A`–`Z` (including UTF-8 sequences) are hashed
//! unchanged.

/// FNV-1a 64 starting value (the hash of the empty string).
const FNV_OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a 64 multiplier.
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// Hashes an asset ref: FNV-1a 64 over its bytes with ASCII `A`–`Z` lowercased.
///
/// This is the id stored in `.hmesh`/`.hmat` refs and as the key of every
/// manifest entry. Which string to pass for a given runtime file is decided by
/// [`AssetKind::hash_ref`](super::kind::AssetKind::hash_ref).
///
/// ```
/// use assetc::format::hash::asset_hash;
/// assert_eq!(asset_hash("court/tex_0"), 0xad44_c4a2_9704_95b9);
/// assert_eq!(asset_hash("Court/TEX_0"), asset_hash("court/tex_0"));
/// ```
pub const fn asset_hash(s: &str) -> u64 {
    let bytes = s.as_bytes();
    let mut hash = FNV_OFFSET_BASIS;
    let mut i = 0;
    while i < bytes.len() {
        hash ^= bytes[i].to_ascii_lowercase() as u64;
        hash = hash.wrapping_mul(FNV_PRIME);
        i += 1;
    }
    hash
}

/// A 64-bit id as printed everywhere: `0x` and 16 lowercase hex digits.
pub fn hex_id(id: u64) -> String {
    format!("{id:#018x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_published_vectors() {
        assert_eq!(asset_hash(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(asset_hash("a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(asset_hash("court/tex_0"), 0xad44_c4a2_9704_95b9);
    }

    #[test]
    fn folds_ascii_case_only() {
        assert_eq!(asset_hash("Court/TEX_0"), asset_hash("court/tex_0"));
        assert_eq!(asset_hash("A"), asset_hash("a"));
        // Non-letters and non-ASCII bytes are not folded.
        assert_ne!(asset_hash("É"), asset_hash("é"));
        assert_ne!(asset_hash("["), asset_hash("{"));
    }

    #[test]
    fn is_usable_in_const_context() {
        const ID: u64 = asset_hash("a");
        assert_eq!(ID, 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn differs_for_different_refs() {
        assert_ne!(asset_hash("court/tex_0"), asset_hash("court/tex_1"));
        assert_ne!(asset_hash("ab"), asset_hash("ba"));
    }

    #[test]
    fn ids_print_as_fixed_width_hex() {
        assert_eq!(hex_id(0x1f), "0x000000000000001f");
        assert_eq!(hex_id(u64::MAX), "0xffffffffffffffff");
    }
}
