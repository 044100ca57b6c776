//! Where a store file is kept: a volume of a storage type (local files), or on a store that
//! places blocks by storage policy itself (HDFS), a directory under the family's directory
//! whose policy is the file's.

use strata_model::schema::StoragePolicy;

use super::policy::{preference, StorageType};

/// The place of one store file, as the manifest's tier field names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tier {
    /// The store's directory on the volume of this type (the data directory's type for the
    /// family's own directory; on HDFS its blocks follow the family's `STORAGE_POLICY`).
    Volume(StorageType),
    /// The policy directory [`policy_dir_name`] under the family's directory, on a store that
    /// places by policy: a date-tiered window whose age asks for another policy than the
    /// family's. Its blocks follow this policy.
    Policy(StoragePolicy),
}

impl Tier {
    /// The storage type reads of the file are counted under: the volume's, or the type the
    /// policy places its first replica on.
    pub fn kind(self) -> StorageType {
        match self {
            Tier::Volume(kind) => kind,
            Tier::Policy(policy) => preference(policy)[0],
        }
    }
}

/// The directory, under a family's directory, holding its files placed by `policy`:
/// `tier-cold`, `tier-all_ssd`, …
pub fn policy_dir_name(policy: StoragePolicy) -> String {
    format!("tier-{}", policy.name().to_ascii_lowercase())
}

/// The policy whose directory is named `name`, if it is one ([`policy_dir_name`]).
pub fn parse_policy_dir(name: &str) -> Option<StoragePolicy> {
    StoragePolicy::ALL
        .iter()
        .copied()
        .find(|p| policy_dir_name(*p) == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policy_directories_round_trip_and_policy_names_are_not_storage_types() {
        for p in StoragePolicy::ALL {
            assert_eq!(parse_policy_dir(&policy_dir_name(*p)), Some(*p));
            // A manifest's tier field tells volumes and policies apart by name.
            assert_eq!(StorageType::parse(p.name()), None, "{p}");
        }
        assert_eq!(policy_dir_name(StoragePolicy::Cold), "tier-cold");
        assert_eq!(parse_policy_dir("tier-tape"), None);
        assert_eq!(parse_policy_dir("cold"), None);
        assert_eq!(
            Tier::Policy(StoragePolicy::Cold).kind(),
            StorageType::Archive
        );
        assert_eq!(Tier::Policy(StoragePolicy::AllSsd).kind(), StorageType::Ssd);
    }
}
