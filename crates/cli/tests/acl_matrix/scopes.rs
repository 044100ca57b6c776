//! Where each case acts and where its grant is made: its table `T` in namespace `N` = `mx`,
//! family `f`, column `f:q`, and the scopes beside them.

use bytes::Bytes;
use strata_client::access::Scope;

use super::cases::Case;
use super::spec::{GrantScope, Target};

/// The namespace of every table the cases act on.
pub const NS: &str = "mx";
/// The table most operations act on.
pub const SHARED: &str = "mx:shared";
/// A table beside them, for grants that cover none of theirs.
pub const OTHER_TABLE: &str = "mx:other";

/// The table of an operation that acts on one of its own.
pub fn own_table(op: &str) -> String {
    format!("{NS}:{op}")
}

/// The table `case` acts on.
pub fn target(case: &Case) -> String {
    match case.op.target {
        Target::Shared => SHARED.to_owned(),
        Target::Own => own_table(case.op.name),
    }
}

fn table_scope(name: &str) -> Scope {
    Scope::table(name, None, None).unwrap()
}

/// The scope of `case`'s grant (`None`: no grant).
pub fn scope_of(case: &Case) -> Option<Scope> {
    let t = target(case);
    let column = |f: &str, q: Option<&str>| {
        Scope::table(
            &t,
            Some(Bytes::from(f.to_owned())),
            q.map(|q| Bytes::from(q.to_owned())),
        )
        .unwrap()
    };
    Some(match case.scope {
        GrantScope::Global => Scope::Global,
        GrantScope::Namespace => Scope::Namespace(NS.to_owned()),
        GrantScope::Table => table_scope(&t),
        GrantScope::Family => column("f", None),
        GrantScope::Column => column("f", Some("q")),
        GrantScope::OtherNamespace => Scope::Namespace("default".to_owned()),
        GrantScope::OtherTable => table_scope(OTHER_TABLE),
        GrantScope::OtherFamily => column("g", None),
        GrantScope::OtherColumn => column("f", Some("q2")),
        GrantScope::None => return None,
    })
}
