use super::*;
use crate::frame;

fn param(m: &impl Message) -> Bytes {
    Bytes::from(m.encode_to_vec())
}

fn spec(name: &[u8]) -> pb::RegionSpecifier {
    pb::RegionSpecifier {
        r#type: pb::region_specifier::RegionSpecifierType::RegionName as i32,
        value: Bytes::copy_from_slice(name),
    }
}

fn mutation(row: &[u8]) -> pb::MutationProto {
    pb::MutationProto {
        row: Some(Bytes::copy_from_slice(row)),
        ..pb::MutationProto::default()
    }
}

fn described(op: Op, region: Option<&[u8]>, row: &[u8]) -> Option<Described> {
    Some(Described {
        op,
        region: region.map(<[u8]>::to_vec),
        row: row.to_vec(),
    })
}

#[test]
fn each_method_is_described_by_its_operation_region_and_first_row() {
    let get = pb::GetRequest {
        region: spec(b"t,,1"),
        get: pb::Get {
            row: Bytes::from_static(b"r1"),
            ..pb::Get::default()
        },
    };
    assert_eq!(
        describe("Get", param(&get)),
        described(Op::Get, Some(b"t,,1"), b"r1")
    );
    let mut mutate = pb::MutateRequest {
        region: spec(b"t,,1"),
        mutation: mutation(b"r2"),
        condition: None,
        nonce_group: None,
    };
    assert_eq!(
        describe("Mutate", param(&mutate)),
        described(Op::Mutate, Some(b"t,,1"), b"r2")
    );
    mutate.condition = Some(pb::Condition {
        row: Bytes::from_static(b"r2"),
        ..pb::Condition::default()
    });
    assert_eq!(
        describe("Mutate", param(&mutate)),
        described(Op::CheckAndMutate, Some(b"t,,1"), b"r2")
    );

    let action = |m: Option<&[u8]>, g: Option<&[u8]>| pb::Action {
        index: None,
        mutation: m.map(mutation),
        get: g.map(|row| pb::Get {
            row: Bytes::copy_from_slice(row),
            ..pb::Get::default()
        }),
    };
    let multi = |actions: Vec<pb::Action>| pb::MultiRequest {
        region_action: vec![pb::RegionAction {
            region: spec(b"t,b,2"),
            atomic: None,
            action: actions,
            condition: None,
        }],
        nonce_group: None,
        condition: None,
    };
    let gets = multi(vec![action(None, Some(b"g1")), action(None, Some(b"g2"))]);
    assert_eq!(
        describe("Multi", param(&gets)),
        described(Op::MultiGet, Some(b"t,b,2"), b"g1")
    );
    // One write among the actions makes it a batch.
    let mixed = multi(vec![action(None, Some(b"g1")), action(Some(b"p1"), None)]);
    assert_eq!(
        describe("Multi", param(&mixed)),
        described(Op::Batch, Some(b"t,b,2"), b"g1")
    );
    assert_eq!(
        describe("Multi", param(&multi(Vec::new()))),
        described(Op::MultiGet, Some(b"t,b,2"), b"")
    );

    // A scanner's next page names no region.
    let next = pb::ScanRequest {
        scanner_id: Some(7),
        ..pb::ScanRequest::default()
    };
    assert_eq!(
        describe("Scan", param(&next)),
        described(Op::Scan, None, b"")
    );
    let open = pb::ScanRequest {
        region: Some(spec(b"t,,1")),
        scan: Some(pb::Scan {
            start_row: Some(Bytes::from_static(b"s")),
            ..pb::Scan::default()
        }),
        ..pb::ScanRequest::default()
    };
    assert_eq!(
        describe("Scan", param(&open)),
        described(Op::Scan, Some(b"t,,1"), b"s")
    );
}

#[test]
fn other_methods_and_garbage_are_not_described() {
    assert_eq!(describe("BulkLoadHFile", Bytes::new()), None);
    assert_eq!(describe("Get", Bytes::from_static(b"\xff\xff\xff")), None);
}

#[test]
fn a_reply_with_an_exception_is_a_failure() {
    let ok = frame::encode_reply(3, &pb::GetResponse::default().encode_to_vec(), None);
    assert!(!failed(&ok));
    let refused = frame::encode_exception(
        3,
        pb::ExceptionResponse {
            exception_class_name: Some("org.apache.hadoop.hbase.NotServingRegionException".into()),
            ..pb::ExceptionResponse::default()
        },
    );
    assert!(failed(&refused));
    assert!(!failed(b"\x00\x00"));
}
