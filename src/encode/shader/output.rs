//! The shader edge: a folder whose set of outputs depends on its contents.
//!
//! Which `.spv` files a shader folder produces is only known once its sources
//! are compiled, and the build graph does not use `dyndep`. So the edge
//! declares one output to Ninja, its manifest fragment, and manages the
//! `.spv` files itself:
//!
//! * each `.spv` is written atomically and only when its bytes change;
//! * the `.spv` files its previous fragment listed and it no longer produces
//!   (a removed entry point) are deleted first;
//! * when any `.spv` was written or deleted, the fragment is rewritten even if
//!   its text is unchanged, so its new modification time tells Ninja
//!   (`restat`) that the link steps, which read the `.spv` files through the
//!   fragment, must run;
//! * on failure, every `.spv` of the folder, old or new, is deleted with the
//!   fragment, the depfile and the link outputs the job invalidates.
//!
//! The depfile's target is the fragment; it lists the folder (so adding or
//! removing a file rebuilds the edge: the folder's time changes) and every
//! file read, includes outside the folder too.

use std::path::Path;

use super::include::Sources;
use super::{CompiledFolder, compile_folder};
use crate::depfile;
use crate::encode::job::{self, EncodeError, JobArgs};
use crate::format::kind::{AssetKind, ColorSpace};
use crate::fragment::{FileHash, Fragment, FragmentEntry};
use crate::fsutil::{self, FileError};

/// The runtime folder a shader folder writes into: its path without the
/// `.shader` suffix (`fx/Bloom.shader` writes `fx/Bloom/*.spv`), case kept.
pub fn output_folder(source: &str) -> &str {
    fsutil::without_extension(source)
}

/// Runs the shader edge: compiles, then writes the `.spv` files, the
/// fragment and the depfile, or cleans up after any failure.
pub fn run(args: &JobArgs) -> Result<(), EncodeError> {
    let folder = output_folder(&args.source);
    let mut owned = previous_files(&args.fragment, folder);
    let compiled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| compile_job(args)))
        .unwrap_or_else(|_| {
            Err(EncodeError::Invalid {
                path: args.input.clone(),
                what: "the encoder crashed on this folder (a bug in assetc; please report it)"
                    .into(),
                source: None,
            })
        });
    let result = compiled.and_then(|compiled| write_results(args, &compiled, &mut owned));
    if result.is_err() {
        clean_up(args, &owned, folder);
    }
    result
}

fn compile_job(args: &JobArgs) -> Result<CompiledFolder, EncodeError> {
    if let Some(output) = args.outputs.first() {
        return Err(EncodeError::Invalid {
            path: output.clone(),
            what: "a shader edge names its own outputs and takes no -o; re-run `assetc configure`"
                .into(),
            source: None,
        });
    }
    let input_root = args.input_root()?;
    let sources = Sources {
        input_root: &input_root,
        folder: &args.source,
    };
    compile_folder(sources, &args.input).map_err(|error| EncodeError::Invalid {
        path: args.input.clone(),
        what: "cannot compile shaders".into(),
        source: Some(Box::new(error)),
    })
}

/// The `.spv` files (runtime paths) the edge's previous fragment listed
/// inside its output folder; nothing when there is no readable fragment.
fn previous_files(fragment: &Path, folder: &str) -> Vec<String> {
    let Ok(previous) = Fragment::read(fragment) else {
        return Vec::new();
    };
    previous
        .files
        .into_iter()
        .filter(|path| is_own_module(path, folder))
        .collect()
}

/// Whether a runtime path is a `.spv` directly inside `folder`, with no `..`:
/// the only files a shader edge ever deletes.
fn is_own_module(path: &str, folder: &str) -> bool {
    path.strip_prefix(folder)
        .and_then(|rest| rest.strip_prefix('/'))
        .is_some_and(|name| {
            !name.contains('/')
                && name != ".spv"
                && name.len() > ".spv".len()
                && name.ends_with(".spv")
        })
}

/// Writes what the folder compiled to. `owned` starts as the previous
/// fragment's files and gains every file this run writes, for clean-up.
fn write_results(
    args: &JobArgs,
    compiled: &CompiledFolder,
    owned: &mut Vec<String>,
) -> Result<(), EncodeError> {
    let folder = output_folder(&args.source);
    let mut fragment = Fragment {
        source: args.source.clone(),
        ..Fragment::default()
    };
    for module in &compiled.modules {
        let runtime = format!("{folder}/{}.spv", module.name);
        fragment.entries.push(FragmentEntry {
            kind: AssetKind::Shader,
            colorspace: ColorSpace::Linear,
            path: runtime.clone(),
        });
        fragment.hashes.push(FileHash::of(&runtime, &module.bytes));
        fragment.files.push(runtime);
    }
    // Stale files go first: on a case-insensitive file system `VS.spv` and a
    // new `vs.spv` are one file, and deleting after writing would lose it.
    let mut changed = false;
    for stale in owned.iter().filter(|old| !fragment.files.contains(old)) {
        let path = args.root.join(stale);
        changed |= path.exists();
        fsutil::remove_if_exists(&path).map_err(|source| FileError::Write { path, source })?;
    }
    for (runtime, module) in fragment.files.iter().zip(&compiled.modules) {
        owned.push(runtime.clone());
        changed |= fsutil::write_output(&args.root.join(runtime), &module.bytes)?;
    }
    write_fragment(&args.fragment, &fragment.render(), changed)?;
    let Some(depfile_path) = job::depfile_for(args, &compiled.inputs)? else {
        return Ok(());
    };
    let mut inputs = vec![args.input.to_string_lossy().into_owned()];
    inputs.extend(
        compiled
            .inputs
            .iter()
            .map(|p| p.to_string_lossy().into_owned()),
    );
    let text = depfile::render(&args.fragment.to_string_lossy(), &inputs);
    fsutil::write_output(depfile_path, text.as_bytes())?;
    Ok(())
}

/// Writes the fragment; when a `.spv` changed, even if its text did not, so
/// Ninja sees a new time on the edge's only declared output.
fn write_fragment(path: &Path, text: &str, force: bool) -> Result<(), FileError> {
    if !force {
        return fsutil::write_output(path, text.as_bytes()).map(drop);
    }
    fsutil::write_atomic(path, text.as_bytes()).map_err(|source| FileError::Write {
        path: path.to_owned(),
        source,
    })
}

/// Best-effort removal of every file the edge owns, and of its output folder
/// when that leaves it empty.
fn clean_up(args: &JobArgs, owned: &[String], folder: &str) {
    fsutil::remove_all(owned.iter().map(|rel| args.root.join(rel)));
    job::clean_up(args);
    let _ = std::fs::remove_dir(args.root.join(folder));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_output_folder_drops_the_shader_suffix_and_keeps_case() {
        assert_eq!(output_folder("fx/Bloom.shader"), "fx/Bloom");
        assert_eq!(output_folder("Post.SHADER"), "Post");
    }

    #[test]
    fn only_spv_files_of_the_own_folder_are_ever_deleted() {
        assert!(is_own_module("fx/Bloom/vertex.spv", "fx/Bloom"));
        assert!(!is_own_module("fx/Bloom/../x.spv", "fx/Bloom"));
        assert!(!is_own_module("fx/Bloom/sub/x.spv", "fx/Bloom"));
        assert!(!is_own_module("fx/BloomX/x.spv", "fx/Bloom"));
        assert!(!is_own_module("fx/Bloom/x.ktx2", "fx/Bloom"));
        assert!(!is_own_module("fx/Bloom/.spv", "fx/Bloom"));
        assert!(!is_own_module("fx/other.spv", "fx/Bloom"));
    }
}
