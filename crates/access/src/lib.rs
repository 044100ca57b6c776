//! Who may do what (RFC 0026): HBase's permissions R, W, X, C and A granted on global,
//! namespace, table, family and qualifier scopes ([`Scope`], [`Perms`]); the grants in force
//! ([`Access`]); the decision for each call ([`Guard`]); the audit log ([`Audit`]); and the
//! throttles of [`quota`] (RFC 0029), which the guard holds too.
//!
//! Pure: no RPC, no coordination store. Front ends make a [`Caller`] from their connection
//! and ask the server's [`Guard`]; the cluster's nodes keep its grants current from the
//! coordination store.

mod access;
pub mod admin;
pub mod audit;
mod caller;
mod guard;
mod perms;
pub mod quota;
pub mod scope;
mod written;

pub use access::{Access, Grant, Readable, User};
pub use audit::Audit;
pub use caller::{AuthMethod, Caller};
pub use guard::{describe, Denied, Guard, GuardConfig, UNKNOWN_USER};
pub use perms::{Action, Perms};
pub use scope::{Scope, TableScope};
pub use written::written;

#[cfg(test)]
mod tests;
