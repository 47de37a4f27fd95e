//! Explaining a failed typed read of `assetc.yml` in the terms of the schema.
//!
//! serde-saphyr reports what its parser saw (`expected sequence start`) and,
//! for a value of the wrong type, places the error at the entry's key. Once a
//! read has failed, [`explain`] finds the entry the failure is about in the
//! position tree, using the schema's [`Shape`] to know what that entry must
//! hold, and so:
//!
//! * moves a bad value's error from its key to the value itself;
//! * says that a list-valued key (`embed`, `exclude`, `processors`, a
//!   processor's `inputs`, every `rules`) must be a list, with an example
//!   built from what was written (`'embed' must be a list, e.g.
//!   embed: ["x"]`);
//! * says that a section (`default.mesh`, `presets`, `packs` …) must be a
//!   mapping, naming the keys a struct section knows.
//!
//! Nothing here is specific to one key: a new list or section in
//! `schema.rs` is explained the same way with no change.

use super::keys::Shape;
use super::yaml::{FailureKind, Node, NodeKind, Position, ReadFailure};

/// How many of a section's keys a "must be a mapping" message names.
const KEYS_NAMED: usize = 6;

/// `failure`, moved and reworded where the tree and the schema's `shape`
/// show what the failing entry must hold; unchanged when they do not.
pub(crate) fn explain(failure: ReadFailure, tree: Option<&Node>, shape: &Shape) -> ReadFailure {
    let Some(spot) = tree.and_then(|tree| find(shape, tree, failure.at, "")) else {
        return failure;
    };
    let message = match (failure.kind, spot.shape) {
        (FailureKind::BadValue, _) if spot.key_at == Some(failure.at) => failure.message,
        (FailureKind::NotAList, Shape::List(item)) => not_a_list(&spot, item),
        (FailureKind::NotAMapping, Shape::Struct(fields)) => not_a_struct(&spot, fields),
        (FailureKind::NotAMapping, Shape::Dict(_)) => format!(
            "'{}' must be a mapping of names to values, one `name: value` line each",
            spot.path
        ),
        _ => return failure,
    };
    ReadFailure {
        at: spot.value.at,
        message,
        kind: failure.kind,
    }
}

/// The entry or list item a failure is about, with what the schema expects.
struct Spot<'a> {
    /// Its dotted path, e.g. `default.rules[0].match`.
    path: String,
    /// Its key (`None` for a list item).
    key: Option<&'a str>,
    /// Where its key is (`None` for a list item).
    key_at: Option<Position>,
    /// Its value.
    value: &'a Node,
    /// The shape the schema gives its value.
    shape: &'a Shape,
}

/// The deepest entry or list item below `node` whose key or value is at `at`.
fn find<'a>(shape: &'a Shape, node: &'a Node, at: Position, path: &str) -> Option<Spot<'a>> {
    match (shape, &node.kind) {
        (Shape::Struct(_) | Shape::Dict(_), NodeKind::Map(entries)) => {
            entries.iter().find_map(|entry| {
                let child = child_shape(shape, &entry.key);
                let path = if path.is_empty() {
                    entry.key.clone()
                } else {
                    format!("{path}.{}", entry.key)
                };
                let deeper = find(child, &entry.value, at, &path);
                let here = entry.key_at == at || entry.value.at == at;
                deeper.or_else(|| {
                    here.then(|| Spot {
                        path,
                        key: Some(&entry.key),
                        key_at: Some(entry.key_at),
                        value: &entry.value,
                        shape: child,
                    })
                })
            })
        }
        (Shape::List(child), NodeKind::Seq(items)) => {
            items.iter().enumerate().find_map(|(index, item)| {
                let path = format!("{path}[{index}]");
                let deeper = find(child, item, at, &path);
                deeper.or_else(|| {
                    (item.at == at).then_some(Spot {
                        path,
                        key: None,
                        key_at: None,
                        value: item,
                        shape: child,
                    })
                })
            })
        }
        _ => None,
    }
}

/// The shape of the value under `key` in a mapping of `shape` (a leaf for a
/// key the schema does not know).
fn child_shape<'a>(shape: &'a Shape, key: &str) -> &'a Shape {
    const UNKNOWN: &Shape = &Shape::Leaf;
    match shape {
        Shape::Struct(fields) => fields
            .iter()
            .find(|(name, _)| *name == key)
            .map_or(UNKNOWN, |(_, child)| child),
        Shape::Dict(child) => child,
        Shape::Leaf | Shape::List(_) => UNKNOWN,
    }
}

/// The message for a list-valued entry holding something else, with an
/// example built from a scalar that was written in its place.
fn not_a_list(spot: &Spot, item: &Shape) -> String {
    let path = &spot.path;
    match (&spot.value.kind, item) {
        (_, Shape::Struct(fields)) => format!(
            "'{path}' must be a list of mappings, one `- ` item each (with keys such as {})",
            key_names(fields)
        ),
        (NodeKind::Scalar(text), _) => {
            let key = spot.key.unwrap_or(path);
            format!("'{path}' must be a list, e.g. {key}: [{text:?}]")
        }
        _ => format!("'{path}' must be a list: one `- ` item per line, or [a, b]"),
    }
}

/// The message for a section holding something other than a mapping.
fn not_a_struct(spot: &Spot, fields: &[(&'static str, Shape)]) -> String {
    format!(
        "'{}' must be a mapping with keys such as {}",
        spot.path,
        key_names(fields)
    )
}

/// The first few of a section's keys, for a message.
fn key_names(fields: &[(&'static str, Shape)]) -> String {
    let mut names: Vec<&str> = fields
        .iter()
        .take(KEYS_NAMED)
        .map(|(name, _)| *name)
        .collect();
    if fields.len() > KEYS_NAMED {
        names.push("…");
    }
    names.join(", ")
}
