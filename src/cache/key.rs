//! The action key of an encode edge: what an output depends on, and nothing
//! else.
//!
//! A key is a BLAKE3 hash over length-prefixed fields, in two steps, because
//! the full set of files an encoder reads is only known once it has run (the
//! depfile names them):
//!
//! 1. The **source key** covers the tool's identity (version and the hash of
//!    the `assetc-encode` executable), the canonical command (the encoder kind
//!    and every setting, with the build folder's own paths taken out and the
//!    outputs as runtime paths) and the content of the source.
//! 2. The **result key** adds, for every other file the depfile of an earlier
//!    run under the same source key named, its path (relative to the project
//!    root, as every path in `build.ninja` is) and the hash of its content
//!    now.
//!
//! Neither step reads a modification time, an absolute path of the build
//! folder or anything about the machine, so two checkouts of one project on
//! two machines compute the same keys.

use std::ffi::OsString;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use clap::CommandFactory;

use super::EncodeCli as Cli;
use super::digest::digest_of;
use crate::encode::job::{self, JobArgs};

/// Bumped whenever what goes into a key changes, so old entries stop matching.
const KEY_FORMAT: &[u8] = b"assetc action key 1";

/// The arguments of a job that name files of this build folder; they never
/// reach a key. The outputs enter as runtime paths instead, and the source
/// through its content and `--source`.
const BUILD_FOLDER_ARGS: &[&str] = &[
    "input",
    "outputs",
    "root",
    "fragment",
    "depfile",
    "invalidate",
    "invalidate_list",
    "keep_going",
];

/// A 32-byte content or action hash.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key(pub [u8; 32]);

impl Key {
    /// Lower-case hex, as used in file names and records.
    pub fn hex(&self) -> String {
        blake3::Hash::from_bytes(self.0).to_hex().to_string()
    }

    /// Parses [`Key::hex`] output.
    pub fn from_hex(text: &str) -> Option<Self> {
        blake3::Hash::from_hex(text)
            .ok()
            .map(|h| Self(*h.as_bytes()))
    }

    /// The BLAKE3 hash of `bytes`.
    pub fn of(bytes: &[u8]) -> Self {
        Self(*blake3::hash(bytes).as_bytes())
    }
}

/// A hash over a sequence of fields, each prefixed with its length so no two
/// different sequences can feed the hasher the same bytes.
struct Fields(blake3::Hasher);

impl Fields {
    fn new(domain: &[u8]) -> Self {
        let mut fields = Self(blake3::Hasher::new());
        fields.field(KEY_FORMAT);
        fields.field(domain);
        fields
    }

    fn field(&mut self, bytes: &[u8]) -> &mut Self {
        self.0.update(&(bytes.len() as u64).to_le_bytes());
        self.0.update(bytes);
        self
    }

    fn finish(&self) -> Key {
        Key(*self.0.finalize().as_bytes())
    }
}

/// The hash of what an edge reads at `path`: a file's bytes, or for a
/// folder source (`*.env/`, `*.array/`, `*.shader/`) its sorted list of
/// entries; the files inside come in through the depfile.
pub fn content_hash(path: &Path) -> io::Result<Key> {
    let meta = fs::metadata(path)?;
    if !meta.is_dir() {
        let mut hasher = blake3::Hasher::new();
        hasher.update_reader(fs::File::open(path)?)?;
        return Ok(Key(*hasher.finalize().as_bytes()));
    }
    let mut names = fs::read_dir(path)?
        .map(|entry| {
            let entry = entry?;
            let kind = if entry.file_type()?.is_dir() { "/" } else { "" };
            Ok(format!("{}{kind}", entry.file_name().to_string_lossy()))
        })
        .collect::<io::Result<Vec<_>>>()?;
    names.sort();
    let mut fields = Fields::new(b"folder");
    for name in &names {
        fields.field(name.as_bytes());
    }
    Ok(fields.finish())
}

/// The identity of the encoder program: its version and the hash of its
/// executable's bytes, so any rebuild of the tool that could change an output
/// changes every key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolId {
    /// The package version.
    pub version: String,
    /// BLAKE3 of the executable.
    pub blake3: Key,
    /// SHA-256 of the executable, in hex, for REAPI digests.
    pub sha256: String,
    /// Where the executable is (it is uploaded for remote execution).
    pub path: PathBuf,
    /// Its size in bytes.
    pub size: u64,
}

impl ToolId {
    /// The running executable's identity. Hashing tens of megabytes per edge
    /// would dominate a cache hit, so the hash is remembered in
    /// `memo_dir/tool.id` beside the file's device, inode, size and times; a
    /// memo that does not match the file exactly is recomputed.
    pub fn current(memo_dir: Option<&Path>) -> io::Result<Self> {
        let exe = std::env::current_exe()?;
        let meta = fs::metadata(&exe)?;
        let size = meta.len();
        let stamp = file_stamp(&exe, &meta)?;
        let memo = memo_dir.map(|dir| dir.join("tool.id"));
        if let Some((version, blake3, sha256)) = memo.as_deref().and_then(|m| read_memo(m, &stamp))
        {
            return Ok(Self {
                version,
                blake3,
                sha256,
                path: exe,
                size,
            });
        }
        let bytes = fs::read(&exe)?;
        let id = Self {
            version: env!("CARGO_PKG_VERSION").to_owned(),
            blake3: Key::of(&bytes),
            sha256: digest_of(&bytes).hash,
            size: bytes.len() as u64,
            path: exe,
        };
        if let Some(memo) = memo {
            let text = format!(
                "{stamp}\n{}\n{}\n{}\n",
                id.version,
                id.blake3.hex(),
                id.sha256
            );
            // A memo that cannot be written only costs the next edge a hash.
            let _ = crate::fsutil::write_if_changed(&memo, text.as_bytes());
        }
        Ok(id)
    }
}

/// What identifies one version of a file on this machine without reading it.
fn file_stamp(path: &Path, meta: &fs::Metadata) -> io::Result<String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Ok(format!(
            "{} {} {} {}.{} {}.{} {}",
            meta.dev(),
            meta.ino(),
            meta.size(),
            meta.mtime(),
            meta.mtime_nsec(),
            meta.ctime(),
            meta.ctime_nsec(),
            path.display()
        ))
    }
    #[cfg(not(unix))]
    {
        let modified = meta.modified()?;
        Ok(format!("{} {modified:?} {}", meta.len(), path.display()))
    }
}

/// The version, BLAKE3 and SHA-256 a memo holds for the file `stamp` names.
fn read_memo(memo: &Path, stamp: &str) -> Option<(String, Key, String)> {
    let text = fs::read_to_string(memo).ok()?;
    let mut lines = text.lines();
    if lines.next()? != stamp {
        return None;
    }
    let version = lines.next()?.to_owned();
    let blake3 = Key::from_hex(lines.next()?)?;
    let sha256 = lines.next().filter(|h| h.len() == 64)?.to_owned();
    (version == env!("CARGO_PKG_VERSION")).then_some((version, blake3, sha256))
}

/// One argument of an encoder's command line that can change its output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setting {
    /// clap's id (the field name).
    pub id: String,
    /// The `--long` flag.
    pub long: Option<String>,
    /// Whether the flag is followed by a value.
    pub takes_value: bool,
    /// The values given (or defaulted), as text.
    pub values: Vec<String>,
}

/// An encoder command line without the build folder's paths: the kind and
/// every setting, in the order the subcommand declares them (defaults
/// included, so spelling a default out changes nothing). `None` for a
/// command line clap does not accept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// The subcommand (`texture`, `mesh`, ...).
    pub kind: String,
    /// Its settings.
    pub settings: Vec<Setting>,
}

impl Settings {
    /// Reads the settings out of `argv`.
    pub fn of(argv: &[OsString]) -> Option<Self> {
        let cli = Cli::command();
        let matches = cli.clone().try_get_matches_from(argv).ok()?;
        let (kind, sub_matches) = matches.subcommand()?;
        let sub = cli.find_subcommand(kind)?;
        let mut settings = Vec::new();
        for arg in sub.get_arguments() {
            let id = arg.get_id().as_str();
            if BUILD_FOLDER_ARGS.contains(&id) || arg.is_positional() {
                continue;
            }
            let Ok(Some(values)) = sub_matches.try_get_raw(id) else {
                continue;
            };
            settings.push(Setting {
                id: id.to_owned(),
                long: arg.get_long().map(str::to_owned),
                takes_value: arg.get_action().takes_values(),
                values: values.map(|v| v.to_string_lossy().into_owned()).collect(),
            });
        }
        Some(Self {
            kind: kind.to_owned(),
            settings,
        })
    }

    /// The canonical words that enter the key: the kind, `id=value` for
    /// every setting, and the outputs as runtime paths.
    pub fn canonical(&self, job: &JobArgs) -> Option<Vec<String>> {
        let mut words = vec![self.kind.clone()];
        for setting in &self.settings {
            for value in &setting.values {
                words.push(format!("{}={value}", setting.id));
            }
        }
        for output in &job.outputs {
            words.push(format!(
                "output={}",
                job::runtime_path(&job.root, output).ok()?
            ));
        }
        Some(words)
    }

    /// The settings as command-line words again (`--quality 2`, a bare
    /// `--flag` for a switch that is on), for running the encoder elsewhere.
    pub fn flags(&self) -> Vec<String> {
        let mut words = Vec::new();
        for setting in &self.settings {
            let Some(long) = &setting.long else { continue };
            if setting.takes_value {
                for value in &setting.values {
                    words.extend([format!("--{long}"), value.clone()]);
                }
            } else if setting.values.iter().any(|v| v == "true") {
                words.push(format!("--{long}"));
            }
        }
        words
    }
}

/// The source key: tool, canonical command and the source's content.
pub fn source_key(tool: &ToolId, command: &[String], source: &Key) -> Key {
    let mut fields = Fields::new(b"source");
    fields.field(tool.version.as_bytes()).field(&tool.blake3.0);
    for word in command {
        fields.field(word.as_bytes());
    }
    fields.field(&source.0).finish()
}

/// The result key: the source key plus every other input's path and content.
pub fn result_key(source: &Key, deps: &[(String, Key)]) -> Key {
    let mut fields = Fields::new(b"result");
    fields.field(&source.0);
    for (path, hash) in deps {
        fields.field(path.as_bytes()).field(&hash.0);
    }
    fields.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn argv(words: &str) -> Vec<OsString> {
        std::iter::once("assetc-encode")
            .chain(words.split_whitespace())
            .map(OsString::from)
            .collect()
    }

    fn canonical(words: &str) -> Vec<String> {
        let argv = argv(words);
        let cli = Cli::try_parse_from(&argv).unwrap();
        let job = cli.command.job();
        Settings::of(&argv).unwrap().canonical(job).unwrap()
    }

    #[test]
    fn flags_give_back_an_equivalent_command_line() {
        let words =
            format!("{TEXTURE} --quality 3 --root o --fragment f --depfile d -o o/a.ktx2 a.png");
        let settings = Settings::of(&argv(&words)).unwrap();
        let mut again = vec!["texture".to_owned()];
        again.extend(settings.flags());
        again.extend(
            [
                "--root",
                "x",
                "--fragment",
                "g",
                "--depfile",
                "e",
                "-o",
                "x/a.ktx2",
                "b.png",
            ]
            .map(String::from),
        );
        let again: Vec<OsString> = std::iter::once("assetc-encode".into())
            .chain(again.iter().map(OsString::from))
            .collect();
        assert_eq!(Settings::of(&again), Some(settings));
    }

    const TEXTURE: &str = "texture --mode color --compress true --source ui/a.png";

    #[test]
    fn build_folder_paths_stay_out_of_the_command() {
        let here = canonical(&format!(
            "{TEXTURE} --root out --fragment b/f.frag --depfile b/f.d --invalidate out/assets.hman -o out/ui/a.ktx2 assets/ui/a.png"
        ));
        let there = canonical(&format!(
            "{TEXTURE} --keep-going --root /other/rt --fragment x/y.frag --depfile x/y.d -o /other/rt/ui/a.ktx2 /other/src/ui/a.png"
        ));
        assert_eq!(here, there);
        assert_eq!(here[0], "texture");
        assert!(here.contains(&"mode=color".to_owned()), "{here:?}");
        assert!(here.contains(&"output=ui/a.ktx2".to_owned()), "{here:?}");
        assert!(here.contains(&"source=ui/a.png".to_owned()), "{here:?}");
    }

    #[test]
    fn every_setting_and_runtime_path_is_in_the_command() {
        let base = "--root o --fragment f --depfile d -o o/ui/a.ktx2 a.png";
        let plain = canonical(&format!("{TEXTURE} {base}"));
        let spelled = canonical(&format!("{TEXTURE} --quality 2 {base}"));
        assert_eq!(plain, spelled, "a default spelled out is the same command");
        for changed in [
            format!("{TEXTURE} --quality 3 {base}"),
            format!("{TEXTURE} --mips false {base}"),
            format!("texture --mode normal --compress true --source ui/a.png {base}"),
            format!("{TEXTURE} --root o --fragment f --depfile d -o o/ui/b.ktx2 a.png"),
        ] {
            assert_ne!(plain, canonical(&changed), "{changed}");
        }
    }

    #[test]
    fn keys_change_with_every_field() {
        let tool = ToolId {
            version: "1".into(),
            blake3: Key::of(b"exe"),
            sha256: "0".repeat(64),
            path: PathBuf::from("assetc-encode"),
            size: 3,
        };
        let command = vec!["texture".to_owned(), "mode=color".to_owned()];
        let source = Key::of(b"pixels");
        let k0 = source_key(&tool, &command, &source);
        let other_tool = ToolId {
            blake3: Key::of(b"exe2"),
            ..tool.clone()
        };
        assert_ne!(k0, source_key(&other_tool, &command, &source));
        assert_ne!(k0, source_key(&tool, &command[..1], &source));
        assert_ne!(k0, source_key(&tool, &command, &Key::of(b"other")));
        let dep = |p: &str, c: &[u8]| (p.to_owned(), Key::of(c));
        let k1 = result_key(&k0, &[dep("a.bin", b"1")]);
        assert_ne!(k1, result_key(&k0, &[dep("a.bin", b"2")]));
        assert_ne!(k1, result_key(&k0, &[dep("b.bin", b"1")]));
        assert_ne!(k1, result_key(&k0, &[]));
    }

    #[test]
    fn a_folder_hashes_its_entry_names() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("px.png"), b"1").unwrap();
        let first = content_hash(dir.path()).unwrap();
        fs::write(dir.path().join("px.png"), b"2").unwrap();
        assert_eq!(first, content_hash(dir.path()).unwrap());
        fs::write(dir.path().join("nx.png"), b"2").unwrap();
        assert_ne!(first, content_hash(dir.path()).unwrap());
    }

    #[test]
    fn the_tool_memo_is_used_only_for_the_same_file() {
        let dir = tempfile::tempdir().unwrap();
        let first = ToolId::current(Some(dir.path())).unwrap();
        let memo = dir.path().join("tool.id");
        let text = fs::read_to_string(&memo).unwrap();
        let forged = text.replace(&first.blake3.hex(), &Key::of(b"x").hex());
        fs::write(&memo, &forged).unwrap();
        assert_eq!(
            ToolId::current(Some(dir.path())).unwrap().blake3,
            Key::of(b"x")
        );
        fs::write(&memo, forged.replacen(' ', " 9", 1)).unwrap();
        assert_eq!(ToolId::current(Some(dir.path())).unwrap(), first);
    }
}
