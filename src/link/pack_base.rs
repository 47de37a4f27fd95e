//! The shipped pack a new pack is laid out over (`--base`), indexed.
//!
//! The layout ([`crate::format::hpack_layout`]) needs, for each path, where
//! the base keeps its payload and whether the bytes there are the new file's.
//! So the base is read once, validated whole with [`hpack::parse`] (a base is
//! a file from elsewhere, never trusted), and every payload is hashed with
//! BLAKE3; the new files' digests are the ones the pack step has anyway
//! (recorded by their encoders, or hashed as they are read).
//!
//! Hashing a 140 MB base takes longer than the rest of an incremental pack
//! step, and the base rarely changes: the index is kept beside the pack's
//! state, in `<list>.base`, with the base file's identity
//! ([`super::pack_state`]), and is used again while the base keeps that
//! identity. A missing or damaged index, or a base with another identity,
//! means reading and hashing the base again.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use super::LinkError;
use super::pack_state::{Identity, identity_of};
use crate::format::hpack::{self, HEADER_BYTES};
use crate::format::hpack_layout::{BasePlace, BaseShape};
use crate::fsutil;

/// The first line of an index file.
const HEADER: &str = "assetc-pack-base 1";

/// One payload of the base.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct BaseEntry {
    /// Where it starts.
    offset: u64,
    /// Its size.
    size: u64,
    /// The BLAKE3 of its bytes.
    digest: blake3::Hash,
}

/// The base pack's shape and its payloads by path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaseIndex {
    /// The end of the base's TOC region.
    pub shape: BaseShape,
    /// Every entry, by path.
    entries: HashMap<String, BaseEntry>,
}

/// Where the index of the base of the pack built from `list` is kept.
pub fn index_path(list: &Path) -> PathBuf {
    let mut name = list.as_os_str().to_owned();
    name.push(".base");
    name.into()
}

impl BaseIndex {
    /// The index of the base pack at `base`: the one saved at `index` when
    /// it describes the file as it is, else built by reading and validating
    /// the whole base (and saved there).
    pub fn load(base: &Path, index: &Path) -> Result<Self, LinkError> {
        let identity = identity_of(base);
        if let Some(saved) = identity.and_then(|id| Self::read_saved(index, id)) {
            return Ok(saved);
        }
        let built = Self::build(base)?;
        match identity.filter(|&id| identity_of(base) == Some(id)) {
            Some(id) => built.save(index, id),
            None => {
                let _ = fs::remove_file(index);
            }
        }
        Ok(built)
    }

    /// What the base holds at `path`, given the new file's size and digest
    /// (`None` when it is not known, which never counts as the same bytes).
    pub fn place(&self, path: &str, size: u64, digest: Option<&blake3::Hash>) -> Option<BasePlace> {
        let entry = self.entries.get(path)?;
        Some(BasePlace {
            offset: entry.offset,
            same_bytes: entry.size == size && digest == Some(&entry.digest),
        })
    }

    /// Reads the base whole, validates it and hashes its payloads.
    fn build(base: &Path) -> Result<Self, LinkError> {
        let bytes = fsutil::read(base)?;
        let pack = hpack::parse(&bytes).map_err(|e| LinkError::Invalid {
            path: base.to_owned(),
            what: "is not a valid pack to lay the new one over (--base)".into(),
            source: Some(Box::new(e)),
        })?;
        let mut digests: HashMap<(u64, u64), blake3::Hash> = HashMap::new();
        let mut entries = HashMap::with_capacity(pack.len());
        for entry in pack.iter() {
            let digest = *digests
                .entry((entry.offset, entry.size))
                .or_insert_with(|| blake3::hash(pack.data(&entry)));
            let place = BaseEntry {
                offset: entry.offset,
                size: entry.size,
                digest,
            };
            entries.insert(entry.path.to_owned(), place);
        }
        let toc_end = HEADER_BYTES as u64 + pack.toc_bytes();
        let payload_start = pack.iter().map(|e| e.offset).min().unwrap_or(toc_end);
        Ok(Self {
            shape: BaseShape { payload_start },
            entries,
        })
    }

    /// The index saved at `path` for a base of identity `identity`; `None`
    /// when there is none, it is damaged, or it describes another file.
    fn read_saved(path: &Path, identity: Identity) -> Option<Self> {
        let text = fs::read_to_string(path).ok()?;
        let mut lines = text.lines();
        if lines.next()? != HEADER || lines.next()? != identity_line(identity) {
            return None;
        }
        let payload_start = lines.next()?.strip_prefix("payload_start ")?.parse().ok()?;
        let mut entries = HashMap::new();
        for line in lines {
            let mut fields = line.strip_prefix("entry ")?.splitn(4, ' ');
            let offset = fields.next()?.parse().ok()?;
            let size = fields.next()?.parse().ok()?;
            let digest = blake3::Hash::from_hex(fields.next()?).ok()?;
            let path = fields.next()?.to_owned();
            let entry = BaseEntry {
                offset,
                size,
                digest,
            };
            entries.insert(path, entry);
        }
        Some(Self {
            shape: BaseShape { payload_start },
            entries,
        })
    }

    /// Saves the index for a base of identity `identity`; a failure only
    /// costs the next step the shortcut, so it is not reported.
    fn save(&self, path: &Path, identity: Identity) {
        let mut text = format!(
            "{HEADER}\n{}\npayload_start {}\n",
            identity_line(identity),
            self.shape.payload_start
        );
        let mut entries: Vec<_> = self.entries.iter().collect();
        entries.sort_by(|a, b| a.0.cmp(b.0));
        for (entry_path, entry) in entries {
            text.push_str(&format!(
                "entry {} {} {} {entry_path}\n",
                entry.offset,
                entry.size,
                entry.digest.to_hex()
            ));
        }
        if fsutil::write_atomic(path, text.as_bytes()).is_err() {
            let _ = fs::remove_file(path);
        }
    }
}

/// The line naming the base file's identity.
fn identity_line(identity: Identity) -> String {
    format!("base {identity}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::hpack::{PackItem, write_pack};

    fn base_pack(dir: &Path) -> PathBuf {
        let items = [
            PackItem::new("a.bin", b"first"),
            PackItem::new("b.bin", b"second"),
            PackItem::new("c.bin", b"first"),
        ];
        let path = dir.join("base.hpack");
        fs::write(&path, write_pack(&items).unwrap()).unwrap();
        path
    }

    #[test]
    fn an_index_tells_kept_bytes_from_changed_ones_and_is_reused() {
        let dir = tempfile::tempdir().unwrap();
        let base = base_pack(dir.path());
        let index = dir.path().join("list.base");
        let built = BaseIndex::load(&base, &index).unwrap();
        assert!(index.exists());
        assert_eq!(BaseIndex::load(&base, &index).unwrap(), built);
        let first = blake3::hash(b"first");
        let place = built.place("c.bin", 5, Some(&first)).unwrap();
        assert!(place.same_bytes);
        assert_eq!(
            Some(place.offset),
            built.place("a.bin", 5, None).map(|p| p.offset)
        );
        assert!(!built.place("a.bin", 5, None).unwrap().same_bytes);
        assert!(!built.place("b.bin", 6, Some(&first)).unwrap().same_bytes);
        assert_eq!(built.place("d.bin", 5, Some(&first)), None);
    }

    #[test]
    fn a_saved_index_of_another_file_is_not_used() {
        let dir = tempfile::tempdir().unwrap();
        let base = base_pack(dir.path());
        let index = dir.path().join("list.base");
        BaseIndex::load(&base, &index).unwrap();
        let items = [PackItem::new("a.bin", b"other bytes")];
        fs::write(&base, write_pack(&items).unwrap()).unwrap();
        let rebuilt = BaseIndex::load(&base, &index).unwrap();
        assert_eq!(rebuilt.entries.len(), 1);
        assert!(
            rebuilt
                .place("a.bin", 11, Some(&blake3::hash(b"other bytes")))
                .unwrap()
                .same_bytes
        );
    }

    #[test]
    fn a_damaged_saved_index_is_rebuilt_from_the_base() {
        let dir = tempfile::tempdir().unwrap();
        let base = base_pack(dir.path());
        let index = dir.path().join("list.base");
        let built = BaseIndex::load(&base, &index).unwrap();
        let text = fs::read_to_string(&index).unwrap();
        let damaged = text.replace("entry ", "entry x");
        fs::write(&index, damaged).unwrap();
        assert_eq!(BaseIndex::load(&base, &index).unwrap(), built);
        assert_eq!(fs::read_to_string(&index).unwrap(), text, "saved again");
    }

    #[test]
    fn a_base_that_is_not_a_pack_is_refused_with_its_name() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().join("shipped.hpack");
        fs::write(&base, b"HPAK but not really a pack").unwrap();
        let error = BaseIndex::load(&base, &dir.path().join("i")).unwrap_err();
        let text = crate::encode::job::chained_message(&error);
        assert!(
            text.contains("shipped.hpack") && text.contains("--base"),
            "{text}"
        );
    }
}
