//! Quotas (RFC 0029): HBase's throttles (`set_quota TYPE => THROTTLE`) on users, tables and
//! namespaces, and the decision for each request ([`Quotas::admit`]); HBase's space quotas
//! (`set_quota TYPE => SPACE`) on tables and namespaces, the master's decision of each
//! table's state ([`decide`]) and the checks of writes against the states in force
//! ([`SpaceStates`]). Pure, as the rest of
//! the crate: the cluster's nodes keep a server's [`Quotas`] current from the coordination
//! store, and every front end asks it (through the server's [`crate::Guard`]) before work.

mod in_force;
mod limiter;
mod settings;
mod space;
mod space_decide;
mod space_in_force;
mod throttled;

pub use in_force::{Cost, Quotas};
pub use limiter::RateLimiter;
pub use settings::{Limit, Per, Scope, Subject, Throttle, ThrottleType, Unit};
pub use space::{parse_size, SpaceLimited, SpacePolicy, SpaceQuota, SpaceState, SPACE_HBASE_CLASS};
pub use space_decide::decide;
pub use space_in_force::SpaceStates;
pub use throttled::{format_wait, wait_of, Throttled, HBASE_CLASS};

#[cfg(test)]
mod space_tests;
#[cfg(test)]
mod tests;
