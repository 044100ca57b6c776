//! The framed protocol on a standalone server's port, spoken by hand: malformed frames get a
//! clear error or close the connection, and gRPC on the same port is unaffected.
#![allow(clippy::unwrap_used)]

use std::time::Duration;

use crate::support::{b, start, table};
use bytes::BytesMut;
use prost::Message;
use strata_model::ops::{Get, Put};
use strata_proto::frame::{put_frame, take_frame, Frame, Method, PREFACE, RESPONSE_ERROR};
use strata_proto::pb::{self, ErrorCode};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Reads the next frame, or `None` when the server closed the connection.
async fn next_frame(stream: &mut TcpStream, input: &mut BytesMut) -> Option<Frame> {
    loop {
        if let Some(frame) = take_frame(input).unwrap() {
            return Some(frame);
        }
        let read = tokio::time::timeout(Duration::from_secs(10), stream.read_buf(input))
            .await
            .expect("the server neither answered nor closed the connection")
            .unwrap_or(0);
        if read == 0 {
            return None;
        }
    }
}

/// A standalone server on `dir` with table `t` (family `f`), and a client of it.
async fn start_with_table(
    dir: &std::path::Path,
) -> (strata_testkit::Single, strata_client::Connection) {
    let (server, conn) = start(dir).await;
    conn.admin()
        .create_table(&table("t", &["f"]), &[])
        .await
        .unwrap();
    (server, conn)
}

fn error_of(frame: &Frame) -> pb::ErrorDetail {
    assert_eq!(frame.kind, RESPONSE_ERROR);
    pb::ErrorDetail::decode(frame.body.clone()).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_frames_are_rejected_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let (server, conn) = start_with_table(dir.path()).await;
    let addr = server.addr();

    let mut stream = TcpStream::connect(addr).await.unwrap();
    let mut out = BytesMut::from(&PREFACE[..]);
    // An unknown method and an undecodable body: answered, and the connection stays usable.
    put_frame(&mut out, 1, 99, &pb::ErrorDetail::default());
    out.extend_from_slice(&[0, 0, 0, 7, 0, 0, 0, 2, Method::Get as u8, 0xff, 0xff]);
    put_frame(
        &mut out,
        3,
        Method::Get as u8,
        &pb::GetRequest {
            table: "t".into(),
            get: Some(pb::Get::default()),
            cell_block: true,
        },
    );
    stream.write_all(&out).await.unwrap();
    let mut input = BytesMut::new();
    let mut answers = Vec::new();
    for _ in 0..3 {
        answers.push(next_frame(&mut stream, &mut input).await.unwrap());
    }
    answers.sort_by_key(|f| f.id);
    let unknown = error_of(&answers[0]);
    assert_eq!(unknown.code, ErrorCode::InvalidArgument as i32);
    assert!(unknown.message.contains("unknown method 99"), "{unknown:?}");
    let garbled = error_of(&answers[1]);
    assert_eq!(garbled.code, ErrorCode::InvalidArgument as i32);
    assert!(
        garbled.message.contains("undecodable request"),
        "{garbled:?}"
    );
    // A get of the empty row is refused by validation, as over gRPC.
    let empty_row = error_of(&answers[2]);
    assert_eq!(empty_row.code, ErrorCode::InvalidArgument as i32);

    // A length below the header's: the stream cannot be resynchronised, so it is closed.
    stream.write_all(&[0, 0, 0, 2, 0, 0]).await.unwrap();
    assert!(next_frame(&mut stream, &mut input).await.is_none());

    // A connection that starts like a frame one but with the wrong preface is closed.
    let mut bad = TcpStream::connect(addr).await.unwrap();
    bad.write_all(b"STRF\0\0\0\x09").await.unwrap();
    assert!(next_frame(&mut bad, &mut BytesMut::new()).await.is_none());

    // gRPC on the same port still serves, and the framed client sees its writes.
    let t = conn.table("t").unwrap();
    t.put(&Put::new(b("r")).add(b("f"), b("q"), b("v")))
        .await
        .unwrap();
    let options = strata_client::ClientOptions {
        protocol: strata_client::Protocol::Frames,
        ..Default::default()
    };
    let framed = strata_client::Connection::connect_with(&addr.to_string(), options)
        .await
        .unwrap();
    let got = framed
        .table("t")
        .unwrap()
        .get(&Get::new(b("r")))
        .await
        .unwrap();
    assert_eq!(got[0].value, b("v"));
    server.stop().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_framed_connection_is_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let (server, _conn) = start_with_table(dir.path()).await;
    let addr = server.addr();
    let options = strata_client::ClientOptions {
        protocol: strata_client::Protocol::Frames,
        operation_timeout: Duration::from_secs(20),
        retry_base: Duration::from_millis(20),
        retry_max: Duration::from_millis(200),
        ..Default::default()
    };
    let framed = strata_client::Connection::connect_with(&addr.to_string(), options)
        .await
        .unwrap();
    let t = framed.table("t").unwrap();
    t.put(&Put::new(b("r")).add(b("f"), b("q"), b("1")))
        .await
        .unwrap();
    // Restart the server on the same port and directory: the client's framed connection
    // breaks, and the next request opens a new one.
    server.stop().unwrap();
    let mut config = crate::support::config(dir.path());
    config.listen = addr;
    let server = strata_testkit::Single::start_with(config).unwrap();
    let got = t.get(&Get::new(b("r"))).await.unwrap();
    assert_eq!(got[0].value, b("1"));
    server.stop().unwrap();
}

/// Polling before parking on both ends changes no answer: sequential and concurrent calls,
/// an idle pause longer than the polling budget, and a client that goes away.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn polling_connections_answer_every_call() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = crate::support::config(dir.path());
    config.server.poll_before_park = Duration::from_micros(300);
    let server = strata_testkit::Single::start_with(config).unwrap();
    let addr = server.addr().to_string();
    let options = strata_client::ClientOptions {
        protocol: strata_client::Protocol::Frames,
        poll_before_park: Duration::from_micros(300),
        ..Default::default()
    };
    let framed = strata_client::Connection::connect_with(&addr, options.clone())
        .await
        .unwrap();
    framed
        .admin()
        .create_table(&table("t", &["f"]), &[])
        .await
        .unwrap();
    let t = framed.table("t").unwrap();
    for i in 0..200u32 {
        let row = b(&format!("r{i:03}"));
        t.put(&Put::new(row.clone()).add(b("f"), b("q"), b(&i.to_string())))
            .await
            .unwrap();
        if i % 50 == 0 {
            // Longer than the budget: both ends park, then wake as usual.
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let got = t.get(&Get::new(row)).await.unwrap();
        assert_eq!(got[0].value, b(&i.to_string()));
    }
    let calls = (0..8u32).map(|w| {
        let t = framed.table("t").unwrap();
        tokio::spawn(async move {
            for i in (w..200).step_by(8) {
                let got = t.get(&Get::new(b(&format!("r{i:03}")))).await.unwrap();
                assert_eq!(got[0].value, b(&i.to_string()));
            }
        })
    });
    for call in calls {
        call.await.unwrap();
    }
    drop(framed);
    // The server's connection saw the client go away; a new client is served.
    let again = strata_client::Connection::connect_with(&addr, options)
        .await
        .unwrap();
    let got = again
        .table("t")
        .unwrap()
        .get(&Get::new(b("r199")))
        .await
        .unwrap();
    assert_eq!(got[0].value, b("199"));
    server.stop().unwrap();
}

/// The outcome of each row of a `BatchResponse` frame: the error code, or 0.
fn row_codes(frame: &Frame) -> Vec<i32> {
    assert_eq!(frame.kind, strata_proto::frame::RESPONSE_OK, "{frame:?}");
    pb::BatchResponse::decode(frame.body.clone())
        .unwrap()
        .results
        .into_iter()
        .map(|r| match r.outcome.unwrap() {
            pb::batch_result::Outcome::Ok(_) => 0,
            pb::batch_result::Outcome::Error(e) => e.code,
        })
        .collect()
}

/// Batches sent by hand: rows of puts (read without prost's messages) and batches with
/// other kinds of mutation (read by prost) are answered row by row the same way, and an
/// undecodable batch is refused whole.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batches_are_answered_row_by_row_however_they_are_read() {
    use strata_model::ops::{Delete, RowMutations};
    use strata_proto::convert::row_mutations_to_pb;

    let dir = tempfile::tempdir().unwrap();
    let (server, conn) = start_with_table(dir.path()).await;
    let put = |row: &str, family: &str, value: &str| {
        row_mutations_to_pb(
            &RowMutations::new(b(row))
                .with(Put::new(b(row)).add(b(family), b("q"), b(value)))
                .unwrap(),
        )
    };
    let no_mutations = pb::RowMutations {
        row: b("empty"),
        mutations: Vec::new(),
    };
    let puts = pb::BatchRequest {
        table: "t".into(),
        rows: vec![
            put("a", "f", "1"),
            put("b", "nosuch", "2"),
            no_mutations.clone(),
            put("c", "f", "3"),
        ],
    };
    let mut mixed = puts.clone();
    mixed.rows[3] = row_mutations_to_pb(&RowMutations::from(strata_model::ops::Mutation::Delete(
        Delete::new(b("d")),
    )));
    let mut no_kind = puts.clone();
    no_kind.rows[0].mutations[0].kind = None;

    // One at a time, so each batch's writes follow the previous one's.
    let mut stream = TcpStream::connect(server.addr()).await.unwrap();
    stream.write_all(&PREFACE).await.unwrap();
    let mut input = BytesMut::new();
    let mut answers = Vec::new();
    for (id, request) in [(1, &puts), (2, &mixed), (3, &no_kind)] {
        let mut out = BytesMut::new();
        put_frame(&mut out, id, Method::Batch as u8, request);
        stream.write_all(&out).await.unwrap();
        answers.push(next_frame(&mut stream, &mut input).await.unwrap());
    }
    // A batch whose first row claims more bytes than the frame holds.
    let mut out = BytesMut::new();
    out.extend_from_slice(&[0, 0, 0, 9, 0, 0, 0, 4, Method::Batch as u8]);
    out.extend_from_slice(&[0x12, 0x7f, 0x0a, 0x01]);
    stream.write_all(&out).await.unwrap();
    answers.push(next_frame(&mut stream, &mut input).await.unwrap());
    let invalid = ErrorCode::InvalidArgument as i32;
    let unknown_family = row_codes(&answers[0])[1];
    assert_ne!(unknown_family, 0, "a put to an unknown family fails alone");
    assert_eq!(row_codes(&answers[0]), vec![0, unknown_family, invalid, 0]);
    assert_eq!(row_codes(&answers[1]), vec![0, unknown_family, invalid, 0]);
    assert_eq!(
        row_codes(&answers[2]),
        vec![invalid, unknown_family, invalid, 0]
    );
    let garbled = error_of(&answers[3]);
    assert_eq!(garbled.code, invalid);
    assert!(
        garbled.message.contains("undecodable request"),
        "{garbled:?}"
    );

    let t = conn.table("t").unwrap();
    assert_eq!(t.get(&Get::new(b("a"))).await.unwrap()[0].value, b("1"));
    assert!(t.get(&Get::new(b("b"))).await.unwrap().is_empty());
    assert_eq!(t.get(&Get::new(b("c"))).await.unwrap()[0].value, b("3"));
    server.stop().unwrap();
}
