//! glTF URIs: base64 data URIs, and relative file references that must stay
//! inside the input folder.
//!
//! A file URI is percent-decoded (the result must be UTF-8), must be relative
//! (no scheme, no drive letter, no leading slash), and is resolved against
//! the folder of the glTF. `.` and `..` are folded lexically and the result
//! must lie inside the input folder; when the file exists, its canonical path
//! (symlinks followed) must lie inside the canonical input folder too. Both
//! `/` and `\` separate folders.

use std::path::{Component, Path, PathBuf};

use base64::Engine;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};

use super::GltfError;

/// Standard-alphabet base64 that accepts input with or without padding.
const BASE64: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// Whether `uri` is a `data:` URI.
pub(super) fn is_data_uri(uri: &str) -> bool {
    uri.get(..5)
        .is_some_and(|scheme| scheme.eq_ignore_ascii_case("data:"))
}

/// Decodes a `data:[<mime>];base64,<payload>` URI found at `location`.
pub(super) fn decode_data_uri(uri: &str, location: &str) -> Result<Vec<u8>, GltfError> {
    let Some((header, payload)) = uri.split_once(',') else {
        return Err(GltfError::at(
            location,
            "the data URI has no ',' before its payload",
        ));
    };
    if !header.to_ascii_lowercase().ends_with(";base64") {
        return Err(GltfError::at(
            location,
            "only base64 data URIs (\"data:...;base64,\") are supported",
        ));
    }
    let compact: String = payload
        .chars()
        .filter(|c| !c.is_ascii_whitespace())
        .collect();
    BASE64
        .decode(compact.as_bytes())
        .map_err(|e| GltfError::at(location, format!("the data URI is not valid base64: {e}")))
}

/// Resolves a file URI found at `location` in the glTF at `source` to a path
/// inside `input_root`, written as `input_root` joined with the normalised
/// path below it.
pub(super) fn resolve_file_uri(
    uri: &str,
    location: &str,
    source: &Path,
    input_root: &Path,
) -> Result<PathBuf, GltfError> {
    let decoded = percent_encoding::percent_decode_str(uri)
        .decode_utf8()
        .map_err(|_| {
            GltfError::at(
                location,
                format!("uri \"{uri}\" is not UTF-8 once percent-decoded"),
            )
        })?;
    check_relative(&decoded, uri, location)?;
    let outside = || {
        GltfError::at(
            location,
            format!("uri \"{uri}\" points outside the input folder"),
        )
    };
    let root = normalized(&absolute(input_root, location)?);
    let folder = source.parent().unwrap_or(Path::new(""));
    let mut resolved = normalized(&absolute(folder, location)?);
    for part in decoded.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => {
                if !resolved.pop() {
                    return Err(outside());
                }
            }
            name => resolved.push(name),
        }
    }
    let below = resolved.strip_prefix(&root).map_err(|_| outside())?;
    if below.as_os_str().is_empty() {
        return Err(GltfError::at(
            location,
            format!("uri \"{uri}\" names a folder"),
        ));
    }
    check_no_symlink_escape(&resolved, &root, uri, location)?;
    Ok(input_root.join(below))
}

/// Refuses URIs that are absolute, carry a scheme (or drive letter), are
/// empty or hold a NUL.
fn check_relative(decoded: &str, uri: &str, location: &str) -> Result<(), GltfError> {
    let refuse = |why: &str| Err(GltfError::at(location, format!("uri \"{uri}\" {why}")));
    if decoded.is_empty() {
        return refuse("is empty");
    }
    if decoded.contains('\0') {
        return refuse("contains a NUL character");
    }
    if decoded.starts_with(['/', '\\']) {
        return refuse("is an absolute path; only paths relative to the glTF are allowed");
    }
    if has_scheme(decoded) {
        return refuse("is not a relative file path (it has a scheme or drive letter)");
    }
    Ok(())
}

/// Whether the text starts like `scheme:` (which also covers `C:`).
fn has_scheme(text: &str) -> bool {
    let Some((scheme, _)) = text.split_once(':') else {
        return false;
    };
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

/// `path` made absolute against the current folder, without touching the
/// file system otherwise.
fn absolute(path: &Path, location: &str) -> Result<PathBuf, GltfError> {
    let path = if path.as_os_str().is_empty() {
        Path::new(".")
    } else {
        path
    };
    std::path::absolute(path).map_err(|e| {
        GltfError::at(
            location,
            format!("cannot make {} absolute: {e}", path.display()),
        )
    })
}

/// `path` with `.` removed and `..` folded into its parent, lexically.
fn normalized(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// When `resolved` exists, refuses it if following symlinks leads outside
/// `root`.
fn check_no_symlink_escape(
    resolved: &Path,
    root: &Path,
    uri: &str,
    location: &str,
) -> Result<(), GltfError> {
    let (Ok(real), Ok(real_root)) = (resolved.canonicalize(), root.canonicalize()) else {
        return Ok(());
    };
    if real.starts_with(&real_root) {
        Ok(())
    } else {
        Err(GltfError::at(
            location,
            format!("uri \"{uri}\" leads outside the input folder through a symbolic link"),
        )
        .in_file(resolved))
    }
}

/// Reads a file a URI at `location` named, blaming the file on failure.
pub(super) fn read_file(path: &Path, location: &str) -> Result<Vec<u8>, GltfError> {
    std::fs::read(path)
        .map_err(|e| GltfError::at(location, format!("cannot read: {e}")).in_file(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_uris_decode_with_or_without_padding() {
        let padded = decode_data_uri("data:application/octet-stream;base64,AAEC/w==", "x");
        let bare = decode_data_uri("data:application/octet-stream;base64,AAEC/w", "x");
        assert_eq!(padded, Ok(vec![0, 1, 2, 255]));
        assert_eq!(bare, Ok(vec![0, 1, 2, 255]));
    }

    #[test]
    fn non_base64_data_uris_are_refused() {
        let err = decode_data_uri("data:text/plain,hello", "buffers[0].uri").unwrap_err();
        assert_eq!(err.location, "buffers[0].uri");
        assert!(err.what.contains("base64"), "{err}");
    }

    #[test]
    fn relative_uris_resolve_below_the_input_root() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let source = root.join("models/chair.gltf");
        let got = resolve_file_uri(
            "../textures/./wood%20grain.png",
            "images[0].uri",
            &source,
            root,
        );
        assert_eq!(got, Ok(root.join("textures/wood grain.png")));
        let windows = resolve_file_uri("maps\\n.png", "images[0].uri", &source, root);
        assert_eq!(windows, Ok(root.join("models/maps/n.png")));
    }

    #[test]
    fn escaping_and_absolute_uris_are_refused() {
        let root = Path::new("/data/in");
        let source = root.join("models/chair.gltf");
        for uri in [
            "../../etc/passwd",
            "/etc/passwd",
            "C:/Windows/x.bin",
            "https://example.com/x.bin",
            "%2E%2E/%2E%2E/x.bin",
            "",
        ] {
            let err = resolve_file_uri(uri, "buffers[0].uri", &source, root).unwrap_err();
            assert_eq!(err.location, "buffers[0].uri", "{uri}");
            assert!(err.what.contains(&format!("\"{uri}\"")), "{err}");
        }
    }

    #[test]
    fn non_utf8_percent_escapes_are_refused() {
        let err = resolve_file_uri(
            "bad%FF.bin",
            "buffers[0].uri",
            Path::new("a.gltf"),
            Path::new("."),
        )
        .unwrap_err();
        assert!(err.what.contains("not UTF-8"), "{err}");
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_out_of_the_input_root_are_refused() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.bin"), b"x").unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(
            outside.path().join("secret.bin"),
            dir.path().join("link.bin"),
        )
        .unwrap();
        let source = dir.path().join("a.gltf");
        let err = resolve_file_uri("link.bin", "buffers[0].uri", &source, dir.path()).unwrap_err();
        assert!(err.what.contains("symbolic link"), "{err}");
    }
}
