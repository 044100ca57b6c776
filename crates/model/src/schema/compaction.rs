//! `COMPACTION_POLICY` and the date-tiered parameters (RFC 0006).
//!
//! Names and defaults are HBase's `CompactionConfiguration` and
//! `ExponentialCompactionWindowFactory` keys, `hbase.hstore.compaction.date.tiered.*`; the
//! shell passes them inside `CONFIGURATION => {…}` as HBase's does.

use super::settings::StoragePolicy;
use super::value::{
    check_range, keyword_enum, parse_bool, parse_int, parse_keyword, unknown_value, Keyword,
};
use super::SchemaError;

keyword_enum! {
    /// The policy that picks files within one date-tiered window
    /// (`hbase.hstore.compaction.date.tiered.window.policy.class`).
    pub enum WindowPolicy {
        /// HBase's `ExploringCompactionPolicy`: ratio-based selection over contiguous runs.
        #[default]
        Exploring = "EXPLORING",
    }
}

/// Which compaction policy a family's stores use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum CompactionPolicy {
    /// `EXPLORING`: HBase's default ratio-based policy.
    #[default]
    Exploring,
    /// `DATE_TIERED`: files grouped into exponentially growing time windows.
    DateTiered(DateTiered),
}

impl CompactionPolicy {
    /// The keyword, without parameters.
    pub fn name(self) -> &'static str {
        match self {
            CompactionPolicy::Exploring => "EXPLORING",
            CompactionPolicy::DateTiered(_) => "DATE_TIERED",
        }
    }

    /// Parses `EXPLORING` / `DATE_TIERED`, or HBase's store engine class names
    /// (`DefaultStoreEngine`, `DateTieredStoreEngine`, with or without their package).
    /// `DATE_TIERED` keeps `current`'s parameters when it already is date-tiered.
    ///
    /// # Errors
    /// [`SchemaError::UnknownValue`] naming `COMPACTION_POLICY`.
    pub fn parse(value: &str, current: CompactionPolicy) -> Result<CompactionPolicy, SchemaError> {
        let word = value
            .trim()
            .rsplit('.')
            .next()
            .unwrap_or("")
            .to_ascii_uppercase();
        match word.as_str() {
            "EXPLORING" | "DEFAULTSTOREENGINE" => Ok(CompactionPolicy::Exploring),
            "DATE_TIERED" | "DATETIEREDSTOREENGINE" => Ok(match current {
                CompactionPolicy::DateTiered(d) => CompactionPolicy::DateTiered(d),
                CompactionPolicy::Exploring => CompactionPolicy::DateTiered(DateTiered::default()),
            }),
            _ => Err(SchemaError::UnknownValue {
                setting: "COMPACTION_POLICY",
                value: value.to_string(),
                allowed: "EXPLORING, DATE_TIERED".to_string(),
            }),
        }
    }
}

/// Date-tiered compaction parameters. All ages and windows are milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DateTiered {
    /// `hbase.hstore.compaction.date.tiered.base.window.millis`: the width of the newest
    /// windows. Default 6 hours.
    pub base_window_ms: i64,
    /// `hbase.hstore.compaction.date.tiered.windows.per.tier`: how many windows of one width
    /// before the next tier's width (this many times wider). Default 4, at least 2.
    pub windows_per_tier: u32,
    /// `hbase.hstore.compaction.date.tiered.max.tier.age.millis`: windows older than this stop
    /// being promoted to wider tiers. Default `Long.MAX_VALUE` (HBase defaults it to the max
    /// store file age, which defaults to `Long.MAX_VALUE`).
    pub max_tier_age_ms: i64,
    /// `hbase.hstore.compaction.date.tiered.max.storefile.age.millis`: files whose newest cell
    /// is older than this are never compacted. Default `Long.MAX_VALUE`.
    pub max_storefile_age_ms: i64,
    /// `hbase.hstore.compaction.date.tiered.incoming.window.min`: files the incoming (newest)
    /// window waits for before compacting. Default 6.
    pub incoming_window_min: u32,
    /// `hbase.hstore.compaction.date.tiered.window.policy.class`: selection within a window.
    pub window_policy: WindowPolicy,
    /// `hbase.hstore.compaction.date.tiered.single.output.for.minor.compaction`: a minor
    /// compaction writes one file instead of one per window. Default true.
    pub single_output_for_minor: bool,
    /// `hbase.hstore.compaction.date.tiered.storage.policy.enable`: place windows on storage
    /// by age (the three policies below). Default false.
    pub storage_policy_enable: bool,
    /// `hbase.hstore.compaction.date.tiered.hot.window.age.millis`: windows younger than this
    /// are hot. Default 1 day.
    pub hot_window_age_ms: i64,
    /// `hbase.hstore.compaction.date.tiered.hot.window.storage.policy`. Default `ALL_SSD`.
    pub hot_window_storage_policy: StoragePolicy,
    /// `hbase.hstore.compaction.date.tiered.warm.window.age.millis`: windows younger than this
    /// (and not hot) are warm. Default 7 days.
    pub warm_window_age_ms: i64,
    /// `hbase.hstore.compaction.date.tiered.warm.window.storage.policy`. Default `ONE_SSD`.
    pub warm_window_storage_policy: StoragePolicy,
    /// `hbase.hstore.compaction.date.tiered.cold.window.storage.policy`: for older windows.
    /// Default `HOT`.
    pub cold_window_storage_policy: StoragePolicy,
}

impl Default for DateTiered {
    fn default() -> Self {
        DateTiered {
            base_window_ms: 6 * 3_600_000,
            windows_per_tier: 4,
            max_tier_age_ms: i64::MAX,
            max_storefile_age_ms: i64::MAX,
            incoming_window_min: 6,
            window_policy: WindowPolicy::Exploring,
            single_output_for_minor: true,
            storage_policy_enable: false,
            hot_window_age_ms: 86_400_000,
            hot_window_storage_policy: StoragePolicy::AllSsd,
            warm_window_age_ms: 604_800_000,
            warm_window_storage_policy: StoragePolicy::OneSsd,
            cold_window_storage_policy: StoragePolicy::Hot,
        }
    }
}

const PREFIX: &str = "hbase.hstore.compaction.date.tiered.";
const BASE_WINDOW: &str = "hbase.hstore.compaction.date.tiered.base.window.millis";
const WINDOWS_PER_TIER: &str = "hbase.hstore.compaction.date.tiered.windows.per.tier";
const MAX_TIER_AGE: &str = "hbase.hstore.compaction.date.tiered.max.tier.age.millis";
const MAX_FILE_AGE: &str = "hbase.hstore.compaction.date.tiered.max.storefile.age.millis";
const INCOMING_MIN: &str = "hbase.hstore.compaction.date.tiered.incoming.window.min";
const WINDOW_POLICY: &str = "hbase.hstore.compaction.date.tiered.window.policy.class";
const SINGLE_OUTPUT: &str =
    "hbase.hstore.compaction.date.tiered.single.output.for.minor.compaction";
const STORAGE_ENABLE: &str = "hbase.hstore.compaction.date.tiered.storage.policy.enable";
const HOT_AGE: &str = "hbase.hstore.compaction.date.tiered.hot.window.age.millis";
const HOT_POLICY: &str = "hbase.hstore.compaction.date.tiered.hot.window.storage.policy";
const WARM_AGE: &str = "hbase.hstore.compaction.date.tiered.warm.window.age.millis";
const WARM_POLICY: &str = "hbase.hstore.compaction.date.tiered.warm.window.storage.policy";
const COLD_POLICY: &str = "hbase.hstore.compaction.date.tiered.cold.window.storage.policy";

/// Every parameter key, in `settings()` order.
const KEYS: [&str; 13] = [
    BASE_WINDOW,
    WINDOWS_PER_TIER,
    MAX_TIER_AGE,
    MAX_FILE_AGE,
    INCOMING_MIN,
    WINDOW_POLICY,
    SINGLE_OUTPUT,
    STORAGE_ENABLE,
    HOT_AGE,
    HOT_POLICY,
    WARM_AGE,
    WARM_POLICY,
    COLD_POLICY,
];

const POSITIVE: std::ops::RangeInclusive<i64> = 1..=i64::MAX;

impl DateTiered {
    /// True if `key` (case-insensitive) is one of the `hbase.hstore.compaction.date.tiered.*`
    /// keys.
    pub fn is_key(key: &str) -> bool {
        key.get(..PREFIX.len())
            .is_some_and(|p| p.eq_ignore_ascii_case(PREFIX))
    }

    /// Sets one parameter from its HBase key and string value.
    ///
    /// # Errors
    /// [`SchemaError::UnknownSetting`] for a key with the prefix but no such parameter; the
    /// value errors of the parameter otherwise.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), SchemaError> {
        let key = KEYS
            .into_iter()
            .find(|k| k.eq_ignore_ascii_case(key.trim()))
            .ok_or_else(|| SchemaError::UnknownSetting {
                scope: "column family",
                key: key.to_string(),
            })?;
        match key {
            BASE_WINDOW => self.base_window_ms = parse_int(key, value, POSITIVE)?,
            WINDOWS_PER_TIER => self.windows_per_tier = parse_int(key, value, 2..=u32::MAX)?,
            MAX_TIER_AGE => self.max_tier_age_ms = parse_int(key, value, POSITIVE)?,
            MAX_FILE_AGE => self.max_storefile_age_ms = parse_int(key, value, POSITIVE)?,
            INCOMING_MIN => self.incoming_window_min = parse_int(key, value, 1..=u32::MAX)?,
            WINDOW_POLICY => {
                // HBase takes a class name; accept its simple name too.
                let word = value.trim().rsplit('.').next().unwrap_or("");
                self.window_policy = if word.eq_ignore_ascii_case("ExploringCompactionPolicy") {
                    WindowPolicy::Exploring
                } else {
                    parse_keyword(key, value)
                        .map_err(|_| unknown_value::<WindowPolicy>(key, value))?
                };
            }
            SINGLE_OUTPUT => self.single_output_for_minor = parse_bool(key, value)?,
            STORAGE_ENABLE => self.storage_policy_enable = parse_bool(key, value)?,
            HOT_AGE => self.hot_window_age_ms = parse_int(key, value, POSITIVE)?,
            HOT_POLICY => self.hot_window_storage_policy = parse_keyword(key, value)?,
            WARM_AGE => self.warm_window_age_ms = parse_int(key, value, POSITIVE)?,
            WARM_POLICY => self.warm_window_storage_policy = parse_keyword(key, value)?,
            _ => self.cold_window_storage_policy = parse_keyword(key, value)?,
        }
        Ok(())
    }

    /// Every parameter as (HBase key, value) pairs.
    pub fn settings(&self) -> Vec<(&'static str, String)> {
        let values = [
            self.base_window_ms.to_string(),
            self.windows_per_tier.to_string(),
            self.max_tier_age_ms.to_string(),
            self.max_storefile_age_ms.to_string(),
            self.incoming_window_min.to_string(),
            self.window_policy.keyword().to_string(),
            bool_str(self.single_output_for_minor),
            bool_str(self.storage_policy_enable),
            self.hot_window_age_ms.to_string(),
            self.hot_window_storage_policy.to_string(),
            self.warm_window_age_ms.to_string(),
            self.warm_window_storage_policy.to_string(),
            self.cold_window_storage_policy.to_string(),
        ];
        KEYS.into_iter().zip(values).collect()
    }

    /// Checks every range, and that the hot age does not exceed the warm age.
    ///
    /// # Errors
    /// The first bad parameter, named by its HBase key.
    pub fn validate(&self) -> Result<(), SchemaError> {
        check_range(BASE_WINDOW, self.base_window_ms, POSITIVE)?;
        check_range(WINDOWS_PER_TIER, self.windows_per_tier, 2..=u32::MAX)?;
        check_range(MAX_TIER_AGE, self.max_tier_age_ms, POSITIVE)?;
        check_range(MAX_FILE_AGE, self.max_storefile_age_ms, POSITIVE)?;
        check_range(INCOMING_MIN, self.incoming_window_min, 1..=u32::MAX)?;
        check_range(HOT_AGE, self.hot_window_age_ms, POSITIVE)?;
        check_range(WARM_AGE, self.warm_window_age_ms, POSITIVE)?;
        if self.hot_window_age_ms > self.warm_window_age_ms {
            return Err(SchemaError::Conflict {
                setting: HOT_AGE,
                reason: format!(
                    "{} exceeds {WARM_AGE} ({})",
                    self.hot_window_age_ms, self.warm_window_age_ms
                ),
            });
        }
        Ok(())
    }
}

fn bool_str(b: bool) -> String {
    if b { "TRUE" } else { "FALSE" }.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_hbase_defaults() {
        let d = DateTiered::default();
        assert_eq!(d.base_window_ms, 21_600_000);
        assert_eq!(d.windows_per_tier, 4);
        assert_eq!(d.max_storefile_age_ms, i64::MAX);
        assert_eq!(d.incoming_window_min, 6);
        assert!(d.single_output_for_minor);
        assert_eq!(d.validate(), Ok(()));
    }

    #[test]
    fn parameters_round_trip_through_strings() {
        let mut d = DateTiered::default();
        d.set(
            "HBASE.HSTORE.COMPACTION.DATE.TIERED.BASE.WINDOW.MILLIS",
            "3600000",
        )
        .unwrap();
        d.set(
            WINDOW_POLICY,
            "org.apache.hadoop.hbase.regionserver.compactions.ExploringCompactionPolicy",
        )
        .unwrap();
        d.set(HOT_POLICY, "one_ssd").unwrap();
        d.set(SINGLE_OUTPUT, "false").unwrap();
        let mut e = DateTiered::default();
        for (k, v) in d.settings() {
            e.set(k, &v).unwrap();
        }
        assert_eq!(d, e);
        assert_eq!(e.base_window_ms, 3_600_000);
    }

    #[test]
    fn bad_parameters_are_named() {
        let mut d = DateTiered::default();
        let err = d.set(WINDOWS_PER_TIER, "1").unwrap_err();
        assert!(err.to_string().starts_with(WINDOWS_PER_TIER), "{err}");
        let err = d
            .set(WINDOW_POLICY, "RatioBasedCompactionPolicy")
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "{WINDOW_POLICY}: unknown value 'RatioBasedCompactionPolicy'; allowed: EXPLORING"
            )
        );
        let err = d
            .set("hbase.hstore.compaction.date.tiered.nope", "1")
            .unwrap_err();
        assert!(matches!(err, SchemaError::UnknownSetting { .. }));
        d.hot_window_age_ms = d.warm_window_age_ms + 1;
        assert!(matches!(d.validate(), Err(SchemaError::Conflict { .. })));
        assert!(DateTiered::is_key(BASE_WINDOW) && !DateTiered::is_key("VERSIONS"));
        assert_eq!(
            CompactionPolicy::parse("DateTieredStoreEngine", CompactionPolicy::Exploring),
            Ok(CompactionPolicy::DateTiered(DateTiered::default()))
        );
    }
}
