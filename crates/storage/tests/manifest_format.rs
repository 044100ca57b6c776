//! The manifest file format: round trips, canonical bytes, and damage reported (never papered
//! over by an older manifest, never a panic).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use bytes::Bytes;
use strata_storage::manifest::format::{decode, encode, FORMAT_VERSION, MAGIC};
use strata_storage::manifest::{
    file_name, Error, ErrorKind, Half, Link, Manifest, Reference, RegionInfo, SimFs, StoreFile,
    Version, VersionEdit,
};

fn file(name: &str, seq: u64) -> StoreFile {
    StoreFile {
        name: name.to_owned(),
        size: 4096 + seq,
        max_seq_id: seq,
        min_timestamp: -5,
        max_timestamp: 1_700_000_000_000,
        cell_count: 12,
        created_at_ms: 1_700_000_000_123,
        major: seq.is_multiple_of(2),
        tier: if seq.is_multiple_of(3) {
            String::new()
        } else {
            "HDD".to_owned()
        },
        reference: None,
        link: None,
        bulk: false,
    }
}

/// A version using every field: two families, a reference of each half, an unbounded region.
fn sample() -> Version {
    let region = RegionInfo {
        table: "default:users".to_owned(),
        region_id: 1_700_000_000_000,
        start_row: Bytes::new(),
        end_row: Bytes::from_static(b"row\x00\xff"),
    };
    let v = Version::new(
        region,
        [Bytes::from_static(b"d"), Bytes::from_static(b"meta")],
    )
    .expect("valid");
    let mut bottom = file("r-bottom", 7);
    bottom.reference = Some(Reference {
        parent_region_id: 42,
        parent_file: "p-1".to_owned(),
        half: Half::Bottom,
        split_row: Bytes::from_static(b"k\x00"),
    });
    let mut top = file("r-top", 8);
    top.reference = Some(Reference {
        parent_region_id: 42,
        parent_file: "p-2".to_owned(),
        half: Half::Top,
        split_row: Bytes::from_static(b"k\x00"),
    });
    let edit = VersionEdit::new()
        .add_file("d", file("f1", 1))
        .add_file("d", file("f2", 2))
        .add_file("d", bottom)
        .add_file("meta", top)
        .set_flushed_seq_id("d", 9)
        .set_flushed_seq_id("meta", 3);
    v.apply(&edit).expect("applies")
}

#[test]
fn round_trip_is_exact_and_canonical() {
    let v = sample();
    let bytes = encode(&v, 17);
    assert_eq!(&bytes[..8], &MAGIC);
    let (n, back) = decode("m", &bytes).expect("decodes");
    assert_eq!((n, &back), (17, &v));
    assert_eq!(encode(&back, 17), bytes, "one version, one encoding");
}

#[test]
fn links_round_trip_in_version_2_and_plain_manifests_stay_version_1() {
    let plain = encode(&sample(), 3);
    assert_eq!(&plain[13..17], &1u32.to_le_bytes(), "no link: version 1");
    let mut linked = file("l1", 5);
    linked.link = Some(Link {
        table_dir: "tables/default/src".to_owned(),
        region_id: 77,
        file: "0000000000000005-18c.sst".to_owned(),
    });
    let mut half = file("l2", 6);
    half.reference = Some(Reference {
        parent_region_id: 76,
        parent_file: "p".to_owned(),
        half: Half::Top,
        split_row: Bytes::from_static(b"m"),
    });
    half.link = Some(Link {
        table_dir: "tables/ns/src".to_owned(),
        region_id: 76,
        file: "p".to_owned(),
    });
    let v = sample()
        .apply(
            &VersionEdit::new()
                .add_file("d", linked)
                .add_file("meta", half),
        )
        .expect("applies");
    let bytes = encode(&v, 4);
    assert_eq!(&bytes[13..17], &2u32.to_le_bytes(), "a link: version 2");
    assert_eq!(decode("m", &bytes).expect("decodes"), (4, v.clone()));
    // A version 1 header over a link is refused, not misread.
    let mut old = bytes.clone();
    old[13..17].copy_from_slice(&1u32.to_le_bytes());
    let crc = crc32c::crc32c(&old[8..8 + 5 + 12]);
    old[8 + 5 + 12..8 + 5 + 12 + 4].copy_from_slice(&crc.to_le_bytes());
    assert!(matches!(decode("m", &old), Err(Error::Corruption { .. })));
    // A link's table directory must be a plain relative path.
    let mut bad = file("l3", 7);
    bad.link = Some(Link {
        table_dir: "tables/../x".to_owned(),
        region_id: 1,
        file: "f".to_owned(),
    });
    assert!(bad.validate().is_err());
}

#[test]
fn bulk_files_round_trip_in_version_3_and_older_headers_refuse_them() {
    let mut loaded = file("b1", 9);
    loaded.bulk = true;
    let v = sample()
        .apply(&VersionEdit::new().add_file("d", loaded))
        .expect("applies");
    let bytes = encode(&v, 5);
    assert_eq!(
        &bytes[13..17],
        &3u32.to_le_bytes(),
        "a bulk file: version 3"
    );
    assert_eq!(decode("m", &bytes).expect("decodes"), (5, v));
    for older in [1u32, 2] {
        let mut old = bytes.clone();
        old[13..17].copy_from_slice(&older.to_le_bytes());
        let crc = crc32c::crc32c(&old[8..8 + 5 + 12]);
        old[8 + 5 + 12..8 + 5 + 12 + 4].copy_from_slice(&crc.to_le_bytes());
        assert!(
            matches!(decode("m", &old), Err(Error::Corruption { .. })),
            "version {older}"
        );
    }
}

#[test]
fn every_flipped_byte_is_reported_as_corruption() {
    let bytes = encode(&sample(), 3);
    for i in 0..bytes.len() {
        for bit in [0x01, 0x80] {
            let mut bad = bytes.clone();
            bad[i] ^= bit;
            match decode("MANIFEST-x", &bad) {
                Err(Error::Corruption { file, .. }) => assert_eq!(file, "MANIFEST-x"),
                other => panic!("byte {i} bit {bit:#x}: {other:?}"),
            }
        }
    }
}

#[test]
fn every_truncation_is_reported_as_corruption() {
    let bytes = encode(&sample(), 3);
    for len in 0..bytes.len() {
        assert!(
            matches!(decode("m", &bytes[..len]), Err(Error::Corruption { .. })),
            "length {len}"
        );
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(matches!(
        decode("m", &longer),
        Err(Error::Corruption { .. })
    ));
}

#[test]
fn a_newer_format_version_is_refused_by_name() {
    // Magic, then a header record claiming the next version, with a valid checksum.
    let mut bytes = MAGIC.to_vec();
    let mut record = vec![1u8];
    record.extend_from_slice(&12u32.to_le_bytes());
    record.extend_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
    record.extend_from_slice(&1u64.to_le_bytes());
    let crc = crc32c::crc32c(&record);
    bytes.extend_from_slice(&record);
    bytes.extend_from_slice(&crc.to_le_bytes());
    let err = decode("MANIFEST-9", &bytes).expect_err("newer format");
    assert!(
        matches!(err, Error::UnsupportedVersion { version, .. } if version == FORMAT_VERSION + 1),
        "{err}"
    );
    assert_eq!(err.kind(), ErrorKind::Data);
}

fn fs_with(files: &[(String, Vec<u8>)]) -> SimFs {
    SimFs::with_durable_files(files.iter().cloned().collect::<BTreeMap<_, _>>())
}

#[test]
fn a_corrupt_current_manifest_is_an_error_not_a_fallback() {
    let older = encode(&sample(), 4);
    let mut newer = encode(&sample(), 5);
    let last = newer.len() - 1;
    newer[last] ^= 0xff;
    let fs = fs_with(&[(file_name(4), older), (file_name(5), newer)]);
    let err = Manifest::open(Arc::new(fs.clone())).expect_err("corrupt");
    assert!(err.to_string().contains(&file_name(5)), "{err}");
    assert_eq!(err.kind(), ErrorKind::Data);
    assert!(fs.files().contains_key(&file_name(4)), "nothing deleted");
}

#[test]
fn an_empty_current_manifest_is_corruption_too() {
    let fs = fs_with(&[
        (file_name(4), encode(&sample(), 4)),
        (file_name(5), Vec::new()),
    ]);
    let err = Manifest::open(Arc::new(fs)).expect_err("empty");
    assert!(matches!(&err, Error::Corruption { file, .. } if *file == file_name(5)));
}

#[test]
fn a_manifest_under_another_number_is_corruption() {
    let fs = fs_with(&[(file_name(6), encode(&sample(), 5))]);
    let err = Manifest::open(Arc::new(fs)).expect_err("renamed");
    assert!(matches!(err, Error::Corruption { .. }), "{err}");
}

#[test]
fn temporary_and_superseded_files_are_removed_on_open() {
    let fs = fs_with(&[
        (file_name(4), encode(&sample(), 4)),
        (file_name(5), encode(&sample(), 5)),
        (format!("{}.tmp", file_name(6)), b"half a mani".to_vec()),
        ("OTHER".to_owned(), b"left alone".to_vec()),
    ]);
    let m = Manifest::open(Arc::new(fs.clone())).expect("open");
    assert_eq!(m.number(), 5);
    let names: Vec<String> = fs.files().into_keys().collect();
    assert_eq!(names, ["MANIFEST-00000000000000000005", "OTHER"]);
}

/// Format version 1 as first written, checked in so later builds keep reading it.
#[test]
fn version_1_fixture_still_reads() {
    // `STRATA_WRITE_FIXTURES=1 cargo test -p strata-storage --test manifest_format` rewrites it.
    if std::env::var_os("STRATA_WRITE_FIXTURES").is_some() {
        let dir = Path::new(
            &std::env::var("CARGO_MANIFEST_DIR")
                .unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_owned()),
        )
        .join("testdata/manifest/v1");
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::write(dir.join(file_name(2)), encode(&sample(), 2)).expect("write");
    }
    let dir = Path::new(
        &std::env::var("CARGO_MANIFEST_DIR")
            .unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_owned()),
    )
    .join("testdata/manifest/v1");
    let name = file_name(2);
    let bytes = std::fs::read(dir.join(&name)).expect("fixture");
    let (n, v) = decode(&name, &bytes).expect("fixture decodes");
    assert_eq!(n, 2);
    assert_eq!(v, sample());
}

/// The annotated example in `docs/format/manifest.md` is what the encoder writes.
#[test]
fn format_document_example_matches_the_encoder() {
    let doc = Path::new(
        &std::env::var("CARGO_MANIFEST_DIR")
            .unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_owned()),
    )
    .join("../../docs/format/manifest.md");
    let text = std::fs::read_to_string(doc).expect("format document");
    let example = text
        .split("## Example")
        .nth(1)
        .and_then(|s| s.split("```text").nth(1))
        .and_then(|s| s.split("```").next())
        .expect("example block");
    let bytes: Vec<u8> = example
        .lines()
        .flat_map(|line| {
            line.split_whitespace()
                .map_while(|t| {
                    (t.len() == 2)
                        .then(|| u8::from_str_radix(t, 16).ok())
                        .flatten()
                })
                .collect::<Vec<u8>>()
        })
        .collect();

    let region = RegionInfo {
        table: "t".to_owned(),
        region_id: 1,
        start_row: Bytes::new(),
        end_row: Bytes::new(),
    };
    let f1 = StoreFile {
        name: "f1".to_owned(),
        size: 100,
        max_seq_id: 7,
        min_timestamp: 1,
        max_timestamp: 2,
        cell_count: 3,
        created_at_ms: 4,
        major: false,
        tier: String::new(),
        reference: None,
        link: None,
        bulk: false,
    };
    let v = Version::new(region, [Bytes::from_static(b"cf")])
        .and_then(|v| {
            v.apply(
                &VersionEdit::new()
                    .add_file("cf", f1)
                    .set_flushed_seq_id("cf", 7),
            )
            .map_err(|e| e.to_string())
        })
        .expect("valid");
    assert_eq!(bytes.len(), 171);
    assert_eq!(bytes, encode(&v, 1));
    assert_eq!(decode("example", &bytes).expect("decodes"), (1, v));
}
