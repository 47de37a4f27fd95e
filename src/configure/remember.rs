//! Configure's memory: the options of this run merged over the record the
//! last configure of the same build folder left (see
//! [`crate::config::Record`]), and the record this run leaves.
//!
//! A flag given on the command line wins over the remembered one; `--no-pack`
//! and `--no-keep-going` turn remembered switches off; `--fresh` ignores the
//! record altogether. Which record is meant: the one in `--build-dir` when
//! that is given, else the one of `--preset` when that is given (the last
//! configure's when it was of that preset, else the preset's own build
//! folder's), else the last configure's.

use std::path::{Path, PathBuf};

use super::ConfigureOptions;
use crate::config::{ConfigError, Given, Record, RemoteSettings, absolute};
use crate::fsutil;

/// The options to configure with, and what came from a record.
#[derive(Debug)]
pub struct Recalled {
    /// The options given, completed from the record.
    pub options: ConfigureOptions,
    /// The line telling the user what was taken from the record, when
    /// anything was.
    pub note: Option<String>,
}

/// Completes `options` from the record they point at (none with `--fresh`).
pub fn recall(root: &Path, options: &ConfigureOptions) -> Result<Recalled, ConfigError> {
    let record = if options.fresh {
        None
    } else if let Some(dir) = &options.build_dir {
        Record::read(root, &absolute(dir)?)?
    } else {
        Record::find(root, options.preset.as_deref())?
    };
    let Some(record) = record else {
        return Ok(Recalled {
            options: options.clone(),
            note: None,
        });
    };
    let (options, taken) = merge(options, &record.given);
    let note = (!taken.is_empty()).then(|| {
        let from = fsutil::slash_relative(root, &record.configured.build_dir)
            .unwrap_or_else(|| record.configured.build_dir.display().to_string());
        format!(
            "assetc: using {} (from {from}; --fresh to forget)",
            taken.join(", ")
        )
    });
    Ok(Recalled { options, note })
}

/// The settings `options` record, their paths made absolute.
pub fn given(options: &ConfigureOptions) -> Result<Given, ConfigError> {
    let absolute_path = |path: &Option<PathBuf>| path.as_deref().map(absolute).transpose();
    Ok(Given {
        preset: options.preset.clone(),
        output: absolute_path(&options.output)?,
        build_dir: absolute_path(&options.build_dir)?,
        pack: options.pack,
        pack_base: absolute_path(&options.pack_base)?,
        keep_going: options.keep_going,
        cache: absolute_path(&options.cache)?,
        cache_max_size: options.cache_max_size,
        launcher: options.launcher.clone(),
        remote: options.remote.clone().try_map_files(absolute)?,
    })
}

/// `options` completed from `recorded`, and the words naming what was taken
/// (`preset mobile`, `--pack`).
fn merge(options: &ConfigureOptions, recorded: &Given) -> (ConfigureOptions, Vec<String>) {
    let mut merged = options.clone();
    let mut taken = Vec::new();
    let path = |flag: &str, file: &PathBuf| format!("{flag} {}", fsutil::shown(file));
    take(&mut merged.preset, &recorded.preset, &mut taken, |preset| {
        format!("preset {preset}")
    });
    take(&mut merged.output, &recorded.output, &mut taken, |p| {
        path("-o", p)
    });
    take(
        &mut merged.build_dir,
        &recorded.build_dir,
        &mut taken,
        |p| path("--build-dir", p),
    );
    take_switch(
        &mut merged.pack,
        options.no_pack,
        recorded.pack,
        "--pack",
        &mut taken,
    );
    take(
        &mut merged.pack_base,
        &recorded.pack_base,
        &mut taken,
        |p| path("--pack-base", p),
    );
    take_switch(
        &mut merged.keep_going,
        options.no_keep_going,
        recorded.keep_going,
        "--keep-going",
        &mut taken,
    );
    take(&mut merged.cache, &recorded.cache, &mut taken, |p| {
        path("--cache", p)
    });
    take(
        &mut merged.cache_max_size,
        &recorded.cache_max_size,
        &mut taken,
        |size| format!("--cache-max-size {size}"),
    );
    take(
        &mut merged.launcher,
        &recorded.launcher,
        &mut taken,
        |launcher| format!("--launcher '{launcher}'"),
    );
    let remote_taken = only_in(&recorded.remote, &options.remote).to_args();
    if !remote_taken.is_empty() {
        taken.push(remote_taken.join(" "));
    }
    merged.remote = options.remote.over(&recorded.remote);
    (merged, taken)
}

/// Fills an unset option from the record, naming what was taken with
/// `describe`.
fn take<T: Clone>(
    option: &mut Option<T>,
    recorded: &Option<T>,
    taken: &mut Vec<String>,
    describe: impl FnOnce(&T) -> String,
) {
    if option.is_none()
        && let Some(value) = recorded
    {
        taken.push(describe(value));
        *option = Some(value.clone());
    }
}

/// Turns a switch on from the record unless it is on already or its `--no-`
/// flag was given.
fn take_switch(
    switch: &mut bool,
    negated: bool,
    recorded: bool,
    flag: &str,
    taken: &mut Vec<String>,
) {
    if !*switch && !negated && recorded {
        taken.push(flag.to_owned());
        *switch = true;
    }
}

/// `recorded` where `given` is unset.
fn unset<T: Clone>(given: &Option<T>, recorded: &Option<T>) -> Option<T> {
    if given.is_none() {
        recorded.clone()
    } else {
        None
    }
}

/// The remote settings `recorded` holds and `given` does not set.
fn only_in(recorded: &RemoteSettings, given: &RemoteSettings) -> RemoteSettings {
    RemoteSettings {
        url: unset(&given.url, &recorded.url),
        instance: unset(&given.instance, &recorded.instance),
        exec: recorded.exec && !given.exec,
        ca: unset(&given.ca, &recorded.ca),
        cert: unset(&given.cert, &recorded.cert),
        key: unset(&given.key, &recorded.key),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ByteSize;
    use crate::configure::ToolPaths;

    fn options() -> ConfigureOptions {
        ConfigureOptions {
            start_dir: PathBuf::from("."),
            preset: None,
            output: None,
            build_dir: None,
            pack: false,
            no_pack: false,
            pack_base: None,
            keep_going: false,
            no_keep_going: false,
            fresh: false,
            cache: None,
            cache_max_size: None,
            launcher: None,
            remote: RemoteSettings::default(),
            tools: ToolPaths {
                assetc: PathBuf::from("assetc"),
                encode: PathBuf::from("assetc-encode"),
                link: PathBuf::from("assetc-link"),
            },
        }
    }

    fn recorded() -> Given {
        Given {
            preset: Some("mobile".into()),
            pack: true,
            keep_going: true,
            cache_max_size: Some(ByteSize(1 << 30)),
            remote: RemoteSettings {
                url: Some("grpc://r:1".into()),
                exec: true,
                ..RemoteSettings::default()
            },
            ..Given::default()
        }
    }

    #[test]
    fn unset_options_come_from_the_record_and_are_named() {
        let (merged, taken) = merge(&options(), &recorded());
        assert_eq!(merged.preset.as_deref(), Some("mobile"));
        assert!(merged.pack && merged.keep_going);
        assert_eq!(merged.cache_max_size, Some(ByteSize(1 << 30)));
        assert_eq!(merged.remote, recorded().remote);
        assert_eq!(
            taken,
            [
                "preset mobile",
                "--pack",
                "--keep-going",
                "--cache-max-size 1G",
                "--remote grpc://r:1 --remote-exec"
            ]
        );
    }

    #[test]
    fn given_options_win_and_negations_turn_switches_off() {
        let mut given = options();
        given.preset = Some("desktop".into());
        given.no_pack = true;
        given.keep_going = true;
        given.cache_max_size = Some(ByteSize(5 << 30));
        given.remote.url = Some("grpc://other:2".into());
        let (merged, taken) = merge(&given, &recorded());
        assert_eq!(merged.preset.as_deref(), Some("desktop"));
        assert!(!merged.pack && merged.keep_going);
        assert_eq!(merged.cache_max_size, Some(ByteSize(5 << 30)));
        assert_eq!(merged.remote.url.as_deref(), Some("grpc://other:2"));
        assert_eq!(taken, ["--remote-exec"]);
    }
}
