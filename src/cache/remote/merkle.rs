//! The Merkle trees of REAPI: a set of files becomes a root `Directory`
//! message whose children are named by the digests of their own serialized
//! messages, so equal trees have equal root digests.

use std::collections::BTreeMap;

use bazel_remote_apis::build::bazel::remote::execution::v2 as re;
use prost::Message;

use crate::cache::digest::digest_of;

/// The digest of a message's encoding, and the encoding.
pub fn message_blob(message: &impl Message) -> (re::Digest, Vec<u8>) {
    let bytes = message.encode_to_vec();
    (digest_of(&bytes), bytes)
}

/// One file of a tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeFile {
    /// Its content's digest.
    pub digest: re::Digest,
    /// Whether it is executable.
    pub executable: bool,
}

/// A folder being built: files and subfolders by name, kept sorted as REAPI
/// requires.
#[derive(Debug, Default)]
struct Folder {
    files: BTreeMap<String, TreeFile>,
    folders: BTreeMap<String, Folder>,
}

/// A tree's messages: the root, every other directory (each once), and the
/// serialized blobs of all of them by digest.
#[derive(Debug)]
pub struct Tree {
    /// The root directory's digest.
    pub root_digest: re::Digest,
    /// The root directory.
    pub root: re::Directory,
    /// Every directory below the root.
    pub children: Vec<re::Directory>,
    /// Every directory's encoding with its digest, the root included.
    pub blobs: Vec<(re::Digest, Vec<u8>)>,
}

/// Why a set of paths cannot form a tree.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{path}' cannot be placed in a remote input tree ({why})")]
pub struct BadTreePath {
    /// The path.
    pub path: String,
    /// Why not.
    pub why: &'static str,
}

/// Builds the tree of `files`, given by `/`-separated relative paths.
pub fn build_tree<'a>(
    files: impl IntoIterator<Item = (&'a str, TreeFile)>,
) -> Result<Tree, BadTreePath> {
    let mut root = Folder::default();
    for (path, file) in files {
        let bad = |why| BadTreePath {
            path: path.to_owned(),
            why,
        };
        let mut parts: Vec<&str> = path.split('/').collect();
        let name = parts
            .pop()
            .filter(|n| !n.is_empty())
            .ok_or_else(|| bad("no file name"))?;
        let mut folder = &mut root;
        for part in parts {
            if part.is_empty() || part == "." || part == ".." {
                return Err(bad("not a plain relative path"));
            }
            if folder.files.contains_key(part) {
                return Err(bad("a file and a folder share a name"));
            }
            folder = folder.folders.entry(part.to_owned()).or_default();
        }
        if name == ".." || name == "." || folder.folders.contains_key(name) {
            return Err(bad("not a plain relative path"));
        }
        folder.files.insert(name.to_owned(), file);
    }
    let mut blobs = Vec::new();
    let mut children = Vec::new();
    let (root_digest, root) = seal(root, &mut blobs, &mut children);
    Ok(Tree {
        root_digest,
        root,
        children,
        blobs,
    })
}

/// Turns `folder` into its message, after its subfolders; collects blobs.
fn seal(
    folder: Folder,
    blobs: &mut Vec<(re::Digest, Vec<u8>)>,
    children: &mut Vec<re::Directory>,
) -> (re::Digest, re::Directory) {
    let mut directory = re::Directory::default();
    for (name, sub) in folder.folders {
        let (digest, message) = seal(sub, blobs, children);
        if !children.contains(&message) {
            children.push(message);
        }
        directory.directories.push(re::DirectoryNode {
            name,
            digest: Some(digest),
        });
    }
    for (name, file) in folder.files {
        directory.files.push(re::FileNode {
            name,
            digest: Some(file.digest),
            is_executable: file.executable,
            node_properties: None,
        });
    }
    let (digest, bytes) = message_blob(&directory);
    if !blobs.iter().any(|(d, _)| *d == digest) {
        blobs.push((digest.clone(), bytes));
    }
    (digest, directory)
}

/// The files of a `Tree` message by `/`-separated path below its root.
/// `None` when a directory it names is missing or a name is not plain.
pub fn files_of_tree(tree: &re::Tree) -> Option<Vec<(String, re::Digest)>> {
    let by_digest: BTreeMap<String, &re::Directory> = tree
        .children
        .iter()
        .map(|d| (digest_of(&d.encode_to_vec()).hash, d))
        .collect();
    let mut files = Vec::new();
    walk(tree.root.as_ref()?, "", &by_digest, &mut files, 0)?;
    Some(files)
}

/// Deepest nesting accepted in a downloaded tree.
const MAX_TREE_DEPTH: usize = 64;

fn walk(
    directory: &re::Directory,
    prefix: &str,
    by_digest: &BTreeMap<String, &re::Directory>,
    files: &mut Vec<(String, re::Digest)>,
    depth: usize,
) -> Option<()> {
    if depth > MAX_TREE_DEPTH {
        return None;
    }
    for file in &directory.files {
        plain_name(&file.name)?;
        files.push((format!("{prefix}{}", file.name), file.digest.clone()?));
    }
    for sub in &directory.directories {
        plain_name(&sub.name)?;
        let child = by_digest.get(&sub.digest.as_ref()?.hash)?;
        walk(
            child,
            &format!("{prefix}{}/", sub.name),
            by_digest,
            files,
            depth + 1,
        )?;
    }
    Some(())
}

fn plain_name(name: &str) -> Option<()> {
    let plain = !name.is_empty() && name != "." && name != ".." && !name.contains('/');
    plain.then_some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(bytes: &[u8]) -> TreeFile {
        TreeFile {
            digest: digest_of(bytes),
            executable: false,
        }
    }

    #[test]
    fn the_empty_blob_has_the_well_known_digest() {
        assert_eq!(
            digest_of(b"").hash,
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    #[test]
    fn trees_are_canonical_and_read_back() {
        let a = build_tree([("x/b.txt", file(b"b")), ("a.txt", file(b"a"))]).unwrap();
        let b = build_tree([("a.txt", file(b"a")), ("x/b.txt", file(b"b"))]).unwrap();
        assert_eq!(
            a.root_digest, b.root_digest,
            "order of insertion does not matter"
        );
        let c = build_tree([("a.txt", file(b"a")), ("y/b.txt", file(b"b"))]).unwrap();
        assert_ne!(a.root_digest, c.root_digest);
        let tree = re::Tree {
            root: Some(a.root.clone()),
            children: a.children.clone(),
        };
        let files = files_of_tree(&tree).unwrap();
        let names: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(names, ["a.txt", "x/b.txt"]);
        assert_eq!(a.blobs.len(), 2);
    }

    #[test]
    fn paths_that_leave_the_tree_are_refused() {
        for path in ["../a", "a/../b", "/abs", "a//b", "dir/"] {
            assert!(build_tree([(path, file(b""))]).is_err(), "{path}");
        }
        assert!(build_tree([("a", file(b"")), ("a/b", file(b""))]).is_err());
    }

    #[test]
    fn a_tree_missing_a_child_is_refused() {
        let a = build_tree([("x/b.txt", file(b"b"))]).unwrap();
        let tree = re::Tree {
            root: Some(a.root),
            children: Vec::new(),
        };
        assert_eq!(files_of_tree(&tree), None);
    }
}
