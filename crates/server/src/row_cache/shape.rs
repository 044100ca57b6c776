//! The shape of a get — what besides the row decides its result: columns, time range and
//! version count. Gets with a filter are not cached (see `RegionCache::cacheable`), so the
//! filter is not part of the shape.

use strata_model::ops::{Get, TimeRange};

/// A get's shape, as part of a cache key.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) enum Shape {
    /// Every column, every timestamp, the newest version: the common get, kept without an
    /// allocation.
    Latest,
    /// Any other shape, in an unambiguous byte encoding (length-prefixed names).
    Encoded(Box<[u8]>),
}

impl Shape {
    /// The shape of `get` (its filter aside).
    pub(super) fn of(get: &Get) -> Shape {
        if get.columns.is_all() && get.time_range == TimeRange::ALL && get.max_versions == 1 {
            return Shape::Latest;
        }
        let mut out = Vec::with_capacity(32);
        out.extend_from_slice(&get.time_range.min.to_be_bytes());
        out.extend_from_slice(&get.time_range.max.to_be_bytes());
        out.extend_from_slice(&get.max_versions.to_be_bytes());
        for (family, qualifiers) in &get.columns.families {
            push_name(&mut out, b'F', family);
            if let Some(qualifiers) = qualifiers {
                for q in qualifiers {
                    push_name(&mut out, b'Q', q);
                }
            }
        }
        Shape::Encoded(out.into_boxed_slice())
    }

    /// Bytes of the encoding (charged to the entry).
    pub(super) fn len(&self) -> usize {
        match self {
            Shape::Latest => 0,
            Shape::Encoded(b) => b.len(),
        }
    }
}

fn push_name(out: &mut Vec<u8>, tag: u8, name: &[u8]) {
    out.push(tag);
    out.extend_from_slice(&(name.len() as u32).to_be_bytes());
    out.extend_from_slice(name);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_differ_by_columns_range_and_versions() {
        let base = Get::new("r");
        assert_eq!(Shape::of(&base), Shape::Latest);
        let fam = Get::new("r").with_family("f");
        let col = Get::new("r").with_column("f", "q");
        let col2 = Get::new("r").with_column("f", "q").with_column("f", "r");
        let shapes = [Shape::of(&fam), Shape::of(&col), Shape::of(&col2)];
        assert_ne!(shapes[0], shapes[1]);
        assert_ne!(shapes[1], shapes[2]);
        let mut versions = Get::new("r");
        versions.max_versions = 3;
        assert_ne!(Shape::of(&versions), Shape::Latest);
        let mut ranged = Get::new("r");
        ranged.time_range = TimeRange { min: 5, max: 10 };
        assert_ne!(Shape::of(&ranged), Shape::of(&versions));
        // Ambiguity check: family "fQ" vs family "f" + qualifier.
        let a = Get::new("r").with_family("f\0\0\0\x01Qq");
        let b = Get::new("r").with_column("f", "q");
        assert_ne!(Shape::of(&a), Shape::of(&b));
    }
}
