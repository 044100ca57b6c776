//! Replays the fuzz corpus of the TLS listener's accept (`fuzz/corpus/tls_accept`, grown by
//! `scripts/fuzz.sh`) through the same harness the fuzz target uses: every input is answered
//! (refused, or told apart as plaintext) within its bound, without a panic.
#![allow(clippy::unwrap_used)]

use std::path::Path;

use strata_tls::fuzz::Harness;

#[tokio::test]
async fn every_input_of_the_corpus_is_answered_within_its_bound() {
    let dir = Path::new(
        &std::env::var("CARGO_MANIFEST_DIR")
            .unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_owned()),
    )
    .join("../../fuzz/corpus/tls_accept");
    let mut inputs: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    inputs.sort();
    assert!(inputs.len() >= 4, "the corpus lost its seeds");
    let certs = tempfile::tempdir().unwrap();
    let harness = Harness::new(certs.path()).await.unwrap();
    for path in &inputs {
        let data = std::fs::read(path).unwrap();
        assert!(
            harness.connection(&data).await,
            "{}: the accept did not end within its bound",
            path.display()
        );
    }
    println!("{} inputs replayed", inputs.len());
}
