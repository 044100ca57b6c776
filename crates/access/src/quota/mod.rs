//! Quotas (RFC 0029): HBase's throttles (`set_quota TYPE => THROTTLE`) on users, tables and
//! namespaces, and the decision for each request ([`Quotas::admit`]). Pure, as the rest of
//! the crate: the cluster's nodes keep a server's [`Quotas`] current from the coordination
//! store, and every front end asks it (through the server's [`crate::Guard`]) before work.

mod in_force;
mod limiter;
mod settings;
mod throttled;

pub use in_force::{Cost, Quotas};
pub use limiter::RateLimiter;
pub use settings::{Limit, Per, Scope, Subject, Throttle, ThrottleType, Unit};
pub use throttled::{format_wait, wait_of, Throttled, HBASE_CLASS};

#[cfg(test)]
mod tests;
