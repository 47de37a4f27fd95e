//! Byte sizes as people write them: `5G`, `500M`, `64k`, `1234`.
//!
//! Suffixes are binary (`K` = 1024) and case-insensitive, with an optional
//! `B`/`iB` after them; used by the cache limit in `assetc.yml` and on the
//! command line.

use std::fmt;
use std::str::FromStr;

/// A size in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct ByteSize(pub u64);

impl FromStr for ByteSize {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let bad = || format!("'{text}' is not a size (write e.g. 5G, 500M or 1048576)");
        let lower = text.trim().to_ascii_lowercase();
        let unit_text = lower.trim_end_matches("ib").trim_end_matches('b');
        let digits_end = unit_text
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(unit_text.len());
        let (digits, unit) = unit_text.split_at(digits_end);
        let shift = match unit {
            "" => 0,
            "k" => 10,
            "m" => 20,
            "g" => 30,
            "t" => 40,
            _ => return Err(bad()),
        };
        let count: u64 = digits.parse().map_err(|_| bad())?;
        count.checked_mul(1 << shift).map(Self).ok_or_else(bad)
    }
}

impl fmt::Display for ByteSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const UNITS: [(&str, u32); 4] = [("T", 40), ("G", 30), ("M", 20), ("K", 10)];
        for (unit, shift) in UNITS {
            if self.0 >= 1 << shift && self.0.is_multiple_of(1 << shift) {
                return write!(f, "{}{unit}", self.0 >> shift);
            }
        }
        write!(f, "{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_binary_suffixes() {
        let size = |t: &str| t.parse::<ByteSize>().map(|s| s.0);
        assert_eq!(size("1234"), Ok(1234));
        assert_eq!(size("64k"), Ok(64 << 10));
        assert_eq!(size("500MB"), Ok(500 << 20));
        assert_eq!(size("5GiB"), Ok(5 << 30));
        assert_eq!(size(" 2T "), Ok(2 << 40));
        for bad in ["", "G", "5X", "-1", "1.5G", "99999999999T"] {
            assert!(size(bad).is_err(), "{bad}");
        }
        assert_eq!(ByteSize(5 << 30).to_string(), "5G");
        assert_eq!(ByteSize(1500).to_string(), "1500");
    }
}
