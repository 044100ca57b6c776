//! Replays the fuzz corpus of HBase RPC's connection start (`fuzz/corpus/hbase_rpc_connection`,
//! grown by `scripts/fuzz.sh`) through the same entry point the fuzz target calls: every input
//! is taken without a panic, without an acceptor and with a GSSAPI acceptor whose key comes
//! from a throwaway keytab (made with `ktutil` when it is installed).
#![allow(clippy::unwrap_used)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use strata_gss::Acceptor;
use strata_hbase_rpc::fuzz::Reached;

const PRINCIPAL: &str = "strata/localhost@FUZZ.TEST";

fn corpus() -> Vec<(PathBuf, Vec<u8>)> {
    let dir = Path::new(
        &std::env::var("CARGO_MANIFEST_DIR")
            .unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_owned()),
    )
    .join("../../fuzz/corpus/hbase_rpc_connection");
    let mut inputs: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| {
            let path = e.unwrap().path();
            let data = std::fs::read(&path).unwrap();
            (path, data)
        })
        .collect();
    inputs.sort();
    inputs
}

/// An acceptor for [`PRINCIPAL`] from a keytab `ktutil` writes in `dir`; `None` without
/// `ktutil` or the GSSAPI library.
fn acceptor(dir: &Path) -> Option<Acceptor> {
    let keytab = dir.join("fuzz.keytab");
    let mut ktutil = Command::new("ktutil")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    write!(
        ktutil.stdin.take().unwrap(),
        "addent -password -p {PRINCIPAL} -k 1 -e aes256-cts-hmac-sha1-96\nfuzz-only\nwkt {}\nquit\n",
        keytab.display()
    )
    .unwrap();
    if !ktutil.wait().unwrap().success() || !keytab.exists() {
        return None;
    }
    Acceptor::from_keytab(PRINCIPAL, &keytab).ok()
}

#[test]
fn every_input_of_the_corpus_is_taken_without_a_panic() {
    let inputs = corpus();
    assert!(inputs.len() >= 7, "the corpus lost its seeds");
    let dir = tempfile::tempdir().unwrap();
    let acceptor = acceptor(dir.path());
    if acceptor.is_none() {
        eprintln!("no ktutil or GSSAPI library: SASL tokens are read, not accepted");
    }
    let mut deepest = Reached::default();
    for (path, data) in &inputs {
        let taken = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let plain = strata_hbase_rpc::fuzz::connection(data, None);
            let with_keys = strata_hbase_rpc::fuzz::connection(data, acceptor.as_ref());
            (plain, with_keys)
        }));
        let Ok((plain, with_keys)) = taken else {
            panic!("{} panicked", path.display());
        };
        deepest.calls = deepest.calls.max(plain.calls);
        deepest.requests = deepest.requests.max(plain.requests);
        deepest.tokens = deepest.tokens.max(with_keys.tokens);
        let name = path.file_name().unwrap().to_string_lossy();
        // The seeds are well-formed: each of their calls becomes an operation, and the
        // Kerberos seed's token reaches the acceptor (which refuses it: no connection goes on).
        if name.starts_with("seed-") && name != "seed-registry" {
            if name == "seed-kerberos" {
                assert!(
                    plain.requests == 1 && with_keys.tokens == 1,
                    "{name}: {plain:?} {with_keys:?}"
                );
                if acceptor.is_some() {
                    assert!(
                        !with_keys.header,
                        "{name}: a refused token let the connection go on"
                    );
                }
            } else {
                assert!(
                    plain.header && plain.calls == 1 && plain.requests == 1,
                    "{name}: {plain:?}"
                );
            }
        }
    }
    println!("{} inputs replayed; deepest: {deepest:?}", inputs.len());
}
