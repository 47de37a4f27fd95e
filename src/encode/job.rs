//! The contract between a Ninja edge and an encoder.
//!
//! Every `assetc-encode <kind>` invocation receives its source, its outputs in
//! the order Ninja lists them, the output root (to turn output paths into
//! runtime paths), and where to write its manifest fragment and depfile. The
//! encoder computes all output bytes in memory first; only then does [`run`]
//! write them, each atomically and only if changed, followed by the fragment
//! and the depfile.
//!
//! When anything fails, [`run`] deletes the edge's outputs, fragment and
//! depfile, plus the link outputs named by `--invalidate` (the manifest and the
//! pack): a failed build leaves neither half-written files nor a manifest that
//! still claims the failed asset is fine.

use std::path::{Path, PathBuf};

use crate::format::kind::{AssetKind, ColorSpace};
use crate::format::{FileType, identify};
use crate::fragment::{FileFormat, FileHash, Fragment, FragmentEntry, TextureFormat};
use crate::{depfile, fsutil};

/// Arguments shared by every encoder.
#[derive(Debug, clap::Args)]
pub struct JobArgs {
    /// The source file or folder.
    pub input: PathBuf,
    /// Output files, in the order the Ninja edge lists them.
    #[arg(short = 'o', long = "output")]
    pub outputs: Vec<PathBuf>,
    /// The output root; runtime paths are output paths relative to it.
    #[arg(long)]
    pub root: PathBuf,
    /// The source path relative to the input folder (for the fragment).
    #[arg(long)]
    pub source: String,
    /// Where to write the manifest fragment.
    #[arg(long)]
    pub fragment: PathBuf,
    /// Where to write the depfile. Configure leaves it out for sources that
    /// read no other file (a PNG, a font, an embedded file), which keeps
    /// their edges out of Ninja's deps log; an encoder that does read other
    /// files then fails rather than hide them from Ninja.
    #[arg(long)]
    pub depfile: Option<PathBuf>,
    /// Files to delete if this job fails (the link outputs).
    #[arg(long = "invalidate")]
    pub invalidate: Vec<PathBuf>,
    /// A file listing more files to delete if this job fails, one per line
    /// (the named packs).
    #[arg(long = "invalidate-list")]
    pub invalidate_list: Option<PathBuf>,
    /// On failure, record the error in a failure fragment and exit 0 so the
    /// build goes on; the link reports it and fails (`keep_going`).
    #[arg(long)]
    pub keep_going: bool,
}

impl JobArgs {
    /// The input folder: the input path with the `--source` path (its path
    /// below the input folder) taken off the end.
    pub fn input_root(&self) -> Result<PathBuf, EncodeError> {
        let mut root = self.input.clone();
        for part in self.source.split('/').rev() {
            if root.file_name().and_then(|n| n.to_str()) != Some(part) || !root.pop() {
                return Err(EncodeError::Invalid {
                    path: self.input.clone(),
                    what: format!(
                        "the input does not end with its source path '{}'",
                        self.source
                    ),
                    source: None,
                });
            }
        }
        Ok(root)
    }
}

/// One file an encoder produced, with its manifest registration.
#[derive(Debug)]
pub struct OutputFile {
    /// The file's bytes.
    pub bytes: Vec<u8>,
    /// The manifest kind it is registered under.
    pub kind: AssetKind,
    /// The colour space baked into it.
    pub colorspace: ColorSpace,
}

/// What an encoder produced: one file per `-o` output, in order, and every
/// file it read besides the source.
#[derive(Debug, Default)]
pub struct Encoded {
    /// Output files, parallel to [`JobArgs::outputs`].
    pub files: Vec<OutputFile>,
    /// Extra inputs for the depfile.
    pub extra_inputs: Vec<PathBuf>,
    /// Whether every output is the source itself, byte for byte (recorded
    /// in the fragment, so `assetc-link check` compares it with the source).
    pub copies_source: bool,
}

/// Why an encode job failed. The path is always the file at fault.
#[derive(Debug, thiserror::Error)]
pub enum EncodeError {
    /// A file could not be read or written.
    #[error(transparent)]
    File(#[from] fsutil::FileError),
    /// The source is invalid or cannot be encoded.
    #[error("{}: {what}", path.display())]
    Invalid {
        /// The source.
        path: PathBuf,
        /// What went wrong.
        what: String,
        /// The underlying error, when there is one.
        #[source]
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
    },
    /// The source file holds no bytes: no encoder can make anything of it.
    #[error("{}: {}", path.display(), EMPTY_FILE)]
    Empty {
        /// The source.
        path: PathBuf,
    },
    /// The asset kind has no encoder yet.
    #[error("{}: {kind} encoding is not supported yet", path.display())]
    NotSupported {
        /// The source.
        path: PathBuf,
        /// The kind, for the message.
        kind: &'static str,
    },
    /// The job failed under `--keep-going`: the error (displayed as itself)
    /// is recorded in a failure fragment, and the edge succeeds.
    #[error(transparent)]
    Recorded(Box<EncodeError>),
}

/// What a 0-byte source is told ([`EncodeError::Empty`], and the shader
/// encoder's diagnostics).
pub const EMPTY_FILE: &str = "the file is empty";

/// Reads the source file at `path`; a 0-byte file is refused as
/// [`EncodeError::Empty`], so every encoder that reads a file says so in the
/// same words instead of failing on a missing signature.
pub fn read_source(path: &Path) -> Result<Vec<u8>, EncodeError> {
    let bytes = fsutil::read(path)?;
    if bytes.is_empty() {
        return Err(EncodeError::Empty {
            path: path.to_owned(),
        });
    }
    Ok(bytes)
}

/// [`read_source`]'s refusal of a 0-byte file, for an encoder whose parser
/// reads the file itself (an OBJ).
pub fn refuse_empty(path: &Path) -> Result<(), EncodeError> {
    let length = std::fs::metadata(path)
        .map_err(|source| fsutil::FileError::Read {
            path: path.to_owned(),
            source,
        })?
        .len();
    if length == 0 {
        return Err(EncodeError::Empty {
            path: path.to_owned(),
        });
    }
    Ok(())
}

/// After `result` of the job `args` ran: under `--keep-going`, a failure
/// becomes [`EncodeError::Recorded`] once the edge's outputs are removed and
/// a failure fragment (the error as `program` prints it) and a depfile
/// naming the source are written. Otherwise `result` is returned as is.
pub fn keep_going(
    program: &str,
    args: &JobArgs,
    result: Result<(), EncodeError>,
) -> Result<(), EncodeError> {
    let error = match result {
        Err(error) if args.keep_going => error,
        other => return other,
    };
    clean_up(args);
    let fragment = Fragment {
        source: args.source.clone(),
        errors: crate::cli::error_lines(program, &error),
        ..Fragment::default()
    };
    write(&args.fragment, fragment.render().as_bytes())?;
    write_depfile(args, &[])?;
    Err(EncodeError::Recorded(Box::new(error)))
}

/// Runs `encode` and writes its results, cleaning up on any failure. A panic
/// inside an encoder (a bug in a decoder crate, say) becomes an error that
/// names the source, after the same clean-up.
pub fn run(
    args: &JobArgs,
    encode: impl FnOnce(&JobArgs) -> Result<Encoded, EncodeError>,
) -> Result<(), EncodeError> {
    let encoded = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| encode(args)))
        .unwrap_or_else(|_| {
            Err(EncodeError::Invalid {
                path: args.input.clone(),
                what: "the encoder crashed on this file (a bug in assetc; please report it)".into(),
                source: None,
            })
        });
    let result = encoded.and_then(|encoded| write_results(args, &encoded));
    if result.is_err() {
        clean_up(args);
    }
    result
}

fn write_results(args: &JobArgs, encoded: &Encoded) -> Result<(), EncodeError> {
    if encoded.files.len() != args.outputs.len() {
        return Err(EncodeError::Invalid {
            path: args.input.clone(),
            what: format!(
                "the encoder made {} files but the build expects {}; re-run `assetc configure`",
                encoded.files.len(),
                args.outputs.len()
            ),
            source: None,
        });
    }
    let mut fragment = Fragment {
        source: args.source.clone(),
        ..Fragment::default()
    };
    for (path, file) in args.outputs.iter().zip(&encoded.files) {
        write(path, &file.bytes)?;
        let runtime = runtime_path(&args.root, path)?;
        fragment.entries.push(FragmentEntry {
            kind: file.kind,
            colorspace: file.colorspace,
            path: runtime.clone(),
        });
        fragment.hashes.push(FileHash::of(&runtime, &file.bytes));
        if encoded.copies_source {
            fragment.copies.push(runtime.clone());
        }
        if let Some(format) = texture_format(path, &file.bytes)? {
            fragment.formats.push(FileFormat {
                path: runtime.clone(),
                format,
            });
        }
        fragment.files.push(runtime);
    }
    write(&args.fragment, fragment.render().as_bytes())?;
    write_depfile(args, &encoded.extra_inputs)
}

/// The texel format of an output that is a KTX2 file, read back from the
/// bytes about to be written, so every encoder's textures are recorded alike;
/// `None` for any other file. A KTX2 file our own reader refuses fails the
/// edge, naming the output.
fn texture_format(path: &Path, bytes: &[u8]) -> Result<Option<TextureFormat>, EncodeError> {
    if identify(bytes) != Some(FileType::Ktx2) {
        return Ok(None);
    }
    TextureFormat::of_bytes(bytes)
        .map(Some)
        .map_err(|error| EncodeError::Invalid {
            path: path.to_owned(),
            what: "the encoder wrote a KTX2 file that does not read back".into(),
            source: Some(Box::new(error)),
        })
}

/// Writes the job's depfile: its first output depends on the input and `extra`.
pub(crate) fn write_depfile(args: &JobArgs, extra: &[PathBuf]) -> Result<(), EncodeError> {
    let Some(path) = depfile_for(args, extra)? else {
        return Ok(());
    };
    let target = args.outputs.first().unwrap_or(&args.fragment);
    let inputs: Vec<String> = std::iter::once(&args.input)
        .chain(extra)
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let text = depfile::render(&target.to_string_lossy(), &inputs);
    write(path, text.as_bytes())
}

/// Where the job's depfile goes: `None` when it has no `--depfile` and read
/// nothing but its input, an error when it has none but read `extra` files
/// too (Ninja would never rebuild it when they change).
pub(crate) fn depfile_for<'a>(
    args: &'a JobArgs,
    extra: &[PathBuf],
) -> Result<Option<&'a Path>, EncodeError> {
    match (&args.depfile, extra.first()) {
        (Some(path), _) => Ok(Some(path)),
        (None, None) => Ok(None),
        (None, Some(other)) => Err(EncodeError::Invalid {
            path: args.input.clone(),
            what: format!(
                "it reads {} besides itself, but the edge has no --depfile to tell Ninja",
                other.display()
            ),
            source: None,
        }),
    }
}

/// Writes one file of the job atomically, if its bytes changed.
pub(crate) fn write(path: &Path, bytes: &[u8]) -> Result<(), EncodeError> {
    Ok(fsutil::write_output(path, bytes).map(drop)?)
}

/// The `/`-separated path of `output` below `root`.
pub fn runtime_path(root: &Path, output: &Path) -> Result<String, EncodeError> {
    match fsutil::slash_relative(root, output) {
        Some(rel) if !rel.is_empty() => Ok(rel),
        _ => Err(EncodeError::Invalid {
            path: output.to_owned(),
            what: format!(
                "output is not a UTF-8 path inside the output root {}",
                root.display()
            ),
            source: None,
        }),
    }
}

/// The environment variable that keeps a failed job's previous outputs.
pub const KEEP_LAST_GOOD: &str = "ASSETC_KEEP_LAST_GOOD";

/// Best-effort removal of everything this job (and the link) would own: its
/// declared outputs, fragment and depfile, and the link outputs it
/// invalidates. Under `--keep-going` the link outputs stay: the link runs
/// after every encode and rewrites them without the failed asset, and when
/// the failure is the same as last time they are already right.
///
/// With `ASSETC_KEEP_LAST_GOOD` set (by `assetc watch`), nothing is removed:
/// the outputs, fragment and link outputs stay those of the last good build,
/// which a running engine keeps using, and the failed edge runs again on the
/// next build because Ninja did not record it.
pub(crate) fn clean_up(args: &JobArgs) {
    if std::env::var_os(KEEP_LAST_GOOD).is_some() {
        return;
    }
    fsutil::remove_all(
        args.outputs
            .iter()
            .chain([&args.fragment])
            .chain(&args.depfile),
    );
    if args.keep_going {
        return;
    }
    fsutil::remove_all(&args.invalidate);
    if let Some(list) = &args.invalidate_list {
        fsutil::remove_all(fsutil::listed_paths(list));
    }
}

/// `error` and its cause chain on one line, as tests compare messages.
#[cfg(test)]
pub(crate) fn chained_message(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text += &format!(": {cause}");
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job_in(dir: &Path) -> JobArgs {
        JobArgs {
            input: dir.join("in.png"),
            outputs: vec![dir.join("out/in.ktx2")],
            root: dir.join("out"),
            source: "in.png".into(),
            fragment: dir.join("in.frag"),
            depfile: Some(dir.join("in.d")),
            invalidate: vec![dir.join("out/assets.hman")],
            invalidate_list: None,
            keep_going: false,
        }
    }

    #[test]
    fn keep_going_records_the_error_in_a_failure_fragment() {
        let dir = tempfile::tempdir().unwrap();
        let mut args = job_in(dir.path());
        args.keep_going = true;
        std::fs::create_dir_all(dir.path().join("out")).unwrap();
        std::fs::write(&args.outputs[0], b"old").unwrap();
        let failed = run(&args, |j| {
            Err(EncodeError::Invalid {
                path: j.input.clone(),
                what: "broken".into(),
                source: None,
            })
        });
        let err = keep_going("assetc-encode", &args, failed).unwrap_err();
        assert!(matches!(err, EncodeError::Recorded(_)));
        assert!(!args.outputs[0].exists());
        let fragment = Fragment::read(&args.fragment).unwrap();
        assert_eq!(fragment.source, "in.png");
        assert!(fragment.entries.is_empty() && fragment.files.is_empty());
        assert_eq!(
            fragment.errors,
            [format!(
                "assetc-encode: error: {}: broken",
                args.input.display()
            )]
        );
        assert!(
            std::fs::read_to_string(args.depfile.as_ref().unwrap())
                .unwrap()
                .contains("in.png")
        );
        args.keep_going = false;
        let strict = keep_going(
            "assetc-encode",
            &args,
            Err(EncodeError::NotSupported {
                path: args.input.clone(),
                kind: "x",
            }),
        );
        assert!(matches!(strict, Err(EncodeError::NotSupported { .. })));
    }

    #[test]
    fn without_a_depfile_only_an_encoder_that_reads_its_input_alone_succeeds() {
        let dir = tempfile::tempdir().unwrap();
        let mut args = job_in(dir.path());
        args.depfile = None;
        write_depfile(&args, &[]).unwrap();
        let error = write_depfile(&args, &[dir.path().join("scene.bin")]).unwrap_err();
        let message = error.to_string();
        assert!(
            message.contains("scene.bin") && message.contains("--depfile"),
            "{message}"
        );
        assert!(!dir.path().join("in.d").exists());
    }

    fn texture_output(bytes: Vec<u8>) -> Encoded {
        Encoded {
            files: vec![OutputFile {
                bytes,
                kind: AssetKind::Texture,
                colorspace: ColorSpace::Srgb,
            }],
            ..Encoded::default()
        }
    }

    #[test]
    fn every_ktx2_output_gets_the_format_its_header_describes() {
        use crate::format::texel::TexelFormat;
        let dir = tempfile::tempdir().unwrap();
        let args = job_in(dir.path());
        let bc7 = crate::fragment::tests::ktx2_of(TexelFormat::Bc7 { srgb: true });
        run(&args, |_| Ok(texture_output(bc7))).unwrap();
        let text = std::fs::read_to_string(&args.fragment).unwrap();
        assert!(text.ends_with("format bc7 srgb in.ktx2\n"), "{text}");

        let mut truncated = crate::fragment::tests::ktx2_of(TexelFormat::Bc5);
        truncated.truncate(100);
        let error = run(&args, |_| Ok(texture_output(truncated))).unwrap_err();
        let message = crate::cli::error_lines("assetc-encode", &error).join("\n");
        assert!(
            message.contains("out/in.ktx2: the encoder wrote a KTX2 file that does not read back"),
            "{message}"
        );
        assert!(!args.outputs[0].exists() && !args.fragment.exists());
    }

    #[test]
    fn a_panicking_encoder_becomes_an_error_and_cleans_up() {
        let dir = tempfile::tempdir().unwrap();
        let args = job_in(dir.path());
        std::fs::create_dir_all(dir.path().join("out")).unwrap();
        std::fs::write(&args.outputs[0], b"old").unwrap();
        std::fs::write(&args.invalidate[0], b"old manifest").unwrap();
        let err = run(&args, |_| panic!("decoder bug")).unwrap_err();
        assert!(
            err.to_string().contains("in.png: the encoder crashed"),
            "{err}"
        );
        assert!(!args.outputs[0].exists());
        assert!(!args.invalidate[0].exists());
    }

    #[test]
    fn a_wrong_output_count_is_refused_before_writing() {
        let dir = tempfile::tempdir().unwrap();
        let args = job_in(dir.path());
        let err = run(&args, |_| Ok(Encoded::default())).unwrap_err();
        assert!(
            err.to_string().contains("re-run `assetc configure`"),
            "{err}"
        );
        assert!(!args.fragment.exists());
    }

    #[test]
    fn the_input_root_is_the_input_without_its_source_path() {
        let mut args = job_in(Path::new("assets"));
        args.input = PathBuf::from("assets/models/chair.glb");
        args.source = "models/chair.glb".into();
        assert_eq!(args.input_root().unwrap(), Path::new("assets"));
        args.source = "other/chair.glb".into();
        assert!(args.input_root().is_err());
    }

    #[test]
    fn runtime_paths_are_relative_to_the_root() {
        let p = |root: &str, out: &str| runtime_path(Path::new(root), Path::new(out));
        assert_eq!(p("runtime", "runtime/ui/a.ktx2").unwrap(), "ui/a.ktx2");
        assert_eq!(p(".", "ui/a.ktx2").unwrap(), "ui/a.ktx2");
        assert!(p("runtime", "elsewhere/a.ktx2").is_err());
        assert!(p("runtime", "runtime").is_err());
    }
}
