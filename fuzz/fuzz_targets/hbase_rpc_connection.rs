//! A client's bytes on a new HBase RPC connection (`strata_hbase_rpc::fuzz::connection`),
//! with a Kerberos acceptor when `STRATA_FUZZ_KEYTAB` and `STRATA_FUZZ_PRINCIPAL` name one
//! (`scripts/fuzz.sh` makes a keytab with `ktutil`), so SASL GSSAPI tokens reach the GSSAPI
//! library and Strata's exchange after it.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use strata_gss::Acceptor;

fn acceptor() -> Option<&'static Acceptor> {
    static ACCEPTOR: OnceLock<Option<Acceptor>> = OnceLock::new();
    ACCEPTOR
        .get_or_init(|| {
            let keytab = std::env::var_os("STRATA_FUZZ_KEYTAB")?;
            let principal = std::env::var("STRATA_FUZZ_PRINCIPAL").ok()?;
            match Acceptor::from_keytab(&principal, std::path::Path::new(&keytab)) {
                Ok(a) => Some(a),
                Err(e) => panic!("STRATA_FUZZ_KEYTAB: {e}"),
            }
        })
        .as_ref()
}

fuzz_target!(|data: &[u8]| {
    strata_hbase_rpc::fuzz::connection(data, acceptor());
});
