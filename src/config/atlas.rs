//! The values of the `atlas:` section: the atlas name and the pivot (the
//! section's two written forms are read in `schema.rs`).

use std::fmt;

use serde::Deserialize;
use serde::de::{Deserializer, Visitor};

use crate::format::bytes::check_runtime_path;

/// The name of a rule atlas: a runtime path without extension (`ui/icons`),
/// or empty for "no atlas".
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct AtlasName(pub String);

impl AtlasName {
    /// `name`, if it is a clean relative path (as runtime paths are).
    pub fn new(name: &str) -> Result<Self, String> {
        check_runtime_path(name)
            .map(|()| Self(name.to_owned()))
            .map_err(|reason| format!("atlas name {name:?} is not a relative path: {reason}"))
    }
}

impl<'de> Deserialize<'de> for AtlasName {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        if text.is_empty() {
            return Ok(Self::default());
        }
        Self::new(&text).map_err(serde::de::Error::custom)
    }
}

impl fmt::Display for AtlasName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A sprite's pivot in its untrimmed, normalised coordinates: `[x, y]`,
/// each finite. On the command line it is `x,y`.
#[derive(Debug, Clone, Copy)]
pub struct Pivot(pub [f32; 2]);

impl PartialEq for Pivot {
    fn eq(&self, other: &Self) -> bool {
        self.0.map(f32::to_bits) == other.0.map(f32::to_bits)
    }
}

impl Eq for Pivot {}

impl TryFrom<Vec<f64>> for Pivot {
    type Error = String;

    fn try_from(values: Vec<f64>) -> Result<Self, String> {
        match values[..] {
            [x, y] if x.is_finite() && y.is_finite() => Ok(Self([x as f32, y as f32])),
            _ => Err(format!(
                "pivot must be two finite numbers [x, y], such as [0.5, 1], not {values:?}"
            )),
        }
    }
}

impl<'de> Deserialize<'de> for Pivot {
    /// Reads a YAML list of two numbers; a unit (the key probe's offer) is
    /// the centre.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let values = deserializer.deserialize_any(PivotVisitor)?;
        Self::try_from(values).map_err(serde::de::Error::custom)
    }
}

/// Reads a YAML list of numbers as `f64`s.
struct PivotVisitor;

impl<'de> Visitor<'de> for PivotVisitor {
    type Value = Vec<f64>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("two numbers [x, y], such as [0.5, 1]")
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Vec<f64>, E> {
        Ok(vec![0.5, 0.5])
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<f64>, A::Error> {
        let mut values = Vec::new();
        while let Some(value) = seq.next_element::<f64>()? {
            values.push(value);
        }
        Ok(values)
    }
}

impl std::str::FromStr for Pivot {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let values = text
            .split(',')
            .map(|part| part.trim().parse::<f64>())
            .collect::<Result<Vec<_>, _>>()
            .map_err(|_| format!("pivot must be two numbers joined by `,`, not {text:?}"))?;
        values.try_into()
    }
}

impl fmt::Display for Pivot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{},{}", self.0[0], self.0[1])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pivot_round_trips_through_its_flag_text() {
        let pivot: Pivot = "0.25,1".parse().unwrap();
        assert_eq!(pivot, Pivot([0.25, 1.0]));
        assert_eq!(pivot.to_string().parse::<Pivot>(), Ok(pivot));
        assert!("0.5".parse::<Pivot>().is_err());
        assert!("0.5,inf".parse::<Pivot>().is_err());
        assert!("a,b".parse::<Pivot>().is_err());
    }

    #[test]
    fn an_atlas_name_is_a_relative_path() {
        assert_eq!(AtlasName::new("ui/icons"), Ok(AtlasName("ui/icons".into())));
        assert!(AtlasName::new("/abs").is_err());
        assert!(AtlasName::new("a/../b").is_err());
        assert!(AtlasName::new("a//b").is_err());
    }
}
