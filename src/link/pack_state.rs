//! What a pack step remembers of the pack it wrote, so that the next step can
//! take the entries of unchanged parts without hashing them again.
//!
//! After writing (or keeping) a pack, the step records beside its list of
//! parts, in `<list>.state`:
//!
//! - the pack file's identity: device, inode, size, and modification and
//!   change times to the nanosecond;
//! - a BLAKE3 of each part file the pack was built from.
//!
//! On the next run, a pack file with the same identity holds exactly the bytes
//! written then: writing to it, or putting another file in its place, changes
//! its change time (which no tool can set back) or its inode. A part whose
//! bytes still hash as recorded lists the same files with the same recorded
//! hashes, so their entries in the old pack are what a clean build would put
//! there. Entries of other parts are verified against their recorded hash, as
//! they always were. A missing, unreadable or foreign record, or a pack with
//! another identity, means every entry is verified; on a platform without
//! inode numbers no record is trusted.
//!
//! Hashing the reused entries was the largest cost of rewriting a big pack
//! after an edit that left most of it unchanged.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use crate::fsutil;

/// The first line of a state file.
const HEADER: &str = "assetc-pack-state 1";

/// The identity of a file: equal identities mean unchanged bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Identity([i64; 7]);

impl std::fmt::Display for Identity {
    /// The numbers, separated by spaces, as state files hold them.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let numbers: Vec<String> = self.0.iter().map(i64::to_string).collect();
        f.write_str(&numbers.join(" "))
    }
}

/// The pack a step left behind and the parts it was built from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackState {
    /// The pack file as written.
    pub pack: Identity,
    /// Each part file, as listed, and the BLAKE3 of its bytes.
    pub parts: HashMap<String, blake3::Hash>,
}

/// Where the state of the pack built from `list` is kept.
pub fn state_path(list: &Path) -> PathBuf {
    let mut name = list.as_os_str().to_owned();
    name.push(".state");
    name.into()
}

/// The identity of the file at `path`, or `None` when it cannot be read or
/// the platform has no inode numbers.
pub fn identity_of(path: &Path) -> Option<Identity> {
    identity_from(&fs::metadata(path).ok()?)
}

/// The identity of an open file, whatever name it has now.
pub fn identity_of_open(file: &fs::File) -> Option<Identity> {
    identity_from(&file.metadata().ok()?)
}

/// The identity the metadata describes; `None` without inode numbers.
fn identity_from(meta: &fs::Metadata) -> Option<Identity> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some(Identity([
            meta.dev() as i64,
            meta.ino() as i64,
            meta.size() as i64,
            meta.mtime(),
            meta.mtime_nsec(),
            meta.ctime(),
            meta.ctime_nsec(),
        ]))
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        None
    }
}

impl PackState {
    /// Reads the state at `path`; `None` when it is missing or not a state
    /// file this version wrote.
    pub fn load(path: &Path) -> Option<Self> {
        let text = fs::read_to_string(path).ok()?;
        let mut lines = text.lines();
        if lines.next()? != HEADER {
            return None;
        }
        let numbers: Vec<i64> = lines
            .next()?
            .strip_prefix("pack ")?
            .split(' ')
            .map(|n| n.parse().ok())
            .collect::<Option<_>>()?;
        let pack = Identity(numbers.try_into().ok()?);
        let mut parts = HashMap::new();
        for line in lines {
            let (hex, part) = line.strip_prefix("part ")?.split_once(' ')?;
            parts.insert(part.to_owned(), blake3::Hash::from_hex(hex).ok()?);
        }
        Some(Self { pack, parts })
    }

    /// Writes the state to `path` atomically; a failure only costs the next
    /// step its shortcut, so it is not reported.
    pub fn save(&self, path: &Path) {
        let mut text = format!("{HEADER}\npack {}\n", self.pack);
        let mut parts: Vec<_> = self.parts.iter().collect();
        parts.sort_by(|a, b| a.0.cmp(b.0));
        for (part, hash) in parts {
            text.push_str(&format!("part {} {part}\n", hash.to_hex()));
        }
        if fsutil::write_atomic(path, text.as_bytes()).is_err() {
            let _ = fs::remove_file(path);
        }
    }

    /// Removes the state at `path`, so nothing is trusted next time.
    pub fn forget(path: &Path) {
        let _ = fs::remove_file(path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_round_trips_and_a_damaged_one_is_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let pack = dir.path().join("p.hpack");
        fs::write(&pack, b"pack").unwrap();
        let state = PackState {
            pack: identity_of(&pack).unwrap(),
            parts: HashMap::from([
                ("link/a b.part".to_owned(), blake3::hash(b"a")),
                ("link/c.part".to_owned(), blake3::hash(b"c")),
            ]),
        };
        let path = state_path(&dir.path().join("parts.list"));
        assert!(path.ends_with("parts.list.state"));
        state.save(&path);
        assert_eq!(PackState::load(&path), Some(state));
        let text = fs::read_to_string(&path).unwrap();
        fs::write(&path, text.replace("part ", "part zz")).unwrap();
        assert_eq!(PackState::load(&path), None);
        fs::write(&path, "assetc-pack-state 2\n").unwrap();
        assert_eq!(PackState::load(&path), None);
        PackState::forget(&path);
        assert!(!path.exists());
    }

    #[test]
    fn rewriting_a_file_changes_its_identity() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        fs::write(&file, b"same").unwrap();
        let before = identity_of(&file).unwrap();
        assert_eq!(identity_of(&file), Some(before));
        std::thread::sleep(std::time::Duration::from_millis(20));
        fs::write(&file, b"same").unwrap();
        assert_ne!(identity_of(&file), Some(before));
        assert_eq!(identity_of(&dir.path().join("missing")), None);
    }
}
