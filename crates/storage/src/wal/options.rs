//! WAL settings: plain data with defaults and `validate()`. Components (the file system seam)
//! are passed to [`Wal::open_with`](super::Wal::open_with), not stored here.

use std::time::Duration;

use super::error::{Error, Result};
use super::record::MAX_PAYLOAD_LEN;

/// Settings of a [`Wal`](super::Wal).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WalOptions {
    /// A new segment starts once the active one reaches this many bytes (default 64 MiB).
    /// Smaller segments are deleted sooner after flushes; larger ones roll (and fsync) less
    /// often. A batch never splits across segments, so a segment may pass this by one batch.
    pub segment_size: u64,
    /// Longest time an `ASYNC_WAL` entry waits in memory before a background flusher writes it
    /// to the OS (default 1 s). The next synchronous writer writes it sooner.
    pub async_flush_interval: Duration,
    /// When this many bytes wait in memory, an `ASYNC_WAL` appender writes them itself and
    /// waits, bounding memory under a burst (default 8 MiB).
    pub async_buffer_limit: usize,
    /// On open, skip records that fail their checksum or do not decode instead of failing
    /// with [`Error::Corruption`] (default false). Skipped records are lost; the count is in
    /// [`WalStats::corrupt_skipped`](super::WalStats::corrupt_skipped). For operators
    /// recovering a damaged log, never a default.
    pub skip_corrupt: bool,
}

impl Default for WalOptions {
    fn default() -> Self {
        WalOptions {
            segment_size: 64 << 20,
            async_flush_interval: Duration::from_secs(1),
            async_buffer_limit: 8 << 20,
            skip_corrupt: false,
        }
    }
}

impl WalOptions {
    /// Checks the settings.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `segment_size` is below 4 KiB or above 1 GiB, or the
    /// flush interval or buffer limit is zero.
    pub fn validate(&self) -> Result<()> {
        if !(4096..=u64::from(MAX_PAYLOAD_LEN)).contains(&self.segment_size) {
            return Err(Error::InvalidArgument(format!(
                "segment_size {} is outside 4 KiB..=1 GiB",
                self.segment_size
            )));
        }
        if self.async_flush_interval.is_zero() {
            return Err(Error::InvalidArgument(
                "async_flush_interval must be positive".into(),
            ));
        }
        if self.async_buffer_limit == 0 {
            return Err(Error::InvalidArgument(
                "async_buffer_limit must be positive".into(),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid_and_bad_values_are_named() {
        assert!(WalOptions::default().validate().is_ok());
        let tiny = WalOptions {
            segment_size: 100,
            ..WalOptions::default()
        };
        assert!(tiny
            .validate()
            .unwrap_err()
            .to_string()
            .contains("segment_size 100"));
    }
}
