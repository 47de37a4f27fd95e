//! `assetc configure`'s command line: its options, `--list-presets`, and
//! the summary it prints. The `assetc` program's dispatch is `app::assetc`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;

use super::{ConfigureOptions, ConfigureReport, ToolPaths, ignored, run};
use crate::cli::{finish, report_error, warn};
use crate::config::{ByteSize, Config, RemoteSettings};
use crate::fsutil::shown;

/// The program named in messages.
const PROGRAM: &str = "assetc";

/// The options of `assetc configure` that `assetc build` takes as well.
#[derive(Debug, Default, Args)]
pub struct ConfigureFlags {
    /// Use this preset from assetc.yml instead of its `preset:` key.
    #[arg(long)]
    pub preset: Option<String>,
    /// Output folder, overriding the config and preset.
    #[arg(short = 'o', long)]
    pub output: Option<PathBuf>,
    /// Folder for fragments, depfiles and Ninja's logs (default: .assetc/PRESET).
    #[arg(long)]
    pub build_dir: Option<PathBuf>,
    /// Also bundle the output into OUTPUT.hpack (OR-ed with the config's `pack:`).
    #[arg(long, overrides_with = "no_pack")]
    pub pack: bool,
    /// Drop a `--pack` an earlier configure gave (the config's `pack:` still
    /// applies).
    #[arg(long, overrides_with = "pack")]
    pub no_pack: bool,
    /// The packs already shipped (a `.hpack`, or a folder holding each
    /// pack by its file name): new packs keep their unchanged entries'
    /// offsets, so a chunk patcher ships little (`pack_base:`; docs/packs.md).
    #[arg(long, value_name = "PATH")]
    pub pack_base: Option<PathBuf>,
    /// Build every asset that can be built even when others fail; the link
    /// writes the manifest and packs from those, reports the failures in
    /// BUILD_DIR/failed.txt and fails the build (OR-ed with `keep_going:`).
    #[arg(long, overrides_with = "no_keep_going")]
    pub keep_going: bool,
    /// Drop a `--keep-going` an earlier configure gave.
    #[arg(long, overrides_with = "keep_going")]
    pub no_keep_going: bool,
    /// Forget what earlier configures of this build folder were given
    /// (BUILD_DIR/configured.json) and use only the flags given now.
    #[arg(long)]
    pub fresh: bool,
    /// Share encode results through this cache folder (also `ASSETC_CACHE`
    /// or `cache.dir:` in assetc.yml); see docs/cache.md.
    #[arg(long, value_name = "DIR")]
    pub cache: Option<PathBuf>,
    /// Trim the cache folder back to this size (e.g. 5G) when it grows past.
    #[arg(long, value_name = "SIZE")]
    pub cache_max_size: Option<ByteSize>,
    /// Put this command before every encode command, as CMake's
    /// `<LANG>_COMPILER_LAUNCHER` does (e.g. "recc" or "rewrapper --cfg=…").
    #[arg(long, value_name = "CMD ARGS")]
    pub launcher: Option<String>,
    /// The REAPI server (also `remote:` in assetc.yml); see docs/remote.md.
    #[command(flatten)]
    pub remote: RemoteSettings,
}

impl ConfigureFlags {
    /// Whether any flag beyond `--preset` is given, which `assetc build`
    /// passes on by configuring again.
    pub fn any_beyond_preset(&self) -> bool {
        let Self {
            preset: _,
            output,
            build_dir,
            pack,
            no_pack,
            pack_base,
            keep_going,
            no_keep_going,
            fresh,
            cache,
            cache_max_size,
            launcher,
            remote,
        } = self;
        output.is_some()
            || build_dir.is_some()
            || *pack
            || *no_pack
            || pack_base.is_some()
            || *keep_going
            || *no_keep_going
            || *fresh
            || cache.is_some()
            || cache_max_size.is_some()
            || launcher.is_some()
            || *remote != RemoteSettings::default()
    }
}

/// Options of `assetc configure`.
#[derive(Debug, Args)]
pub struct ConfigureArgs {
    /// What to configure.
    #[command(flatten)]
    pub flags: ConfigureFlags,
    /// Print the presets defined in assetc.yml and exit.
    #[arg(long)]
    pub list_presets: bool,
}

/// Runs `assetc configure` (or `--list-presets`) with `args`.
pub fn run_configure(args: &ConfigureArgs) -> ExitCode {
    let start_dir = PathBuf::from(".");
    if args.list_presets {
        return list_presets(&start_dir);
    }
    configure_from(start_dir, &args.flags)
}

/// Configures the project whose `assetc.yml` is found from `start_dir` up,
/// with `flags`, printing the summary (as `assetc configure` does).
pub fn configure_from(start_dir: PathBuf, flags: &ConfigureFlags) -> ExitCode {
    let tools = match ToolPaths::beside_current_exe() {
        Ok(t) => t,
        Err(e) => {
            report_error(PROGRAM, &e);
            return ExitCode::FAILURE;
        }
    };
    let options = ConfigureOptions {
        start_dir,
        preset: flags.preset.clone(),
        output: flags.output.clone(),
        build_dir: flags.build_dir.clone(),
        pack: flags.pack,
        no_pack: flags.no_pack,
        pack_base: flags.pack_base.clone(),
        keep_going: flags.keep_going,
        no_keep_going: flags.no_keep_going,
        fresh: flags.fresh,
        cache: flags.cache.clone(),
        cache_max_size: flags.cache_max_size,
        launcher: flags.launcher.clone(),
        remote: flags.remote.clone(),
        tools,
    };
    finish(PROGRAM, run(&options).map(|report| print_report(&report)))
}

fn print_report(report: &ConfigureReport) {
    for w in &report.warnings {
        warn(PROGRAM, w);
    }
    for w in &report.source_warnings {
        warn(PROGRAM, w);
    }
    if let Some(line) = &report.recalled {
        println!("{line}");
    }
    for line in removal_lines(&report.removed, &report.build_dir) {
        println!("{line}");
    }
    let preset = report.preset.as_deref().unwrap_or("default");
    let state = if report.written {
        "written"
    } else {
        "unchanged"
    };
    println!(
        "assetc: {} assets ({} other files ignored), preset '{preset}': {} {state}",
        report.jobs,
        report.ignored.len(),
        report.ninja_file.display()
    );
    for line in ignored::summary(&report.ignored, &report.ignored_list) {
        println!("{line}");
    }
}

/// The lines reporting removed stale files: each output by name, the build
/// folder's internal files (fragments, depfiles) as one count.
fn removal_lines(removed: &[PathBuf], build_dir: &Path) -> Vec<String> {
    let (internal, outputs): (Vec<&PathBuf>, Vec<&PathBuf>) =
        removed.iter().partition(|path| path.starts_with(build_dir));
    let mut lines: Vec<String> = outputs
        .iter()
        .map(|path| format!("assetc: removed stale output {}", shown(path)))
        .collect();
    if !internal.is_empty() {
        lines.push(format!(
            "assetc: removed {} stale build file(s) of deleted sources from {}",
            internal.len(),
            shown(build_dir)
        ));
    }
    lines
}

fn list_presets(start_dir: &Path) -> ExitCode {
    finish(
        PROGRAM,
        Config::discover(start_dir).map(|config| {
            for name in config.preset_names() {
                let marker = if config.preset.as_deref() == Some(name) {
                    "  (default)"
                } else {
                    ""
                };
                println!("{name}{marker}");
            }
        }),
    )
}
