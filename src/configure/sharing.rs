//! How encode edges share work: the cache folder and the launcher, resolved
//! from the command line, the environment and `assetc.yml`, and rendered
//! into the `encode` variable of `build.ninja`.
//!
//! The command line wins over `ASSETC_CACHE`, which wins over the `cache:`
//! section. Settings that came from the command line or the environment are
//! repeated in the regeneration command, so Ninja's own re-run of configure
//! keeps them.

use std::path::PathBuf;

use super::ConfigureOptions;
use crate::cache::CACHE_ENV;
use crate::config::{ByteSize, Config, ConfigError, absolute};

/// The resolved sharing settings of one build.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sharing {
    /// The shared cache folder, absolute.
    pub cache: Option<PathBuf>,
    /// The cache's size limit, when one was given.
    pub cache_max_size: Option<ByteSize>,
    /// Shell text put before every encode command.
    pub launcher: Option<String>,
    /// Options for the regeneration command that keep these settings.
    pub regenerate: Vec<String>,
}

impl Sharing {
    /// Resolves the settings of `options` and `config`.
    pub fn resolve(options: &ConfigureOptions, config: &Config) -> Result<Self, ConfigError> {
        let mut sharing = Self::default();
        let env_cache = std::env::var_os(CACHE_ENV).filter(|v| !v.is_empty());
        let from_outside = options.cache.clone().or(env_cache.map(PathBuf::from));
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
        Ok(sharing)
    }

    /// The `assetc-encode` options that route each edge through the cache
    /// (`build` is the root-relative build folder).
    pub fn encode_options(&self, build: &str) -> Vec<String> {
        let Some(dir) = &self.cache else {
            return Vec::new();
        };
        let mut words = vec![
            "--cache".to_owned(),
            dir.to_string_lossy().into_owned(),
            "--cache-state".to_owned(),
            build.to_owned(),
        ];
        if let Some(size) = self.cache_max_size {
            words.extend(["--cache-max-size".to_owned(), size.to_string()]);
        }
        words
    }
}
