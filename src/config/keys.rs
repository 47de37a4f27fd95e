//! Unknown-key warnings with line and column.
//!
//! Two pieces, neither of which repeats the schema:
//!
//! 1. [`Shape::of`] learns which keys exist by *probing* the serde types of
//!    `schema.rs`: it runs their derived `Deserialize` against a stub
//!    deserializer that records the field names serde asks for
//!    (`deserialize_struct` receives them) and descends into every field. A new
//!    field in a schema struct is therefore a known key with no other change.
//! 2. [`unknown_keys`] walks the position tree of the document (`yaml::Node`)
//!    against that shape and reports every key the shape does not know, at the
//!    key's own line and column, with its dotted path (`default.texture.compres`,
//!    `presets.mobile.rules[0].texure`) and a suggestion when one is close.
//!
//! The probe understands what the schema uses: structs, options, sequences,
//! string-keyed maps, scalars and unit-variant enums, plus one form of its
//! own: a value written either as a scalar or as a struct (a rule's
//! `atlas:`) asks for a newtype struct named [`SCALAR_OR_STRUCT`], and the
//! probe answers with `visit_some`, on which the type probes its struct.

use std::fmt;

use serde::Deserialize;
use serde::de::value::StrDeserializer;
use serde::de::{
    self, DeserializeSeed, Deserializer, IntoDeserializer, MapAccess, SeqAccess, Visitor,
};

use super::yaml::{Node, NodeKind, Position};

/// The newtype-struct name by which a schema type says "a scalar, or a
/// struct whose keys are checked": a real deserializer calls the visitor's
/// `visit_newtype_struct` (the type then reads either form), the probe its
/// `visit_some` (the type then asks for its struct).
pub(crate) const SCALAR_OR_STRUCT: &str = "assetc::scalar_or_struct";

/// Which keys a part of the document may hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Shape {
    /// A value whose inside is not checked (scalars, or not yet probed).
    Leaf,
    /// A struct: a fixed set of named keys, each with its own shape.
    Struct(Vec<(&'static str, Shape)>),
    /// A sequence whose elements all have one shape.
    List(Box<Shape>),
    /// A mapping with free keys whose values all have one shape.
    Dict(Box<Shape>),
}

/// An unknown key found in the document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UnknownKey {
    /// Where the key is.
    pub(crate) at: Position,
    /// Human-readable description, e.g. `unknown key 'default.mesh.merj'`.
    pub(crate) message: String,
}

impl Shape {
    /// The shape of `T`, learned from its `Deserialize` implementation.
    ///
    /// # Panics
    /// If `T` uses a serde feature the probe does not support; this is a
    /// programming error caught by the module's tests.
    pub(crate) fn of<T: for<'de> Deserialize<'de>>() -> Shape {
        let mut shape = Shape::Leaf;
        if let Err(error) = T::deserialize(Probe { out: &mut shape }) {
            panic!("cannot probe the keys of the config schema: {error}");
        }
        shape
    }
}

/// Lists the keys of `tree` that `shape` does not know, in document order.
pub(crate) fn unknown_keys(shape: &Shape, tree: &Node) -> Vec<UnknownKey> {
    let mut found = Vec::new();
    walk(shape, tree, &mut String::new(), &mut found);
    found
}

/// Checks `node` against `shape`; `path` is the dotted path of `node`.
fn walk(shape: &Shape, node: &Node, path: &mut String, found: &mut Vec<UnknownKey>) {
    match (shape, &node.kind) {
        (Shape::Struct(fields), NodeKind::Map(entries)) => {
            for entry in entries {
                let field = fields.iter().find(|(name, _)| *name == entry.key);
                let segment = key_segment(path, &entry.key);
                with_segment(path, &segment, |path| match field {
                    Some((_, child)) => walk(child, &entry.value, path, found),
                    None => found.push(unknown(path, entry.key_at, &entry.key, fields)),
                });
            }
        }
        (Shape::Dict(child), NodeKind::Map(entries)) => {
            for entry in entries {
                let segment = key_segment(path, &entry.key);
                with_segment(path, &segment, |path| {
                    walk(child, &entry.value, path, found)
                });
            }
        }
        (Shape::List(child), NodeKind::Seq(items)) => {
            for (index, item) in items.iter().enumerate() {
                with_segment(path, &format!("[{index}]"), |path| {
                    walk(child, item, path, found)
                });
            }
        }
        _ => {}
    }
}

/// The text that appends `key` to `path`: a dot unless `path` is the root.
fn key_segment(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!(".{key}")
    }
}

/// Runs `body` with `segment` appended to `path`, then restores `path`.
fn with_segment(path: &mut String, segment: &str, body: impl FnOnce(&mut String)) {
    let length = path.len();
    path.push_str(segment);
    body(path);
    path.truncate(length);
}

/// Builds the warning for unknown `key` at `path`, with a suggestion if any.
fn unknown(path: &str, at: Position, key: &str, fields: &[(&'static str, Shape)]) -> UnknownKey {
    let mut message = format!("unknown key '{path}'");
    if let Some(close) = closest_name(key, fields.iter().map(|(name, _)| *name)) {
        message.push_str(&format!(" (did you mean '{close}'?)"));
    }
    UnknownKey { at, message }
}

/// The known name nearest to `key`, if it is within a typo's distance.
pub(super) fn closest_name<'a>(key: &str, names: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let limit = key.chars().count().div_ceil(3).clamp(1, 3);
    names
        .map(|name| (edit_distance(key, name), name))
        .filter(|(distance, _)| *distance <= limit)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, name)| name)
}

/// Levenshtein distance between two strings, by characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, a_char) in a.chars().enumerate() {
        let mut current = vec![i + 1; b.len() + 1];
        for (j, b_char) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(a_char != *b_char);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        previous = current;
    }
    previous[b.len()]
}

/// The probe's error: only raised when the schema uses an unsupported form.
#[derive(Debug)]
struct ProbeError(String);

impl fmt::Display for ProbeError {
    fn fmt(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str(&self.0)
    }
}

impl std::error::Error for ProbeError {}

impl de::Error for ProbeError {
    fn custom<T: fmt::Display>(message: T) -> Self {
        ProbeError(message.to_string())
    }
}

/// A stub deserializer that records the shape of whatever asks it for data.
struct Probe<'a> {
    /// Where the shape of the value being probed is written.
    out: &'a mut Shape,
}

/// Forwards scalar requests to one visitor call with a placeholder value.
macro_rules! probe_scalars {
    ($($method:ident => $visit:ident($($value:expr)?);)*) => {
        $(
            fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ProbeError> {
                *self.out = Shape::Leaf;
                visitor.$visit($($value)?)
            }
        )*
    };
}

impl<'de> Deserializer<'de> for Probe<'_> {
    type Error = ProbeError;

    probe_scalars! {
        deserialize_any => visit_unit();
        deserialize_bool => visit_bool(false);
        deserialize_i8 => visit_i64(0);
        deserialize_i16 => visit_i64(0);
        deserialize_i32 => visit_i64(0);
        deserialize_i64 => visit_i64(0);
        deserialize_u8 => visit_u64(0);
        deserialize_u16 => visit_u64(0);
        deserialize_u32 => visit_u64(0);
        deserialize_u64 => visit_u64(0);
        deserialize_f32 => visit_f64(0.0);
        deserialize_f64 => visit_f64(0.0);
        deserialize_char => visit_char('x');
        deserialize_str => visit_str("");
        deserialize_string => visit_str("");
        deserialize_bytes => visit_bytes(&[]);
        deserialize_byte_buf => visit_bytes(&[]);
        deserialize_unit => visit_unit();
        deserialize_identifier => visit_str("");
        deserialize_ignored_any => visit_unit();
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ProbeError> {
        visitor.visit_some(self)
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, ProbeError> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, ProbeError> {
        if name == SCALAR_OR_STRUCT {
            return visitor.visit_some(self);
        }
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ProbeError> {
        *self.out = Shape::List(Box::new(Shape::Leaf));
        let Shape::List(element) = self.out else {
            unreachable!()
        };
        visitor.visit_seq(Elements {
            remaining: 1,
            out: element,
        })
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, ProbeError> {
        *self.out = Shape::Leaf;
        let mut ignored = Shape::Leaf;
        visitor.visit_seq(Elements {
            remaining: len,
            out: &mut ignored,
        })
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, ProbeError> {
        self.deserialize_tuple(len, visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ProbeError> {
        *self.out = Shape::Dict(Box::new(Shape::Leaf));
        let Shape::Dict(value) = self.out else {
            unreachable!()
        };
        visitor.visit_map(OneEntry {
            done: false,
            out: value,
        })
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, ProbeError> {
        let entries = fields.iter().map(|name| (*name, Shape::Leaf)).collect();
        *self.out = Shape::Struct(entries);
        let Shape::Struct(entries) = self.out else {
            unreachable!()
        };
        visitor.visit_map(Fields {
            next: 0,
            entries: entries.as_mut_slice(),
        })
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, ProbeError> {
        *self.out = Shape::Leaf;
        let first = variants
            .first()
            .ok_or_else(|| ProbeError(format!("enum {name} has no variants")))?;
        visitor.visit_enum(str_deserializer(first))
    }
}

/// Sequence access yielding `remaining` probed elements.
struct Elements<'a> {
    /// Elements still to yield.
    remaining: usize,
    /// Where the element shape is recorded.
    out: &'a mut Shape,
}

impl<'de> SeqAccess<'de> for Elements<'_> {
    type Error = ProbeError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, ProbeError> {
        if self.remaining == 0 {
            return Ok(None);
        }
        self.remaining -= 1;
        seed.deserialize(Probe { out: self.out }).map(Some)
    }
}

/// Map access yielding one entry with a placeholder key and a probed value.
struct OneEntry<'a> {
    /// Whether the entry was yielded.
    done: bool,
    /// Where the value shape is recorded.
    out: &'a mut Shape,
}

impl<'de> MapAccess<'de> for OneEntry<'_> {
    type Error = ProbeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, ProbeError> {
        if self.done {
            return Ok(None);
        }
        self.done = true;
        seed.deserialize(str_deserializer("key")).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, ProbeError> {
        seed.deserialize(Probe { out: self.out })
    }
}

/// Map access yielding every field of a struct once, each value probed.
struct Fields<'a> {
    /// Index of the next field to yield.
    next: usize,
    /// The fields and the shapes recorded for them.
    entries: &'a mut [(&'static str, Shape)],
}

impl<'de> MapAccess<'de> for Fields<'_> {
    type Error = ProbeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, ProbeError> {
        let Some((name, _)) = self.entries.get(self.next) else {
            return Ok(None);
        };
        seed.deserialize(str_deserializer(name)).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, ProbeError> {
        let (_, shape) = &mut self.entries[self.next];
        self.next += 1;
        seed.deserialize(Probe { out: shape })
    }
}

/// A deserializer that hands out one string.
fn str_deserializer(text: &str) -> StrDeserializer<'_, ProbeError> {
    text.into_deserializer()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct Inner {
        #[serde(rename = "match")]
        pattern: String,
        flag: Option<bool>,
    }

    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct Outer {
        inner: Option<Inner>,
        list: Vec<Inner>,
        named: std::collections::BTreeMap<String, Inner>,
        count: u8,
    }

    fn inner_shape() -> Shape {
        Shape::Struct(vec![("match", Shape::Leaf), ("flag", Shape::Leaf)])
    }

    #[test]
    fn the_probe_records_nested_fields() {
        let expected = Shape::Struct(vec![
            ("inner", inner_shape()),
            ("list", Shape::List(Box::new(inner_shape()))),
            ("named", Shape::Dict(Box::new(inner_shape()))),
            ("count", Shape::Leaf),
        ]);
        assert_eq!(Shape::of::<Outer>(), expected);
    }

    #[test]
    fn suggestions_are_close_names_only() {
        let names = ["compress", "merge", "rules"];
        assert_eq!(closest_name("compres", names.into_iter()), Some("compress"));
        assert_eq!(closest_name("mrege", names.into_iter()), Some("merge"));
        assert_eq!(closest_name("merj", names.into_iter()), Some("merge"));
        assert_eq!(closest_name("banana", names.into_iter()), None);
    }
}
