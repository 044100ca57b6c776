//! A finished flush or compaction is logged at debug level, a failure is not logged again
//! by the history (it is logged where it happens).
//!
//! Its own test binary: `tracing` caches whether a call site is enabled process-wide, and a
//! first flush on another test's thread racing this test's subscriber could cache "disabled"
//! for the call site this test reads (it did, once, in the crate's unit tests).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use strata_storage::events::history::{record, WorkRecord};
use strata_storage::events::Work;

/// Log lines written while `f` runs on this thread, at debug level and above.
fn logged(f: impl FnOnce()) -> String {
    #[derive(Clone, Default)]
    struct Lines(Arc<Mutex<Vec<u8>>>);
    impl std::io::Write for Lines {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let lines = Lines::default();
    let out = lines.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::DEBUG)
        .with_ansi(false)
        .with_writer(move || out.clone())
        .finish();
    tracing::subscriber::with_default(subscriber, f);
    let bytes = lines.0.lock().unwrap_or_else(|e| e.into_inner()).clone();
    String::from_utf8_lossy(&bytes).into_owned()
}

#[test]
fn a_finished_flush_is_logged_at_debug_and_a_failure_is_not_logged_twice() {
    let flush = WorkRecord {
        finished_ms: 1,
        work: Work::Flush,
        table: "logged_t".into(),
        region: 42,
        family: "f".into(),
        major: false,
        files_in: 0,
        files_out: 1,
        bytes_in: 0,
        bytes_out: 4096,
        duration: Duration::from_millis(7),
        error: None,
    };
    let failed = WorkRecord {
        error: Some("disk full".into()),
        ..flush.clone()
    };
    let text = logged(|| record(flush));
    assert!(text.contains("DEBUG"), "{text}");
    assert!(text.contains("flush done"), "{text}");
    for field in ["table=logged_t", "region=42", "bytes_out=4096", "ms=7"] {
        assert!(text.contains(field), "{field} in {text}");
    }
    assert_eq!(logged(|| record(failed)), "");
}
