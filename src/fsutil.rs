//! File-system helpers shared by every tool: atomic, write-if-changed output.
//!
//! Ninja's `restat = 1` prunes the rebuild below an edge whose outputs kept their
//! modification time, so every file assetc produces goes through
//! [`write_if_changed`]: the bytes land in a temporary file in the destination
//! folder and are renamed over the target only when they differ from what is
//! already there. A reader never sees a half-written file, and a killed build
//! never leaves a truncated output.
//!
//! Each output has one temporary file beside it, `.assetc-tmp-<name>`. On
//! Unix its writer holds an exclusive `flock` on it from before the first byte
//! until the rename, and the lock dies with the process, so two processes
//! writing one file at once (two configures, or an encoder orphaned by a
//! killed Ninja and its re-run) take turns and each renames a complete file.
//! A writer killed mid-write leaves its temporary file behind; Ninja re-runs
//! the killed edge on the next build (it has no log entry for it), and that
//! run either writes the output through the same temporary name or, finding
//! the output already right, removes the leftover. No folder is ever scanned,
//! so a write costs the same in a folder of ten files or of fifty thousand.
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
    let existing = fs::read(path).ok();
    write_unless_equal(path, bytes, existing.as_deref())
}

/// [`write_if_changed`] for a caller that already holds the file's current
/// bytes (`None` when there is no readable file), so they are not read twice.
/// An unchanged write still removes a temporary file a killed writer left.
pub fn write_unless_equal(path: &Path, bytes: &[u8], existing: Option<&[u8]>) -> io::Result<bool> {
    if existing == Some(bytes) {
        remove_orphaned_temp(path);
        return Ok(false);
    }
    write_atomic(path, bytes)?;
    Ok(true)
}

/// Writes `bytes` to `path` through its temporary file and a rename.
///
/// The temporary file is created with the permissions of any new file
/// (`0666` less the umask on Unix), not the private `0600` temporary files
/// usually get, so outputs are as readable as files a compiler writes.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomic_with(path, |mut file| file.write_all(bytes))
}

/// [`write_atomic`] for a caller that writes the file itself: `fill` gets the
/// empty temporary file, and the rename happens only when it succeeds. On
/// failure the temporary file is removed and `path` keeps its old bytes.
pub fn write_atomic_with(
    path: &Path,
    fill: impl FnOnce(&fs::File) -> io::Result<()>,
) -> io::Result<()> {
    create_folder(parent_folder(path))?;
    let temp = temp_path(path);
    let file = open_locked_temp(&temp)?;
    let written = file
        .set_len(0)
        .and_then(|()| fill(&file))
        .and_then(|()| fs::rename(&temp, path));
    if written.is_err() {
        // Still under the lock: nobody else can be using this file.
        let _ = fs::remove_file(&temp);
    }
    written
}

/// The prefix of every temporary file assetc writes.
pub const TEMP_PREFIX: &str = ".assetc-tmp-";

/// Longest file name kept readable in a temporary name; longer ones are
/// replaced by their hash so the temporary name stays within `NAME_MAX`.
const LONGEST_READABLE_NAME: usize = 200;

/// The one temporary file `path` is written through: `.assetc-tmp-<name>`
/// beside it. Its name is fixed, so a writer killed mid-write leaves a file
/// the next writer of the same output reuses and renames away.
pub fn temp_path(path: &Path) -> PathBuf {
    let name = path.file_name().unwrap_or_default();
    let name = if name.len() <= LONGEST_READABLE_NAME {
        name.to_string_lossy().into_owned()
    } else {
        let hash = crate::format::hash::asset_hash(&name.to_string_lossy());
        format!("{hash:016x}")
    };
    parent_folder(path).join(format!("{TEMP_PREFIX}{name}"))
}

/// The folder `path` lives in (`.` for a bare file name).
fn parent_folder(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
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

/// Opens `temp` (created if missing, never truncated before the lock) and
/// waits for an exclusive lock on it. Two writers of one output (two
/// configures, or an encoder orphaned by a killed Ninja and its re-run) thus
/// take turns. A writer that waited may find its file renamed into place by
/// the other; it then opens the name afresh.
fn open_locked_temp(temp: &Path) -> io::Result<fs::File> {
    loop {
        let file = open_temp(temp)?;
        if lock_temp(temp, &file)? {
            return Ok(file);
        }
    }
}

/// Opens or creates the temporary file with ordinary file permissions.
fn open_temp(temp: &Path) -> io::Result<fs::File> {
    let mut options = fs::OpenOptions::new();
    options.write(true).create(true).truncate(false);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o666);
    }
    options.open(temp)
}

/// Locks the open temporary file; `false` when, by the time the lock came,
/// `temp` no longer names it (another writer renamed it into place).
#[cfg(unix)]
fn lock_temp(temp: &Path, file: &fs::File) -> io::Result<bool> {
    use rustix::fs::{FlockOperation, flock};
    flock(file, FlockOperation::LockExclusive)?;
    Ok(is_same_file(temp, file))
}

/// Without `flock`, writers of one output do not take turns.
#[cfg(not(unix))]
fn lock_temp(_temp: &Path, _file: &fs::File) -> io::Result<bool> {
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

/// Removes the temporary file of `path` if a killed writer left it and no
/// live writer holds it. A single failed `open` when there is none, so every
/// unchanged write can afford it.
pub fn remove_orphaned_temp(path: &Path) {
    remove_unlocked_temp(&temp_path(path));
}

/// Removes the temporary file `temp` unless a live writer holds its lock.
#[cfg(unix)]
pub fn remove_unlocked_temp(temp: &Path) {
    use rustix::fs::{FlockOperation, flock};
    let Ok(file) = fs::File::open(temp) else {
        return;
    };
    if flock(&file, FlockOperation::NonBlockingLockExclusive).is_ok() && is_same_file(temp, &file) {
        let _ = fs::remove_file(temp);
    }
}

/// Without `flock`, a live writer cannot be told from a dead one: keep all.
#[cfg(not(unix))]
pub fn remove_unlocked_temp(_temp: &Path) {}

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
        let path = path.as_ref();
        if is_file_we_may_remove(path) {
            let _ = remove_if_exists(path);
        }
    }
}

/// Whether clean-up may delete `path`: a regular file or a symbolic link.
/// A device, pipe or socket is never an output, so an encoder run by hand
/// with `--fragment /dev/null` leaves `/dev/null` alone when it fails.
fn is_file_we_may_remove(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok_and(|meta| {
        let kind = meta.file_type();
        kind.is_file() || kind.is_symlink()
    })
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

/// The fields of `/proc/PID/stat` after the parenthesised command name:
/// the state is field 0, the parent 1, the start time 19. `None` when the
/// process is gone (or there is no `/proc`).
pub fn proc_stat_fields(pid: u32) -> Option<Vec<String>> {
    let text = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, rest) = text.rsplit_once(')')?;
    Some(rest.split_whitespace().map(str::to_owned).collect())
}

/// The parent of `pid`, from `/proc/PID/stat`; `None` when it is gone.
pub fn proc_parent(pid: u32) -> Option<u32> {
    proc_stat_fields(pid)?.get(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn the_parent_of_this_process_is_read_from_proc() {
        assert_eq!(
            proc_parent(std::process::id()),
            Some(std::os::unix::process::parent_id())
        );
    }

    #[cfg(unix)]
    #[test]
    fn clean_up_removes_files_and_links_but_never_a_socket_or_device() {
        let dir = tempfile::tempdir().unwrap();
        let (file, link, socket) = (
            dir.path().join("out.ktx2"),
            dir.path().join("link"),
            dir.path().join("feed.sock"),
        );
        fs::write(&file, b"x").unwrap();
        std::os::unix::fs::symlink(&file, &link).unwrap();
        let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        remove_all([&file, &link, &socket, &dir.path().join("absent")]);
        assert!(!file.exists() && fs::symlink_metadata(&link).is_err());
        assert!(socket.exists(), "a socket is not an output");
    }

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
    fn a_write_takes_over_what_a_killed_writer_left_but_waits_for_a_live_one() {
        use rustix::fs::{FlockOperation, flock};
        let dir = tempfile::tempdir().unwrap();
        let output = dir.path().join("out.bin");
        let temp = temp_path(&output);
        fs::write(&temp, b"half written, longer than the output").unwrap();
        assert!(write_if_changed(&output, b"new").unwrap());
        assert_eq!(fs::read(&output).unwrap(), b"new");
        assert_eq!(names_in(dir.path()), ["out.bin"]);

        fs::write(&temp, b"half").unwrap();
        assert!(!write_if_changed(&output, b"new").unwrap());
        assert_eq!(
            names_in(dir.path()),
            ["out.bin"],
            "unchanged, orphan removed"
        );

        fs::write(&temp, b"half").unwrap();
        let live = fs::File::open(&temp).unwrap();
        flock(&live, FlockOperation::LockExclusive).unwrap();
        assert!(!write_if_changed(&output, b"new").unwrap());
        assert!(temp.exists(), "a held temporary file is kept");
        let waiting = std::thread::spawn(move || write_if_changed(&output, b"newer").unwrap());
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert!(
            !waiting.is_finished(),
            "the second writer waits for the lock"
        );
        drop(live);
        assert!(waiting.join().unwrap());
        assert_eq!(fs::read(dir.path().join("out.bin")).unwrap(), b"newer");
        assert_eq!(names_in(dir.path()), ["out.bin"]);
    }

    #[test]
    fn long_names_get_a_hashed_temporary_name() {
        let long = "a".repeat(250);
        let temp = temp_path(Path::new(&format!("dir/{long}.bin")));
        let name = temp.file_name().unwrap().to_str().unwrap();
        assert!(name.starts_with(TEMP_PREFIX) && name.len() == TEMP_PREFIX.len() + 16);
        assert_eq!(
            temp_path(Path::new("x/out.bin")),
            Path::new("x/.assetc-tmp-out.bin")
        );
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
