//! Operator requests that are not procedures: the balancer, split and merge switches, a
//! balancing round on demand, decommission and recommission. Each is checked against the image and its outcome
//! persisted (a `setting/` or `drain/` key) in the transaction that takes the request.

use super::{AdminError, AdminRequest, Halt, Kv, Master, Switch};
use crate::kv::Op;
use crate::wal::WalFencer;

impl<K: Kv, F: WalFencer> Master<K, F> {
    /// Whether `switch` is on (persisted, else on).
    pub(super) fn switch_on(&mut self, switch: Switch) -> bool {
        let image = &self.lead().image;
        match switch {
            Switch::Split => image.split_on,
            Switch::Merge => image.merge_on,
        }
        .unwrap_or(true)
    }

    /// Stages `req` (one of the operations above); returns the answer to report.
    pub(super) fn stage_operation(
        &mut self,
        req: AdminRequest,
    ) -> Result<String, (Option<Halt>, AdminError)> {
        let invalid = |m: String| (None, AdminError::Invalid(m.into()));
        let halted = |h: Halt| (Some(h), AdminError::Unavailable);
        match req {
            AdminRequest::SetBalancer { on } => {
                let was = self.balancer_on();
                let value = if on { "on" } else { "off" };
                self.stage(vec![Op::put(self.layout.balancer_switch(), value)])
                    .map_err(halted)?;
                Ok(format!("balancer was {}", if was { "on" } else { "off" }))
            }
            AdminRequest::SetSwitch { switch, on } => {
                let was = self.switch_on(switch);
                let value = if on { "on" } else { "off" };
                self.stage(vec![Op::put(self.layout.switch(switch.name()), value)])
                    .map_err(halted)?;
                Ok(format!(
                    "{} was {}",
                    switch.name(),
                    if was { "on" } else { "off" }
                ))
            }
            AdminRequest::Balance => {
                if !self.balancer_on() {
                    return Err(invalid("the balancer is off (balance_switch true)".into()));
                }
                let busy = self.lead().image.procs.len();
                if busy > 0 {
                    return Err(invalid(format!(
                        "{busy} procedures in progress; balance when they are done"
                    )));
                }
                let now = self.next_load_balance;
                let moves = self.balance_round(now, true).map_err(halted)?;
                Ok(format!("balancer ran: {moves} moves"))
            }
            AdminRequest::Decommission { server } => {
                let image = &self.lead().image;
                if !image.live.contains(&server) {
                    return Err(invalid(format!("{server} is not a live region server")));
                }
                if image.drained.contains(&server) {
                    return Ok(format!("{server} is already decommissioned"));
                }
                let others = image
                    .live
                    .iter()
                    .filter(|s| **s != server && !image.drained.contains(*s))
                    .count();
                if others == 0 {
                    return Err(invalid(format!(
                        "{server} is the last region server not decommissioned: \
                         its regions would have nowhere to go"
                    )));
                }
                let regions = image.by_server.get(&server).map_or(0, |r| r.len());
                self.stage(vec![Op::put(self.layout.drain(&server), "drain")])
                    .map_err(halted)?;
                Ok(format!(
                    "{server} decommissioned; moving {regions} regions off"
                ))
            }
            AdminRequest::Recommission { server } => {
                if !self.lead().image.drained.contains(&server) {
                    return Err(invalid(format!("{server} is not decommissioned")));
                }
                self.stage(vec![Op::Delete(self.layout.drain(&server))])
                    .map_err(halted)?;
                Ok(format!("{server} recommissioned"))
            }
            other => Err(invalid(format!("not an operation: {other:?}"))),
        }
    }
}
