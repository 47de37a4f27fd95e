//! The `assetc-link` command line.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{ArgGroup, Parser, Subcommand};

use super::check_packs::{NamedPackSummary, check_named_packs};
use super::ids::IdsTargets;
use super::pack::{PackBase, PackManifest, named_pack_path, pack_path};
use super::problem::Problem;
use super::recorded::Recorded;
use super::{LinkError, check, ids, manifest, pack, part, report};
use crate::cli::to_json;
use crate::cli::{finish, report_error};
use crate::config::{Config, ConfigError};
use crate::format::hpack_layout::{BaseOutcome, DEFAULT_MAX_WASTE};
use crate::fsutil::{self, shown};

/// `assetc-link`: merge fragments into the manifest and pack, or check an
/// output folder.
#[derive(Debug, Parser)]
#[command(
    name = "assetc-link",
    version,
    about,
    after_help = "Ninja runs these steps from the build.ninja that `assetc configure` writes; \
                  they are not meant to be typed by hand, except `check` (also run by \
                  `ninja check`). To build a project, run `assetc build` (or \
                  `assetc configure && ninja`) in its folder."
)]
pub struct Cli {
    /// The step to run.
    #[command(subcommand)]
    pub command: Command,
}

/// The link outputs a failed step deletes, so no stale manifest or pack
/// survives a failed build.
#[derive(Debug, clap::Args)]
pub struct Invalidation {
    /// Files to delete if the step fails (the manifest and the pack).
    #[arg(long = "invalidate")]
    pub invalidate: Vec<PathBuf>,
    /// A file listing more files to delete if the step fails, one per line
    /// (the named packs).
    #[arg(long = "invalidate-list")]
    pub invalidate_list: Option<PathBuf>,
}

/// The link steps.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Merge manifest fragments into `assets.hman`.
    Manifest {
        /// What to delete if the step fails.
        #[command(flatten)]
        invalidation: Invalidation,
        /// File listing the fragment paths, one per line.
        #[arg(long)]
        fragments: PathBuf,
        /// The manifest to write.
        #[arg(short = 'o', long)]
        output: PathBuf,
    },
    /// Merge one group's fragments into its entries part and its full part
    /// (the first level of the link; each written only when it changes).
    Part {
        /// What to delete if the step fails.
        #[command(flatten)]
        invalidation: Invalidation,
        /// File listing the group's fragment paths, one per line.
        #[arg(long)]
        fragments: PathBuf,
        /// The entries part and the full part to write, in that order.
        #[arg(short = 'o', long, num_args = 2, value_names = ["ENTRIES", "FULL"], required = true)]
        output: Vec<PathBuf>,
    },
    /// Bundle every produced file and the manifest into one `.hpack`.
    Pack {
        /// What to delete if the step fails.
        #[command(flatten)]
        invalidation: Invalidation,
        /// The output root the fragments' paths are relative to.
        #[arg(long)]
        root: PathBuf,
        /// File listing the fragment paths, one per line.
        #[arg(long)]
        fragments: PathBuf,
        /// The pack to write.
        #[arg(short = 'o', long)]
        output: PathBuf,
        /// Build the pack's `assets.hman` from the listed fragments (a named
        /// pack's own manifest) instead of reading ROOT/assets.hman.
        #[arg(long)]
        own_manifest: bool,
        /// The pack already shipped: unchanged entries keep its offsets,
        /// so a chunk patcher ships little (docs/packs.md).
        #[arg(long, value_name = "FILE")]
        base: Option<PathBuf>,
        /// With `--base`, lay the pack out fresh once the bytes beyond a
        /// fresh layout pass this fraction of the file.
        #[arg(long, value_name = "FRACTION", default_value_t = DEFAULT_MAX_WASTE, value_parser = parse_fraction)]
        max_waste: f64,
    },
    /// Write the manifest's ids as a C header and/or a Rust module (at least
    /// one of `--c` and `--rust`).
    #[command(group(ArgGroup::new("targets").required(true).multiple(true).args(["c", "rust"])))]
    Ids {
        /// File listing the fragment paths, one per line.
        #[arg(long)]
        fragments: PathBuf,
        /// The C header to write (C99 and C++, `#define NAME UINT64_C(0x…)`).
        #[arg(long, value_name = "FILE")]
        c: Option<PathBuf>,
        /// The Rust module to write (`pub const NAME: u64`, for `include!`).
        #[arg(long, value_name = "FILE")]
        rust: Option<PathBuf>,
    },
    /// List the assets that failed (under `keep_going`) in a report file and
    /// on standard error; fails while there are any.
    Report {
        /// File listing the fragment or part paths, one per line.
        #[arg(long)]
        fragments: PathBuf,
        /// The report to write (empty when every asset built).
        #[arg(short = 'o', long)]
        output: PathBuf,
    },
    /// Validate an output folder and optionally its pack. Without `--root`,
    /// the folder (and the pack, when the build packs) are those the last
    /// `assetc configure` recorded (of `--preset`, when given), or without a
    /// record, those of the nearest assetc.yml and its preset.
    Check {
        /// The output folder to check.
        #[arg(long)]
        root: Option<PathBuf>,
        /// The pack to check against the folder.
        #[arg(long)]
        pack: Option<PathBuf>,
        /// A named pack to check against the folder (repeatable). Without
        /// `--root`, the config's named packs are checked.
        #[arg(long = "named-pack")]
        named_packs: Vec<PathBuf>,
        /// Preset whose output to check when `--root` is not given.
        #[arg(long, conflicts_with = "root")]
        preset: Option<String>,
        /// The build's fragment list (`<build-dir>/fragments.list`): every
        /// file is then also compared with the hash its encoder recorded.
        /// Without `--root`, the configured build folder's list is used when
        /// it exists. Its lines are relative to the current folder (with
        /// `--root`) or to the folder of assetc.yml.
        #[arg(long, value_name = "FILE")]
        fragments: Option<PathBuf>,
        /// The input folder: every embedded file whose source exists must
        /// equal it. Without `--root`, the config's input folder.
        #[arg(long, value_name = "DIR")]
        input: Option<PathBuf>,
        /// Print the result as JSON (schema `assetc-check/1`) on standard
        /// output instead of text; the exit status is the same.
        #[arg(long)]
        json: bool,
    },
}

const PROGRAM: &str = "assetc-link";

impl Command {
    /// Runs the step; problems and errors go to standard error.
    pub fn run(&self) -> ExitCode {
        match self {
            Command::Manifest {
                fragments,
                output,
                invalidation,
            } => finish_link(
                manifest::link_manifest(fragments, output),
                Some(invalidation),
            ),
            Command::Part {
                fragments,
                output,
                invalidation,
            } => {
                let result = match output.as_slice() {
                    [entries, full] => part::link_part(fragments, entries, full),
                    _ => Err(LinkError::Invalid {
                        path: fragments.clone(),
                        what: "`-o` needs the entries part and the full part".into(),
                        source: None,
                    }),
                };
                if let Ok(writes) = &result {
                    print_stats(|| {
                        format!(
                            "{}: {} fragments, entries part {}, full part {}",
                            shown(fragments),
                            writes.fragments,
                            written_or_kept(writes.entries_written),
                            written_or_kept(writes.full_written)
                        )
                    });
                }
                finish_link(result, Some(invalidation))
            }
            Command::Pack {
                root,
                fragments,
                output,
                invalidation,
                own_manifest,
                base,
                max_waste,
            } => {
                let manifest = if *own_manifest {
                    PackManifest::Own
                } else {
                    PackManifest::Folder
                };
                let base = PackBase {
                    base: base.clone(),
                    max_waste: *max_waste,
                };
                let result = pack::link_pack(fragments, root, output, manifest, &base);
                if let Ok(stats) = &result {
                    print_stats(|| {
                        format!(
                            "{}: {} entries, {} reused from the previous pack ({} unhashed), {} read{}",
                            shown(output),
                            stats.entries,
                            stats.reused,
                            stats.trusted,
                            stats.read,
                            stats.base.map(base_stats).unwrap_or_default()
                        )
                    });
                }
                finish_link(result, Some(invalidation))
            }
            Command::Ids { fragments, c, rust } => {
                let targets = IdsTargets {
                    c: c.clone(),
                    rust: rust.clone(),
                };
                finish_link(ids::link_ids(fragments, &targets), None)
            }
            Command::Report { fragments, output } => match report::link_report(fragments, output) {
                Ok(report) => finish_report(&report, output),
                Err(e) => finish(PROGRAM, Err(e)),
            },
            Command::Check {
                root,
                pack,
                named_packs,
                preset,
                json,
                fragments,
                input,
            } => {
                let given = CheckArgs {
                    root: root.clone(),
                    pack: pack.clone(),
                    named_packs: named_packs.clone(),
                    fragments: fragments.clone(),
                    input: input.clone(),
                };
                match check_target(given, preset.as_deref()) {
                    Ok(target) => run_check(&target, *json),
                    Err(e) => finish(PROGRAM, Err(e)),
                }
            }
        }
    }
}

/// Reports a link step's result; after a failure, deletes the link outputs so
/// no stale manifest or pack survives a failed build.
fn finish_link<T>(result: Result<T, LinkError>, invalidation: Option<&Invalidation>) -> ExitCode {
    if let (Err(_), Some(invalidation)) = (&result, invalidation) {
        fsutil::remove_all(&invalidation.invalidate);
        if let Some(list) = &invalidation.invalidate_list {
            fsutil::remove_all(fsutil::listed_paths(list));
        }
    }
    finish(PROGRAM, result.map(drop))
}

/// Prints the failures of a `keep_going` build and fails while there are
/// any.
fn finish_report(report: &report::Report, output: &Path) -> ExitCode {
    if report.failed.is_empty() {
        return ExitCode::SUCCESS;
    }
    eprint!("{}", report.text);
    eprintln!(
        "{PROGRAM}: error: {} asset(s) failed to build and are left out of the manifest and packs (listed in {}): {}",
        report.failed.len(),
        shown(output),
        report.failed.join(", ")
    );
    ExitCode::FAILURE
}

/// The environment variable that makes the incremental link steps say what
/// they reused (for tests and benchmarks).
pub const STATS_VARIABLE: &str = "ASSETC_LINK_STATS";

/// Prints a step's statistics line when [`STATS_VARIABLE`] is set.
fn print_stats(line: impl FnOnce() -> String) {
    if std::env::var_os(STATS_VARIABLE).is_some() {
        println!("{PROGRAM}: {}", line());
    }
}

fn written_or_kept(written: bool) -> &'static str {
    if written { "written" } else { "kept" }
}

/// What `assetc-link check` was given on its command line.
#[derive(Debug)]
struct CheckArgs {
    /// The output folder.
    root: Option<PathBuf>,
    /// The single pack.
    pack: Option<PathBuf>,
    /// Named packs.
    named_packs: Vec<PathBuf>,
    /// The fragment list.
    fragments: Option<PathBuf>,
    /// The input folder.
    input: Option<PathBuf>,
}

/// What `assetc-link check` looks at, once resolved.
#[derive(Debug)]
struct CheckTarget {
    /// The output folder.
    root: PathBuf,
    /// The single pack, if any.
    pack: Option<PathBuf>,
    /// The named packs.
    named_packs: Vec<PathBuf>,
    /// The fragment list.
    fragments: Option<PathBuf>,
    /// The input folder.
    input: Option<PathBuf>,
    /// The folder the fragment list's lines are relative to.
    base: PathBuf,
}

/// The folder, packs, fragment list and input folder to check: as given, with
/// what is missing taken from the project's config when `--root` is not given.
fn check_target(given: CheckArgs, preset: Option<&str>) -> Result<CheckTarget, ConfigError> {
    if let Some(root) = given.root {
        return Ok(CheckTarget {
            root,
            pack: given.pack,
            named_packs: given.named_packs,
            fragments: given.fragments,
            input: given.input,
            base: PathBuf::from("."),
        });
    }
    let config = Config::discover(Path::new("."))?;
    let configured = config.configured(preset)?;
    let default_list = configured.build_dir.join("fragments.list");
    let mut named_packs: Vec<PathBuf> = config
        .packs
        .iter()
        .map(|p| named_pack_path(&configured.output, &p.name))
        .collect();
    for pack in given.named_packs {
        if !named_packs.contains(&pack) {
            named_packs.push(pack);
        }
    }
    Ok(CheckTarget {
        pack: given
            .pack
            .or_else(|| configured.pack.then(|| pack_path(&configured.output))),
        named_packs,
        fragments: given
            .fragments
            .or_else(|| default_list.is_file().then_some(default_list)),
        input: given.input.or(Some(config.input)),
        base: config.root,
        root: configured.output,
    })
}

/// The folder check and the named pack checks, merged.
fn check_all(target: &CheckTarget) -> CheckOutcome {
    let recorded = target
        .fragments
        .as_deref()
        .map(|list| Recorded::load(list, &target.base, target.input.as_deref()));
    let folder = check::check_with(&target.root, target.pack.as_deref(), recorded.as_ref());
    // The packs of a build that stopped early were deleted with its manifest,
    // which the folder's check reports.
    let unfinished = recorded.is_some() && check::build_unfinished(&target.root);
    let named_packs: &[_] = if unfinished { &[] } else { &target.named_packs };
    let (named, named_problems) = check_named_packs(&target.root, named_packs);
    let result = match folder {
        Ok(summary) if named_problems.is_empty() => Ok(summary),
        Ok(_) => Err(named_problems),
        Err(mut problems) => {
            problems.extend(named_problems);
            Err(problems)
        }
    };
    CheckOutcome { result, named }
}

/// Everything a check found.
struct CheckOutcome {
    /// The folder's summary, or every problem (folder and named packs).
    result: Result<check::Summary, Vec<Problem>>,
    /// A summary per named pack that parsed.
    named: Vec<NamedPackSummary>,
}

fn run_check(target: &CheckTarget, json: bool) -> ExitCode {
    let outcome = check_all(target);
    if json {
        print!("{}", to_json(&CheckReport::new(target, &outcome)));
        return if outcome.result.is_ok() {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        };
    }
    match &outcome.result {
        Ok(summary) => {
            let pack = summary
                .pack_entries
                .map(|n| format!(", pack consistent ({n} entries)"))
                .unwrap_or_default();
            let named: String = outcome
                .named
                .iter()
                .map(|n| format!(", {} consistent ({} entries)", n.pack, n.entries))
                .collect();
            println!(
                "{}: ok, {} manifest entries{pack}{named}",
                shown(&target.root),
                summary.entries
            );
            ExitCode::SUCCESS
        }
        Err(problems) => {
            for p in problems {
                eprintln!("{p}");
            }
            let count = CheckFailed(problems.len());
            report_error(PROGRAM, &count);
            ExitCode::FAILURE
        }
    }
}

/// The JSON form of a check's result (schema `assetc-check/1`).
#[derive(Debug, serde::Serialize)]
struct CheckReport<'a> {
    schema: &'static str,
    root: String,
    pack: Option<String>,
    ok: bool,
    entries: Option<usize>,
    pack_entries: Option<usize>,
    /// Present only when named packs were checked.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    named_packs: &'a [NamedPackSummary],
    problems: &'a [Problem],
}

impl<'a> CheckReport<'a> {
    fn new(target: &CheckTarget, outcome: &'a CheckOutcome) -> Self {
        let (summary, problems) = match &outcome.result {
            Ok(summary) => (Some(summary), &[][..]),
            Err(problems) => (None, problems.as_slice()),
        };
        Self {
            schema: "assetc-check/1",
            root: shown(&target.root),
            pack: target.pack.as_deref().map(shown),
            ok: outcome.result.is_ok(),
            entries: summary.map(|s| s.entries),
            pack_entries: summary.and_then(|s| s.pack_entries),
            named_packs: &outcome.named,
            problems,
        }
    }
}

/// The summary error after a failed check.
#[derive(Debug, thiserror::Error)]
#[error("check found {0} problem(s)")]
struct CheckFailed(usize);

/// A fraction from 0 to 1, as `--max-waste` takes it.
fn parse_fraction(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(value) if (0.0..=1.0).contains(&value) => Ok(value),
        _ => Err(format!("{text:?} is not a fraction from 0 to 1")),
    }
}

/// The stats line's account of a layout over a base.
fn base_stats(outcome: BaseOutcome) -> String {
    if outcome.compacted {
        return "; over the base: compacted (the waste passed --max-waste)".into();
    }
    format!(
        "; over the base: {} kept, {} rewritten in place, {} placed anew, {} B beyond a fresh layout",
        outcome.kept, outcome.in_place, outcome.placed, outcome.waste
    )
}
