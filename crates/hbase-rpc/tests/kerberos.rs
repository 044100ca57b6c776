//! Kerberos on HBase RPC against a real MIT KDC (scripts/kdc.sh): a client speaking HBase's
//! SASL GSSAPI exchange through the system's GSSAPI library authenticates as `alice`; a
//! replayed authenticator, a principal of another realm, a SIMPLE client and bad bytes at every
//! step are refused, the server goes on serving, and nothing panics.
//!
//! Needs the KDC's environment: run by `STRATA_HBASE_CLIENT_KERBEROS=1
//! scripts/hbase-client-test.sh`, or after `scripts/kdc.sh start` and
//! `eval "$(scripts/kdc.sh env)"`. Without STRATA_KDC_DIR it says so and passes.
#![allow(missing_docs, clippy::unwrap_used)]

mod wire_support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use prost::Message;
use strata_access::{Audit, Guard, GuardConfig};
use strata_gss::Step;
use strata_hbase_rpc::frame::{decode_reply, read_frame};
use strata_hbase_rpc::{pb, sasl, KerberosConfig};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use wire_support::{create_table_request, Conn};

struct Kdc {
    dir: PathBuf,
    realm: String,
}

fn kdc() -> Option<Kdc> {
    let dir = std::env::var_os("STRATA_KDC_DIR").map(PathBuf::from);
    let realm = std::env::var("STRATA_KDC_REALM").ok();
    match (dir, realm, std::env::var_os("KRB5_CONFIG")) {
        (Some(dir), Some(realm), Some(_)) => Some(Kdc { dir, realm }),
        _ => {
            eprintln!(
                "skipped: no KDC (scripts/kdc.sh start; eval \"$(scripts/kdc.sh env)\"), or run \
                 STRATA_HBASE_CLIENT_KERBEROS=1 scripts/hbase-client-test.sh"
            );
            None
        }
    }
}

/// Gets `principal` a ticket into `cache` from its keytab in the KDC's directory.
fn kinit(kdc: &Kdc, user: &str, principal: &str, cache: &Path) {
    let status = std::process::Command::new("kinit")
        .env("KRB5CCNAME", format!("FILE:{}", cache.display()))
        .arg("-k")
        .arg("-t")
        .arg(kdc.dir.join(format!("{user}.keytab")))
        .arg(principal)
        .status()
        .unwrap();
    assert!(status.success(), "kinit {principal}");
}

fn header(service: &str) -> Vec<u8> {
    let header = pb::ConnectionHeader {
        user_info: Some(pb::UserInformation {
            effective_user: "someone-else".into(),
            real_user: None,
        }),
        service_name: Some(service.into()),
        ..pb::ConnectionHeader::default()
    }
    .encode_to_vec();
    let mut out = (header.len() as u32).to_be_bytes().to_vec();
    out.extend_from_slice(&header);
    out
}

async fn send_token(stream: &mut TcpStream, token: &[u8]) {
    let mut out = (token.len() as u32).to_be_bytes().to_vec();
    out.extend_from_slice(token);
    stream.write_all(&out).await.unwrap();
}

/// The server's next SASL reply: a challenge, or the ERROR's class and message.
async fn read_reply(stream: &mut TcpStream) -> Result<Vec<u8>, (String, String)> {
    let status = stream.read_i32().await.unwrap();
    if status == 0 {
        let len = stream.read_i32().await.unwrap();
        let mut token = vec![0u8; usize::try_from(len).unwrap()];
        stream.read_exact(&mut token).await.unwrap();
        return Ok(token);
    }
    assert_eq!(status, 1, "a SASL status is SUCCESS or ERROR");
    let mut strings = Vec::new();
    for _ in 0..2 {
        let len = stream.read_i32().await.unwrap();
        let mut s = vec![0u8; usize::try_from(len).unwrap()];
        stream.read_exact(&mut s).await.unwrap();
        strings.push(String::from_utf8(s).unwrap());
    }
    Err((strings[0].clone(), strings[1].clone()))
}

/// HBase's client side of the exchange with the default ticket cache; the first token sent is
/// `first` if given (a replay), else the context's. Returns the connection, ready for its
/// header, or the server's refusal.
async fn sasl_connect(
    addr: std::net::SocketAddr,
    target: &str,
    first: Option<&[u8]>,
) -> (Result<TcpStream, (String, String)>, Vec<u8>) {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(b"HBas\x00\x51").await.unwrap();
    let mut ctx = strata_gss::initiate(target).unwrap();
    let Step::Continue(ap_req) = ctx.step(&[]).unwrap() else {
        panic!("mutual authentication takes two steps");
    };
    let sent = first.map_or_else(|| ap_req.clone(), <[u8]>::to_vec);
    send_token(&mut stream, &sent).await;
    // The AP-REP.
    let ap_rep = match read_reply(&mut stream).await {
        Ok(t) => t,
        Err(e) => return (Err(e), sent),
    };
    match ctx.step(&ap_rep).unwrap() {
        Step::Complete(t) => send_token(&mut stream, &t).await,
        Step::Continue(_) => panic!("established after the AP-REP"),
    }
    // The offered layers, wrapped; the choice: no layer, no authorization id.
    let offer = match read_reply(&mut stream).await {
        Ok(t) => t,
        Err(e) => return (Err(e), sent),
    };
    let (offer, _) = ctx.unwrap(&offer).unwrap();
    assert_eq!(offer.len(), 4);
    assert_eq!(offer[0], 1, "only the layer `auth` is offered");
    let choice = ctx.wrap(&[1, 0, 0, 0], false).unwrap();
    send_token(&mut stream, &choice).await;
    (Ok(stream), sent)
}

/// The exception (class, message) of a CreateTable on `conn`.
async fn create_table(conn: &mut Conn) -> Option<(String, String)> {
    let (header, _, _) = conn
        .call_with("CreateTable", &create_table_request("krb"), &[])
        .await;
    header.exception.map(|e| {
        (
            e.exception_class_name.unwrap_or_default(),
            e.stack_trace.unwrap_or_default(),
        )
    })
}

/// Reads until the server closes; the exception of a framed reply, if one came.
async fn closing_exception(stream: &mut TcpStream) -> Option<(String, String)> {
    let mut all = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut all))
        .await
        .expect("the server closes the connection")
        .ok()?;
    let frame = read_frame(&mut &all[..], 1 << 20).await.ok()??;
    let (header, _, _) = decode_reply(frame).ok()?;
    header.exception.map(|e| {
        (
            e.exception_class_name.unwrap_or_default(),
            e.stack_trace.unwrap_or_default(),
        )
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kerberos_clients_authenticate_and_bad_ones_are_refused() {
    let Some(kdc) = kdc() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    let mut config = strata_testkit::config(&data);
    config.guard = Guard::on(
        GuardConfig {
            superusers: vec!["admin".into()],
            groups: Default::default(),
        },
        None,
        Audit::to_log(),
    );
    config.endpoints.hbase_rpc_kerberos = Some(KerberosConfig {
        keytab: kdc.dir.join("hbase.keytab"),
        principal: format!("hbase/_HOST@{}", kdc.realm),
    });
    let single = strata_testkit::Single::start_with(config).unwrap();
    let addr = single.hbase_rpc();
    let target = format!("hbase/localhost@{}", kdc.realm);

    // One ticket cache for the process (the GSSAPI library reads KRB5CCNAME): alice's, then
    // mallory's.
    let alice_cache = tmp.path().join("alice.cc");
    kinit(&kdc, "alice", &format!("alice@{}", kdc.realm), &alice_cache);
    std::env::set_var("KRB5CCNAME", format!("FILE:{}", alice_cache.display()));

    // alice authenticates; her calls are hers (not the header's claimed user): refused an
    // admin call by name.
    let (stream, ap_req) = sasl_connect(addr, &target, None).await;
    let mut stream = stream.unwrap();
    stream.write_all(&header("MasterService")).await.unwrap();
    let mut conn = Conn { stream, next_id: 1 };
    let (class, message) = create_table(&mut conn).await.expect("alice may not create");
    assert!(class.ends_with("AccessDeniedException"), "{class}");
    assert!(message.contains("'alice'"), "{message}");

    // Her authenticator again, on a new connection: a replay, refused by the server.
    let (replayed, _) = sasl_connect(addr, &target, Some(&ap_req)).await;
    let (class, message) = replayed.expect_err("a replayed authenticator is refused");
    assert_eq!(class, "javax.security.sasl.SaslException");
    assert!(message.to_lowercase().contains("replay"), "{message}");

    // Bad bytes at the first step: garbage tokens, lengths out of range, a truncated token.
    let garbage: Vec<Vec<u8>> = vec![
        vec![],
        vec![0x60],
        vec![0x60, 0x82, 0xff, 0xff, 0x06, 0x09],
        (0..200u8).collect(),
        ap_req[..ap_req.len() / 2].to_vec(),
        {
            let mut flipped = ap_req.clone();
            let mid = flipped.len() / 2;
            flipped[mid] ^= 0x55;
            flipped
        },
    ];
    for token in &garbage {
        let mut s = TcpStream::connect(addr).await.unwrap();
        s.write_all(b"HBas\x00\x51").await.unwrap();
        send_token(&mut s, token).await;
        let refused = read_reply(&mut s).await;
        assert!(
            refused.is_err(),
            "{} bytes of garbage accepted",
            token.len()
        );
    }
    // And a few hundred random ones (a fixed seed), of every length up to 2 KiB.
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for _ in 0..300 {
        let len = (next() % 2048) as usize;
        let mut token: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        if len > 0 && next() % 2 == 0 {
            // Often starting as a GSSAPI token does, so the parser goes deeper.
            token[0] = 0x60;
        }
        let mut s = TcpStream::connect(addr).await.unwrap();
        s.write_all(b"HBas\x00\x51").await.unwrap();
        send_token(&mut s, &token).await;
        let (class, _) = read_reply(&mut s)
            .await
            .expect_err("random bytes are refused");
        assert_eq!(class, "javax.security.sasl.SaslException");
    }
    for raw in [
        &[0xff, 0xff, 0xff, 0xff][..],
        &((sasl::MAX_TOKEN_BYTES + 1) as u32).to_be_bytes()[..],
    ] {
        let mut s = TcpStream::connect(addr).await.unwrap();
        s.write_all(b"HBas\x00\x51").await.unwrap();
        s.write_all(raw).await.unwrap();
        let (class, _) = read_reply(&mut s)
            .await
            .expect_err("a bad length is refused");
        assert_eq!(class, "javax.security.sasl.SaslException");
    }
    {
        let mut s = TcpStream::connect(addr).await.unwrap();
        s.write_all(b"HBas\x00\x51\x00\x00\x01\x00abc")
            .await
            .unwrap();
        s.shutdown().await.unwrap();
        let mut rest = Vec::new();
        let _ = tokio::time::timeout(Duration::from_secs(5), s.read_to_end(&mut rest)).await;
        assert!(rest.is_empty(), "a cut token gets no answer");
    }
    // Bad bytes at the later steps: a non-empty answer to the AP-REP, a choice that does not
    // unwrap.
    for late in 0..2 {
        let mut s = TcpStream::connect(addr).await.unwrap();
        s.write_all(b"HBas\x00\x51").await.unwrap();
        let mut ctx = strata_gss::initiate(&target).unwrap();
        let Step::Continue(t) = ctx.step(&[]).unwrap() else {
            panic!()
        };
        send_token(&mut s, &t).await;
        let rep = read_reply(&mut s).await.unwrap();
        ctx.step(&rep).unwrap();
        if late == 0 {
            send_token(&mut s, b"not empty").await;
        } else {
            send_token(&mut s, &[]).await;
            read_reply(&mut s).await.unwrap();
            send_token(&mut s, b"\x05\x04\x00\xff not a wrap token").await;
        }
        let (class, message) = read_reply(&mut s).await.expect_err("refused");
        assert_eq!(class, "javax.security.sasl.SaslException", "{message}");
    }

    // A SIMPLE client of this server: HBase's AccessDeniedException.
    let mut simple = TcpStream::connect(addr).await.unwrap();
    simple.write_all(b"HBas\x00\x50").await.unwrap();
    simple.write_all(&header("MasterService")).await.unwrap();
    let (class, message) = closing_exception(&mut simple)
        .await
        .expect("a SIMPLE client is answered");
    assert_eq!(
        class,
        "org.apache.hadoop.hbase.ipc.FatalConnectionException"
    );
    assert!(
        message.contains("AccessDeniedException: Authentication is required"),
        "{message}"
    );

    // The security preamble names the server's principal.
    let mut preamble = TcpStream::connect(addr).await.unwrap();
    preamble.write_all(b"Securi").await.unwrap();
    let frame = read_frame(&mut preamble, 1 << 20).await.unwrap().unwrap();
    let (_, message, _) = decode_reply(frame).unwrap();
    let principal = pb::SecurityPreamableResponse::decode(message).unwrap();
    assert_eq!(principal.server_principal, target);

    // A user of the other realm gets a ticket through the trust, and is refused by name.
    let mallory_cache = tmp.path().join("mallory.cc");
    kinit(&kdc, "mallory", "mallory@OTHER.TEST", &mallory_cache);
    std::env::set_var("KRB5CCNAME", format!("FILE:{}", mallory_cache.display()));
    let (refused, _) = sasl_connect(addr, &target, None).await;
    let (class, message) = refused.expect_err("another realm is refused");
    assert!(class.ends_with("AccessDeniedException"), "{class}");
    assert!(message.contains("OTHER.TEST"), "{message}");

    // After all that, alice's first connection still works, and so does a new one.
    let (class, _) = create_table(&mut conn).await.unwrap();
    assert!(class.ends_with("AccessDeniedException"));
    std::env::set_var("KRB5CCNAME", format!("FILE:{}", alice_cache.display()));
    let (again, _) = sasl_connect(addr, &target, None).await;
    let mut again = again.unwrap();
    again.write_all(&header("MasterService")).await.unwrap();
    let mut again = Conn {
        stream: again,
        next_id: 1,
    };
    assert!(create_table(&mut again)
        .await
        .is_some_and(|(_, m)| m.contains("'alice'")));
    single.stop().unwrap();
}
