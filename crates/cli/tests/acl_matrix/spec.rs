//! What each operation needs, as HBase 2.6's `AccessController`
//! (`hbase-server/src/main/java/org/apache/hadoop/hbase/security/access/AccessController.java`)
//! asks it: the one table every case of the matrix is derived from. Where Strata differs on
//! purpose, the entry says so and RFC 0026 ("Rules of the admin calls, and where they differ
//! from HBase") gives the reason.

/// HBase's five actions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Letter {
    R,
    W,
    X,
    C,
    A,
}

impl Letter {
    pub const ALL: [Letter; 5] = [Letter::R, Letter::W, Letter::X, Letter::C, Letter::A];

    pub fn char(self) -> char {
        match self {
            Letter::R => 'R',
            Letter::W => 'W',
            Letter::X => 'X',
            Letter::C => 'C',
            Letter::A => 'A',
        }
    }
}

/// Where a permission is looked for, relative to the case's table `T` in namespace `N`,
/// family `f` and column `f:q`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// Global only.
    Global,
    /// Namespace `N` (or global).
    Namespace,
    /// Table `T` (or its namespace, or global).
    Table,
    /// Family `f` of `T` (or wider).
    Family,
    /// Column `f:q` of `T` (or wider).
    Column,
    /// `T` or anything within it: any family or column of `T` counts too (listing tables).
    Within,
}

/// One requirement: any of `any_of` at `at`.
#[derive(Debug, Clone, Copy)]
pub struct Need {
    pub any_of: &'static [Letter],
    pub at: Level,
}

/// An operation and what it needs: every one of `needs`.
#[derive(Debug, Clone, Copy)]
pub struct Op {
    /// The operation's name in the cases (also what the Java test dispatches on).
    pub name: &'static str,
    pub needs: &'static [Need],
    /// The table it acts on: `t` (the shared one), or a table of its own (`Own`), made
    /// fresh for each case, for an operation that removes or empties it.
    pub target: Target,
    /// HBase's check, cited.
    pub hbase: &'static str,
    /// Which front ends run it.
    pub fronts: &'static [Front],
}

/// The table an operation acts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// `mx:t`, shared by every case (restored after an operation that changes it).
    Shared,
    /// A table of the case's own, made before it (`mx:own<case>`).
    Own,
}

/// A front end the matrix runs through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Front {
    /// The Rust client.
    Rust,
    /// The shell's executor.
    Shell,
    /// HBase's Java client over HBase RPC.
    Java,
    /// happybase through `strata gateway` (the data operations).
    Thrift,
}

use Front::{Java, Rust, Shell, Thrift};
use Letter::{A, C, R, W};
use Level::{Column, Family, Global, Namespace, Table, Within};

const ALL_FRONTS: &[Front] = &[Rust, Shell, Java];
const DATA_FRONTS: &[Front] = &[Rust, Shell, Java, Thrift];

const fn need(any_of: &'static [Letter], at: Level) -> Need {
    Need { any_of, at }
}

/// The operations of the matrix.
pub const OPS: &[Op] = &[
    // --- Reads: internalPreRead asks READ on the columns asked for (a family or column
    // grant lets the read through with the AccessControlFilter, leaving other cells out).
    Op {
        name: "get",
        needs: &[need(&[R], Column)],
        target: Target::Shared,
        hbase: "preGetOp -> internalPreRead(GET): permissionGranted(READ) on the Get's family map",
        fronts: DATA_FRONTS,
    },
    Op {
        name: "exists",
        needs: &[need(&[R], Column)],
        target: Target::Shared,
        hbase: "preExists -> internalPreRead(EXISTS): READ",
        fronts: &[Rust, Java],
    },
    Op {
        name: "scan",
        needs: &[need(&[R], Column)],
        target: Target::Shared,
        hbase: "preScannerOpen -> internalPreRead(SCAN): READ",
        fronts: DATA_FRONTS,
    },
    // --- Writes: WRITE on every column written.
    Op {
        name: "put",
        needs: &[need(&[W], Column)],
        target: Target::Shared,
        hbase: "prePut: permissionGranted(PUT, WRITE) on the Put's family cell map",
        fronts: DATA_FRONTS,
    },
    Op {
        name: "delete_column",
        needs: &[need(&[W], Column)],
        target: Target::Shared,
        hbase: "preDelete: permissionGranted(DELETE, WRITE) on the Delete's family cell map",
        fronts: DATA_FRONTS,
    },
    Op {
        name: "delete_family",
        needs: &[need(&[W], Family)],
        target: Target::Shared,
        hbase: "preDelete: a DeleteFamily cell has no qualifier, so only a family (or wider) \
                grant covers it",
        fronts: &[Rust, Java],
    },
    Op {
        name: "delete_row",
        needs: &[need(&[W], Table)],
        target: Target::Shared,
        hbase: "preDelete: a Delete of the whole row has an empty family map; permissionGranted \
                then asks the table",
        fronts: DATA_FRONTS,
    },
    Op {
        name: "increment",
        needs: &[need(&[W], Column)],
        target: Target::Shared,
        hbase: "preIncrement: permissionGranted(INCREMENT, WRITE)",
        fronts: DATA_FRONTS,
    },
    Op {
        name: "append",
        needs: &[need(&[W], Column)],
        target: Target::Shared,
        hbase: "preAppend: permissionGranted(APPEND, WRITE)",
        fronts: ALL_FRONTS,
    },
    Op {
        name: "batch_put",
        needs: &[need(&[W], Column)],
        target: Target::Shared,
        hbase: "preBatchMutate/prePut for each Put of a multi: WRITE",
        fronts: &[Rust, Java, Thrift],
    },
    Op {
        name: "check_and_put",
        needs: &[need(&[R], Column), need(&[W], Column)],
        target: Target::Shared,
        hbase: "preCheckAndPut: permissionGranted(CHECK_AND_PUT, READ, WRITE) on the column \
                checked (every action asked), then prePut: WRITE on the Put",
        fronts: &[Rust, Java],
    },
    Op {
        name: "check_and_delete",
        needs: &[need(&[R], Column), need(&[W], Column)],
        target: Target::Shared,
        hbase: "preCheckAndDelete: permissionGranted(CHECK_AND_DELETE, READ, WRITE), then \
                preDelete: WRITE",
        fronts: &[Rust, Java],
    },
    // --- Table administration: ADMIN or CREATE on the table unless said otherwise.
    Op {
        name: "flush",
        needs: &[need(&[A, C], Table)],
        target: Target::Shared,
        hbase: "preTableFlush: requirePermission(tableName, ADMIN, CREATE)",
        fronts: ALL_FRONTS,
    },
    Op {
        name: "compact",
        needs: &[need(&[A, C], Table)],
        target: Target::Shared,
        hbase: "preCompact: requirePermission(table, ADMIN, CREATE)",
        fronts: ALL_FRONTS,
    },
    Op {
        name: "split",
        needs: &[need(&[A], Table)],
        target: Target::Own,
        hbase: "preSplitRegion: requirePermission(tableName, ADMIN)",
        fronts: ALL_FRONTS,
    },
    Op {
        name: "alter",
        needs: &[need(&[A, C], Table)],
        target: Target::Own,
        hbase: "preModifyTable: requirePermission(tableName, ADMIN, CREATE)",
        fronts: ALL_FRONTS,
    },
    Op {
        name: "disable",
        needs: &[need(&[A, C], Table)],
        target: Target::Own,
        hbase: "preDisableTable: requirePermission(tableName, ADMIN, CREATE)",
        fronts: ALL_FRONTS,
    },
    Op {
        name: "enable",
        needs: &[need(&[A, C], Table)],
        target: Target::Own,
        hbase: "preEnableTable: requirePermission(tableName, ADMIN, CREATE)",
        fronts: ALL_FRONTS,
    },
    Op {
        name: "truncate",
        needs: &[need(&[A, C], Table)],
        target: Target::Own,
        hbase: "preTruncateTable: requirePermission(tableName, ADMIN, CREATE)",
        fronts: ALL_FRONTS,
    },
    Op {
        name: "drop",
        needs: &[need(&[A, C], Table)],
        target: Target::Own,
        hbase: "preDeleteTable: requirePermission(tableName, ADMIN, CREATE)",
        fronts: ALL_FRONTS,
    },
    Op {
        name: "snapshot",
        needs: &[need(&[A], Table)],
        target: Target::Shared,
        hbase: "preSnapshot: requirePermission(tableName, ADMIN)",
        fronts: ALL_FRONTS,
    },
    Op {
        name: "describe",
        needs: &[need(&[], Within)],
        target: Target::Shared,
        hbase: "preGetTableDescriptors: ADMIN or CREATE on the table; Strata on purpose: any \
                permission on or within it (RFC 0026)",
        fronts: &[Rust, Shell],
    },
    Op {
        name: "list_tables",
        needs: &[need(&[], Within)],
        target: Target::Shared,
        hbase: "postGetTableNames: requireAccess(table, every action): listed with any \
                permission on the table or within it",
        fronts: DATA_FRONTS,
    },
    // --- Namespaces and tables in them.
    Op {
        name: "create_table",
        needs: &[need(&[A, C], Namespace)],
        target: Target::Shared,
        hbase: "preCreateTable: requireNamespacePermission(namespace, ADMIN, CREATE)",
        fronts: ALL_FRONTS,
    },
    Op {
        name: "create_namespace",
        needs: &[need(&[A], Global)],
        target: Target::Shared,
        hbase: "preCreateNamespace: requireGlobalPermission(ADMIN)",
        fronts: ALL_FRONTS,
    },
    Op {
        name: "drop_namespace",
        needs: &[need(&[A], Global)],
        target: Target::Shared,
        hbase: "preDeleteNamespace: requireGlobalPermission(ADMIN)",
        fronts: ALL_FRONTS,
    },
    // --- Permissions: ADMIN on the scope granted, revoked or listed.
    Op {
        name: "grant_table",
        needs: &[need(&[A], Table)],
        target: Target::Shared,
        hbase: "preGrant -> preGrantOrRevoke (TABLE): requirePermission(table, family, \
                qualifier, ADMIN)",
        fronts: ALL_FRONTS,
    },
    Op {
        name: "grant_namespace",
        needs: &[need(&[A], Namespace)],
        target: Target::Shared,
        hbase: "preGrant -> preGrantOrRevoke (NAMESPACE): requireNamespacePermission(ADMIN)",
        fronts: ALL_FRONTS,
    },
    Op {
        name: "revoke_table",
        needs: &[need(&[A], Table)],
        target: Target::Shared,
        hbase: "preRevoke -> preGrantOrRevoke (TABLE): ADMIN",
        fronts: ALL_FRONTS,
    },
    Op {
        name: "user_permission_table",
        needs: &[need(&[A], Table)],
        target: Target::Shared,
        hbase: "preGetUserPermissions: requirePermission(table, ADMIN) (a user's own \
                grants excepted)",
        fronts: &[Rust, Shell],
    },
];

/// Whether a grant on `scope` covers `level` (the test's own statement of HBase's covering
/// rules, independent of the server's).
pub fn covers(scope: GrantScope, level: Level) -> bool {
    use GrantScope as S;
    match scope {
        S::Global => true,
        S::Namespace => !matches!(level, Global),
        S::Table => matches!(level, Table | Family | Column | Within),
        S::Family => matches!(level, Family | Column | Within),
        S::Column => matches!(level, Column | Within),
        // Another family or column of the table: still within it.
        S::OtherFamily | S::OtherColumn => matches!(level, Within),
        S::OtherNamespace | S::OtherTable | S::None => false,
    }
}

/// Where a case's grant is made, relative to its table `T` in namespace `N`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GrantScope {
    Global,
    Namespace,
    Table,
    Family,
    Column,
    /// Namespace `default` (not `N`).
    OtherNamespace,
    /// Table `N:other`.
    OtherTable,
    /// Family `g` of `T`.
    OtherFamily,
    /// Column `f:q2` of `T`.
    OtherColumn,
    /// No grant at all.
    None,
}

impl GrantScope {
    pub const ALL: [GrantScope; 10] = [
        GrantScope::Global,
        GrantScope::Namespace,
        GrantScope::Table,
        GrantScope::Family,
        GrantScope::Column,
        GrantScope::OtherNamespace,
        GrantScope::OtherTable,
        GrantScope::OtherFamily,
        GrantScope::OtherColumn,
        GrantScope::None,
    ];

    pub fn name(self) -> &'static str {
        match self {
            GrantScope::Global => "global",
            GrantScope::Namespace => "namespace",
            GrantScope::Table => "table",
            GrantScope::Family => "family",
            GrantScope::Column => "column",
            GrantScope::OtherNamespace => "other_namespace",
            GrantScope::OtherTable => "other_table",
            GrantScope::OtherFamily => "other_family",
            GrantScope::OtherColumn => "other_column",
            GrantScope::None => "none",
        }
    }

    /// Whether the scope covers the case's own column `f:q` at all (a narrower scope is one
    /// of the "other" ones, which cover nothing the operations act on).
    pub fn is_other(self) -> bool {
        matches!(
            self,
            GrantScope::OtherNamespace
                | GrantScope::OtherTable
                | GrantScope::OtherFamily
                | GrantScope::OtherColumn
        )
    }
}
