//! The keyword-valued table settings: `DURABILITY` and `SPLIT_POLICY`.

use crate::schema::value::keyword_enum;
use crate::schema::SchemaError;

keyword_enum! {
    /// `DURABILITY`: how far a write must get before it is acknowledged (RFC 0002). Set per
    /// table, and per mutation where `USE_DEFAULT` defers to the table.
    pub enum Durability {
        /// Defer: a mutation uses its table's durability; a table uses `SYNC_WAL`.
        #[default]
        UseDefault = "USE_DEFAULT",
        /// No WAL: the write is lost if the server dies before a flush.
        SkipWal = "SKIP_WAL",
        /// Appended to the WAL, synced in the background.
        AsyncWal = "ASYNC_WAL",
        /// Synced to the OS or the shared log before the acknowledgement: survives a process
        /// crash.
        SyncWal = "SYNC_WAL",
        /// Fsync'd before the acknowledgement: survives power loss.
        FsyncWal = "FSYNC_WAL",
    }
}

impl Durability {
    /// The durability a write gets: `self`, or `table`'s when `self` is `USE_DEFAULT`, and
    /// `SYNC_WAL` when both are.
    pub fn resolve(self, table: Durability) -> Durability {
        match (self, table) {
            (Durability::UseDefault, Durability::UseDefault) => Durability::SyncWal,
            (Durability::UseDefault, t) => t,
            (d, _) => d,
        }
    }
}

keyword_enum! {
    /// `SPLIT_POLICY`: when a region splits (RFC 0007, "Automatic splits").
    pub enum SplitPolicy {
        /// Hypertable's growing soft limit: a young table's regions split early (at twice the
        /// flush size), and each split generation doubles the limit up to `MAX_FILESIZE`, so a
        /// new table spreads across servers quickly without ending with tiny regions.
        #[default]
        IncreasingToUpperBound = "INCREASING_TO_UPPER_BOUND",
        /// Split when the largest store passes `MAX_FILESIZE`.
        ConstantSize = "CONSTANT_SIZE",
        /// Never split automatically (explicit splits still work).
        Disabled = "DISABLED",
    }
}

impl SplitPolicy {
    /// Parses the keyword or one of HBase's policy class names (with or without package):
    /// `IncreasingToUpperBoundRegionSplitPolicy` and `SteppingSplitPolicy` mean
    /// `INCREASING_TO_UPPER_BOUND`, `ConstantSizeRegionSplitPolicy` means `CONSTANT_SIZE`,
    /// `DisabledRegionSplitPolicy` means `DISABLED`.
    ///
    /// # Errors
    /// [`SchemaError::UnknownValue`] naming `SPLIT_POLICY`.
    pub fn parse_setting(value: &str) -> Result<SplitPolicy, SchemaError> {
        let class = value.trim().rsplit('.').next().unwrap_or("");
        let by_class = match class.to_ascii_lowercase().as_str() {
            "increasingtoupperboundregionsplitpolicy" | "steppingsplitpolicy" => {
                Some(SplitPolicy::IncreasingToUpperBound)
            }
            "constantsizeregionsplitpolicy" => Some(SplitPolicy::ConstantSize),
            "disabledregionsplitpolicy" => Some(SplitPolicy::Disabled),
            _ => None,
        };
        by_class
            .or_else(|| SplitPolicy::parse(value))
            .ok_or_else(|| {
                crate::schema::value::unknown_value::<SplitPolicy>("SPLIT_POLICY", value)
            })
    }

    /// The size at which a region splits, or `None` if it never splits by size.
    ///
    /// `generation` counts the splits between the table's first region and this one (0 for
    /// the first region). `INCREASING_TO_UPPER_BOUND` gives `2 × flush_size × 2^generation`,
    /// capped at `max_filesize`.
    pub fn split_size(self, max_filesize: u64, flush_size: u64, generation: u32) -> Option<u64> {
        match self {
            SplitPolicy::IncreasingToUpperBound => {
                let initial = flush_size.saturating_mul(2);
                let grown = 1u64
                    .checked_shl(generation)
                    .map_or(u64::MAX, |f| initial.saturating_mul(f));
                Some(grown.min(max_filesize))
            }
            SplitPolicy::ConstantSize => Some(max_filesize),
            SplitPolicy::Disabled => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durability_resolves_against_the_table() {
        use Durability::*;
        assert_eq!(UseDefault.resolve(UseDefault), SyncWal);
        assert_eq!(UseDefault.resolve(FsyncWal), FsyncWal);
        assert_eq!(SkipWal.resolve(FsyncWal), SkipWal);
        assert_eq!(Durability::parse("async_wal"), Some(AsyncWal));
    }

    #[test]
    fn split_policy_accepts_hbase_class_names() {
        let p = |s| SplitPolicy::parse_setting(s);
        assert_eq!(
            p("org.apache.hadoop.hbase.regionserver.ConstantSizeRegionSplitPolicy"),
            Ok(SplitPolicy::ConstantSize)
        );
        assert_eq!(
            p("SteppingSplitPolicy"),
            Ok(SplitPolicy::IncreasingToUpperBound)
        );
        assert_eq!(p("disabled"), Ok(SplitPolicy::Disabled));
        assert_eq!(
            p("KeyPrefixRegionSplitPolicy").unwrap_err().to_string(),
            "SPLIT_POLICY: unknown value 'KeyPrefixRegionSplitPolicy'; allowed: \
             INCREASING_TO_UPPER_BOUND, CONSTANT_SIZE, DISABLED"
        );
    }

    #[test]
    fn increasing_split_size_doubles_up_to_the_bound() {
        let mib = 1u64 << 20;
        let p = SplitPolicy::IncreasingToUpperBound;
        assert_eq!(p.split_size(10_240 * mib, 128 * mib, 0), Some(256 * mib));
        assert_eq!(p.split_size(10_240 * mib, 128 * mib, 1), Some(512 * mib));
        assert_eq!(p.split_size(10_240 * mib, 128 * mib, 6), Some(10_240 * mib));
        assert_eq!(
            p.split_size(10_240 * mib, 128 * mib, 200),
            Some(10_240 * mib)
        );
        assert_eq!(SplitPolicy::ConstantSize.split_size(7, 1, 0), Some(7));
        assert_eq!(SplitPolicy::Disabled.split_size(7, 1, 0), None);
    }
}
