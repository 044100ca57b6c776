//! Bad input through the Thrift1 gateway: unknown methods, wrong argument types, malformed
//! and oversized frames, the compact protocol. Each gets an exception or a closed
//! connection, changes nothing, and other connections keep being served.
#![allow(missing_docs, clippy::unwrap_used)]

mod common;

use common::*;
use strata_gateway::protocol::{encode_message, MessageKind, Struct, TType, Value};

const MAX_FRAME: usize = 64 * 1024;

async fn row_count(c: &mut Client) -> usize {
    let r = c
        .call(
            "scannerOpen",
            args(vec![(1, b("t")), (2, b("")), (3, list(vec![]))]),
        )
        .await;
    let Some(Value::I32(id)) = r.success() else {
        panic!("{r:?}")
    };
    let id = *id;
    let r = c
        .call(
            "scannerGetList",
            args(vec![(1, Value::I32(id)), (2, Value::I32(1000))]),
        )
        .await;
    c.call("scannerClose", args(vec![(1, Value::I32(id))]))
        .await;
    rows(r.success().unwrap()).len()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exceptions_change_nothing_and_keep_the_connection() {
    let h = Harness::start(std::time::Duration::from_secs(60), MAX_FRAME).await;
    let mut c = h.client().await;
    create_table(&mut c, "t", &[("cf", 3)]).await;
    // Unknown method: TApplicationException UNKNOWN_METHOD.
    let r = c.call("noSuchMethod", Struct::new()).await;
    assert_eq!(r.app_error().unwrap().0, 1);
    // Wrong argument type: row as an i32.
    let r = c
        .call("getRow", args(vec![(1, b("t")), (2, Value::I32(7))]))
        .await;
    let (id, msg) = r.exception().unwrap();
    assert_eq!(id, 1, "getRow declares only IOError");
    assert!(msg.contains("field 2"), "{msg}");
    // Missing argument, with IllegalArgument declared.
    let r = c.call("mutateRow", args(vec![(1, b("t"))])).await;
    assert_eq!(r.exception().unwrap().0, 2);
    // A batch with one bad row (unknown family) writes none of its rows.
    let good = Value::Struct(
        Struct::new()
            .with(1, b("ok"))
            .with(2, list(vec![mutation("cf:a", Some("1"))])),
    );
    let bad = Value::Struct(
        Struct::new()
            .with(1, b(""))
            .with(2, list(vec![mutation("cf:a", Some("1"))])),
    );
    let r = c
        .call(
            "mutateRows",
            args(vec![
                (1, b("t")),
                (2, Value::list(TType::Struct, vec![good, bad])),
            ]),
        )
        .await;
    assert_eq!(r.exception().unwrap().0, 2, "{r:?}");
    assert_eq!(row_count(&mut c).await, 0);
    // A list of the wrong element type.
    let r = c
        .call(
            "getRows",
            args(vec![
                (1, b("t")),
                (2, Value::list(TType::I32, vec![Value::I32(1)])),
            ]),
        )
        .await;
    assert_eq!(r.exception().unwrap().0, 1);
    // Unknown table, invalid scanner id.
    let r = c
        .call("getRow", args(vec![(1, b("nope")), (2, b("r"))]))
        .await;
    assert_eq!(r.exception().unwrap().0, 1);
    let r = c
        .call("scannerGet", args(vec![(1, Value::I32(4242))]))
        .await;
    assert_eq!(r.exception().unwrap().0, 2);
    // The connection still works.
    let r = c.call("getTableNames", Struct::new()).await;
    assert_eq!(r.success(), Some(&list(vec![b("t")])));
    h.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_and_oversized_input_closes_only_that_connection() {
    let h = Harness::start(std::time::Duration::from_secs(60), MAX_FRAME).await;
    let mut keeper = h.framed_client().await;
    create_table(&mut keeper, "t", &[("cf", 3)]).await;

    // Buffered: a bad type byte inside the args struct → protocol error reply, then close.
    let mut c = h.client().await;
    let mut msg = encode_message("getRow", MessageKind::Call, 9, &Struct::new());
    msg.pop();
    msg.extend_from_slice(&[0x7f, 0, 1]);
    c.send_raw(&msg).await.unwrap();
    let (header, body) = c.read_message().await.unwrap();
    assert_eq!((header.kind, header.seqid), (MessageKind::Exception, 9));
    assert_eq!(body.get(2), Some(&Value::I32(7)));
    assert!(c.is_closed().await);

    // Framed: a frame whose body is garbage → protocol error, the connection goes on.
    let mut f = h.framed_client().await;
    let mut body = encode_message("getTableNames", MessageKind::Call, 3, &Struct::new());
    body.truncate(body.len() - 1);
    body.extend_from_slice(&[0x0b, 0, 1, 0xff, 0xff, 0xff, 0xff, 0]);
    let mut frame = (body.len() as u32).to_be_bytes().to_vec();
    frame.extend_from_slice(&body);
    f.send_raw(&frame).await.unwrap();
    let (header, _) = f.read_message().await.unwrap();
    assert_eq!((header.kind, header.seqid), (MessageKind::Exception, 3));
    assert!(f
        .call("getTableNames", Struct::new())
        .await
        .success()
        .is_some());

    // Oversized frame: closed without reading it.
    let mut big = h.framed_client().await;
    big.send_raw(&((MAX_FRAME as u32 + 1).to_be_bytes()))
        .await
        .unwrap();
    assert!(big.is_closed().await);

    // Oversized buffered message (a huge value): closed, nothing written.
    let mut big = h.client().await;
    let huge = "x".repeat(MAX_FRAME + 10);
    let m = args(vec![
        (1, b("t")),
        (2, b("big")),
        (3, list(vec![mutation("cf:a", Some(&huge))])),
    ]);
    let _ = big.try_call("mutateRow", m).await;
    assert!(big.is_closed().await);

    // A length prefix claiming 2 GiB inside a buffered message: closed.
    let mut liar = h.client().await;
    let mut msg = encode_message("getRow", MessageKind::Call, 1, &Struct::new());
    msg.pop();
    msg.extend_from_slice(&[0x0b, 0, 1, 0x7f, 0xff, 0xff, 0xff]);
    liar.send_raw(&msg).await.unwrap();
    let (header, _) = liar.read_message().await.unwrap();
    assert_eq!(header.kind, MessageKind::Exception);
    assert!(liar.is_closed().await);

    // Compact protocol: refused. Random bytes: closed.
    let mut compact = h.client().await;
    compact.send_raw(&[0x82, 0x21, 0x01, 0x06]).await.unwrap();
    assert!(compact.is_closed().await);
    let mut junk = h.client().await;
    junk.send_raw(b"GET / HTTP/1.1\r\n\r\n").await.unwrap();
    assert!(junk.is_closed().await);

    // Through all of it, the first connection was served and nothing was written.
    assert_eq!(row_count(&mut keeper).await, 0);
    h.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_connections_are_kept() {
    let h = Harness::default().await;
    let mut c = h.client().await;
    tokio::time::sleep(std::time::Duration::from_secs(2)).await;
    assert!(c
        .call("getTableNames", Struct::new())
        .await
        .success()
        .is_some());
    h.stop().await;
}
