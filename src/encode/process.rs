//! `assetc-encode process`: runs a user processor (`processors:` in
//! `assetc.yml`) so that its edge behaves like a built-in encoder's.
//!
//! ```text
//! assetc-encode process --name tiled --kind embed --colorspace linear \
//!     --root runtime --source maps/one.tmj --fragment … --depfile … \
//!     -o runtime/maps/one.tmap assets/maps/one.tmj -- '<command template>'
//! ```
//!
//! The wrapper:
//! 1. makes a scratch folder next to the real output (`.assetc-tmp-*`, same
//!    file system, so nothing half-written ever sits at the output's path);
//! 2. expands `$in`, `$out` and `$depfile` in the template (see
//!    [`expand_command`]) and runs it with `sh -c` from the working folder
//!    Ninja gives it (the project root), standard input closed, standard
//!    output and error passed through to Ninja;
//! 3. on a zero exit status, reads the output from the scratch folder, checks
//!    it is a valid file of the declared kind, and hands it to [`job::run`],
//!    which writes it atomically and only if its bytes changed, writes the
//!    fragment, and writes our depfile: the real output as target, the
//!    source first, then every input the user's depfile names;
//! 4. on any failure (non-zero exit, no output, an invalid output, a bad
//!    depfile) returns an error naming the source and the processor; the
//!    scratch folder is removed and [`job::run`] deletes the edge's outputs,
//!    fragment and depfile and the link outputs.

mod depfile;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};

use clap::Args;

use super::job::{self, EncodeError, Encoded, JobArgs, OutputFile};
use super::shader;
use crate::format::kind::{AssetKind, ColorSpace};
use crate::format::{hanim, hfont, hmat, hmesh, ktx2};
use crate::fsutil;
use crate::shell::shell_quote;

/// The arguments of `assetc-encode process`.
#[derive(Debug, Args)]
pub struct ProcessArgs {
    /// The processor's name (for messages and `ASSETC_PROCESSOR`).
    #[arg(long)]
    pub name: String,
    /// The manifest kind the output is registered under.
    #[arg(long, value_parser = parse_kind)]
    pub kind: AssetKind,
    /// The colour space recorded in the manifest.
    #[arg(long, value_parser = parse_colorspace, default_value = "linear")]
    pub colorspace: ColorSpace,
    /// The job.
    #[command(flatten)]
    pub job: JobArgs,
    /// The user's command template, one shell command line.
    #[arg(last = true, required = true, num_args = 1)]
    pub command: String,
}

fn parse_kind(text: &str) -> Result<AssetKind, String> {
    AssetKind::from_name(text).ok_or_else(|| format!("unknown asset kind '{text}'"))
}

fn parse_colorspace(text: &str) -> Result<ColorSpace, String> {
    ColorSpace::from_name(text).ok_or_else(|| format!("unknown colour space '{text}'"))
}

/// Runs the processor and records its output like any encoder's.
pub fn run(args: &ProcessArgs) -> Result<(), EncodeError> {
    job::run(&args.job, |job| process(job, args))
}

/// The paths one run of the user's command writes to.
struct Scratch {
    /// The folder, deleted with everything in it when dropped.
    folder: tempfile::TempDir,
    /// What `$out` names: the output's file name inside the folder.
    output: PathBuf,
    /// What `$depfile` names.
    depfile: PathBuf,
}

impl Scratch {
    /// A fresh scratch folder beside `output`.
    fn beside(output: &Path) -> Result<Self, EncodeError> {
        let parent = match output.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        let cannot = |source: std::io::Error| {
            EncodeError::File(fsutil::FileError::Write {
                path: parent.to_owned(),
                source,
            })
        };
        std::fs::create_dir_all(parent).map_err(cannot)?;
        let folder = tempfile::Builder::new()
            .prefix(".assetc-tmp-")
            .tempdir_in(parent)
            .map_err(cannot)?;
        let name = output.file_name().unwrap_or(output.as_os_str());
        let mut depfile_name = name.to_owned();
        depfile_name.push(".d");
        Ok(Self {
            output: folder.path().join(name),
            depfile: folder.path().join(depfile_name),
            folder,
        })
    }
}

fn process(job: &JobArgs, args: &ProcessArgs) -> Result<Encoded, EncodeError> {
    let [output] = job.outputs.as_slice() else {
        return Err(invalid(
            job,
            format!(
                "processor '{}' makes one output but the build lists {}; re-run `assetc configure`",
                args.name,
                job.outputs.len()
            ),
        ));
    };
    let scratch = Scratch::beside(output)?;
    let status = run_command(job, args, output, &scratch)?;
    if !status.success() {
        return Err(invalid(
            job,
            format!("processor '{}' failed: {}", args.name, describe(status)),
        ));
    }
    let bytes = std::fs::read(&scratch.output).map_err(|e| {
        invalid(
            job,
            format!(
                "processor '{}' exited successfully but did not write its output {} ($out was {}: {e})",
                args.name,
                output.display(),
                scratch.output.display()
            ),
        )
    })?;
    check_kind(args.kind, &bytes).map_err(|what| {
        invalid(
            job,
            format!(
                "processor '{}' declared kind {} but {what}",
                args.name, args.kind
            ),
        )
    })?;
    let extra_inputs = user_inputs(job, args, &scratch)?;
    Ok(Encoded {
        files: vec![OutputFile {
            bytes,
            kind: args.kind,
            colorspace: args.colorspace,
        }],
        extra_inputs,
        copies_source: false,
    })
}

/// Runs the expanded command with `sh -c`.
fn run_command(
    job: &JobArgs,
    args: &ProcessArgs,
    output: &Path,
    scratch: &Scratch,
) -> Result<ExitStatus, EncodeError> {
    let words = [
        ("in", shell_quote(&job.input.to_string_lossy())),
        ("out", shell_quote(&scratch.output.to_string_lossy())),
        ("depfile", shell_quote(&scratch.depfile.to_string_lossy())),
    ];
    let command = expand_command(&args.command, &words);
    let runtime = fsutil::slash_relative(&job.root, output).unwrap_or_default();
    Command::new("sh")
        .arg("-c")
        .arg(&command)
        .env("ASSETC_IN", &job.input)
        .env("ASSETC_OUT", &scratch.output)
        .env("ASSETC_DEPFILE", &scratch.depfile)
        .env("ASSETC_SOURCE", &job.source)
        .env("ASSETC_OUTPUT", runtime)
        .env("ASSETC_PROCESSOR", &args.name)
        .env("ASSETC_KIND", args.kind.name())
        .stdin(Stdio::null())
        .status()
        .map_err(|e| EncodeError::Invalid {
            path: job.input.clone(),
            what: format!("cannot run processor '{}' with sh", args.name),
            source: Some(Box::new(e)),
        })
}

/// Expands `$name` and `${name}` for each `(name, value)` in `words`; every
/// other `$` is left for the shell (`$HOME`, `$1`, `$$`). `$name` only matches
/// a whole name: `$input` is not `$in` followed by `put`.
pub fn expand_command(template: &str, words: &[(&str, String)]) -> String {
    let mut out = String::with_capacity(template.len() + 64);
    let mut rest = template;
    while let Some(dollar) = rest.find('$') {
        out.push_str(&rest[..dollar]);
        let after = &rest[dollar + 1..];
        match match_word(after, words) {
            Some((value, used)) => {
                out.push_str(value);
                rest = &after[used..];
            }
            None => {
                out.push('$');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The value of the word `text` starts with (after a `$`) and how many bytes
/// of `text` name it.
fn match_word<'a>(text: &str, words: &'a [(&str, String)]) -> Option<(&'a str, usize)> {
    words.iter().find_map(|(name, value)| {
        if let Some(braced) = text.strip_prefix('{')
            && braced.strip_prefix(name)?.starts_with('}')
        {
            return Some((value.as_str(), name.len() + 2));
        }
        let tail = text.strip_prefix(name)?;
        let whole = !tail.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_');
        whole.then_some((value.as_str(), name.len()))
    })
}

/// A process's exit status for people.
fn describe(status: ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("exit status {code}");
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return format!("killed by signal {signal}");
        }
    }
    status.to_string()
}

/// Whether `bytes` are a valid file of `kind`; the reason when not.
fn check_kind(kind: AssetKind, bytes: &[u8]) -> Result<(), String> {
    let result = match kind {
        AssetKind::Texture | AssetKind::Lut => ktx2::validate(bytes),
        AssetKind::Mesh => hmesh::validate(bytes),
        AssetKind::Material => hmat::validate(bytes),
        AssetKind::Animation => hanim::validate(bytes),
        AssetKind::Font => hfont::validate(bytes),
        AssetKind::Shader => {
            return shader::validate_spirv(bytes)
                .map(drop)
                .map_err(|what| format!("its output {what}"));
        }
        AssetKind::Embed => return Ok(()),
    };
    result.map_err(|e| format!("its output is not a valid {kind} file: {e}"))
}

/// The inputs the user's depfile names, if it wrote one, without the scratch
/// folder's own files and without repeats.
fn user_inputs(
    job: &JobArgs,
    args: &ProcessArgs,
    scratch: &Scratch,
) -> Result<Vec<PathBuf>, EncodeError> {
    let text = match std::fs::read_to_string(&scratch.depfile) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(invalid(
                job,
                format!(
                    "cannot read the depfile processor '{}' wrote: {e}",
                    args.name
                ),
            ));
        }
    };
    let inputs = depfile::inputs(&text).map_err(|what| {
        invalid(
            job,
            format!("processor '{}' wrote a bad depfile: {what}", args.name),
        )
    })?;
    let mut unique: Vec<PathBuf> = Vec::new();
    for input in inputs.into_iter().map(PathBuf::from) {
        if !input.starts_with(scratch.folder.path())
            && input != job.input
            && !unique.contains(&input)
        {
            unique.push(input);
        }
    }
    Ok(unique)
}

/// An error about this job's source.
fn invalid(job: &JobArgs, what: String) -> EncodeError {
    EncodeError::Invalid {
        path: job.input.clone(),
        what,
        source: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words() -> Vec<(&'static str, String)> {
        vec![
            ("in", "'a b.tmj'".into()),
            ("out", "o.bin".into()),
            ("depfile", "o.d".into()),
        ]
    }

    #[test]
    fn only_whole_names_expand() {
        let expand = |t: &str| expand_command(t, &words());
        assert_eq!(expand("tool $in -o $out"), "tool 'a b.tmj' -o o.bin");
        assert_eq!(
            expand("tool ${in}x --dep=$depfile"),
            "tool 'a b.tmj'x --dep=o.d"
        );
        assert_eq!(expand("echo $input $HOME $$ $"), "echo $input $HOME $$ $");
        assert_eq!(expand("cp $in $out.tmp"), "cp 'a b.tmj' o.bin.tmp");
        assert_eq!(expand("${out"), "${out");
    }

    #[test]
    fn kinds_are_checked_by_their_readers() {
        assert!(check_kind(AssetKind::Embed, b"anything").is_ok());
        assert!(check_kind(AssetKind::Mesh, b"not a mesh").is_err());
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("x.shader");
        std::fs::create_dir(&folder).unwrap();
        std::fs::write(folder.join("a.comp"), "#version 450\nvoid main() {}\n").unwrap();
        let sources = shader::include::Sources {
            input_root: dir.path(),
            folder: "x.shader",
        };
        let compiled = shader::compile_folder(sources, &folder).unwrap();
        let mut spirv = compiled.modules[0].bytes.clone();
        assert_eq!(check_kind(AssetKind::Shader, &spirv), Ok(()));
        assert!(check_kind(AssetKind::Shader, &spirv[..16]).is_err());
        spirv[0] = 0;
        assert!(check_kind(AssetKind::Shader, &spirv).is_err());
    }

    #[cfg(unix)]
    #[test]
    fn a_processor_writes_through_a_scratch_folder() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("in.txt"), b"hello").unwrap();
        std::fs::write(d.join("extra.txt"), b"x").unwrap();
        let args = |command: &str| ProcessArgs {
            name: "upper".into(),
            kind: AssetKind::Embed,
            colorspace: ColorSpace::Linear,
            command: command.into(),
            job: JobArgs {
                input: d.join("in.txt"),
                outputs: vec![d.join("out/in.up")],
                root: d.join("out"),
                source: "in.txt".into(),
                fragment: d.join("frag/in.frag"),
                depfile: Some(d.join("dep/in.d")),
                invalidate: vec![d.join("out/assets.hman")],
                invalidate_list: None,
                keep_going: false,
            },
        };
        let extra = d.join("extra.txt");
        let good = format!(
            "tr a-z A-Z < $in > $out && printf '%s: %s\\n' \"$ASSETC_OUT\" '{}' > $depfile",
            extra.display()
        );
        let ok = args(&good);
        run(&ok).unwrap();
        assert_eq!(std::fs::read(d.join("out/in.up")).unwrap(), b"HELLO");
        let dep = std::fs::read_to_string(d.join("dep/in.d")).unwrap();
        assert!(
            dep.starts_with(&format!("{}:", d.join("out/in.up").display())),
            "{dep}"
        );
        assert!(dep.contains("extra.txt"), "{dep}");
        let leftovers: Vec<_> = std::fs::read_dir(d.join("out")).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "the scratch folder is gone");

        let failing = args("echo oops >&2; exit 3");
        let error = run(&failing).unwrap_err().to_string();
        assert!(
            error.contains("processor 'upper' failed: exit status 3"),
            "{error}"
        );
        assert!(
            !d.join("out/in.up").exists(),
            "a failure removes the output"
        );
        assert_eq!(std::fs::read_dir(d.join("out")).unwrap().count(), 0);

        let lazy = args("true");
        let error = run(&lazy).unwrap_err().to_string();
        assert!(error.contains("did not write its output"), "{error}");
    }
}
