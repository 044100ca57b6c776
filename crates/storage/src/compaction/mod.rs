//! Compaction policies: pure functions that choose which store files of one store to compact.
//!
//! A **policy decides, a compactor does** (ARCHITECTURE.md, "The life of a write"; RFC 0006). A
//! policy reads a snapshot of the store's files ([`FileMeta`], plain data, no I/O), the family's
//! settings and the time, and returns a [`Plan`] or nothing. Executing a plan (merging, dropping
//! versions and delete markers, writing output files, installing them in the manifest) is the
//! compactor's job, elsewhere.
//!
//! - [`exploring`]: HBase's `ExploringCompactionPolicy`, the default.
//! - [`date_tiered`]: HBase's `DateTieredCompactionPolicy` over [`windows`], with exploring
//!   inside each window, whole-file TTL drops and window-split major compactions;
//!   [`settled`]: its rule that leaves compacted one-day windows as they are.
//! - [`major`]: when a periodic major compaction is due ([`major_due`]), with HBase's
//!   deterministic jitter.
//! - [`pressure`]: the "too many files" signal that throttles writers
//!   ([`too_many_files`]) and the compaction pressure that speeds up compactions.
//!
//! Every function here is deterministic: the same inputs give the same plan, so tests build
//! file sets by hand and the decision can later move to the master.

pub mod date_tiered;
pub mod exploring;
pub mod major;
mod plan;
pub mod pressure;
pub mod settled;
pub mod throughput;
pub mod windows;

pub use major::{major_due, MajorConfig};
pub use plan::{FileMeta, Plan, PlanKind};
pub use pressure::{too_many_files, DEFAULT_BLOCKING_FILE_COUNT};
