//! Inspection of compiled output: `assetc info` and `assetc pack info` and
//! `diff`, which only read; and `assetc pack patch`, which writes a patch
//! pack from two packs.
//!
//! * [`stats`] turns one file's bytes into the figures worth showing (vertex
//!   counts, texture formats, manifest kinds, ...), judged by its extension and
//!   read with the engine-side readers of [`crate::format`];
//! * [`info`] walks an output folder, adds the figures up and prints them as
//!   text or as JSON (schema `assetc-info/1`);
//! * [`pack_info`] breaks a `.hpack` down by layout, kind and entry (schema
//!   `assetc-pack-info/1`);
//! * [`pack_diff`] compares two packs entry by entry and figures what a chunk
//!   patcher would ship (schema `assetc-pack-diff/1`);
//! * [`pack_patch`] writes the patch pack that turns one pack into another
//!   when mounted above it.
//!
//! Ids are printed as `0x`-prefixed 16-digit hex strings, in JSON too, because
//! a JSON number cannot hold every 64-bit value exactly.

pub mod command;
pub mod info;
pub mod pack_diff;
pub mod pack_info;
pub mod pack_patch;
pub mod stats;

/// `bytes` for people: `812 B`, `4.0 KiB`, `1.3 MiB`, `2.0 GiB`.
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_counts_pick_the_largest_whole_unit() {
        assert_eq!(human_bytes(0), "0 B");
        assert_eq!(human_bytes(1023), "1023 B");
        assert_eq!(human_bytes(1024), "1.0 KiB");
        assert_eq!(human_bytes(1536), "1.5 KiB");
        assert_eq!(human_bytes(3 << 20), "3.0 MiB");
        assert_eq!(human_bytes(5 << 30), "5.0 GiB");
    }
}
