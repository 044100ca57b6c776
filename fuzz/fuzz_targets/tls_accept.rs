//! A client's bytes on a new connection to a mutual-TLS listener
//! (`strata_tls::fuzz::Harness`): every input must be answered within its bound.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use strata_tls::fuzz::Harness;

struct Fixture {
    runtime: tokio::runtime::Runtime,
    harness: Harness,
    _dir: tempfile::TempDir,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        let dir = tempfile::tempdir().expect("a temporary directory");
        let harness = runtime
            .block_on(Harness::new(dir.path()))
            .expect("the listener");
        Fixture {
            runtime,
            harness,
            _dir: dir,
        }
    })
}

fuzz_target!(|data: &[u8]| {
    let f = fixture();
    assert!(
        f.runtime.block_on(f.harness.connection(data)),
        "the accept did not end within its bound"
    );
});
