//! File names written inside OBJ and MTL files, resolved against the input
//! folder.
//!
//! A name is relative to the folder of the file that names it; `\` counts as a
//! separator as well as `/`. The check that a name stays inside the input
//! folder is lexical: `..` may climb back out of a subfolder but never above
//! the input folder, and absolute names (`/x`, `C:\x`, `\\server\x`) are
//! refused. Symbolic links are not followed.
//!
//! [`lookup`] adds what exports from another machine need: a name that is
//! absolute, or relative but missing, is also looked for by its file name
//! alone in the folders beside the naming file (the `.mtl`'s, then the
//! `.obj`'s), as tinyobjloader and obj2gltf users expect. What is found there
//! is used with a note; a missing file is reported as such, so the caller
//! can fall back (a default material, an empty texture slot), and so is an
//! absolute name with no such file beside: it is never opened where it
//! points. A relative name that climbs out of the input folder and is not
//! found beside stays refused: it was written on purpose, and what it names
//! would be read from outside the input folder.

use std::path::{Component, Path, PathBuf};

/// A folder inside the input folder, as its components below the input folder.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Folder(Vec<String>);

/// A file named inside the input folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Resolved {
    /// The input folder joined with the components: what is opened.
    pub path: PathBuf,
    /// The folder holding the file, for names written inside it.
    pub folder: Folder,
    /// The path below the input folder with `/` separators, for messages.
    pub relative: String,
}

/// Finds the folder holding `file` below `input_root`. Both are compared as
/// written (ignoring `.` components) and, failing that, as canonical paths.
/// Returns `None` when `file` does not lie inside `input_root`.
pub(super) fn folder_of(file: &Path, input_root: &Path) -> Option<Folder> {
    let relative = strip_root(&without_cur_dir(file), &without_cur_dir(input_root))
        .or_else(|| strip_root(&file.canonicalize().ok()?, &input_root.canonicalize().ok()?))?;
    let mut parts = relative;
    parts.pop()?;
    Some(Folder(parts))
}

/// Resolves `name`, written in a file inside `folder`, to a file inside
/// `input_root`. The error says what is wrong with the name.
pub(super) fn resolve(input_root: &Path, folder: &Folder, name: &str) -> Result<Resolved, String> {
    let unified = name.replace('\\', "/");
    if is_absolute(&unified) {
        return Err(format!(
            "{name:?} is an absolute path; names must be relative to the file's folder"
        ));
    }
    let mut parts = folder.0.clone();
    let mut ends_with_name = false;
    for part in unified.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return Err(format!("{name:?} leads outside the input folder"));
                }
                ends_with_name = false;
            }
            other => {
                parts.push(other.to_owned());
                ends_with_name = true;
            }
        }
    }
    let file_name = parts.pop().filter(|_| ends_with_name);
    let Some(file_name) = file_name else {
        return Err(format!("{name:?} names no file"));
    };
    let mut path = input_root.to_path_buf();
    path.extend(&parts);
    path.push(&file_name);
    let relative = parts
        .iter()
        .chain(std::iter::once(&file_name))
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join("/");
    Ok(Resolved {
        path,
        folder: Folder(parts),
        relative,
    })
}

/// The outcome of [`lookup`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Lookup {
    /// The file, with a note when it was found beside instead of where the
    /// name points.
    Found(Resolved, Option<String>),
    /// No such file; the message says where it was looked for.
    Missing(String),
}

/// Finds the file `name` (written in a file inside `folder`) names: where it
/// points, else by its file name in each of `beside`, in order. A name that
/// climbs out of the input folder and is not found beside is an error; any
/// other name that is not found (an absolute one too) is
/// [`Lookup::Missing`].
pub(super) fn lookup(
    input_root: &Path,
    folder: &Folder,
    name: &str,
    beside: &[&Folder],
) -> Result<Lookup, String> {
    let direct = resolve(input_root, folder, name);
    if let Ok(found) = &direct
        && found.path.is_file()
    {
        return Ok(Lookup::Found(found.clone(), None));
    }
    let unified = name.replace('\\', "/");
    let file_name = unified.rsplit('/').next().unwrap_or_default();
    for place in beside {
        if let Ok(found) = resolve(input_root, place, file_name)
            && found.path.is_file()
        {
            let note = format!(
                "{name:?} is not there, so {} found beside the file is used",
                found.relative
            );
            return Ok(Lookup::Found(found, Some(note)));
        }
    }
    if is_absolute(&unified) {
        return Ok(Lookup::Missing(format!(
            "{name:?} not found (an absolute path is never opened; looked for {file_name:?} beside the file)"
        )));
    }
    let direct = direct?;
    Ok(Lookup::Missing(format!(
        "{name:?} not found (looked for {}, and for {file_name:?} beside the file)",
        direct.path.display()
    )))
}

/// Whether a `/`-separated name is absolute on any platform: a leading `/`
/// (also `//server`), or a drive letter such as `C:`.
fn is_absolute(unified: &str) -> bool {
    let has_drive =
        matches!(unified.as_bytes(), [letter, b':', ..] if letter.is_ascii_alphabetic());
    unified.starts_with('/') || has_drive
}

/// `path` with its `.` components dropped.
fn without_cur_dir(path: &Path) -> PathBuf {
    path.components()
        .filter(|c| *c != Component::CurDir)
        .collect()
}

/// The components of `path` below `root`, as text, or `None` when `path` is
/// not below `root` or a component is not valid Unicode.
fn strip_root(path: &Path, root: &Path) -> Option<Vec<String>> {
    let relative = path.strip_prefix(root).ok()?;
    relative
        .components()
        .map(|c| match c {
            Component::Normal(part) => part.to_str().map(str::to_owned),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(parts: &[&str]) -> Folder {
        Folder(parts.iter().map(|p| (*p).to_owned()).collect())
    }

    #[test]
    fn resolves_relative_names_with_either_separator() {
        let root = Path::new("/in");
        let found = resolve(root, &folder(&["models"]), r"tex\wood.png").unwrap();
        assert_eq!(found.path, Path::new("/in/models/tex/wood.png"));
        assert_eq!(found.folder, folder(&["models", "tex"]));
        assert_eq!(found.relative, "models/tex/wood.png");
        let up = resolve(root, &folder(&["models", "crate"]), "../shared/./a.png").unwrap();
        assert_eq!(up.path, Path::new("/in/models/shared/a.png"));
    }

    #[test]
    fn refuses_escapes_and_absolute_names() {
        let root = Path::new("/in");
        let sub = folder(&["models"]);
        assert!(
            resolve(root, &sub, "../../x.png")
                .unwrap_err()
                .contains("outside")
        );
        assert!(
            resolve(root, &sub, "/etc/passwd")
                .unwrap_err()
                .contains("absolute")
        );
        assert!(
            resolve(root, &sub, r"C:\x.png")
                .unwrap_err()
                .contains("absolute")
        );
        assert!(
            resolve(root, &sub, r"\\server\x.png")
                .unwrap_err()
                .contains("absolute")
        );
        assert!(resolve(root, &sub, "..").unwrap_err().contains("no file"));
    }

    #[test]
    fn lookup_falls_back_to_the_file_name_beside_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir(root.join("models")).unwrap();
        std::fs::write(root.join("models/wood.png"), b"x").unwrap();
        let models = folder(&["models"]);
        let here = |name: &str| lookup(root, &models, name, &[&models]);
        assert!(matches!(here("wood.png"), Ok(Lookup::Found(_, None))));
        for name in [
            r"C:\Users\bob\tex\wood.png",
            "/home/bob/wood.png",
            "textures/wood.png",
        ] {
            let Ok(Lookup::Found(found, Some(note))) = here(name) else {
                panic!("{name}: {:?}", here(name));
            };
            assert_eq!(found.relative, "models/wood.png");
            assert!(note.contains("beside the file"), "{note}");
        }
        assert!(matches!(here("textures/gone.png"), Ok(Lookup::Missing(_))));
        assert!(here("../../gone.png").unwrap_err().contains("outside"));
    }

    #[test]
    fn an_absolute_name_found_nowhere_is_missing_and_never_opened() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("in");
        std::fs::create_dir(&root).unwrap();
        // The file exists where the absolute name points, outside the input
        // folder, and must not be used.
        let outside = dir.path().join("outside.mtl");
        std::fs::write(&outside, b"newmtl A\n").unwrap();
        let top = folder(&[]);
        let name = outside.to_str().unwrap();
        let Ok(Lookup::Missing(why)) = lookup(&root, &top, name, &[&top]) else {
            panic!("{:?}", lookup(&root, &top, name, &[&top]));
        };
        assert!(why.contains("an absolute path is never opened"), "{why}");
        assert!(why.contains("\"outside.mtl\" beside the file"), "{why}");
        let windows = lookup(&root, &top, r"C:\gone\x.png", &[&top]);
        assert!(matches!(windows, Ok(Lookup::Missing(_))), "{windows:?}");
    }

    #[test]
    fn finds_the_folder_of_a_file_inside_the_root() {
        let root = Path::new("./in");
        assert_eq!(
            folder_of(Path::new("in/a/b/m.obj"), root),
            Some(folder(&["a", "b"]))
        );
        assert_eq!(folder_of(Path::new("in/m.obj"), root), Some(folder(&[])));
        assert_eq!(folder_of(Path::new("elsewhere/m.obj"), root), None);
    }
}
