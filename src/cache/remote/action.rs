//! An encode edge as a REAPI action, and its result as an `ActionResult`.
//!
//! The action runs `assetc-encode` from the root of an input tree that holds
//! the tool and the edge's inputs at their project-relative paths. Its
//! command is the edge's settings (the same words that enter the local key)
//! with the build folder's paths replaced by fixed ones below
//! `.assetc-remote/`:
//!
//! ```text
//! .assetc-remote/assetc-encode <kind> <settings> --root .assetc-remote/out
//!     --fragment .assetc-remote/edge.frag --depfile .assetc-remote/edge.d
//!     -o .assetc-remote/out/<runtime path>... <project-relative source>
//! ```
//!
//! Its outputs are the folder `.assetc-remote/out` (every file the edge
//! produced, by runtime path: a shader folder's `.spv` files are not known
//! in advance), the fragment and the depfile. The action digest therefore
//! depends on the tool's bytes, the settings, the runtime paths and the
//! inputs' bytes and paths, and on nothing of the machine or build folder.
//!
//! The files an edge reads besides its source are only known from an
//! earlier run's depfile. They are kept in the action cache too, as the
//! result of a small "deps" action named by the local source key.

use std::path::Path;

use bazel_remote_apis::build::bazel::remote::execution::v2 as re;

use super::merkle::{BadTreePath, TreeFile, build_tree, message_blob};
use crate::cache::digest::digest_of;
use crate::cache::key::{Key, Settings};
use crate::encode::job::{self, EncodeError, JobArgs};

/// The tool's path in the input root.
pub const TOOL: &str = ".assetc-remote/assetc-encode";
/// The output root of the remote encode.
pub const OUT_DIR: &str = ".assetc-remote/out";
/// The fragment's path.
pub const FRAGMENT: &str = ".assetc-remote/edge.frag";
/// The depfile's path.
pub const DEPFILE: &str = ".assetc-remote/edge.d";
/// The one output file of a deps action.
const DEPS_FILE: &str = "deps";

/// One input file: its path in the tree, its digest and where to read it.
#[derive(Debug, Clone)]
pub struct Input {
    /// Project-relative `/`-separated path.
    pub path: String,
    /// Its content's digest.
    pub digest: re::Digest,
}

/// An action and every message blob it needs in the storage.
#[derive(Debug)]
pub struct Action {
    /// The action's digest: its key in the action cache.
    pub digest: re::Digest,
    /// The action, command and directory messages with their digests.
    pub blobs: Vec<(re::Digest, Vec<u8>)>,
}

/// The platform every assetc action asks for: the operating system and
/// processor the tool was built for, which a worker must match, named as
/// the REAPI platform lexicon names them (`OSFamily` `linux`, `ISA`
/// `x86-64`).
fn platform() -> re::Platform {
    let isa = match std::env::consts::ARCH {
        "x86_64" => "x86-64",
        "x86" => "x86-32",
        "aarch64" => "arm-a64",
        "arm" => "arm-a32",
        other => other,
    };
    re::Platform {
        properties: vec![
            re::platform::Property {
                name: "ISA".into(),
                value: isa.into(),
            },
            re::platform::Property {
                name: "OSFamily".into(),
                value: std::env::consts::OS.into(),
            },
        ],
    }
}

/// The command the worker runs for `job` with `settings`. The platform is
/// set on the command as well as on the action: servers older than REAPI
/// 2.2 read it there.
#[allow(deprecated)]
pub fn command(
    settings: &Settings,
    job: &JobArgs,
    source: &str,
) -> Result<re::Command, EncodeError> {
    let mut arguments = vec![TOOL.to_owned(), settings.kind.clone()];
    arguments.extend(settings.flags());
    arguments.extend(
        [
            "--root",
            OUT_DIR,
            "--fragment",
            FRAGMENT,
            "--depfile",
            DEPFILE,
        ]
        .map(String::from),
    );
    for output in &job.outputs {
        let runtime = job::runtime_path(&job.root, output)?;
        arguments.extend(["-o".to_owned(), format!("{OUT_DIR}/{runtime}")]);
    }
    arguments.push(source.to_owned());
    let mut output_paths = vec![DEPFILE.to_owned(), FRAGMENT.to_owned(), OUT_DIR.to_owned()];
    output_paths.sort();
    Ok(re::Command {
        arguments,
        output_paths,
        platform: Some(platform()),
        ..Default::default()
    })
}

/// The action running `command` over the tool (its digest) and `inputs`.
pub fn action(
    command: &re::Command,
    tool: &re::Digest,
    inputs: &[Input],
) -> Result<Action, BadTreePath> {
    let tool_file = TreeFile {
        digest: tool.clone(),
        executable: true,
    };
    let files = std::iter::once((TOOL, tool_file)).chain(inputs.iter().map(|input| {
        let file = TreeFile {
            digest: input.digest.clone(),
            executable: false,
        };
        (input.path.as_str(), file)
    }));
    let tree = build_tree(files)?;
    Ok(seal(command, tree.root_digest.clone(), tree.blobs))
}

fn seal(
    command: &re::Command,
    input_root: re::Digest,
    mut blobs: Vec<(re::Digest, Vec<u8>)>,
) -> Action {
    let (command_digest, command_bytes) = message_blob(command);
    let action = re::Action {
        command_digest: Some(command_digest.clone()),
        input_root_digest: Some(input_root),
        platform: Some(platform()),
        ..Default::default()
    };
    let (digest, action_bytes) = message_blob(&action);
    blobs.push((command_digest, command_bytes));
    blobs.push((digest.clone(), action_bytes));
    Action { digest, blobs }
}

/// The action whose cached result lists the files an edge with source key
/// `source_key` read: it runs nothing and only names the key.
#[allow(deprecated)]
pub fn deps_action(source_key: &Key) -> Action {
    let command = re::Command {
        arguments: vec!["assetc-deps".into(), source_key.hex()],
        output_paths: vec![DEPS_FILE.into()],
        platform: Some(platform()),
        ..Default::default()
    };
    let tree = build_tree([]).expect("an empty tree is always valid");
    seal(&command, tree.root_digest, tree.blobs)
}

/// The result of a deps action holding `text` (the deps record).
pub fn deps_result(text: &[u8]) -> re::ActionResult {
    re::ActionResult {
        output_files: vec![re::OutputFile {
            path: DEPS_FILE.into(),
            digest: Some(digest_of(text)),
            ..Default::default()
        }],
        ..Default::default()
    }
}

/// The digest of the deps record in a deps action's result.
pub fn deps_digest(result: &re::ActionResult) -> Option<re::Digest> {
    let file = result.output_files.iter().find(|f| f.path == DEPS_FILE)?;
    file.digest.clone()
}

/// What an edge produced, as stored or fetched remotely.
#[derive(Debug)]
pub struct Produced {
    /// Every produced file by runtime path, with its bytes.
    pub files: Vec<(String, Vec<u8>)>,
    /// The fragment's bytes.
    pub fragment: Vec<u8>,
    /// Warning lines the encoder printed.
    pub warnings: Vec<String>,
}

/// The `ActionResult` of a local encode of `produced`, with the blobs to
/// upload (the files and the fragment). Each file is listed on its own
/// below [`OUT_DIR`], so one batch read fetches a hit whole; a result made
/// by a remote run lists the folder as a tree instead.
pub fn result_of(produced: &Produced) -> (re::ActionResult, Vec<(re::Digest, Vec<u8>)>) {
    let mut blobs: Vec<(re::Digest, Vec<u8>)> = Vec::with_capacity(produced.files.len() + 1);
    let mut output_files = Vec::with_capacity(produced.files.len() + 1);
    let mut add = |path: String, bytes: &[u8]| {
        let digest = digest_of(bytes);
        output_files.push(re::OutputFile {
            path,
            digest: Some(digest.clone()),
            ..Default::default()
        });
        blobs.push((digest, bytes.to_vec()));
    };
    for (path, bytes) in &produced.files {
        add(format!("{OUT_DIR}/{path}"), bytes);
    }
    add(FRAGMENT.into(), &produced.fragment);
    output_files.sort_by(|a, b| a.path.cmp(&b.path));
    let result = re::ActionResult {
        output_files,
        stderr_raw: produced.warnings.join("\n").into_bytes(),
        ..Default::default()
    };
    (result, blobs)
}

/// Where a result keeps its produced files.
#[derive(Debug, Clone, PartialEq)]
pub enum Outputs {
    /// Listed one by one: runtime path and digest.
    Files(Vec<(String, re::Digest)>),
    /// As the `Tree` message of the output folder (a remote run's result).
    Tree(re::Digest),
}

/// Where each part of a result is stored: the produced files, the fragment
/// and the depfile (only present when the action ran remotely).
pub struct ResultParts {
    /// The produced files.
    pub outputs: Outputs,
    /// The fragment.
    pub fragment: re::Digest,
    /// The depfile.
    pub depfile: Option<re::Digest>,
}

impl ResultParts {
    /// Every blob a first read of the result needs: the fragment, the
    /// depfile, and the files or the tree.
    pub fn first_reads(&self) -> Vec<re::Digest> {
        let mut wanted = vec![self.fragment.clone()];
        wanted.extend(self.depfile.clone());
        match &self.outputs {
            Outputs::Files(files) => wanted.extend(files.iter().map(|(_, d)| d.clone())),
            Outputs::Tree(tree) => wanted.push(tree.clone()),
        }
        wanted
    }
}

/// Finds the parts of a successful result; `None` when it is not one.
pub fn parts_of(result: &re::ActionResult) -> Option<ResultParts> {
    if result.exit_code != 0 {
        return None;
    }
    let file = |path: &str| {
        result
            .output_files
            .iter()
            .find(|f| f.path == path)
            .and_then(|f| f.digest.clone())
    };
    let prefix = format!("{OUT_DIR}/");
    let tree = result
        .output_directories
        .iter()
        .find(|d| d.path == OUT_DIR)
        .and_then(|d| d.tree_digest.clone());
    let outputs = match tree {
        Some(tree) => Outputs::Tree(tree),
        None => Outputs::Files(
            result
                .output_files
                .iter()
                .filter_map(|f| Some((f.path.strip_prefix(&prefix)?.to_owned(), f.digest.clone()?)))
                .collect(),
        ),
    };
    Some(ResultParts {
        outputs,
        fragment: file(FRAGMENT)?,
        depfile: file(DEPFILE),
    })
}

/// The input for the file at project-relative `path`.
pub fn input(path: &str) -> std::io::Result<Input> {
    let bytes = std::fs::read(Path::new(path))?;
    Ok(Input {
        path: path.to_owned(),
        digest: digest_of(&bytes),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_reads_back_its_parts() {
        let produced = Produced {
            files: vec![("ui/a.ktx2".into(), b"ktx".to_vec())],
            fragment: b"frag".to_vec(),
            warnings: vec!["w".into()],
        };
        let (result, blobs) = result_of(&produced);
        let parts = parts_of(&result).unwrap();
        assert_eq!(parts.fragment, digest_of(b"frag"));
        assert!(parts.depfile.is_none());
        assert_eq!(
            parts.outputs,
            Outputs::Files(vec![("ui/a.ktx2".into(), digest_of(b"ktx"))])
        );
        let wanted = parts.first_reads();
        assert_eq!(wanted.len(), 2);
        assert!(wanted.iter().all(|w| blobs.iter().any(|(d, _)| d == w)));
        let failed = re::ActionResult {
            exit_code: 1,
            ..result
        };
        assert!(parts_of(&failed).is_none());
    }

    #[test]
    fn deps_actions_differ_by_key_only() {
        let a = deps_action(&Key::of(b"a"));
        let b = deps_action(&Key::of(b"b"));
        assert_ne!(a.digest, b.digest);
        assert_eq!(a.digest, deps_action(&Key::of(b"a")).digest);
        let result = deps_result(b"record");
        assert_eq!(deps_digest(&result), Some(digest_of(b"record")));
    }
}
