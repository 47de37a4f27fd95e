//! The README's `assetc.yml` reference block must name every key of the
//! schema, and only keys of the schema.
//!
//! The README is the one place that must be complete: its ```yaml block under
//! `## assetc.yml`. The authoritative list of keys is the one the unknown-key
//! warnings use, [`Shape::of`] probed from [`FileSchema`], so a new field in a
//! schema struct fails this test until the block shows it. A key is
//! documented once for each distinct set of sibling keys: the texture
//! settings shown under `default.texture` also cover a preset's and a rule's
//! `texture:`, which have the same shape, while a rule's own keys (`match`,
//! `mesh` …) must be shown in a rule. A placeholder key `…` stands for "the
//! same keys as above" and is not checked.

use std::path::Path;

use super::keys::Shape;
use super::schema::FileSchema;
use super::yaml::{Node, NodeKind};

/// The heading above the reference block.
const SECTION: &str = "## assetc.yml";
/// The key the block uses for "the same keys as shown elsewhere".
const PLACEHOLDER: &str = "…";

/// A key of the schema: its dotted path (for messages), the struct it is a
/// field of, and its name.
struct SchemaKey<'a> {
    /// Where it first occurs, e.g. `presets.<name>.rules[].match`.
    path: String,
    /// The fields of the struct it belongs to.
    owner: &'a Shape,
    /// The key itself.
    name: &'static str,
}

/// The README's reference block: the first ```yaml fence after [`SECTION`].
fn reference_block(readme: &str) -> Option<&str> {
    let section = &readme[readme.find(SECTION)?..];
    let start = section.find("```yaml\n")? + "```yaml\n".len();
    let body = &section[start..];
    Some(&body[..body.find("\n```")?])
}

/// Every key under `shape`, depth first, with the path of its first place.
fn schema_keys<'a>(shape: &'a Shape, path: &str, out: &mut Vec<SchemaKey<'a>>) {
    match shape {
        Shape::Struct(fields) => {
            for (name, child) in fields {
                let child_path = join(path, name);
                out.push(SchemaKey {
                    path: child_path.clone(),
                    owner: shape,
                    name,
                });
                schema_keys(child, &child_path, out);
            }
        }
        Shape::List(element) => schema_keys(element, &format!("{path}[]"), out),
        Shape::Dict(value) => schema_keys(value, &join(path, "<name>"), out),
        Shape::Leaf => {}
    }
}

/// `path.name`, or `name` at the root.
fn join(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_owned()
    } else {
        format!("{path}.{name}")
    }
}

/// Walks the block's tree along the schema: records each (owner, key) it
/// shows in `shown`, and each key the schema does not have in `unknown`.
fn shown_keys<'a>(
    shape: &'a Shape,
    node: &Node,
    path: &str,
    shown: &mut Vec<(&'a Shape, &'a str)>,
    unknown: &mut Vec<String>,
) {
    match (shape, &node.kind) {
        (Shape::Struct(fields), NodeKind::Map(entries)) => {
            for entry in entries.iter().filter(|entry| entry.key != PLACEHOLDER) {
                let entry_path = join(path, &entry.key);
                match fields.iter().find(|(name, _)| *name == entry.key) {
                    Some((name, child)) => {
                        shown.push((shape, name));
                        shown_keys(child, &entry.value, &entry_path, shown, unknown);
                    }
                    None => unknown.push(format!("{entry_path} (line {})", entry.key_at.line)),
                }
            }
        }
        (Shape::Dict(value), NodeKind::Map(entries)) => {
            for entry in entries {
                let entry_path = join(path, &entry.key);
                shown_keys(value, &entry.value, &entry_path, shown, unknown);
            }
        }
        (Shape::List(element), NodeKind::Seq(items)) => {
            for item in items {
                shown_keys(element, item, &format!("{path}[]"), shown, unknown);
            }
        }
        _ => {}
    }
}

/// The schema's keys that `block` does not show, and the keys it shows that
/// the schema does not have.
fn compare(schema: &Shape, block: &str) -> (Vec<String>, Vec<String>) {
    let tree = Node::read(block, Path::new("README.md"))
        .expect("the README's reference block is valid YAML")
        .expect("the README's reference block is not empty");
    let mut shown = Vec::new();
    let mut unknown = Vec::new();
    shown_keys(schema, &tree, "", &mut shown, &mut unknown);
    let mut keys = Vec::new();
    schema_keys(schema, "", &mut keys);
    let mut missing: Vec<String> = Vec::new();
    let mut reported: Vec<(&Shape, &str)> = Vec::new();
    for key in keys {
        let pair = (key.owner, key.name);
        if !shown.contains(&pair) && !reported.contains(&pair) {
            reported.push(pair);
            missing.push(key.path);
        }
    }
    (missing, unknown)
}

#[test]
fn the_readme_reference_block_shows_every_schema_key_and_no_other() {
    let readme_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    let readme = std::fs::read_to_string(&readme_path).expect("README.md is readable");
    let block =
        reference_block(&readme).expect("README.md has a ```yaml block under ## assetc.yml");
    let (missing, unknown) = compare(&Shape::of::<FileSchema>(), block);
    assert!(
        missing.is_empty(),
        "keys of the schema missing from README.md's assetc.yml block:\n  {}",
        missing.join("\n  ")
    );
    assert!(
        unknown.is_empty(),
        "keys in README.md's assetc.yml block that the schema does not have:\n  {}",
        unknown.join("\n  ")
    );
}

#[test]
fn a_key_added_to_the_schema_is_reported_missing() {
    #[derive(serde::Deserialize)]
    #[allow(dead_code)]
    struct Layer {
        shown: Option<u32>,
        added: Option<u32>,
    }
    #[derive(serde::Deserialize)]
    #[allow(dead_code)]
    struct Schema {
        top: Option<Layer>,
        rules: Option<Vec<Layer>>,
    }
    let block = "top:\n  shown: 1\nrules:\n  - { shown: 2, typo: 3 }\n";
    let (missing, unknown) = compare(&Shape::of::<Schema>(), block);
    assert_eq!(missing, ["top.added"]);
    assert_eq!(unknown, ["rules[].typo (line 4)"]);
}
