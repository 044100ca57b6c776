//! Settings of a [`crate::Connection`] and a [`crate::BufferedMutator`]: plain data with
//! defaults.

use std::time::Duration;

/// How a connection retries, times out and pages scans.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientOptions {
    /// Longest time one operation (or one scan page) may take, retries included. Default 60 s.
    pub operation_timeout: Duration,
    /// Most retries of one operation after the first attempt. Default 15.
    pub retries: u32,
    /// First back-off pause; each retry doubles it, with jitter. Default 100 ms.
    pub retry_base: Duration,
    /// Longest back-off pause. Default 5 s.
    pub retry_max: Duration,
    /// Rows per scan RPC when the scan does not set `caching`. Default 1000.
    pub scan_caching: u32,
    /// Bytes of cells per scan RPC the server should stop after. Default 4 MiB.
    pub max_result_bytes: u64,
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            operation_timeout: Duration::from_secs(60),
            retries: 15,
            retry_base: Duration::from_millis(100),
            retry_max: Duration::from_secs(5),
            scan_caching: 1000,
            max_result_bytes: 4 << 20,
        }
    }
}

/// How a [`crate::BufferedMutator`] batches writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferedMutatorOptions {
    /// Buffered bytes (estimated) that trigger sending the buffer. Default 2 MiB.
    pub max_buffer_bytes: usize,
    /// Most batch RPCs in flight at once, and most buffers being sent. Default 4; 0 means 1.
    pub max_in_flight: usize,
}

impl Default for BufferedMutatorOptions {
    fn default() -> Self {
        BufferedMutatorOptions {
            max_buffer_bytes: 2 << 20,
            max_in_flight: 4,
        }
    }
}
