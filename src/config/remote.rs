//! The remote (REAPI) settings in one shape: the `remote:` section of
//! `assetc.yml` deserialises into it, `assetc configure` and `assetc-encode`
//! parse their `--remote*` flags into it, and [`RemoteSettings::to_args`]
//! renders it back into those flags for the encode and regeneration
//! commands. Each flag is spelled once, in the `#[arg]` attributes below.

use std::convert::Infallible;
use std::path::{Path, PathBuf};

use clap::{Args, CommandFactory, Parser};
use serde::{Deserialize, Serialize};

/// A Remote Execution API server and how to use it.
#[derive(Debug, Default, Clone, PartialEq, Eq, Args, Deserialize, Serialize)]
#[serde(default)]
pub struct RemoteSettings {
    /// A Remote Execution API (REAPI v2) server, `grpc://HOST:PORT` (or
    /// `grpcs://` for TLS): its action cache serves encode results and
    /// stores local ones.
    #[arg(long = "remote", value_name = "URL")]
    pub url: Option<String>,
    /// The server's instance name.
    #[arg(
        long = "remote-instance",
        value_name = "NAME",
        visible_alias = "instance"
    )]
    pub instance: Option<String>,
    /// Run encodes on the server's workers instead of this machine.
    #[arg(long = "remote-exec")]
    pub exec: bool,
    /// A PEM file of certificate authorities to trust for `grpcs://`.
    #[arg(long = "remote-ca", value_name = "FILE")]
    pub ca: Option<PathBuf>,
    /// A PEM client certificate for `grpcs://` (with `--remote-key`).
    #[arg(long = "remote-cert", value_name = "FILE", requires = "key")]
    pub cert: Option<PathBuf>,
    /// The PEM private key of `--remote-cert`.
    #[arg(long = "remote-key", value_name = "FILE", requires = "cert")]
    pub key: Option<PathBuf>,
}

/// A command holding the remote flags alone, to read their spellings.
#[derive(Parser)]
struct RemoteFlags {
    #[command(flatten)]
    remote: RemoteSettings,
}

impl RemoteSettings {
    /// The settings with their file paths made absolute against `root`
    /// (the config file's folder, or the working folder for flags).
    pub fn with_files_under(self, root: &Path) -> Self {
        self.with_files_mapped(|path| root.join(path))
    }

    /// The settings with `map` applied to each of their files.
    pub fn with_files_mapped(self, map: impl Fn(&Path) -> PathBuf) -> Self {
        self.try_map_files(|path| Ok::<_, Infallible>(map(path)))
            .unwrap_or_else(|never| match never {})
    }

    /// The settings with `resolve` applied to each of their files (the
    /// first error stops it).
    pub fn try_map_files<E>(
        mut self,
        mut resolve: impl FnMut(&Path) -> Result<PathBuf, E>,
    ) -> Result<Self, E> {
        for file in [&mut self.ca, &mut self.cert, &mut self.key] {
            *file = file.as_deref().map(&mut resolve).transpose()?;
        }
        Ok(self)
    }

    /// These settings where they are set, `under` where they are not (flags
    /// win over the config one by one).
    pub fn over(&self, under: &RemoteSettings) -> Self {
        Self {
            url: self.url.clone().or_else(|| under.url.clone()),
            instance: self.instance.clone().or_else(|| under.instance.clone()),
            exec: self.exec || under.exec,
            ca: self.ca.clone().or_else(|| under.ca.clone()),
            cert: self.cert.clone().or_else(|| under.cert.clone()),
            key: self.key.clone().or_else(|| under.key.clone()),
        }
    }

    /// The flags that give these settings, in a fixed order: the server,
    /// its TLS files, the instance, then `--remote-exec`.
    pub fn to_args(&self) -> Vec<String> {
        let file = |path: &Option<PathBuf>| path.as_ref().map(|p| p.to_string_lossy().into_owned());
        let valued = [
            ("url", self.url.clone()),
            ("ca", file(&self.ca)),
            ("cert", file(&self.cert)),
            ("key", file(&self.key)),
            ("instance", self.instance.clone()),
        ];
        let mut words = Vec::new();
        for (id, value) in valued {
            if let Some(value) = value {
                words.extend([flag(id), value]);
            }
        }
        if self.exec {
            words.push(flag("exec"));
        }
        words
    }
}

/// `--<long name>` of the field `id`, as its `#[arg]` spells it.
fn flag(id: &str) -> String {
    let command = RemoteFlags::command();
    let long = command
        .get_arguments()
        .find(|arg| arg.get_id() == id)
        .and_then(|arg| arg.get_long())
        .unwrap_or(id);
    format!("--{long}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_read_back_into_the_settings_they_came_from() {
        let settings = RemoteSettings {
            url: Some("grpcs://r:1".into()),
            instance: Some("main".into()),
            exec: true,
            ca: Some("/ca.pem".into()),
            cert: Some("/c.pem".into()),
            key: Some("/k.pem".into()),
        };
        let words = settings.to_args();
        assert_eq!(
            words.join(" "),
            "--remote grpcs://r:1 --remote-ca /ca.pem --remote-cert /c.pem --remote-key /k.pem \
             --remote-instance main --remote-exec"
        );
        let parsed = RemoteFlags::try_parse_from(std::iter::once("x".to_owned()).chain(words))
            .unwrap()
            .remote;
        assert_eq!(parsed, settings);
        assert!(RemoteSettings::default().to_args().is_empty());
    }

    #[test]
    fn flags_win_one_by_one_and_files_resolve_against_their_root() {
        let file = RemoteSettings {
            url: Some("grpc://file:1".into()),
            instance: Some("file".into()),
            ca: Some("certs/ca.pem".into()),
            ..RemoteSettings::default()
        }
        .with_files_under(Path::new("/project"));
        let flags = RemoteSettings {
            instance: Some("flag".into()),
            exec: true,
            ..RemoteSettings::default()
        };
        let merged = flags.over(&file);
        assert_eq!(merged.url.as_deref(), Some("grpc://file:1"));
        assert_eq!(merged.instance.as_deref(), Some("flag"));
        assert!(merged.exec);
        assert_eq!(merged.ca, Some(PathBuf::from("/project/certs/ca.pem")));
    }
}
