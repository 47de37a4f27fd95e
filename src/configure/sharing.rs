//! How encode edges share work: the cache folder, the remote (REAPI) server
//! and the launcher, resolved from the command line, the environment and
//! `assetc.yml`, and rendered into the `encode` variable of `build.ninja`.
//!
//! The command line wins over `ASSETC_CACHE`, which wins over the `cache:`
//! section; remote flags win over the `remote:` section one by one.
//! Settings that came from the command line or the environment are repeated
//! in the regeneration command, so Ninja's own re-run of configure keeps
//! them.

use std::path::PathBuf;

use super::ConfigureOptions;
use crate::config::{ByteSize, Config, ConfigError, RemoteSettings, absolute};

/// The resolved sharing settings of one build.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sharing {
    /// The shared cache folder, absolute.
    pub cache: Option<PathBuf>,
    /// The cache's size limit, when one was given.
    pub cache_max_size: Option<ByteSize>,
    /// Shell text put before every encode command.
    pub launcher: Option<String>,
    /// The remote server, when one is configured.
    pub remote: RemoteSettings,
    /// Options for the regeneration command that keep these settings.
    pub regenerate: Vec<String>,
}

impl Sharing {
    /// Resolves the settings of `options` and `config`.
    pub fn resolve(options: &ConfigureOptions, config: &Config) -> Result<Self, ConfigError> {
        let mut sharing = Self::default();
        let from_outside = options.cache.clone().or_else(crate::cache::dir_from_env);
        if let Some(dir) = from_outside {
            let dir = absolute(&dir)?;
            sharing
                .regenerate
                .extend(["--cache".into(), dir.to_string_lossy().into_owned()]);
            sharing.cache = Some(dir);
        } else {
            sharing.cache = config.cache.dir.clone();
        }
        if let Some(size) = options.cache_max_size {
            sharing
                .regenerate
                .extend(["--cache-max-size".into(), size.to_string()]);
        }
        sharing.cache_max_size = options.cache_max_size.or(config.cache.max_size);
        if let Some(launcher) = &options.launcher {
            sharing
                .regenerate
                .extend(["--launcher".into(), launcher.clone()]);
        }
        sharing.launcher = options.launcher.clone().or(config.launcher.clone());
        sharing.resolve_remote(&options.remote, &config.remote)?;
        Ok(sharing)
    }

    /// Merges the remote flags over the `remote:` section; the flags, their
    /// files made absolute, are repeated in the regeneration command.
    fn resolve_remote(
        &mut self,
        given: &RemoteSettings,
        file: &RemoteSettings,
    ) -> Result<(), ConfigError> {
        let given = given.clone().try_map_files(absolute)?;
        self.regenerate.extend(given.to_args());
        self.remote = given.over(file);
        Ok(())
    }

    /// The `assetc-encode` options that route each edge through the cache
    /// (`build` is the root-relative build folder).
    pub fn encode_options(&self, build: &str) -> Vec<String> {
        let mut words = Vec::new();
        if let Some(dir) = &self.cache {
            words.extend(["--cache".to_owned(), dir.to_string_lossy().into_owned()]);
            if let Some(size) = self.cache_max_size {
                words.extend(["--cache-max-size".to_owned(), size.to_string()]);
            }
        }
        if self.remote.url.is_some() {
            words.extend(self.remote.to_args());
        }
        if !words.is_empty() {
            words.extend(["--cache-state".to_owned(), build.to_owned()]);
        }
        words
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_encode_options_name_the_cache_and_the_remote() {
        assert!(Sharing::default().encode_options(".assetc/x").is_empty());
        let sharing = Sharing {
            cache: Some(PathBuf::from("/c")),
            cache_max_size: Some(ByteSize(1 << 30)),
            remote: RemoteSettings {
                url: Some("grpcs://r:1".into()),
                instance: Some("main".into()),
                exec: true,
                ca: Some(PathBuf::from("/ca.pem")),
                ..RemoteSettings::default()
            },
            ..Sharing::default()
        };
        assert_eq!(
            sharing.encode_options("b").join(" "),
            "--cache /c --cache-max-size 1G --remote grpcs://r:1 --remote-ca /ca.pem \
             --remote-instance main --remote-exec --cache-state b"
        );
        let remote_only = Sharing {
            remote: RemoteSettings {
                url: Some("grpc://r:1".into()),
                ..RemoteSettings::default()
            },
            ..Sharing::default()
        };
        assert_eq!(
            remote_only.encode_options("b").join(" "),
            "--remote grpc://r:1 --cache-state b"
        );
    }

    #[test]
    fn remote_flag_files_are_made_absolute_and_folded() {
        let mut sharing = Sharing::default();
        let given = RemoteSettings {
            url: Some("grpc://r:1".into()),
            ca: Some("certs/../ca.pem".into()),
            ..RemoteSettings::default()
        };
        sharing
            .resolve_remote(&given, &RemoteSettings::default())
            .unwrap();
        let ca = std::env::current_dir().unwrap().join("ca.pem");
        assert_eq!(sharing.remote.ca.as_ref(), Some(&ca));
        let words = sharing.regenerate.join(" ");
        assert!(
            words.contains(&format!("--remote-ca {}", ca.display())),
            "{words}"
        );
    }
}
