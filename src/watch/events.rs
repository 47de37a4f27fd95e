//! File events of the project, folded into one rebuild per burst.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use notify::{Event, EventKind, RecommendedWatcher, RecursiveMode, Watcher};

use crate::fsutil::TEMP_PREFIX;

/// The longest a burst may keep postponing its rebuild.
const LONGEST_BURST: Duration = Duration::from_secs(2);

/// Watches `root`, ignoring what builds write.
pub struct ProjectEvents {
    watcher: RecommendedWatcher,
    events: Receiver<notify::Result<Event>>,
    ignored: Vec<PathBuf>,
    is_output: Box<dyn Fn(&Path) -> bool>,
}

impl ProjectEvents {
    /// Watches everything below `root` except the `ignored` paths (the build
    /// folder, the output folder, Ninja's own files) and the files
    /// `is_output` claims (the packs).
    pub fn watch(
        root: &Path,
        ignored: Vec<PathBuf>,
        is_output: Box<dyn Fn(&Path) -> bool>,
    ) -> notify::Result<Self> {
        let (sender, events) = channel();
        let mut watcher = notify::recommended_watcher(move |event| {
            let _ = sender.send(event);
        })?;
        watcher.watch(root, RecursiveMode::Recursive)?;
        Ok(Self {
            watcher,
            events,
            ignored,
            is_output,
        })
    }

    /// Also watches `folder` (not its subfolders); a folder that cannot be
    /// watched is skipped with a warning.
    pub fn also_watch(&mut self, folder: &Path) {
        if let Err(e) = self.watcher.watch(folder, RecursiveMode::NonRecursive) {
            crate::cli::warn(
                "assetc watch",
                &format!("{}: cannot watch: {e}", folder.display()),
            );
        }
    }

    /// Waits for a change that matters, then for `quiet` without another
    /// (at most 2 s in all), and returns the paths touched.
    pub fn next_burst(&self, quiet: Duration) -> Vec<PathBuf> {
        let mut touched = Vec::new();
        while touched.is_empty() {
            match self.events.recv() {
                Ok(event) => self.collect(event, &mut touched),
                Err(_) => return touched,
            }
        }
        let start = Instant::now();
        loop {
            let left = LONGEST_BURST.saturating_sub(start.elapsed());
            match self.events.recv_timeout(quiet.min(left)) {
                Ok(event) => self.collect(event, &mut touched),
                Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => break,
            }
            if left.is_zero() {
                break;
            }
        }
        touched.sort();
        touched.dedup();
        touched
    }

    /// Adds the paths of `event` that matter.
    fn collect(&self, event: notify::Result<Event>, touched: &mut Vec<PathBuf>) {
        let Ok(event) = event else { return };
        if matches!(event.kind, EventKind::Access(_)) {
            return;
        }
        touched.extend(event.paths.into_iter().filter(|p| self.matters(p)));
    }

    /// Whether a change of `path` can change the build: not a temporary
    /// file, not inside an ignored path, and not a folder holding one (the
    /// output folder's parent gets events when packs are replaced).
    fn matters(&self, path: &Path) -> bool {
        let temporary = path
            .file_name()
            .is_some_and(|name| name.to_string_lossy().starts_with(TEMP_PREFIX));
        let ignored = self
            .ignored
            .iter()
            .any(|ignored| path.starts_with(ignored) || ignored.starts_with(path));
        !temporary && !ignored && !(self.is_output)(path)
    }
}
