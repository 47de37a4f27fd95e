//! File-system helpers shared by every tool: atomic, write-if-changed output.
//!
//! Ninja's `restat = 1` prunes the rebuild below an edge whose outputs kept their
//! modification time, so every file assetc produces goes through
//! [`write_if_changed`]: the bytes land in a temporary file in the destination
//! folder and are renamed over the target only when they differ from what is
//! already there. A reader never sees a half-written file, and a killed build
//! never leaves a truncated output.
//!
//! Temporary files have unique names (`.assetc-tmp-` and a random suffix), so
//! two processes writing one file at once (two configures, or an encoder
//! orphaned by a killed Ninja and its re-run) each rename a complete file.
//! On Unix the writer holds an exclusive `flock` on its temporary file until
//! the rename; the lock dies with the process. Before writing into a folder,
//! every write removes the temporary files there that nobody holds locked:
//! they belong to a killed writer. A killed edge is re-run by the next build
//! (Ninja has no log entry for it) and writes into the same folders, so its
//! leftovers are gone once the build completes.
//!
//! A write that fails (a full disk, a file-size limit, a file where a folder
//! should be) removes its temporary file and leaves the target as it was.
//!
//! Files are not `fsync`ed: build outputs are reproducible from their sources,
//! Ninja does not sync its own log either, and measuring a 1,000-asset build
//! showed no difference worth the guarantee.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// A file that could not be read or written, named.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// Reading failed.
    #[error("{}: cannot read", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: io::Error,
    },
    /// Writing failed.
    #[error("{}: cannot write", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: io::Error,
    },
}

/// Reads a whole file, naming it on failure.
pub fn read(path: &Path) -> Result<Vec<u8>, FileError> {
    fs::read(path).map_err(|source| FileError::Read {
        path: path.to_owned(),
        source,
    })
}

/// [`write_if_changed`], naming the file on failure. Returns whether it wrote.
pub fn write_output(path: &Path, bytes: &[u8]) -> Result<bool, FileError> {
    write_if_changed(path, bytes).map_err(|source| FileError::Write {
        path: path.to_owned(),
        source,
    })
}

/// Writes `bytes` to `path` atomically unless the file already holds exactly
/// those bytes. Creates missing parent folders. Returns whether it wrote.
pub fn write_if_changed(path: &Path, bytes: &[u8]) -> io::Result<bool> {
    let dir = parent_folder(path);
    remove_orphaned_temps(dir);
    if let Ok(existing) = fs::read(path)
        && existing == bytes
    {
        return Ok(false);
    }
    write_through_temp(dir, path, bytes)?;
    Ok(true)
}

/// Writes `bytes` to `path` through a temporary file and a rename.
///
/// The temporary file is created with the permissions of any new file
/// (`0666` less the umask on Unix), not the private `0600` temporary files
/// usually get, so outputs are as readable as files a compiler writes.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = parent_folder(path);
    remove_orphaned_temps(dir);
    write_through_temp(dir, path, bytes)
}

/// The prefix of every temporary file assetc writes.
pub const TEMP_PREFIX: &str = ".assetc-tmp-";

/// The folder `path` lives in (`.` for a bare file name).
fn parent_folder(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// Writes a locked temporary file in `dir` and renames it to `path`. On any
/// failure the temporary file is removed (dropping a `NamedTempFile`, or the
/// one a failed `persist` hands back, deletes it).
fn write_through_temp(dir: &Path, path: &Path, bytes: &[u8]) -> io::Result<()> {
    create_folder(dir)?;
    let mut tmp = locked_temp_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// `fs::create_dir_all`, naming the folder: the caller names the file, and
/// "File exists" alone would not say which folder is blocked.
fn create_folder(dir: &Path) -> io::Result<()> {
    fs::create_dir_all(dir).map_err(|e| {
        io::Error::new(
            e.kind(),
            format!("cannot create the folder {}: {e}", dir.display()),
        )
    })
}

/// How many fresh temporary names a writer tries when a concurrent clean-up
/// keeps taking its file for an orphan (it can only do so in the instant
/// between creation and locking).
const TEMP_ATTEMPTS: usize = 8;

/// A new temporary file in `dir`, locked by this process.
fn locked_temp_in(dir: &Path) -> io::Result<tempfile::NamedTempFile> {
    let mut builder = tempfile::Builder::new();
    builder.prefix(TEMP_PREFIX);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    for _ in 0..TEMP_ATTEMPTS {
        let tmp = builder.tempfile_in(dir)?;
        if lock_own_temp(&tmp)? {
            return Ok(tmp);
        }
        // Another writer's clean-up removed the file before we locked it;
        // its name may already be someone else's, so do not delete by name.
        let _ = tmp.into_temp_path().keep();
    }
    Err(io::Error::other(format!(
        "{}: temporary files keep being removed while they are created",
        dir.display()
    )))
}

/// Locks a just-created temporary file; `false` when a clean-up removed it
/// before the lock was taken.
#[cfg(unix)]
fn lock_own_temp(tmp: &tempfile::NamedTempFile) -> io::Result<bool> {
    use rustix::fs::{FlockOperation, flock};
    flock(tmp.as_file(), FlockOperation::LockExclusive)?;
    Ok(is_same_file(tmp.path(), tmp.as_file()))
}

/// Without `flock`, temporary files are not locked (and never cleaned up).
#[cfg(not(unix))]
fn lock_own_temp(_tmp: &tempfile::NamedTempFile) -> io::Result<bool> {
    Ok(true)
}

/// Whether `path` still names the open `file`.
#[cfg(unix)]
fn is_same_file(path: &Path, file: &fs::File) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (fs::symlink_metadata(path), file.metadata()) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// Removes the temporary files in `dir` that no live writer holds: those of a
/// writer that was killed. Best effort; a folder that cannot be read has none
/// to remove.
pub fn remove_orphaned_temps(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        if name.as_encoded_bytes().starts_with(TEMP_PREFIX.as_bytes()) {
            remove_if_orphaned(&entry.path());
        }
    }
}

/// Removes one temporary file if no process holds its lock. The lock is held
/// while the file is removed, so its writer, should it have created the file
/// but not locked it yet, finds it gone once it gets the lock and starts over.
#[cfg(unix)]
fn remove_if_orphaned(path: &Path) {
    use rustix::fs::{FlockOperation, flock};
    let Ok(file) = fs::File::open(path) else {
        return;
    };
    if flock(&file, FlockOperation::NonBlockingLockExclusive).is_ok() && is_same_file(path, &file) {
        let _ = fs::remove_file(path);
    }
}

/// Without `flock`, a live writer cannot be told from a dead one: keep all.
#[cfg(not(unix))]
fn remove_if_orphaned(_path: &Path) {}

/// An exclusive advisory lock on a file, held until dropped.
#[derive(Debug)]
pub struct FileLock {
    /// The open lock file; closing it releases the lock.
    _file: fs::File,
}

/// Opens (creating it and its folder if needed) the lock file `path` and waits
/// until this process holds an exclusive lock on it. On platforms without
/// `flock` the file is opened but not locked.
pub fn lock_exclusive(path: &Path) -> Result<FileLock, FileError> {
    let error = |source| FileError::Write {
        path: path.to_owned(),
        source,
    };
    create_folder(parent_folder(path)).map_err(error)?;
    let file = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(error)?;
    #[cfg(unix)]
    rustix::fs::flock(&file, rustix::fs::FlockOperation::LockExclusive)
        .map_err(|e| error(e.into()))?;
    Ok(FileLock { _file: file })
}

/// Removes `path` if it exists; a missing file is not an error.
pub fn remove_if_exists(path: &Path) -> io::Result<()> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// `path` below `base` as a `/`-separated string: `Some("")` for `base`
/// itself, `None` when `path` is not below `base` or is not valid UTF-8. A
/// `base` of `.` means the current folder, so relative paths work as given.
pub fn slash_relative(base: &Path, path: &Path) -> Option<String> {
    let rel = if base == Path::new(".") {
        path
    } else {
        path.strip_prefix(base).ok()?
    };
    let parts: Option<Vec<&str>> = rel.iter().map(|part| part.to_str()).collect();
    Some(parts?.join("/"))
}

/// `path` as a report should show it: relative to the current folder when it
/// lies below it (`runtime`, not `/home/me/game/runtime`), else as it is.
pub fn shown(path: &Path) -> String {
    std::env::current_dir()
        .ok()
        .and_then(|cwd| path.strip_prefix(cwd).ok())
        .filter(|rel| !rel.as_os_str().is_empty())
        .unwrap_or(path)
        .display()
        .to_string()
}

/// A `/`-separated path without the extension of its last component
/// (`models/chair.glb` is `models/chair`; `a.b/c` has none to drop).
pub fn without_extension(path: &str) -> &str {
    match path.rfind('.') {
        Some(dot) if !path[dot..].contains('/') => &path[..dot],
        _ => path,
    }
}

/// Best-effort removal of several files, for clean-up after a failure: a file
/// that cannot be removed must not hide the error that caused the clean-up.
pub fn remove_all<P: AsRef<Path>>(paths: impl IntoIterator<Item = P>) {
    for path in paths {
        let _ = remove_if_exists(path.as_ref());
    }
}

/// The paths a list file names, one per line (empty lines skipped). A list
/// that cannot be read names nothing: this serves clean-up, which is best
/// effort.
pub fn listed_paths(list: &Path) -> Vec<PathBuf> {
    fs::read_to_string(list)
        .unwrap_or_default()
        .lines()
        .filter(|line| !line.is_empty())
        .map(PathBuf::from)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn outputs_get_ordinary_file_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let output = dir.path().join("out.bin");
        write_atomic(&output, b"x").unwrap();
        let ordinary = dir.path().join("ordinary.bin");
        fs::write(&ordinary, b"x").unwrap();
        let mode = |path: &Path| fs::metadata(path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&output), mode(&ordinary));
    }

    #[test]
    fn writes_only_when_bytes_differ() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/out.bin");
        assert!(write_if_changed(&path, b"abc").unwrap());
        assert!(!write_if_changed(&path, b"abc").unwrap());
        assert!(write_if_changed(&path, b"abcd").unwrap());
        assert_eq!(fs::read(&path).unwrap(), b"abcd");
        let leftovers: Vec<_> = fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(leftovers.len(), 1, "temporary files left: {leftovers:?}");
    }

    /// The names in `dir`, sorted.
    fn names_in(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[cfg(unix)]
    #[test]
    fn a_write_removes_what_a_killed_writer_left_but_not_a_live_one() {
        use rustix::fs::{FlockOperation, flock};
        let dir = tempfile::tempdir().unwrap();
        let orphan = dir.path().join(format!("{TEMP_PREFIX}dead"));
        let live = dir.path().join(format!("{TEMP_PREFIX}live"));
        fs::write(&orphan, b"half").unwrap();
        fs::write(&live, b"half").unwrap();
        let writer = fs::File::open(&live).unwrap();
        flock(&writer, FlockOperation::LockExclusive).unwrap();
        let output = dir.path().join("out.bin");
        fs::write(&output, b"same").unwrap();
        assert!(!write_if_changed(&output, b"same").unwrap());
        assert_eq!(
            names_in(dir.path()),
            [format!("{TEMP_PREFIX}live"), "out.bin".to_string()],
            "an unchanged write still clears orphans and keeps a held file"
        );
        drop(writer);
        write_atomic(&output, b"new").unwrap();
        assert_eq!(names_in(dir.path()), ["out.bin"]);
    }

    #[test]
    fn a_failed_write_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let blocked = dir.path().join("out.bin");
        fs::create_dir(&blocked).unwrap();
        let err = write_output(&blocked, b"x").unwrap_err();
        assert!(err.to_string().contains("out.bin: cannot write"), "{err}");
        assert_eq!(names_in(dir.path()), ["out.bin"]);
        assert!(blocked.is_dir(), "the target is left as it was");
    }

    #[test]
    fn a_file_in_place_of_a_folder_is_named() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("ui"), b"not a folder").unwrap();
        let err = write_output(&dir.path().join("ui/a/b.ktx2"), b"x").unwrap_err();
        let cause = std::error::Error::source(&err).unwrap().to_string();
        assert!(
            cause.contains("cannot create the folder") && cause.contains("ui/a"),
            "{cause}"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_held_lock_excludes_other_holders() {
        use rustix::fs::{FlockOperation, flock};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/configure.lock");
        let held = lock_exclusive(&path).unwrap();
        let other = fs::File::open(&path).unwrap();
        assert!(flock(&other, FlockOperation::NonBlockingLockExclusive).is_err());
        drop(held);
        assert!(flock(&other, FlockOperation::NonBlockingLockExclusive).is_ok());
    }

    #[test]
    fn relative_paths_use_slashes() {
        let rel = |base: &str, path: &str| slash_relative(Path::new(base), Path::new(path));
        assert_eq!(
            rel("/p/out", "/p/out/ui/a.ktx2").as_deref(),
            Some("ui/a.ktx2")
        );
        assert_eq!(rel("/p/out", "/p/out").as_deref(), Some(""));
        assert_eq!(rel(".", "ui/a.ktx2").as_deref(), Some("ui/a.ktx2"));
        assert_eq!(rel("/p/out", "/p/elsewhere/a"), None);
    }

    #[test]
    fn removing_a_missing_file_is_fine() {
        let dir = tempfile::tempdir().unwrap();
        remove_if_exists(&dir.path().join("nope")).unwrap();
    }
}
