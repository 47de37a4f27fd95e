//! The local cache folder: content-addressed files, records, statistics and
//! least-recently-used trimming, shared by any number of builds at once.
//!
//! ```text
//! DIR/CACHEDIR.TAG          marks the folder as a cache for backup tools
//! DIR/v1/blobs/ab/<hash>    output and fragment bytes, named by their BLAKE3
//! DIR/v1/deps/ab/<key>      deps records, by source key
//! DIR/v1/actions/ab/<key>   action records, by result key
//! DIR/v1/stats              hit, miss and store counters
//! ```
//!
//! Every file is written through a temporary file and a rename, so a reader
//! sees a whole entry or none, and a writer killed mid-insert leaves only a
//! temporary file that trimming removes. An action record is written after
//! the blobs it names. Nothing is trusted on read: a blob must hash to its
//! name and a record must match its check line, or the entry is deleted and
//! the lookup is a miss. A hit touches the files it used, and trimming
//! deletes the files touched longest ago until the folder fits its limit.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::key::Key;
use super::record::{self, ActionRecord, BlobRef};
use crate::fsutil;

/// The layout version, the one folder below `DIR`.
const LAYOUT: &str = "v1";

/// What kind of entry a file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Blob,
    Deps,
    Action,
}

impl Class {
    const ALL: [Class; 3] = [Class::Blob, Class::Deps, Class::Action];

    fn folder(self) -> &'static str {
        match self {
            Class::Blob => "blobs",
            Class::Deps => "deps",
            Class::Action => "actions",
        }
    }
}

/// The outcome of one lookup.
#[derive(Debug)]
pub enum Lookup<T> {
    /// The entry, verified.
    Found(T),
    /// No such entry.
    Missing,
    /// The entry failed verification and was deleted; the path is named in
    /// the warning.
    Corrupt(PathBuf),
}

/// A cache folder.
#[derive(Debug, Clone)]
pub struct LocalCache {
    dir: PathBuf,
}

impl LocalCache {
    /// The cache in `dir` (created on the first insert).
    pub fn new(dir: &Path) -> Self {
        Self {
            dir: dir.to_owned(),
        }
    }

    /// The folder given by the user.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn layout(&self) -> PathBuf {
        self.dir.join(LAYOUT)
    }

    fn path(&self, class: Class, key: &Key) -> PathBuf {
        let hex = key.hex();
        self.layout().join(class.folder()).join(&hex[..2]).join(hex)
    }

    /// The deps record under source key `key`.
    pub fn deps(&self, key: &Key) -> Lookup<Vec<String>> {
        self.record(Class::Deps, key, record::parse_deps)
    }

    /// The action record under result key `key`.
    pub fn action(&self, key: &Key) -> Lookup<ActionRecord> {
        self.record(Class::Action, key, ActionRecord::parse)
    }

    fn record<T>(&self, class: Class, key: &Key, parse: fn(&str) -> Option<T>) -> Lookup<T> {
        let path = self.path(class, key);
        match fs::read(&path) {
            Err(_) => Lookup::Missing,
            Ok(bytes) => match std::str::from_utf8(&bytes).ok().and_then(parse) {
                Some(value) => Lookup::Found(value),
                None => discard(path),
            },
        }
    }

    /// The bytes of `blob`, checked against its hash and size.
    pub fn blob(&self, blob: &BlobRef) -> Lookup<Vec<u8>> {
        let path = self.path(Class::Blob, &blob.hash);
        match fs::read(&path) {
            Err(_) => Lookup::Missing,
            Ok(bytes) if BlobRef::of(&bytes) == *blob => Lookup::Found(bytes),
            Ok(_) => discard(path),
        }
    }

    /// Stores `bytes` under their hash; returns the bytes added (0 when the
    /// blob was already there).
    pub fn put_blob(&self, bytes: &[u8]) -> io::Result<u64> {
        let path = self.path(Class::Blob, &Key::of(bytes));
        self.put(&path, bytes)
    }

    /// Stores the deps record of source key `key`.
    pub fn put_deps(&self, key: &Key, deps: &[String]) -> io::Result<u64> {
        self.put(
            &self.path(Class::Deps, key),
            record::render_deps(deps).as_bytes(),
        )
    }

    /// Stores the action record of result key `key`; its blobs must be in.
    pub fn put_action(&self, key: &Key, action: &ActionRecord) -> io::Result<u64> {
        self.put(&self.path(Class::Action, key), action.render().as_bytes())
    }

    fn put(&self, path: &Path, bytes: &[u8]) -> io::Result<u64> {
        if !self.dir.join("CACHEDIR.TAG").exists() {
            fsutil::write_if_changed(&self.dir.join("CACHEDIR.TAG"), CACHEDIR_TAG)?;
        }
        let written = fsutil::write_if_changed(path, bytes)?;
        Ok(if written { bytes.len() as u64 } else { 0 })
    }

    /// Marks the entries a hit used as just used, for trimming.
    pub fn touch(&self, source: &Key, result: &Key, blobs: &[BlobRef]) {
        let now = fs::FileTimes::new().set_modified(SystemTime::now());
        let paths = [
            self.path(Class::Deps, source),
            self.path(Class::Action, result),
        ]
        .into_iter()
        .chain(blobs.iter().map(|b| self.path(Class::Blob, &b.hash)));
        for path in paths {
            if let Ok(file) = fs::File::options().write(true).open(&path) {
                let _ = file.set_times(now);
            }
        }
    }

    /// Every entry file with its size and last use, and the temporary files
    /// killed writers left (removed on the way).
    fn entries(&self) -> Vec<(SystemTime, u64, PathBuf)> {
        let mut entries = Vec::new();
        for class in Class::ALL {
            let top = self.layout().join(class.folder());
            for entry in walkdir::WalkDir::new(&top).min_depth(2).max_depth(2) {
                let Ok(entry) = entry else { continue };
                let name = entry.file_name().to_string_lossy();
                if name.starts_with(fsutil::TEMP_PREFIX) {
                    fsutil::remove_unlocked_temp(entry.path());
                    continue;
                }
                if let Ok(meta) = entry.metadata() {
                    let used = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
                    entries.push((used, meta.len(), entry.into_path()));
                }
            }
        }
        entries
    }

    /// Files and bytes held now.
    pub fn usage(&self) -> Usage {
        let entries = self.entries();
        Usage {
            files: entries.len() as u64,
            bytes: entries.iter().map(|e| e.1).sum(),
        }
    }

    /// Deletes the least recently used entries until at most `max_size`
    /// bytes remain. Concurrent builds keep working: a hit whose blob was
    /// just trimmed is a miss.
    pub fn trim(&self, max_size: u64) -> Trimmed {
        let mut entries = self.entries();
        entries.sort();
        let mut held: u64 = entries.iter().map(|e| e.1).sum();
        let mut trimmed = Trimmed::default();
        for (_, size, path) in entries {
            if held <= max_size {
                break;
            }
            if fs::remove_file(&path).is_ok() {
                held -= size;
                trimmed.files += 1;
                trimmed.bytes += size;
            }
        }
        trimmed.kept = held;
        trimmed
    }
}

/// How much a cache holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// Entry files.
    pub files: u64,
    /// Their total size.
    pub bytes: u64,
}

/// What a trim removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Trimmed {
    /// Files deleted.
    pub files: u64,
    /// Bytes deleted.
    pub bytes: u64,
    /// Bytes left.
    pub kept: u64,
}

/// The standard cache-folder tag (bford.info/cachedir), so backup tools skip it.
const CACHEDIR_TAG: &[u8] = b"Signature: 8a477f597d28d172789f06886806bc55\n\
# This folder is an assetc build cache; it can be deleted at any time.\n";

fn discard<T>(path: PathBuf) -> Lookup<T> {
    let _ = fs::remove_file(&path);
    Lookup::Corrupt(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found<T>(lookup: Lookup<T>) -> Option<T> {
        match lookup {
            Lookup::Found(value) => Some(value),
            _ => None,
        }
    }

    #[test]
    fn entries_read_back_and_count_once() {
        let dir = tempfile::tempdir().unwrap();
        let cache = LocalCache::new(dir.path());
        assert_eq!(cache.put_blob(b"pixels").unwrap(), 6);
        assert_eq!(cache.put_blob(b"pixels").unwrap(), 0);
        let blob = BlobRef::of(b"pixels");
        assert_eq!(found(cache.blob(&blob)).unwrap(), b"pixels");
        let key = Key::of(b"k");
        let deps = vec!["assets/a.bin".to_owned()];
        cache.put_deps(&key, &deps).unwrap();
        assert_eq!(found(cache.deps(&key)), Some(deps));
        assert!(matches!(cache.action(&key), Lookup::Missing));
        assert!(dir.path().join("CACHEDIR.TAG").exists());
    }

    #[test]
    fn a_corrupt_entry_is_deleted_and_reported() {
        let dir = tempfile::tempdir().unwrap();
        let cache = LocalCache::new(dir.path());
        cache.put_blob(b"pixels").unwrap();
        let blob = BlobRef::of(b"pixels");
        let path = cache.path(Class::Blob, &blob.hash);
        fs::write(&path, b"pixelz").unwrap();
        assert!(matches!(cache.blob(&blob), Lookup::Corrupt(p) if p == path));
        assert!(!path.exists());
        let key = Key::of(b"k");
        cache.put_deps(&key, &[]).unwrap();
        let deps = cache.path(Class::Deps, &key);
        let text = fs::read_to_string(&deps).unwrap();
        fs::write(&deps, &text[..text.len() - 5]).unwrap();
        assert!(matches!(cache.deps(&key), Lookup::Corrupt(_)));
    }

    #[test]
    fn trimming_deletes_the_least_recently_used_first() {
        let dir = tempfile::tempdir().unwrap();
        let cache = LocalCache::new(dir.path());
        let old = vec![1u8; 1000];
        let new = vec![2u8; 1000];
        cache.put_blob(&old).unwrap();
        cache.put_blob(&new).unwrap();
        let past = fs::FileTimes::new().set_modified(SystemTime::UNIX_EPOCH);
        let old_path = cache.path(Class::Blob, &Key::of(&old));
        fs::File::options()
            .write(true)
            .open(&old_path)
            .unwrap()
            .set_times(past)
            .unwrap();
        let temp = fsutil::temp_path(&old_path);
        fs::write(&temp, b"torn").unwrap();
        assert_eq!(
            cache.usage(),
            Usage {
                files: 2,
                bytes: 2000
            }
        );
        assert!(!temp.exists(), "a dead writer's temporary file is removed");
        let trimmed = cache.trim(1500);
        assert_eq!((trimmed.files, trimmed.kept), (1, 1000));
        assert!(!old_path.exists());
        assert!(found(cache.blob(&BlobRef::of(&new))).is_some());
    }
}
