//! [`Guard`]: the one place a server decides whether a call may run (RFC 0026). Every front
//! end (the data and admin services, HBase RPC, bulk load) asks it before any work.
//!
//! A guard that is off (`--auth` not given) allows everything at the cost of one branch. A
//! guard that is on refuses a caller without an authenticated name, and everything while no
//! grants have been loaded yet: a server never serves without checks.

mod has;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use parking_lot::RwLock;

use crate::access::{Access, Readable, User};
use crate::admin::On;
use crate::audit::{Audit, Entry};
use crate::caller::Caller;
use crate::perms::Action;
use crate::quota::{Cost, Quotas, Throttled};
use crate::scope::{Scope, TableScope};

/// A refusal: who was refused and why, in words that name the missing permission.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Denied {
    /// The message, as HBase's `AccessDeniedException` words it.
    pub message: String,
}

impl std::fmt::Display for Denied {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// What a guard that is on needs from the configuration.
#[derive(Debug, Clone, Default)]
pub struct GuardConfig {
    /// Users (and `@group`s) allowed everything, besides the process's own user.
    pub superusers: Vec<String>,
    /// Each user's groups (`--group-mapping`).
    pub groups: HashMap<String, Vec<String>>,
}

/// The grants in force on one server and the decisions made from them.
#[derive(Debug)]
pub struct Guard {
    on: bool,
    superusers: HashSet<String>,
    groups: HashMap<String, Vec<String>>,
    access: RwLock<Arc<Access>>,
    revision: AtomicI64,
    audit: Audit,
    /// The throttles in force (RFC 0029): applied with the guard on or off.
    quotas: Quotas,
}

/// The user of a call that proved no name, for throttles and `whoami`.
pub const UNKNOWN_USER: &str = "unknown";

impl Guard {
    /// A guard that allows everything (a server without `--auth`).
    pub fn off() -> Arc<Guard> {
        Arc::new(Guard {
            on: false,
            superusers: HashSet::new(),
            groups: HashMap::new(),
            access: RwLock::new(Arc::new(Access::default())),
            revision: AtomicI64::new(0),
            audit: Audit::to_log(),
            quotas: Quotas::default(),
        })
    }

    /// A guard that checks every call; the process's own user (`process_user`) is a
    /// superuser, as HBase's is.
    pub fn on(config: GuardConfig, process_user: Option<&str>, audit: Audit) -> Arc<Guard> {
        let mut superusers: HashSet<String> = config.superusers.into_iter().collect();
        if let Some(me) = process_user {
            superusers.insert(me.to_owned());
        }
        Arc::new(Guard {
            on: true,
            superusers,
            groups: config.groups,
            access: RwLock::new(Arc::new(Access::default())),
            revision: AtomicI64::new(-1),
            audit,
            quotas: Quotas::default(),
        })
    }

    /// Whether calls are checked.
    pub fn is_on(&self) -> bool {
        self.on
    }

    /// Puts `access`, read at `revision` of the coordination store, in force.
    pub fn install(&self, access: Access, revision: i64) {
        *self.access.write() = Arc::new(access);
        self.revision.store(revision, Ordering::Release);
    }

    /// The revision of the grants in force (-1: none loaded yet).
    pub fn revision(&self) -> i64 {
        self.revision.load(Ordering::Acquire)
    }

    /// The grants in force.
    pub fn access(&self) -> Arc<Access> {
        self.access.read().clone()
    }

    /// The audit log.
    pub fn audit(&self) -> &Audit {
        &self.audit
    }

    /// The throttles in force.
    pub fn quotas(&self) -> &Quotas {
        &self.quotas
    }

    /// The name throttles know `caller` by: its authenticated name, else [`UNKNOWN_USER`].
    pub fn quota_user<'a>(&self, caller: &'a Caller) -> &'a str {
        caller.user.as_deref().unwrap_or(UNKNOWN_USER)
    }

    /// Admits a request of `caller` on `table` costing `cost` under the throttles in force
    /// (with the guard on or off).
    ///
    /// # Errors
    /// [`Throttled`], with the wait.
    pub fn throttle(&self, caller: &Caller, table: &str, cost: Cost) -> Result<(), Throttled> {
        if !self.quotas.any() {
            return Ok(());
        }
        self.quotas.admit(self.quota_user(caller), table, cost)
    }

    /// Charges `bytes` read by `caller`'s admitted request on `table` to size throttles.
    pub fn charge_read(&self, caller: &Caller, table: &str, bytes: u64) {
        if self.quotas.any() {
            self.quotas
                .charge_read(self.quota_user(caller), table, bytes);
        }
    }

    /// The user `caller` is, with its groups and whether it is a superuser (`None`: it proved
    /// no name). With the guard off, every caller is a superuser.
    pub fn user(&self, caller: &Caller) -> Option<User> {
        if !self.on {
            let name = caller.user.as_deref().unwrap_or(UNKNOWN_USER).to_owned();
            return Some(User {
                name,
                groups: Vec::new(),
                superuser: true,
            });
        }
        let name = caller.user.as_deref()?;
        let groups = self.groups.get(name).cloned().unwrap_or_default();
        let superuser = self.superusers.contains(name)
            || groups
                .iter()
                .any(|g| self.superusers.contains(&format!("@{g}")));
        Some(User {
            name: name.to_owned(),
            groups,
            superuser,
        })
    }

    /// The user of a call that may go on, or the denial (logged) of one that has no name or
    /// comes before any grants were loaded.
    fn authenticated(&self, caller: &Caller, call: &str, scope: &str) -> Result<User, Denied> {
        let Some(user) = self.user(caller) else {
            return Err(self.deny(
                caller,
                call,
                scope,
                "no authenticated user: connect with a client certificate (--tls-client-cert) or Kerberos"
                    .into(),
            ));
        };
        if self.revision() < 0 && !user.superuser {
            return Err(self.deny(
                caller,
                call,
                scope,
                "access control is not loaded yet on this server; retry".into(),
            ));
        }
        Ok(user)
    }

    fn deny(&self, caller: &Caller, call: &str, scope: &str, message: String) -> Denied {
        self.audit.denied(&Entry {
            user: caller.user.as_deref().unwrap_or("unknown"),
            client: caller.addr,
            call,
            scope,
            result: "denied",
            detail: &message,
        });
        Denied { message }
    }

    fn insufficient(
        &self,
        caller: &Caller,
        user: &User,
        call: &str,
        scope: &Scope,
        actions: &[Action],
    ) -> Denied {
        let wanted: Vec<&str> = actions.iter().map(|a| a.name()).collect();
        let message = format!(
            "Insufficient permissions for user '{}' (call={call}, scope={}, action={})",
            user.name,
            describe(scope),
            wanted.join("|")
        );
        self.deny(caller, call, &describe(scope), message)
    }

    /// Allows `call` if `caller` may take one of `actions` on `scope`.
    ///
    /// # Errors
    /// The denial, logged to the audit log.
    pub fn check(
        &self,
        caller: &Caller,
        call: &str,
        actions: &[Action],
        scope: &Scope,
    ) -> Result<(), Denied> {
        if !self.on {
            return Ok(());
        }
        let user = self.authenticated(caller, call, &describe(scope))?;
        if self.access.read().allows_any(&user, actions, scope) {
            Ok(())
        } else {
            Err(self.insufficient(caller, &user, call, scope, actions))
        }
    }

    /// Allows `call` if `caller` holds any permission on `table` or within it (describing a
    /// table, its alter status).
    ///
    /// # Errors
    /// The denial, logged.
    pub fn check_any_within(&self, caller: &Caller, call: &str, table: &str) -> Result<(), Denied> {
        if !self.on {
            return Ok(());
        }
        let scope = TableScope::table(table);
        let user = self.authenticated(caller, call, &scope.table_name())?;
        if self.access.read().any_within(&user, &scope) {
            Ok(())
        } else {
            Err(self.insufficient(caller, &user, call, &Scope::Table(scope), &Action::ALL))
        }
    }

    /// What a read of `table` by `caller` may return.
    ///
    /// # Errors
    /// The denial (logged) when the caller may read nothing of the table.
    pub fn readable(&self, caller: &Caller, call: &str, table: &str) -> Result<Readable, Denied> {
        if !self.on {
            return Ok(Readable::All);
        }
        let scope = TableScope::table(table);
        let user = self.authenticated(caller, call, &scope.table_name())?;
        match self.access.read().readable(&user, &scope) {
            Readable::Nothing => {
                Err(self.insufficient(caller, &user, call, &Scope::Table(scope), &[Action::Read]))
            }
            readable => Ok(readable),
        }
    }

    /// Allows a call that takes `action` on `columns` of `table` (family, and qualifier
    /// unless the whole family is meant), as a put, delete, increment or append does.
    ///
    /// # Errors
    /// The denial (logged) naming the first column not covered.
    pub fn columns<'a>(
        &self,
        caller: &Caller,
        call: &str,
        action: Action,
        table: &str,
        columns: impl IntoIterator<Item = (&'a [u8], Option<&'a [u8]>)>,
    ) -> Result<(), Denied> {
        if !self.on {
            return Ok(());
        }
        let scope = TableScope::table(table);
        let user = self.authenticated(caller, call, &scope.table_name())?;
        match self
            .access
            .read()
            .first_denied(&user, action, &scope, columns)
        {
            None => Ok(()),
            Some(denied) => Err(self.insufficient(caller, &user, call, &denied, &[action])),
        }
    }

    /// Allows writing `rm` to `table` (`W` on every column it writes).
    ///
    /// # Errors
    /// The denial, logged.
    pub fn mutation(
        &self,
        caller: &Caller,
        call: &str,
        table: &str,
        rm: &strata_model::ops::RowMutations,
    ) -> Result<(), Denied> {
        if !self.on {
            return Ok(());
        }
        self.columns(caller, call, Action::Write, table, crate::written(rm))
    }

    /// Allows a check-and-mutate of `table` (HBase's `preCheckAndPut` and
    /// `preCheckAndDelete`): `R` and `W` on the column `checked` tests (`None`: a filter
    /// decides, and `R` on the table is needed), then `W` on every column `rm` writes.
    ///
    /// # Errors
    /// The denial, logged, naming the first column not covered.
    pub fn check_and_mutate(
        &self,
        caller: &Caller,
        call: &str,
        table: &str,
        checked: Option<(&[u8], &[u8])>,
        rm: &strata_model::ops::RowMutations,
    ) -> Result<(), Denied> {
        if !self.on {
            return Ok(());
        }
        let column = checked.map(|(f, q)| (f, Some(q)));
        self.columns(caller, call, Action::Read, table, column)?;
        if column.is_some() {
            self.columns(caller, call, Action::Write, table, column)?;
        }
        if rm.mutations.is_empty() {
            return Ok(());
        }
        self.mutation(caller, call, table, rm)
    }

    /// Allows the administrative call `rpc` (the gRPC `Admin` rpc's name) on `object` (the
    /// table or namespace it names, if any) by [`crate::admin::rule`]; an allowed call that
    /// changes something is recorded in the audit log.
    ///
    /// # Errors
    /// The denial, logged.
    pub fn admin(&self, caller: &Caller, rpc: &str, object: Option<&str>) -> Result<(), Denied> {
        if !self.on {
            return Ok(());
        }
        let what = object.unwrap_or("");
        let user = self.authenticated(caller, rpc, what)?;
        let Some(rule) = crate::admin::rule(rpc) else {
            if user.superuser {
                return Ok(());
            }
            return Err(self.insufficient(caller, &user, rpc, &Scope::Global, &[Action::Admin]));
        };
        let access = self.access.read().clone();
        let scope = match rule.on {
            On::Anyone | On::Itself => return Ok(()),
            On::Global => Scope::Global,
            On::Namespace => Scope::Namespace(match object {
                Some(name) if rpc == "CreateTable" => crate::scope::split_table(name).0.to_owned(),
                Some(name) => name.to_owned(),
                None => crate::scope::DEFAULT_NAMESPACE.to_owned(),
            }),
            On::Table | On::AnyWithinTable => Scope::Table(TableScope::table(what)),
        };
        let allowed = match (&rule.on, &scope) {
            (On::AnyWithinTable, Scope::Table(t)) => access.any_within(&user, t),
            _ => access.allows_any(&user, rule.actions, &scope),
        };
        if !allowed {
            let actions = if rule.actions.is_empty() {
                &Action::ALL[..]
            } else {
                rule.actions
            };
            return Err(self.insufficient(caller, &user, rpc, &scope, actions));
        }
        if !rule.actions.is_empty() {
            self.audit_allowed(caller, rpc, &describe(&scope), "");
        }
        Ok(())
    }

    /// Whether `caller` may see `table` listed (it holds a permission on or within it).
    pub fn lists(&self, caller: &Caller, table: &str) -> bool {
        if !self.on {
            return true;
        }
        match self.user(caller) {
            None => false,
            Some(user) => {
                user.superuser
                    || self
                        .access
                        .read()
                        .any_within(&user, &TableScope::table(table))
            }
        }
    }

    /// Records an allowed administrative call (the guard being on).
    pub fn audit_allowed(&self, caller: &Caller, call: &str, object: &str, detail: &str) {
        if self.on {
            self.audit.allowed(&Entry {
                user: caller.user.as_deref().unwrap_or("unknown"),
                client: caller.addr,
                call,
                scope: object,
                result: "allowed",
                detail,
            });
        }
    }
}

/// A scope in a message: `global`, `@ns`, `ns:table`, `ns:table/family/qualifier`.
pub fn describe(scope: &Scope) -> String {
    match scope {
        Scope::Global => "global".into(),
        Scope::Namespace(ns) => format!("@{ns}"),
        Scope::Table(t) => {
            let mut s = format!("{}:{}", t.namespace, t.table);
            if let Some(f) = &t.family {
                s.push('/');
                s.push_str(&String::from_utf8_lossy(f));
                if let Some(q) = &t.qualifier {
                    s.push('/');
                    s.push_str(&String::from_utf8_lossy(q));
                }
            }
            s
        }
    }
}
