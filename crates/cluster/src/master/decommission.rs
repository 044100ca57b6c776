//! Decommissioned servers (HBase's `decommission_regionservers`): a server marked
//! `drain/<server>` is assigned nothing (the balancer and new assignments skip it while another
//! server is eligible) and its regions are moved off, a bounded number per tick, each by an
//! ordinary move transit. `recommission` deletes the mark; the balancer then gives it regions
//! again.
//!
//! Housekeeping of the operator's view: a server whose crash is being recovered is recorded
//! `dead/<server>` (shown by `status`) until a server on the same host and port registers, and
//! at most [`MAX_DEAD`] are kept; the drain mark of a server that is gone (not registered,
//! holding no region) is deleted.

use super::{Halt, Kv, Master};
use crate::kv::Op;
use crate::record::TransitStep;
use crate::wal::WalFencer;

/// Moves started per tick to drain decommissioned servers, at most.
const DRAIN_PER_TICK: usize = 100;

/// Dead servers remembered for `status`, at most.
pub const MAX_DEAD: usize = 100;

/// `host:port` of a server name `host:port:startcode`.
pub fn host_port(server: &str) -> &str {
    server.rsplit_once(':').map_or(server, |(hp, _)| hp)
}

impl<K: Kv, F: WalFencer> Master<K, F> {
    /// Starts moves of the regions still on decommissioned live servers, if another server
    /// can take them.
    pub(super) fn drain(&mut self) -> Result<(), Halt> {
        if self.lead().image.drained.is_empty() || self.eligible_servers().is_empty() {
            return Ok(());
        }
        let image = &self.lead().image;
        let todo: Vec<String> = image
            .drained
            .iter()
            .filter(|s| image.live.contains(*s))
            .filter_map(|s| image.by_server.get(s))
            .flatten()
            .filter(|r| {
                image
                    .regions
                    .get(*r)
                    .is_some_and(|(rec, _)| rec.proc.is_none())
            })
            .take(DRAIN_PER_TICK)
            .cloned()
            .collect();
        for region in todo {
            self.start_transit(&region, None, true, TransitStep::Close)?;
        }
        Ok(())
    }

    /// Keeps `dead/` and `drain/` true to the servers (writes only when something changed).
    pub(super) fn housekeeping(&mut self) -> Result<(), Halt> {
        let layout = self.layout.clone();
        let image = &self.lead().image;
        let mut ops = Vec::new();
        for server in image.crashes.keys() {
            if !image.dead.contains(server) {
                ops.push(Op::put(layout.dead(server), "crashed"));
            }
        }
        let restarted = |s: &String| image.live.iter().any(|l| host_port(l) == host_port(s));
        let mut kept = 0;
        for server in image.dead.iter().rev() {
            if restarted(server) || kept >= MAX_DEAD {
                ops.push(Op::Delete(layout.dead(server)));
            } else {
                kept += 1;
            }
        }
        for server in &image.drained {
            let gone = !image.live.contains(server)
                && !image.by_server.contains_key(server)
                && !image.crashes.contains_key(server);
            if gone {
                ops.push(Op::Delete(layout.drain(server)));
            }
        }
        if ops.is_empty() {
            return Ok(());
        }
        self.stage(ops)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_port_drops_the_start_code() {
        assert_eq!(
            host_port("127.0.0.1:16020:1700000000000"),
            "127.0.0.1:16020"
        );
        assert_eq!(host_port("rs1"), "rs1");
    }
}
