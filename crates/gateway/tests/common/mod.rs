//! Test harness: a one-process Strata in the test's process with a gateway in front (reaching
//! it in process), and a small Thrift client built on the gateway's own codec.
#![allow(dead_code, missing_docs, clippy::unwrap_used)]

use std::time::Duration;

use strata_gateway::protocol::{
    encode_message, read_header, Decoder, Header, MessageKind, Struct, TType, Value,
};
use strata_gateway::{Gateway, GatewayConfig};
use strata_testkit::Single;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

pub struct Harness {
    pub server: Option<Single>,
    pub gateway: Option<Gateway>,
    _dir: tempfile::TempDir,
}

impl Harness {
    pub async fn start(lease: Duration, max_frame: usize) -> Harness {
        Harness::start_with(lease, max_frame, None).await
    }

    /// [`Harness::start`] with the gateway speaking TLS if `tls` is given.
    pub async fn start_with(
        lease: Duration,
        max_frame: usize,
        tls: Option<strata_tls::ServerTls>,
    ) -> Harness {
        let dir = tempfile::tempdir().unwrap();
        let server = Single::start(dir.path());
        let addr = server.address();
        let conn = strata_client::Connection::connect(&addr).await.unwrap();
        // As `strata standalone` runs its gateway: data calls in process (a gateway of its
        // own process reaches a cluster over the network, crates/cli/tests/cluster_endpoints).
        let data = server.data().clone();
        conn.serve_in_process(&addr, std::sync::Arc::new(data))
            .unwrap();
        let mut gw = GatewayConfig::new("127.0.0.1:0".parse().unwrap());
        gw.scanner_lease = lease;
        gw.max_frame_bytes = max_frame;
        gw.tls = tls;
        let gateway = Gateway::start(gw, conn).await.unwrap();
        Harness {
            server: Some(server),
            gateway: Some(gateway),
            _dir: dir,
        }
    }

    pub async fn default() -> Harness {
        Harness::start(Duration::from_secs(60), 1 << 20).await
    }

    pub fn gateway(&self) -> &Gateway {
        self.gateway.as_ref().unwrap()
    }

    pub async fn client(&self) -> Client {
        Client::connect(self.gateway().addr(), false).await
    }

    pub async fn framed_client(&self) -> Client {
        Client::connect(self.gateway().addr(), true).await
    }

    pub async fn stop(mut self) {
        self.gateway.take().unwrap().shutdown().await;
        self.server.take().unwrap().stop().unwrap();
    }
}

/// What a call came back with.
#[derive(Debug, PartialEq)]
pub enum Reply {
    /// A result struct (field 0 success, 1.. exceptions).
    Result(Struct),
    /// A `TApplicationException` body.
    AppException(Struct),
}

impl Reply {
    pub fn success(&self) -> Option<&Value> {
        match self {
            Reply::Result(s) => s.get(0),
            Reply::AppException(_) => None,
        }
    }

    /// The exception field id (1 IOError, 2 IllegalArgument, 3 AlreadyExists) and message.
    pub fn exception(&self) -> Option<(i16, String)> {
        let Reply::Result(s) = self else { return None };
        let (id, v) = s.fields.iter().find(|(id, _)| *id > 0)?;
        let Value::Struct(e) = v else { return None };
        Some((*id, text(e.get(1)?)))
    }

    pub fn app_error(&self) -> Option<(i32, String)> {
        let Reply::AppException(s) = self else {
            return None;
        };
        let Some(Value::I32(kind)) = s.get(2) else {
            return None;
        };
        Some((*kind, text(s.get(1)?)))
    }
}

pub struct Client {
    stream: strata_tls::Stream,
    framed: bool,
    buf: Vec<u8>,
    seqid: i32,
}

impl Client {
    pub async fn connect(addr: std::net::SocketAddr, framed: bool) -> Client {
        let stream = TcpStream::connect(addr).await.unwrap();
        Client::over(strata_tls::Stream::Plain(stream), framed)
    }

    /// A client over a connection already open (a TLS one).
    pub fn over(stream: strata_tls::Stream, framed: bool) -> Client {
        Client {
            stream,
            framed,
            buf: Vec::new(),
            seqid: 0,
        }
    }

    pub async fn send_raw(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.stream.write_all(bytes).await
    }

    /// Calls `method` with `args`; panics on a transport failure.
    pub async fn call(&mut self, method: &str, args: Struct) -> Reply {
        self.try_call(method, args).await.unwrap()
    }

    pub async fn try_call(&mut self, method: &str, args: Struct) -> std::io::Result<Reply> {
        self.seqid += 1;
        let msg = encode_message(method, MessageKind::Call, self.seqid, &args);
        if self.framed {
            let len = (msg.len() as u32).to_be_bytes();
            self.stream.write_all(&len).await?;
        }
        self.stream.write_all(&msg).await?;
        let (header, body) = self.read_message().await?;
        assert_eq!(header.seqid, self.seqid, "reply to another call");
        assert_eq!(header.name, method);
        Ok(match header.kind {
            MessageKind::Exception => Reply::AppException(body),
            _ => Reply::Result(body),
        })
    }

    /// The next message from the server (after the frame length, if framed).
    pub async fn read_message(&mut self) -> std::io::Result<(Header, Struct)> {
        loop {
            let start = if self.framed { 4 } else { 0 };
            if self.buf.len() > start {
                let mut d = Decoder::new(&self.buf[start..], 1 << 30);
                if let Ok(header) = read_header(&mut d) {
                    if let Ok(body) = d.read_struct() {
                        let used = start + d.position();
                        self.buf.drain(..used);
                        return Ok((header, body));
                    }
                }
            }
            let mut chunk = [0u8; 65536];
            let n = self.stream.read(&mut chunk).await?;
            if n == 0 {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
            self.buf.extend_from_slice(&chunk[..n]);
        }
    }

    /// True once the server has closed the connection (reads EOF within a second).
    /// Everything the gateway sends until it closes the connection (at most 5 s).
    pub async fn read_to_close(&mut self) -> Vec<u8> {
        let mut all = std::mem::take(&mut self.buf);
        tokio::time::timeout(Duration::from_secs(5), self.stream.read_to_end(&mut all))
            .await
            .expect("the gateway closes the connection")
            .unwrap();
        all
    }

    pub async fn is_closed(&mut self) -> bool {
        let mut chunk = [0u8; 1024];
        matches!(
            tokio::time::timeout(Duration::from_secs(1), self.stream.read(&mut chunk)).await,
            Ok(Ok(0)) | Ok(Err(_))
        )
    }
}

// ---- value helpers

pub fn b(s: &str) -> Value {
    Value::binary(s.as_bytes().to_vec())
}

pub fn text(v: &Value) -> String {
    match v {
        Value::Binary(b) => String::from_utf8_lossy(b).into_owned(),
        other => panic!("not binary: {other:?}"),
    }
}

pub fn list(items: Vec<Value>) -> Value {
    let elem = items.first().map_or(TType::String, Value::ttype);
    Value::list(elem, items)
}

pub fn args(fields: Vec<(i16, Value)>) -> Struct {
    Struct { fields }
}

pub fn mutation(column: &str, value: Option<&str>) -> Value {
    let mut s = Struct::new()
        .with(1, Value::Bool(value.is_none()))
        .with(2, b(column));
    if let Some(v) = value {
        s = s.with(3, b(v));
    }
    Value::Struct(s)
}

/// Creates table `name` with families `(name, maxVersions)`.
pub async fn create_table(c: &mut Client, name: &str, families: &[(&str, i32)]) {
    let fams = families
        .iter()
        .map(|(f, v)| {
            Value::Struct(
                Struct::new()
                    .with(1, b(&format!("{f}:")))
                    .with(2, Value::I32(*v)),
            )
        })
        .collect();
    let r = c
        .call(
            "createTable",
            args(vec![(1, b(name)), (2, Value::list(TType::Struct, fams))]),
        )
        .await;
    assert_eq!(r, Reply::Result(Struct::new()), "createTable {name}");
}

/// `TCell`s as (value, timestamp).
pub fn cells(v: &Value) -> Vec<(String, i64)> {
    let Value::List { items, .. } = v else {
        panic!("not a list: {v:?}")
    };
    items
        .iter()
        .map(|c| {
            let Value::Struct(c) = c else { panic!() };
            let Some(Value::I64(ts)) = c.get(2) else {
                panic!()
            };
            (text(c.get(1).unwrap()), *ts)
        })
        .collect()
}

/// `TRowResult`s as (row, [(column, value)]) from their `columns` map or `sortedColumns`.
pub fn rows(v: &Value) -> Vec<(String, Vec<(String, String)>)> {
    let Value::List { items, .. } = v else {
        panic!("not a list: {v:?}")
    };
    items
        .iter()
        .map(|r| {
            let Value::Struct(r) = r else { panic!() };
            let mut cols = Vec::new();
            if let Some(Value::Map { entries, .. }) = r.get(2) {
                for (k, c) in entries {
                    let Value::Struct(c) = c else { panic!() };
                    cols.push((text(k), text(c.get(1).unwrap())));
                }
            }
            if let Some(Value::List { items, .. }) = r.get(3) {
                for col in items {
                    let Value::Struct(col) = col else { panic!() };
                    let Some(Value::Struct(c)) = col.get(2) else {
                        panic!()
                    };
                    cols.push((text(col.get(1).unwrap()), text(c.get(1).unwrap())));
                }
            }
            (text(r.get(1).unwrap()), cols)
        })
        .collect()
}
