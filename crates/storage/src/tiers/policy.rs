//! Storage types and what each storage policy prefers.

use std::fmt;

use strata_model::schema::StoragePolicy;

/// The kind of device a volume is on (HDFS's storage types; `DISK` is spelled `HDD` here and
/// accepted as an alias).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StorageType {
    /// Memory (tmpfs): fastest, lost when the machine stops.
    RamDisk,
    /// Solid-state drive.
    Ssd,
    /// Spinning disk, or whatever the data directory is on.
    Hdd,
    /// Dense, slow storage for data that is rarely read.
    Archive,
}

impl StorageType {
    /// Every type, fastest first.
    pub const ALL: [StorageType; 4] = [
        StorageType::RamDisk,
        StorageType::Ssd,
        StorageType::Hdd,
        StorageType::Archive,
    ];

    /// The name used in configuration, manifests and listings.
    pub fn name(self) -> &'static str {
        match self {
            StorageType::RamDisk => "RAM_DISK",
            StorageType::Ssd => "SSD",
            StorageType::Hdd => "HDD",
            StorageType::Archive => "ARCHIVE",
        }
    }

    /// Parses a name, case-insensitively; `DISK` (HDFS's name) means `HDD`.
    pub fn parse(s: &str) -> Option<StorageType> {
        let upper = s.trim().to_ascii_uppercase();
        if upper == "DISK" {
            return Some(StorageType::Hdd);
        }
        StorageType::ALL.into_iter().find(|t| t.name() == upper)
    }
}

impl fmt::Display for StorageType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The storage types a policy places a single copy on, in order of preference: the policy's
/// own first type, then HDFS's creation fallbacks for it (`BlockStoragePolicySuite`).
///
/// | policy         | HDFS types (n replicas)       | one copy here   | fallbacks    |
/// |----------------|-------------------------------|-----------------|--------------|
/// | `LAZY_PERSIST` | RAM_DISK, then DISK           | RAM_DISK        | HDD          |
/// | `ALL_SSD`      | SSD on every replica          | SSD             | HDD          |
/// | `ONE_SSD`      | one SSD, the rest DISK        | SSD             | HDD          |
/// | `HOT`          | DISK on every replica         | HDD             | ARCHIVE      |
/// | `WARM`         | one DISK, the rest ARCHIVE    | HDD             | ARCHIVE      |
/// | `COLD`         | ARCHIVE on every replica      | ARCHIVE         | —            |
///
/// When none of these types has a volume, [`super::Volumes`] uses the data directory's volume;
/// whenever the first type has none, it warns once per policy.
pub fn preference(policy: StoragePolicy) -> &'static [StorageType] {
    use StorageType::{Archive, Hdd, RamDisk, Ssd};
    match policy {
        StoragePolicy::LazyPersist => &[RamDisk, Hdd],
        StoragePolicy::AllSsd | StoragePolicy::OneSsd => &[Ssd, Hdd],
        StoragePolicy::Hot | StoragePolicy::Warm => &[Hdd, Archive],
        StoragePolicy::Cold => &[Archive],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_disk_is_hdd() {
        for t in StorageType::ALL {
            assert_eq!(StorageType::parse(t.name()), Some(t));
            assert_eq!(StorageType::parse(&t.name().to_lowercase()), Some(t));
        }
        assert_eq!(StorageType::parse("DISK"), Some(StorageType::Hdd));
        assert_eq!(StorageType::parse("NVME"), None);
    }

    #[test]
    fn every_policy_prefers_its_hdfs_type_first() {
        assert_eq!(
            preference(StoragePolicy::LazyPersist)[0],
            StorageType::RamDisk
        );
        assert_eq!(preference(StoragePolicy::AllSsd)[0], StorageType::Ssd);
        assert_eq!(preference(StoragePolicy::OneSsd)[0], StorageType::Ssd);
        assert_eq!(preference(StoragePolicy::Hot)[0], StorageType::Hdd);
        assert_eq!(preference(StoragePolicy::Warm)[0], StorageType::Hdd);
        assert_eq!(preference(StoragePolicy::Cold), &[StorageType::Archive]);
    }
}
