//! [`Version`]: the state a manifest records, as an immutable value.

use std::collections::BTreeMap;

use bytes::Bytes;
use strata_model::limits::{MAX_FAMILY_LEN, MAX_ROW_LEN};

/// The region a manifest belongs to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegionInfo {
    /// The table's name, `ns:table` or `table`.
    pub table: String,
    /// The region's id, unique within the table (HBase: the region's creation timestamp).
    pub region_id: u64,
    /// First row of the region, inclusive; empty for the table's first region.
    pub start_row: Bytes,
    /// End of the region, exclusive; empty for the table's last region.
    pub end_row: Bytes,
}

impl RegionInfo {
    /// Region `region_id` of `table`, from `start_row` (inclusive) to `end_row` (exclusive;
    /// empty: to the table's end).
    pub fn new(
        table: impl Into<String>,
        region_id: u64,
        start_row: impl Into<Bytes>,
        end_row: impl Into<Bytes>,
    ) -> RegionInfo {
        RegionInfo {
            table: table.into(),
            region_id,
            start_row: start_row.into(),
            end_row: end_row.into(),
        }
    }

    /// Region `region_id` of `table` covering every row.
    pub fn whole(table: impl Into<String>, region_id: u64) -> RegionInfo {
        RegionInfo::new(table, region_id, Bytes::new(), Bytes::new())
    }
}

/// Which half of a parent file a split daughter's reference covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Half {
    /// Rows below the split row (the first daughter's half).
    Bottom,
    /// Rows at or above the split row (the second daughter's half).
    Top,
}

/// A split daughter's stand-in for half of a parent region's file. Reads see the parent file's
/// cells on this side of `split_row`; compaction later rewrites them into a real file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reference {
    /// The parent region's id.
    pub parent_region_id: u64,
    /// The parent file's name in the parent region's store.
    pub parent_file: String,
    /// Which half of the parent file.
    pub half: Half,
    /// The row the parent was split at.
    pub split_row: Bytes,
}

/// A store file that belongs to another region, usually of another table: a table cloned or
/// restored from a snapshot reads the snapshot's files in place (HBase's `HFileLink`). The
/// bytes are found at the region's store on the entry's tier, or else in the archive of that
/// volume (RFC 0025). A link owns no bytes: removing its entry deletes nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Link {
    /// The directory of the file's table, relative to a volume's root
    /// (`tables/<namespace>/<qualifier>`).
    pub table_dir: String,
    /// The id of the region whose store holds the file.
    pub region_id: u64,
    /// The file's name in that store.
    pub file: String,
}

/// One store file as the manifest records it (mostly copied from the file's own file info, so a
/// region can plan compactions and prune reads without opening files).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreFile {
    /// The file's name within its store directory; unique within the family.
    pub name: String,
    /// Length of the file in bytes (for a reference: the parent file's length).
    pub size: u64,
    /// Largest sequence id of any cell, or the flush's sequence id.
    pub max_seq_id: u64,
    /// Smallest cell timestamp (`i64::MAX` when empty).
    pub min_timestamp: i64,
    /// Largest cell timestamp (`i64::MIN` when empty).
    pub max_timestamp: i64,
    /// Number of cells.
    pub cell_count: u64,
    /// When the file was written, ms since the epoch.
    pub created_at_ms: i64,
    /// Written by a major compaction.
    pub major: bool,
    /// The storage type of the volume holding the file (`SSD`, `RAM_DISK`, ...); empty for
    /// the data directory's volume (RFC 0010).
    pub tier: String,
    /// Set when this entry is a split daughter's reference to a parent file.
    pub reference: Option<Reference>,
    /// Set when the bytes are another region's file (a clone's). With a `reference` too, the
    /// link names the parent file the reference takes half of.
    pub link: Option<Link>,
    /// Written outside the region and bulk-loaded (RFC 0027): its cells are read with
    /// `max_seq_id`, the sequence id the region gave the load, whatever the file holds.
    pub bulk: bool,
}

/// Longest file name, tier or table name a manifest accepts, in bytes.
pub const MAX_NAME_LEN: usize = 1024;

impl StoreFile {
    /// Checks what the manifest relies on: a usable name, a sane time range.
    ///
    /// # Errors
    /// The broken rule.
    pub fn validate(&self) -> Result<(), String> {
        check_name("file name", &self.name)?;
        if self.tier.len() > MAX_NAME_LEN {
            return Err(format!(
                "tier of {} is longer than {MAX_NAME_LEN}",
                self.name
            ));
        }
        if self.cell_count > 0 && self.min_timestamp > self.max_timestamp {
            return Err(format!("{}: min timestamp above max timestamp", self.name));
        }
        if let Some(r) = &self.reference {
            check_name("parent file name", &r.parent_file)?;
        }
        if let Some(l) = &self.link {
            check_name("linked file name", &l.file)?;
            check_table_dir(&l.table_dir)?;
        }
        Ok(())
    }

    /// True when reads of this entry go to another region's file (a split reference or a
    /// link): the region compacts it into a file of its own before it splits or merges.
    pub fn is_borrowed(&self) -> bool {
        self.reference.is_some() || self.link.is_some()
    }
}

fn check_table_dir(dir: &str) -> Result<(), String> {
    let ok = !dir.is_empty()
        && dir.len() <= MAX_NAME_LEN
        && !dir.contains(['\\', '\0'])
        && dir
            .split('/')
            .all(|c| !c.is_empty() && c != "." && c != "..");
    if ok {
        Ok(())
    } else {
        Err(format!(
            "linked table directory {dir:?} is not a relative path"
        ))
    }
}

fn check_name(what: &str, name: &str) -> Result<(), String> {
    if name.is_empty() || name.len() > MAX_NAME_LEN || name.contains(['/', '\\', '\0']) {
        return Err(format!(
            "{what} {name:?} is empty, too long or contains / \\ or NUL"
        ));
    }
    Ok(())
}

/// One family's files and flushed sequence id.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FamilyFiles {
    pub(crate) flushed_seq_id: u64,
    pub(crate) files: BTreeMap<String, StoreFile>,
}

impl FamilyFiles {
    /// Every edit with a sequence id at or below this is in the family's files; the WAL may drop
    /// them once every family of the region has passed them.
    pub fn flushed_seq_id(&self) -> u64 {
        self.flushed_seq_id
    }

    /// The files, by name.
    pub fn files(&self) -> impl Iterator<Item = &StoreFile> {
        self.files.values()
    }

    /// The file named `name`.
    pub fn file(&self, name: &str) -> Option<&StoreFile> {
        self.files.get(name)
    }

    /// Number of files.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// No files.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// The files oldest first: max sequence id ascending, then size descending, then name (the
    /// order compaction policies and read merges use).
    pub fn in_store_order(&self) -> Vec<&StoreFile> {
        let mut v: Vec<&StoreFile> = self.files.values().collect();
        v.sort_by(|a, b| {
            a.max_seq_id
                .cmp(&b.max_seq_id)
                .then(b.size.cmp(&a.size))
                .then_with(|| a.name.cmp(&b.name))
        });
        v
    }
}

/// A region's recorded state: what it is and which files each family has. Immutable; a
/// [`super::VersionEdit`] makes the next one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Version {
    pub(crate) region: RegionInfo,
    pub(crate) families: BTreeMap<Bytes, FamilyFiles>,
}

impl Version {
    /// A region's first version: its families, no files, nothing flushed.
    ///
    /// # Errors
    /// A family named twice, an empty or oversized family or table name.
    pub fn new(
        region: RegionInfo,
        families: impl IntoIterator<Item = Bytes>,
    ) -> Result<Version, String> {
        check_region(&region)?;
        let mut map = BTreeMap::new();
        for family in families {
            check_family(&family)?;
            if map.insert(family.clone(), FamilyFiles::default()).is_some() {
                return Err(format!("family {family:?} named twice"));
            }
        }
        Ok(Version {
            region,
            families: map,
        })
    }

    /// The region.
    pub fn region(&self) -> &RegionInfo {
        &self.region
    }

    /// The families by name.
    pub fn families(&self) -> impl Iterator<Item = (&Bytes, &FamilyFiles)> {
        self.families.iter()
    }

    /// The family named `name`.
    pub fn family(&self, name: &[u8]) -> Option<&FamilyFiles> {
        self.families.get(name)
    }

    /// The lowest flushed sequence id over the families (0 with none): the WAL may drop edits at
    /// or below it.
    pub fn min_flushed_seq_id(&self) -> u64 {
        self.families
            .values()
            .map(|f| f.flushed_seq_id)
            .min()
            .unwrap_or(0)
    }
}

pub(crate) fn check_region(region: &RegionInfo) -> Result<(), String> {
    if region.table.is_empty() || region.table.len() > MAX_NAME_LEN {
        return Err(format!(
            "table name {:?} is empty or too long",
            region.table
        ));
    }
    if region.start_row.len() > MAX_ROW_LEN || region.end_row.len() > MAX_ROW_LEN {
        return Err("region boundary row longer than a row may be".to_owned());
    }
    if !region.end_row.is_empty() && region.start_row >= region.end_row {
        return Err("region start row is not below its end row".to_owned());
    }
    Ok(())
}

pub(crate) fn check_family(family: &[u8]) -> Result<(), String> {
    if family.is_empty() || family.len() > MAX_FAMILY_LEN {
        return Err(format!(
            "family name {family:?} is empty or longer than {MAX_FAMILY_LEN}"
        ));
    }
    Ok(())
}
