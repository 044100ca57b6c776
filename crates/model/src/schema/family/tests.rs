use super::*;
use crate::schema::compaction::DateTiered;

fn set_err(key: &str, value: &str) -> String {
    let mut f = FamilyDescriptor::new("cf");
    let before = f.clone();
    let err = f.set(key, value).unwrap_err().to_string();
    assert_eq!(f, before, "a failed set must not change the descriptor");
    err
}

#[test]
fn defaults_are_hbase_defaults() {
    let f = FamilyDescriptor::new("cf");
    assert_eq!(f.versions, 1);
    assert_eq!(f.min_versions, 0);
    assert_eq!(f.ttl, Ttl::Forever);
    assert_eq!(f.keep_deleted_cells, KeepDeletedCells::False);
    assert_eq!(f.block_size, 65_536);
    assert_eq!(f.data_block_encoding, DataBlockEncoding::None);
    assert_eq!(f.compression, Compression::None);
    assert_eq!(f.bloom_filter, BloomType::Row);
    assert_eq!(f.bloom_fp_rate, 0.01);
    assert!(f.block_cache && !f.cache_data_on_write && !f.in_memory && !f.row_cache);
    assert_eq!(f.block_cache_form, CachedForm::Encoded);
    assert_eq!(f.in_memory_compaction, InMemoryCompaction::Basic);
    assert_eq!(f.storage_policy, StoragePolicy::Hot);
    assert_eq!(f.compaction_policy, CompactionPolicy::Exploring);
    assert_eq!(f.validate(), Ok(()));
}

#[test]
fn every_setting_parses_case_insensitively() {
    let mut f = FamilyDescriptor::new("cf");
    for (k, v) in [
        ("versions", "5"),
        ("MIN_VERSIONS", "2"),
        ("ttl", "86400"),
        ("KEEP_DELETED_CELLS", "ttl"),
        ("BLOCKSIZE", "16KB"),
        ("data_block_encoding", "fast_diff"),
        ("COMPRESSION", "zstd"),
        ("BLOOMFILTER", "rowcol"),
        ("BLOOMFILTER_FP_RATE", "0.001"),
        ("BLOCKCACHE", "false"),
        ("CACHE_DATA_ON_WRITE", "TRUE"),
        ("BLOCK_CACHE_FORM", "compressed"),
        ("IN_MEMORY", "true"),
        ("IN_MEMORY_COMPACTION", "adaptive"),
        ("STORAGE_POLICY", "one_ssd"),
        ("COMPACTION_POLICY", "date_tiered"),
        ("ROW_CACHE", "true"),
    ] {
        f.set(k, v).unwrap_or_else(|e| panic!("{k} => {v}: {e}"));
    }
    let expected = FamilyDescriptor::new("cf")
        .with_versions(5)
        .with_min_versions(2)
        .with_ttl(Ttl::Seconds(86_400))
        .with_keep_deleted_cells(KeepDeletedCells::Ttl)
        .with_block_size(16 * 1024)
        .with_data_block_encoding(DataBlockEncoding::FastDiff)
        .with_compression(Compression::Zstd)
        .with_bloom_filter(BloomType::RowCol)
        .with_bloom_fp_rate(0.001)
        .with_block_cache(false)
        .with_cache_data_on_write(true)
        .with_block_cache_form(CachedForm::Compressed)
        .with_in_memory(true)
        .with_in_memory_compaction(InMemoryCompaction::Adaptive)
        .with_storage_policy(StoragePolicy::OneSsd)
        .with_compaction_policy(CompactionPolicy::DateTiered(DateTiered::default()))
        .with_row_cache(true);
    assert_eq!(f, expected);
    assert_eq!(f.validate(), Ok(()));
}

#[test]
fn bad_values_name_the_setting_and_the_allowed_values() {
    assert_eq!(
        set_err("COMPRESSION", "LZO"),
        "COMPRESSION: unknown value 'LZO'; allowed: NONE, SNAPPY, LZ4, ZSTD, GZ"
    );
    assert_eq!(
        set_err("DATA_BLOCK_ENCODING", "BEST"),
        "DATA_BLOCK_ENCODING: unknown value 'BEST'; allowed: NONE, PREFIX, DIFF, FAST_DIFF, \
         ROW_INDEX_V1"
    );
    assert_eq!(
        set_err("BLOOMFILTER", "ROWS"),
        "BLOOMFILTER: unknown value 'ROWS'; allowed: NONE, ROW, ROWCOL, ROWPREFIX_FIXED_LENGTH"
    );
    assert_eq!(
        set_err("BLOCK_CACHE_FORM", "RAW"),
        "BLOCK_CACHE_FORM: unknown value 'RAW'; allowed: DECODED, ENCODED, COMPRESSED"
    );
    assert_eq!(
        set_err("IN_MEMORY_COMPACTION", "LAZY"),
        "IN_MEMORY_COMPACTION: unknown value 'LAZY'; allowed: NONE, BASIC, EAGER, ADAPTIVE"
    );
    assert_eq!(
        set_err("STORAGE_POLICY", "FAST"),
        "STORAGE_POLICY: unknown value 'FAST'; allowed: LAZY_PERSIST, ALL_SSD, ONE_SSD, HOT, \
         WARM, COLD"
    );
    assert_eq!(
        set_err("KEEP_DELETED_CELLS", "1"),
        "KEEP_DELETED_CELLS: unknown value '1'; allowed: FALSE, TRUE, TTL"
    );
    assert_eq!(
        set_err("COMPACTION_POLICY", "STRIPE"),
        "COMPACTION_POLICY: unknown value 'STRIPE'; allowed: EXPLORING, DATE_TIERED"
    );
    assert_eq!(
        set_err("VERSIONS", "0"),
        "VERSIONS: invalid value '0'; expected an integer in 1..=2147483647"
    );
    assert!(set_err("BLOCKSIZE", "512").starts_with("BLOCKSIZE: invalid value '512'"));
    assert!(set_err("BLOCKSIZE", "32MB").starts_with("BLOCKSIZE: invalid value '32MB'"));
    assert!(set_err("BLOOMFILTER_FP_RATE", "0.9").starts_with("BLOOMFILTER_FP_RATE"));
    assert!(set_err("IN_MEMORY", "yes").starts_with("IN_MEMORY: unknown value 'yes'"));
    assert!(set_err("TTL", "-1").starts_with("TTL: invalid value '-1'"));
    assert_eq!(
        set_err("REPLICATION_SCOPE", "1"),
        "unknown column family setting 'REPLICATION_SCOPE'"
    );
}

#[test]
fn row_prefix_bloom_takes_its_length_in_any_order() {
    let mut f = FamilyDescriptor::new("cf");
    f.set("BLOOMFILTER", "ROWPREFIX_FIXED_LENGTH").unwrap();
    assert!(f
        .validate()
        .unwrap_err()
        .to_string()
        .contains("prefix_length"));
    f.set("RowPrefixBloomFilter.prefix_length", "10").unwrap();
    assert_eq!(f.bloom_filter, BloomType::RowPrefixFixedLength(10));
    assert_eq!(f.validate(), Ok(()));

    let mut g = FamilyDescriptor::new("cf");
    g.set("BLOOMFILTER_PARAM", "10").unwrap();
    g.set("bloomfilter", "rowprefix_fixed_length").unwrap();
    assert_eq!(g.bloom_filter, BloomType::RowPrefixFixedLength(10));

    g.set("BLOOMFILTER", "ROWPREFIX_FIXED_LENGTH:4").unwrap();
    assert_eq!(g.bloom_filter, BloomType::RowPrefixFixedLength(4));
    g.set("BLOOMFILTER", "ROWPREFIX_FIXED_LENGTH(6)").unwrap();
    assert_eq!(g.bloom_filter, BloomType::RowPrefixFixedLength(6));
    assert!(g.set("BLOOMFILTER", "ROW:3").is_err());
    assert!(g.set("BLOOMFILTER_PARAM", "0").is_err());
}

#[test]
fn date_tiered_keys_select_date_tiered() {
    let mut f = FamilyDescriptor::new("cf");
    f.set("hbase.hstore.compaction.date.tiered.windows.per.tier", "8")
        .unwrap();
    let CompactionPolicy::DateTiered(d) = f.compaction_policy else {
        panic!("expected DATE_TIERED");
    };
    assert_eq!(d.windows_per_tier, 8);
    // Re-selecting DATE_TIERED keeps the parameters; EXPLORING drops them.
    f.set("COMPACTION_POLICY", "DATE_TIERED").unwrap();
    assert_eq!(f.compaction_policy, CompactionPolicy::DateTiered(d));
    f.set("COMPACTION_POLICY", "exploring").unwrap();
    assert_eq!(f.compaction_policy, CompactionPolicy::Exploring);
}

#[test]
fn flush_oldest_key_is_listed_only_when_set() {
    let mut f = FamilyDescriptor::new("cf");
    assert!(!f.flush_oldest_segment);
    f.set("hbase.hregion.compacting.memstore.flush.oldest", "true")
        .unwrap();
    assert!(f.flush_oldest_segment);
    let pairs = f.settings();
    assert!(pairs.contains(&(
        "hbase.hregion.compacting.memstore.flush.oldest",
        "TRUE".to_string()
    )));
    let mut g = FamilyDescriptor::default();
    for (k, v) in &pairs {
        g.set(k, v).unwrap();
    }
    assert_eq!(f, g);
    assert!(
        set_err("hbase.hregion.compacting.memstore.flush.oldest", "maybe").contains("flush.oldest")
    );
}

#[test]
fn settings_round_trip_through_set() {
    let d = DateTiered {
        base_window_ms: 3_600_000,
        ..DateTiered::default()
    };
    let f = FamilyDescriptor::new("cf")
        .with_versions(3)
        .with_ttl(Ttl::Seconds(60))
        .with_bloom_filter(BloomType::RowPrefixFixedLength(12))
        .with_bloom_fp_rate(0.02)
        .with_prefetch_blocks_on_open(true)
        .with_compaction_policy(CompactionPolicy::DateTiered(d));
    let pairs = f.settings();
    assert!(pairs.contains(&("PREFETCH_BLOCKS_ON_OPEN", "TRUE".to_string())));
    assert_eq!(pairs[0], ("NAME", "cf".to_string()));
    assert!(pairs.contains(&("RowPrefixBloomFilter.prefix_length", "12".to_string())));
    let mut g = FamilyDescriptor::default();
    for (k, v) in &pairs {
        g.set(k, v).unwrap_or_else(|e| panic!("{k} => {v}: {e}"));
    }
    assert_eq!(f, g);
    // The default descriptor lists no conditional keys.
    let keys: Vec<_> = FamilyDescriptor::new("cf")
        .settings()
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    assert_eq!(keys.len(), 19);
}

#[test]
fn validate_checks_cross_setting_rules() {
    let f = FamilyDescriptor::new("cf")
        .with_versions(2)
        .with_min_versions(3);
    assert_eq!(
        f.validate().unwrap_err().to_string(),
        "MIN_VERSIONS: 3 exceeds VERSIONS (2)"
    );
    let f = FamilyDescriptor::new("cf").with_block_size(100);
    assert!(f
        .validate()
        .unwrap_err()
        .to_string()
        .starts_with("BLOCKSIZE"));
    let f = FamilyDescriptor::new("cf").with_bloom_fp_rate(0.0);
    assert!(f.validate().is_err());
    let f = FamilyDescriptor::new("cf").with_ttl(Ttl::Seconds(0));
    assert!(f.validate().is_err());
    let d = DateTiered {
        windows_per_tier: 1,
        ..DateTiered::default()
    };
    let f = FamilyDescriptor::new("cf").with_compaction_policy(CompactionPolicy::DateTiered(d));
    assert!(f.validate().is_err());
}

#[test]
fn family_names_follow_hbase_rules() {
    for good in ["cf", "d", "family-1", "f.x", "ünï"] {
        assert_eq!(validate_family_name(good), Ok(()), "{good}");
    }
    let long = "x".repeat(256);
    for bad in ["", ".hidden", "a:b", "tab\there", long.as_str()] {
        let err = validate_family_name(bad).unwrap_err();
        assert!(
            err.to_string().starts_with("invalid column family name"),
            "{err}"
        );
    }
    assert_eq!(validate_family_name(&"x".repeat(255)), Ok(()));
    assert!(FamilyDescriptor::default().validate().is_err());
}
