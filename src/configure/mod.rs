//! `assetc configure`: from `assetc.yml` and the input folder to `build.ninja`.
//!
//! Configure reads the config, walks the input folder, classifies every source,
//! resolves its settings and writes one Ninja edge per source plus the link
//! edges. It is also the command behind Ninja's regeneration edge, so it must be
//! cheap and lazy: every file it writes is written only when its bytes change,
//! which lets `restat` keep a no-op build a no-op.
//!
//! Two configures of one build folder may run at once (a user's and Ninja's
//! regeneration, say): each holds an exclusive lock on
//! `<build-dir>/configure.lock` from before the scan until its last write, so
//! they take turns and the files one of them writes always belong together.

pub mod bitmap_fonts;
pub mod clashes;
pub mod classify;
pub mod command;
pub mod graph;
pub mod ignored;
pub mod job;
pub mod meshes;
pub mod ninja;
pub mod pack_base;
pub mod packs;
pub mod parts;
pub mod paths;
pub mod processors;
pub mod remember;
pub mod scan;
pub mod sharing;
pub mod sounds;
pub mod stale;

use std::path::{Path, PathBuf};

use crate::config::{
    Config, ConfigError, ConfigWarning, Configured, Record, absolute, default_build_dir,
};
use crate::depfile;
use crate::fsutil::{FileError, lock_exclusive, write_output};

/// Name of the generated Ninja file, written next to `assetc.yml`.
pub const NINJA_FILE: &str = "build.ninja";

/// The lock file in the build folder that serialises configure runs.
pub const LOCK_FILE: &str = "configure.lock";

/// Where the three assetc programs live; they become inputs of the graph.
#[derive(Debug, Clone)]
pub struct ToolPaths {
    /// The `assetc` program (runs configure).
    pub assetc: PathBuf,
    /// The `assetc-encode` program.
    pub encode: PathBuf,
    /// The `assetc-link` program.
    pub link: PathBuf,
}

impl ToolPaths {
    /// The programs installed beside the running executable.
    pub fn beside_current_exe() -> std::io::Result<Self> {
        let exe = std::env::current_exe()?;
        let dir = exe.parent().unwrap_or(Path::new("."));
        let suffix = std::env::consts::EXE_SUFFIX;
        Ok(Self {
            assetc: dir.join(format!("assetc{suffix}")),
            encode: dir.join(format!("assetc-encode{suffix}")),
            link: dir.join(format!("assetc-link{suffix}")),
        })
    }
}

/// What the user asked configure for.
#[derive(Debug, Clone)]
pub struct ConfigureOptions {
    /// Folder where the search for `assetc.yml` starts.
    pub start_dir: PathBuf,
    /// `--preset`.
    pub preset: Option<String>,
    /// `-o/--output`, relative to the working directory.
    pub output: Option<PathBuf>,
    /// `--build-dir`, relative to the working directory.
    pub build_dir: Option<PathBuf>,
    /// `--pack`, OR-ed with the config's `pack:`.
    pub pack: bool,
    /// `--no-pack`: a remembered `--pack` is dropped.
    pub no_pack: bool,
    /// `--pack-base`, relative to the working directory.
    pub pack_base: Option<PathBuf>,
    /// `--keep-going`, OR-ed with the config's `keep_going:`.
    pub keep_going: bool,
    /// `--no-keep-going`: a remembered `--keep-going` is dropped.
    pub no_keep_going: bool,
    /// `--fresh`: the record of the last configure is not used.
    pub fresh: bool,
    /// `--cache`, relative to the working directory.
    pub cache: Option<PathBuf>,
    /// `--cache-max-size`.
    pub cache_max_size: Option<crate::config::ByteSize>,
    /// `--launcher`.
    pub launcher: Option<String>,
    /// `--remote`, `--instance`, `--remote-exec` and the TLS files.
    pub remote: crate::config::RemoteSettings,
    /// The programs the graph runs.
    pub tools: ToolPaths,
}

/// What configure did.
#[derive(Debug)]
pub struct ConfigureReport {
    /// The Ninja file.
    pub ninja_file: PathBuf,
    /// Whether its bytes changed.
    pub written: bool,
    /// The preset in effect.
    pub preset: Option<String>,
    /// Number of encode jobs.
    pub jobs: usize,
    /// Files in the input folder that match no pattern, relative to it.
    pub ignored: Vec<String>,
    /// Where configure listed them, root-relative (`<build-dir>/ignored.txt`).
    pub ignored_list: String,
    /// Outputs of sources that no longer exist, now deleted.
    pub removed: Vec<PathBuf>,
    /// The build folder (the files removed from it are internal).
    pub build_dir: PathBuf,
    /// What was taken from the record of an earlier configure, as a line
    /// for the user.
    pub recalled: Option<String>,
    /// Config warnings (unknown keys).
    pub warnings: Vec<ConfigWarning>,
    /// Warnings about sources (mesh materials configure could not use).
    pub source_warnings: Vec<String>,
}

/// Why configure stopped.
#[derive(Debug, thiserror::Error)]
pub enum ConfigureError {
    /// The config could not be loaded or resolved.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The shipped pack base cannot be used.
    #[error("{}: {what}", path.display())]
    PackBase {
        /// The base as given.
        path: PathBuf,
        /// What is wrong.
        what: String,
    },
    /// The input folder is missing.
    #[error("{}: input folder does not exist", path.display())]
    NoInput {
        /// The input folder.
        path: PathBuf,
    },
    /// The walk failed.
    #[error("{}: {what}", path.display())]
    Walk {
        /// Where.
        path: PathBuf,
        /// What happened.
        what: String,
        /// The cause, when there is one.
        #[source]
        source: Option<std::io::Error>,
    },
    /// A name Ninja or a depfile cannot express.
    #[error("{}: {what}", path.display())]
    BadName {
        /// The offending path.
        path: PathBuf,
        /// Why it cannot be used.
        what: String,
    },
    /// Several sources would write the same outputs (a strict build).
    #[error("{}", clashes::refusal(input, clashes))]
    OutputClashes {
        /// The input folder.
        input: PathBuf,
        /// Every clash, sorted.
        clashes: Vec<clashes::Clash>,
    },
    /// A source would write the id file the `ids:` key names.
    #[error(
        "{}: output '{output}' is also produced by '{other}'{}; rename one of them",
        source_path.display(),
        if *case_only { " (runtime paths ignore case)" } else { "" }
    )]
    OutputClash {
        /// The source.
        source_path: PathBuf,
        /// What else writes the file (the ids step).
        other: String,
        /// The clashing output.
        output: String,
        /// Whether the two names differ in case only.
        case_only: bool,
    },
    /// The output folder would mix compiled files into the sources.
    #[error(
        "{}: the output folder must not be or contain the input folder {}",
        output.display(),
        input.display()
    )]
    OutputContainsInput {
        /// The output folder.
        output: PathBuf,
        /// The input folder.
        input: PathBuf,
    },
    /// A file could not be read or written.
    #[error(transparent)]
    File(#[from] FileError),
}

/// Runs configure: writes `build.ninja`, the fragment list and the
/// regeneration depfile, and deletes outputs of sources that disappeared.
///
/// Options not given are taken from the record an earlier configure left
/// ([`remember`]), and this run's settings are recorded in turn.
pub fn run(given: &ConfigureOptions) -> Result<ConfigureReport, ConfigureError> {
    let config = Config::discover(&given.start_dir)?;
    let recalled = remember::recall(&config.root, given)?;
    let options = &recalled.options;
    let selection = config.select(options.preset.as_deref(), options.output.as_deref())?;
    let build_dir = match &options.build_dir {
        Some(dir) => absolute(dir)?,
        None => default_build_dir(&config.root, selection.preset.as_deref()),
    };
    if config.input.starts_with(&selection.output) {
        return Err(ConfigureError::OutputContainsInput {
            output: selection.output.clone(),
            input: config.input.clone(),
        });
    }
    let sharing = sharing::Sharing::resolve(options, &config)?;
    let _lock = lock_exclusive(&build_dir.join(LOCK_FILE))?;
    let mut skip = vec![selection.output.as_path(), build_dir.as_path()];
    skip.extend(sharing.cache.as_deref());
    let excluded = |rel: &str| selection.is_excluded(rel);
    let mut scanned = scan::scan(&config.input, &skip, excluded, |rel| {
        processors::claim(&config, &selection, rel)
    })?;
    for source in &mut scanned.sources {
        if classify::is_ibl_markable(source.kind, &source.rel)
            && selection.settings_for(&source.rel).ibl.panorama
        {
            source.kind = classify::SourceKind::Ibl;
        }
    }
    let plan = graph::Plan::new(&config, &selection, &build_dir, options, &scanned, &sharing)?;

    let ninja_file = config.root.join(NINJA_FILE);
    let written = write_output(&ninja_file, plan.render().as_bytes())?;
    write_output(&plan.fragment_list_path(), plan.fragment_list().as_bytes())?;
    for (path, text) in plan.list_files() {
        write_output(&config.root.join(path), text.as_bytes())?;
    }
    let prune_within = [selection.output.as_path(), build_dir.as_path()];
    let removed = stale::remove_stale(
        &config.root,
        &build_dir,
        &selection.output,
        &prune_within,
        &plan.all_outputs(),
    )?;
    let regeneration = depfile::render(NINJA_FILE, &plan.regeneration_inputs());
    write_output(&build_dir.join("configure.d"), regeneration.as_bytes())?;
    let ignored_list = build_dir.join(ignored::IGNORED_FILE);
    write_output(
        &ignored_list,
        ignored::list_text(&scanned.ignored).as_bytes(),
    )?;
    let configured = Configured {
        preset: selection.preset.clone(),
        output: selection.output.clone(),
        build_dir: build_dir.clone(),
        pack: plan.writes_pack(),
    };
    Record::new(remember::given(options)?, configured).write(&config.root)?;
    Ok(ConfigureReport {
        ninja_file,
        written,
        preset: selection.preset.clone(),
        jobs: plan.jobs.len(),
        ignored_list: paths::root_relative(&config.root, &ignored_list)?,
        ignored: scanned.ignored,
        removed,
        build_dir,
        recalled: recalled.note,
        warnings: config.warnings,
        source_warnings: plan.warnings,
    })
}
