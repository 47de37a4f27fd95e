//! Reading YAML with serde-saphyr: the parser options, error conversion, and a
//! position-carrying tree of the document.
//!
//! The typed read (into `schema.rs`) reports syntax and type errors with their
//! line and column. The [`Node`] tree is a second, untyped read of the same text
//! whose only job is to remember where every key and value sits, so the loader
//! can point warnings about unknown keys, and errors about bad globs, at the
//! exact spot in the file.
//!
//! Parser options, chosen deliberately:
//! * `strict_booleans`: only `true`/`false` (any case) are booleans. YAML 1.1's
//!   `yes`, `no`, `on`, `off` are type errors for a boolean key instead of
//!   silently meaning something, and stay plain strings elsewhere.
//! * duplicate keys are an error (serde-saphyr's default policy, kept).
//! * `<<` merge keys and anchors work, within serde-saphyr's alias budget.

use std::fmt;
use std::path::Path;

use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_saphyr::{Location, MessageFormatter, Options, Spanned, UserMessageFormatter};

use super::error::ConfigError;

/// The serde-saphyr options every read of `assetc.yml` uses.
fn options() -> Options {
    let mut options = Options::default();
    options.strict_booleans = true;
    options.duplicate_keys = serde_saphyr::DuplicateKeyPolicy::Error;
    options.with_snippet = false;
    options
}

/// Deserializes `text` into `T`, mapping any failure to [`ConfigError::Parse`].
///
/// An empty document (nothing, only comments, or a bare `---`) yields `None`.
pub(crate) fn read<T>(text: &str, file: &Path) -> Result<Option<T>, ConfigError>
where
    T: for<'de> Deserialize<'de>,
{
    try_read(text).map_err(|failure| failure.into_error(file))
}

/// Deserializes `text` into `T`, keeping what kind of failure stopped it so
/// the caller can explain it against the schema (`mistakes.rs`).
pub(crate) fn try_read<T>(text: &str) -> Result<Option<T>, ReadFailure>
where
    T: for<'de> Deserialize<'de>,
{
    serde_saphyr::from_str_with_options::<Option<T>>(text, options()).map_err(|error| {
        let inner = without_snippet(&error);
        ReadFailure {
            at: inner.location().map(Position::from).unwrap_or_default(),
            message: message_text(inner),
            kind: FailureKind::of(inner),
        }
    })
}

/// Why a typed read failed, where, and in what words.
#[derive(Debug)]
pub(crate) struct ReadFailure {
    /// Where serde-saphyr places the failure.
    pub(crate) at: Position,
    /// Its message, without location or snippet.
    pub(crate) message: String,
    /// What sort of failure it is.
    pub(crate) kind: FailureKind,
}

/// The sorts of typed-read failure the loader explains differently.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FailureKind {
    /// A value of the wrong type or out of range. serde-saphyr places some of
    /// these at the key of the entry rather than at the value.
    BadValue,
    /// A list was required, and the value is not one.
    NotAList,
    /// A mapping was required, and the value is not one.
    NotAMapping,
    /// Anything else: syntax, duplicate keys, aliases.
    Other,
}

impl FailureKind {
    /// Sorts a serde-saphyr error.
    fn of(error: &serde_saphyr::Error) -> FailureKind {
        use serde_saphyr::Error;
        match error {
            Error::SerdeInvalidType { .. }
            | Error::SerdeInvalidValue { .. }
            | Error::SerdeInvalidLength { .. }
            | Error::Message { .. } => FailureKind::BadValue,
            Error::Unexpected { expected, .. } if *expected == "sequence start" => {
                FailureKind::NotAList
            }
            Error::Unexpected { expected, .. } if *expected == "mapping start" => {
                FailureKind::NotAMapping
            }
            _ => FailureKind::Other,
        }
    }
}

impl ReadFailure {
    /// The failure as a [`ConfigError::Parse`] in `file`, as reported.
    pub(crate) fn into_error(self, file: &Path) -> ConfigError {
        ConfigError::Parse {
            file: file.to_path_buf(),
            line: self.at.line,
            column: self.at.column,
            message: self.message,
        }
    }
}

/// The error inside any source-snippet wrappers.
fn without_snippet(error: &serde_saphyr::Error) -> &serde_saphyr::Error {
    let mut inner = error;
    while let serde_saphyr::Error::WithSnippet { error, .. } = inner {
        inner = error;
    }
    inner
}

/// The error's message alone, without location suffix or source snippet, on
/// one line: control characters (a newline in a quoted value) are escaped,
/// quotes and backslashes are shown as written.
fn message_text(error: &serde_saphyr::Error) -> String {
    let text = UserMessageFormatter.format_message(error);
    let mut line = String::with_capacity(text.len());
    for character in text.chars() {
        if character.is_control() {
            line.extend(character.escape_default());
        } else {
            line.push(character);
        }
    }
    line
}

/// Converts a serde-saphyr line or column number.
fn to_usize(value: u64) -> usize {
    usize::try_from(value).unwrap_or(usize::MAX)
}

/// A line and column in the config file, both 1-based (0 when unknown).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Position {
    /// 1-based line.
    pub(crate) line: usize,
    /// 1-based column.
    pub(crate) column: usize,
}

impl From<Location> for Position {
    fn from(at: Location) -> Self {
        Position {
            line: to_usize(at.line()),
            column: to_usize(at.column()),
        }
    }
}

/// An untyped YAML node that remembers where it and its keys are.
#[derive(Debug)]
pub(crate) struct Node {
    /// Where the node starts (for a mapping entry: where its value starts).
    pub(crate) at: Position,
    /// What the node holds.
    pub(crate) kind: NodeKind,
}

/// The three kinds of YAML node, as far as key checking cares.
#[derive(Debug)]
pub(crate) enum NodeKind {
    /// A mapping: its entries in file order.
    Map(Vec<Entry>),
    /// A sequence: its elements in order.
    Seq(Vec<Node>),
    /// A scalar or null, as text (a null is `~`), for examples in messages.
    Scalar(String),
}

/// One mapping entry: the key as text, where the key is, and the value.
#[derive(Debug)]
pub(crate) struct Entry {
    /// The key, rendered as text.
    pub(crate) key: String,
    /// Where the key is.
    pub(crate) key_at: Position,
    /// The value under the key.
    pub(crate) value: Node,
}

/// One step of a path into a [`Node`] tree.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Step<'a> {
    /// A mapping key.
    Key(&'a str),
    /// A sequence index.
    Index(usize),
}

impl Node {
    /// Reads the position tree of `text`; `None` for an empty document.
    pub(crate) fn read(text: &str, file: &Path) -> Result<Option<Node>, ConfigError> {
        let tree = read::<Spanned<NodeKind>>(text, file)?;
        Ok(tree.map(Node::from))
    }

    /// The node found by following `steps` from this one, if it exists.
    pub(crate) fn find(&self, steps: &[Step]) -> Option<&Node> {
        let Some((first, rest)) = steps.split_first() else {
            return Some(self);
        };
        let child = match (&self.kind, first) {
            (NodeKind::Map(entries), Step::Key(key)) => {
                entries.iter().find(|e| e.key == *key).map(|e| &e.value)
            }
            (NodeKind::Seq(items), Step::Index(index)) => items.get(*index),
            _ => None,
        };
        child?.find(rest)
    }
}

impl From<Spanned<NodeKind>> for Node {
    fn from(spanned: Spanned<NodeKind>) -> Self {
        Node {
            at: spanned.referenced.into(),
            kind: spanned.value,
        }
    }
}

impl<'de> Deserialize<'de> for NodeKind {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(NodeVisitor)
    }
}

/// The visitor methods that render every scalar as text (a null as `~`) and
/// wrap it with `$wrap`, for visitors returning `$value`.
macro_rules! scalar_visits {
    ($value:ty, $wrap:expr) => {
        scalar_visits!(@numbers $value, $wrap,
            visit_bool: bool, visit_i64: i64, visit_i128: i128,
            visit_u64: u64, visit_u128: u128, visit_f64: f64);

        fn visit_str<E>(self, value: &str) -> Result<$value, E> {
            Ok($wrap(value.to_owned()))
        }

        fn visit_unit<E>(self) -> Result<$value, E> {
            Ok($wrap("~".to_owned()))
        }

        fn visit_none<E>(self) -> Result<$value, E> {
            Ok($wrap("~".to_owned()))
        }
    };
    (@numbers $value:ty, $wrap:expr, $($method:ident: $scalar:ty),*) => {
        $(
            fn $method<E>(self, value: $scalar) -> Result<$value, E> {
                Ok($wrap(value.to_string()))
            }
        )*
    };
}

/// Builds a [`NodeKind`] from whatever the YAML holds.
struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = NodeKind;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("any YAML value")
    }

    scalar_visits!(NodeKind, NodeKind::Scalar);

    fn visit_bytes<E>(self, value: &[u8]) -> Result<NodeKind, E> {
        Ok(NodeKind::Scalar(
            String::from_utf8_lossy(value).into_owned(),
        ))
    }

    fn visit_some<D: Deserializer<'de>>(self, inner: D) -> Result<NodeKind, D::Error> {
        NodeKind::deserialize(inner)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut access: A) -> Result<NodeKind, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = access.next_element::<Spanned<NodeKind>>()? {
            items.push(Node::from(item));
        }
        Ok(NodeKind::Seq(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<NodeKind, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = access.next_key::<Spanned<KeyText>>()? {
            let value = access.next_value::<Spanned<NodeKind>>()?;
            entries.push(Entry {
                key: key.value.0,
                key_at: key.referenced.into(),
                value: Node::from(value),
            });
        }
        Ok(NodeKind::Map(entries))
    }
}

/// A mapping key rendered as text, whatever scalar type it has.
struct KeyText(String);

impl<'de> Deserialize<'de> for KeyText {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(KeyVisitor)
    }
}

/// Renders any key as text; a non-scalar key becomes a placeholder.
struct KeyVisitor;

impl KeyVisitor {
    /// Text for keys that are mappings or sequences.
    const COMPLEX: &'static str = "<complex key>";
}

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = KeyText;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a mapping key")
    }

    scalar_visits!(KeyText, KeyText);

    fn visit_seq<A: SeqAccess<'de>>(self, mut access: A) -> Result<KeyText, A::Error> {
        while access.next_element::<IgnoredAny>()?.is_some() {}
        Ok(KeyText(Self::COMPLEX.to_owned()))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<KeyText, A::Error> {
        while access.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(KeyText(Self::COMPLEX.to_owned()))
    }
}
