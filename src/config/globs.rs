//! A YAML value that is one glob or a list of globs, as `processors[].match`
//! and every entry of `packs:` accept.
//!
//! `match: "maps/*.tmj"` and `match: ["maps/*.tmj", "levels/*.tmj"]` mean the
//! same kind of thing, so both spellings are read into one [`GlobList`]. A
//! null value (`preload:` with nothing after it) reads as an empty list; the
//! sections that use a list decide whether empty is an error, and report it
//! at the right line.

use std::fmt;

use serde::Deserialize;
use serde::de::{Deserializer, SeqAccess, Visitor};

/// One or several globs, as written, in file order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct GlobList(pub(crate) Vec<String>);

impl<'de> Deserialize<'de> for GlobList {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(GlobListVisitor)
    }
}

/// Accepts a string, a sequence of strings, or null.
struct GlobListVisitor;

impl<'de> Visitor<'de> for GlobListVisitor {
    type Value = GlobList;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a glob or a list of globs")
    }

    fn visit_str<E>(self, value: &str) -> Result<GlobList, E> {
        Ok(GlobList(vec![value.to_owned()]))
    }

    fn visit_unit<E>(self) -> Result<GlobList, E> {
        Ok(GlobList::default())
    }

    fn visit_none<E>(self) -> Result<GlobList, E> {
        Ok(GlobList::default())
    }

    fn visit_some<D: Deserializer<'de>>(self, inner: D) -> Result<GlobList, D::Error> {
        GlobList::deserialize(inner)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut access: A) -> Result<GlobList, A::Error> {
        let mut globs = Vec::new();
        while let Some(glob) = access.next_element::<String>()? {
            globs.push(glob);
        }
        Ok(GlobList(globs))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<GlobList, serde_saphyr::Error> {
        serde_saphyr::from_str::<GlobList>(text)
    }

    #[test]
    fn one_glob_or_a_list() {
        assert_eq!(read("\"ui/*\"").unwrap().0, ["ui/*"]);
        assert_eq!(read("[a/*, b/*]").unwrap().0, ["a/*", "b/*"]);
        assert!(read("~").unwrap().0.is_empty());
        assert!(read("{ a: 1 }").is_err());
    }
}
