//! Orders from the master to a region server, and the server's acknowledgements.

use super::*;

/// An order from the master to a region server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Order {
    /// Open the region at this epoch.
    Open {
        /// Region epoch.
        epoch: u64,
    },
    /// Close the region (opened at this epoch).
    Close {
        /// Region epoch.
        epoch: u64,
    },
    /// Split the region (open at this epoch) into `daughters` at `row` (`None`: its middle
    /// key), then stop serving it; the daughters are opened by later open orders.
    Split {
        /// Region epoch.
        epoch: u64,
        /// The daughters' names (lower half first).
        daughters: (String, String),
        /// The split row, if chosen by the master.
        row: Option<Vec<u8>>,
    },
    /// Merge the region (open at `epoch`, the lower one) with `high` (open at `high_epoch`)
    /// into `merged`, then stop serving both; the merged region is opened by a later order.
    Merge {
        /// The lower region's epoch.
        epoch: u64,
        /// The higher region.
        high: String,
        /// Its epoch.
        high_epoch: u64,
        /// The merged region's name.
        merged: String,
    },
}

/// A region server's answer to an order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ack {
    /// Opened and serving at this epoch.
    Opened(u64),
    /// Could not open at this epoch.
    FailedOpen(u64),
    /// Closed (flushed) at this epoch.
    Closed(u64),
    /// Split at this epoch at this row: the daughters' directories are complete and the
    /// region is no longer served.
    Split(u64, Vec<u8>),
    /// Could not split at this epoch; still serving the region.
    FailedSplit(u64),
    /// Merged at this (the lower region's) epoch: the merged region's directory is complete
    /// and neither region is served any more.
    Merged(u64),
    /// Could not merge at this epoch; still serving both regions.
    FailedMerge(u64),
}

impl Order {
    /// Encodes the order.
    pub fn encode(&self) -> Vec<u8> {
        match self {
            Order::Open { epoch } => format!("order1 open {epoch}"),
            Order::Close { epoch } => format!("order1 close {epoch}"),
            Order::Split {
                epoch,
                daughters: (low, high),
                row,
            } => {
                let row = row.as_deref().map_or_else(|| "-".to_string(), hex);
                format!("order1 split {epoch} {low} {high} {row}")
            }
            Order::Merge {
                epoch,
                high,
                high_epoch,
                merged,
            } => format!("order1 merge {epoch} {high} {high_epoch} {merged}"),
        }
        .into_bytes()
    }

    /// Decodes an order.
    ///
    /// # Errors
    /// Not an order.
    pub fn decode(bytes: &[u8]) -> Result<Order, DecodeError> {
        let f = fields(bytes, "order1", 3).or_else(|_| fields(bytes, "order1", 6))?;
        let epoch = f[2].parse().map_err(|_| bad("order", "epoch"))?;
        match (f[1], f.len()) {
            ("open", 3) => Ok(Order::Open { epoch }),
            ("close", 3) => Ok(Order::Close { epoch }),
            ("split", 6) if region_name_ok(f[3]) && region_name_ok(f[4]) && f[3] != f[4] => {
                Ok(Order::Split {
                    epoch,
                    daughters: (f[3].to_string(), f[4].to_string()),
                    row: match f[5] {
                        "-" => None,
                        r => Some(unhex(r)?),
                    },
                })
            }
            ("merge", 6) if region_name_ok(f[3]) && region_name_ok(f[5]) && f[3] != f[5] => {
                Ok(Order::Merge {
                    epoch,
                    high: f[3].to_string(),
                    high_epoch: f[4].parse().map_err(|_| bad("order", "epoch"))?,
                    merged: f[5].to_string(),
                })
            }
            (other, _) => Err(bad("order", format!("kind {other:?} in {f:?}"))),
        }
    }
}

impl Ack {
    /// Encodes the acknowledgement.
    pub fn encode(&self) -> Vec<u8> {
        match self {
            Ack::Opened(e) => format!("ack1 opened {e}"),
            Ack::FailedOpen(e) => format!("ack1 failed-open {e}"),
            Ack::Closed(e) => format!("ack1 closed {e}"),
            Ack::Split(e, row) => format!("ack1 split {e} {}", hex(row)),
            Ack::FailedSplit(e) => format!("ack1 failed-split {e}"),
            Ack::Merged(e) => format!("ack1 merged {e}"),
            Ack::FailedMerge(e) => format!("ack1 failed-merge {e}"),
        }
        .into_bytes()
    }

    /// Decodes an acknowledgement.
    ///
    /// # Errors
    /// Not an acknowledgement.
    pub fn decode(bytes: &[u8]) -> Result<Ack, DecodeError> {
        let f = fields(bytes, "ack1", 3).or_else(|_| fields(bytes, "ack1", 4))?;
        let e = f[2].parse().map_err(|_| bad("ack", "epoch"))?;
        match (f[1], f.get(3)) {
            ("opened", None) => Ok(Ack::Opened(e)),
            ("failed-open", None) => Ok(Ack::FailedOpen(e)),
            ("closed", None) => Ok(Ack::Closed(e)),
            ("failed-split", None) => Ok(Ack::FailedSplit(e)),
            ("merged", None) => Ok(Ack::Merged(e)),
            ("failed-merge", None) => Ok(Ack::FailedMerge(e)),
            ("split", Some(row)) if !row.is_empty() => Ok(Ack::Split(e, unhex(row)?)),
            (other, _) => Err(bad("ack", format!("kind {other:?} in {f:?}"))),
        }
    }
}
