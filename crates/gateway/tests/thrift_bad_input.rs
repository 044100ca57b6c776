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

    // Random bytes: closed.
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

/// A `getTableNames` call in the compact protocol: `82 21`, sequence id 5, the name, an empty
/// argument struct.
fn compact_call() -> Vec<u8> {
    let mut call = vec![0x82, 0x21, 0x05, 13];
    call.extend_from_slice(b"getTableNames");
    call.push(0);
    call
}

/// The message of a compact-protocol `TApplicationException` reply to `getTableNames`
/// (sequence id 5), and its type.
fn compact_exception(reply: &[u8]) -> (String, u8) {
    assert_eq!(&reply[..4], &[0x82, 0x61, 0x05, 13], "{reply:x?}");
    assert_eq!(&reply[4..17], b"getTableNames");
    assert_eq!(reply[17], 0x18, "field 1, a string");
    // The string's length: a varint.
    let (mut len, mut at) = (0usize, 18);
    for shift in [0, 7] {
        len |= usize::from(reply[at] & 0x7f) << shift;
        at += 1;
        if reply[at - 1] & 0x80 == 0 {
            break;
        }
    }
    let message = String::from_utf8(reply[at..at + len].to_vec()).unwrap();
    let rest = &reply[at + len..];
    assert_eq!(rest[0], 0x15, "field 2, an i32");
    assert_eq!(rest[2], 0, "the end of the struct");
    (message, rest[1] >> 1)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compact_protocol_clients_get_an_exception_they_can_read_then_a_close() {
    let h = Harness::start(std::time::Duration::from_secs(60), MAX_FRAME).await;
    // Buffered: the reply comes back as it is.
    let mut buffered = h.client().await;
    buffered.send_raw(&compact_call()).await.unwrap();
    let reply = buffered.read_to_close().await;
    let (message, kind) = compact_exception(&reply);
    assert!(
        message.contains("compact protocol is not supported"),
        "{message}"
    );
    assert_eq!(kind, 7, "PROTOCOL_ERROR");
    // Framed: the call behind its length, the reply behind its own (before, it waited for
    // the rest of a message that never came).
    let mut framed = h.client().await;
    let call = compact_call();
    let mut bytes = (call.len() as u32).to_be_bytes().to_vec();
    bytes.extend_from_slice(&call);
    framed.send_raw(&bytes).await.unwrap();
    let reply = framed.read_to_close().await;
    let len = u32::from_be_bytes(reply[..4].try_into().unwrap()) as usize;
    assert_eq!(len, reply.len() - 4);
    assert_eq!(compact_exception(&reply[4..]).1, 7);
    // The gateway serves binary clients as before.
    let mut c = h.client().await;
    assert!(c
        .call("getTableNames", Struct::new())
        .await
        .success()
        .is_some());
    h.stop().await;
}
