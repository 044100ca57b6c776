//! [`Columns`]: which columns a get or scan returns.

use std::collections::{BTreeMap, BTreeSet};

use bytes::Bytes;

use super::check::check_column;
use super::OpError;

/// The columns a read returns, by family: `None` selects the whole family, `Some` the listed
/// qualifiers. An empty map selects every column of every family.
///
/// Selecting a whole family absorbs any qualifiers of it, before or after (HBase instead lets
/// a later `addColumn` narrow an earlier `addFamily`; the wider reading is the safer one).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Columns {
    /// Family → qualifiers (`None`: all of the family).
    pub families: BTreeMap<Bytes, Option<BTreeSet<Bytes>>>,
}

impl Columns {
    /// Selects every column of `family`.
    pub fn add_family(&mut self, family: impl Into<Bytes>) {
        self.families.insert(family.into(), None);
    }

    /// Selects one column.
    pub fn add_column(&mut self, family: impl Into<Bytes>, qualifier: impl Into<Bytes>) {
        let entry = self
            .families
            .entry(family.into())
            .or_insert_with(|| Some(BTreeSet::new()));
        if let Some(qualifiers) = entry {
            qualifiers.insert(qualifier.into());
        }
    }

    /// True if every column of every family is selected.
    pub fn is_all(&self) -> bool {
        self.families.is_empty()
    }

    /// True if the selection includes `family:qualifier`.
    pub fn includes(&self, family: &[u8], qualifier: &[u8]) -> bool {
        if self.is_all() {
            return true;
        }
        match self.families.get(family) {
            Some(None) => true,
            Some(Some(qualifiers)) => qualifiers.contains(qualifier),
            None => false,
        }
    }

    /// Checks every family and qualifier's length.
    ///
    /// # Errors
    /// The first empty family or over-long name.
    pub fn validate(&self) -> Result<(), OpError> {
        for (family, qualifiers) in &self.families {
            check_column(family, b"")?;
            for q in qualifiers.iter().flatten() {
                check_column(family, q)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_families_absorb_columns() {
        let mut c = Columns::default();
        assert!(c.is_all() && c.includes(b"any", b"thing"));
        c.add_column("a", "x");
        c.add_column("a", "y");
        assert!(c.includes(b"a", b"x") && !c.includes(b"a", b"z") && !c.includes(b"b", b"x"));
        c.add_family("a");
        c.add_column("a", "q");
        assert!(c.includes(b"a", b"z"));
        assert_eq!(c.families.get(b"a".as_ref()), Some(&None));
        c.add_family("");
        assert_eq!(c.validate(), Err(OpError::EmptyFamily));
    }
}
