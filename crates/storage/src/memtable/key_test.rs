use super::*;

fn cell<'a>(row: &'a [u8], q: &'a [u8], v: &'a [u8], t: CellType, seq: u64) -> CellRef<'a> {
    CellRef {
        row,
        qualifier: q,
        timestamp: 7,
        cell_type: t,
        seq,
        value: v,
        ttl: None,
    }
}

#[test]
fn layout_round_trips_short_and_long_lengths() {
    let long = vec![b'x'; 300];
    for (row, q, v) in [
        (&b"r"[..], &b"q"[..], &b"v"[..]),
        (&b""[..], &b""[..], &b""[..]),
        (&long[..], &long[..20], &long[..]),
    ] {
        for ttl in [None, Some(0), Some(1_000), Some(u64::MAX)] {
            let c = CellRef {
                ttl,
                ..cell(row, q, v, CellType::DeleteColumn, MAX_SEQ)
            };
            let mut out = BytesMut::new();
            Key::encode(&c, &mut out);
            assert_eq!(out.len(), Key::encoded_len(&c));
            let key = Key::new(out.freeze(), &c);
            assert_eq!(key.cell(), c);
            assert_eq!(key.column(), (row, q));
            assert_eq!(key.cmp_probe(&Probe::of_cell(&c)), Ordering::Equal);
        }
    }
}

#[test]
fn prefixes_order_keys_as_their_rows_do() {
    // Rows of 0..=10 bytes over bytes that stress padding (0x00) and sign (0xff).
    let alphabet = [0x00u8, 0x01, b'a', 0xff];
    let mut rows = vec![Vec::new()];
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..400 {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let len = (state >> 60) as usize % 11;
        let row = (0..len)
            .map(|i| alphabet[((state >> (2 * i)) & 3) as usize])
            .collect::<Vec<u8>>();
        rows.push(row);
    }
    for a in &rows {
        let ca = cell(a, b"q", b"v", CellType::Put, 5);
        let mut out = BytesMut::new();
        Key::encode(&ca, &mut out);
        let key = Key::new(out.freeze(), &ca);
        assert_eq!(key.row_bytes(), &a[..]);
        assert_eq!(key.timestamp(), 7);
        for b in &rows {
            let cb = cell(b, b"q", b"v", CellType::Put, 5);
            let want = a.as_slice().cmp(b.as_slice());
            assert_eq!(key.cmp_probe(&Probe::of_cell(&cb)), want, "{a:?} vs {b:?}");
            assert_eq!(key.cmp_column(&Probe::of_cell(&cb)), want, "{a:?} vs {b:?}");
        }
    }
}

#[test]
fn prefixes_under_rules_order_keys_as_their_rows_do() {
    // Rows sharing long runs of one byte, some not starting with a rule's bytes; keys and
    // probes made under the same rule, another rule, or none all compare as rows do.
    let rules = [
        None,
        RowRule::new(1, b"000"),
        RowRule::new(2, b"0000000"),
        RowRule::new(3, b"00a"),
    ];
    let mut rows: Vec<Vec<u8>> = vec![Vec::new(), b"0".to_vec(), b"00".to_vec()];
    for n in [0u64, 1, 9, 10, 99, 12_345, 9_999_999, 123_456_789_012] {
        rows.push(format!("{n:020}").into_bytes());
        rows.push(format!("{n:012}").into_bytes());
        rows.push(format!("00a{n}").into_bytes());
    }
    rows.push(b"000000000000000000000\xff".to_vec());
    rows.push(b"0000000\x00".to_vec());
    for a in &rows {
        let ca = cell(a, b"q", b"v", CellType::Put, 5);
        let mut out = BytesMut::new();
        Key::encode(&ca, &mut out);
        let data = out.freeze();
        for key_rule in &rules {
            let key = Key::under(data.clone(), &ca, key_rule.as_ref());
            for probe_rule in &rules {
                for b in &rows {
                    let cb = cell(b, b"q", b"v", CellType::Put, 5);
                    let probe = Probe::of_cell(&cb).under(probe_rule.as_ref());
                    let want = a.as_slice().cmp(b.as_slice());
                    assert_eq!(key.cmp_column(&probe), want, "{a:?} vs {b:?}");
                    // A key turned into a probe keeps its rule.
                    let back = Key::under(data.clone(), &ca, probe_rule.as_ref());
                    let want = b.as_slice().cmp(a.as_slice());
                    let key_b = Key::under(
                        {
                            let mut o = BytesMut::new();
                            Key::encode(&cb, &mut o);
                            o.freeze()
                        },
                        &cb,
                        key_rule.as_ref(),
                    );
                    assert_eq!(key_b.cmp_column(&back.probe()), want, "{b:?} vs {a:?}");
                }
            }
        }
    }
}

#[test]
fn rules_need_an_id_and_bytes_and_are_capped() {
    assert!(RowRule::new(0, b"abc").is_none());
    assert!(RowRule::new(1, b"").is_none());
    let long = vec![b'0'; 100];
    let rule = RowRule::new(7, &long).expect("a rule");
    assert_eq!(rule.shared().len(), RowRule::MAX_BYTES);
}

#[test]
fn tags_sort_like_type_then_seq() {
    let a = tag(CellType::Delete, 1);
    assert!(tag(CellType::DeleteFamily, 0) > a);
    assert!(tag(CellType::Delete, 2) > a);
    assert!(tag(CellType::Put, MAX_SEQ) < a);
    assert_eq!(
        tag_type(tag(CellType::DeleteFamilyVersion, 9)),
        CellType::DeleteFamilyVersion
    );
    // A probe with the largest u64 sorts before every stored key of its type.
    assert!(tag(CellType::Put, u64::MAX) > tag(CellType::Put, MAX_SEQ));
}
