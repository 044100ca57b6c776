//! What each administrative call needs (RFC 0026), after HBase's `AccessController`: one
//! table for every front end, keyed by the gRPC `Admin` rpc's name. HBase RPC's
//! `MasterService` names the rpc each of its methods is (the admin surface's table says which).

use crate::perms::Action;

/// Where an administrative call's permission is looked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum On {
    /// Global scope.
    Global,
    /// The namespace named in the call (for a table's creation: the table's namespace).
    Namespace,
    /// The table named in the call.
    Table,
    /// Any permission on the table or within it.
    AnyWithinTable,
    /// Any authenticated user (the call reveals nothing a grant protects).
    Anyone,
    /// The call checks for itself (grants: `A` on the scope being granted).
    Itself,
}

/// What an administrative call needs: one of `actions` on `on`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    /// Any one of these suffices.
    pub actions: &'static [Action],
    /// Where.
    pub on: On,
}

const AC: &[Action] = &[Action::Admin, Action::Create];
const A: &[Action] = &[Action::Admin];
const NONE: &[Action] = &[];

/// The rule of the gRPC `Admin` rpc `rpc` (`None`: an rpc this table does not know, refused
/// to everyone but superusers).
pub fn rule(rpc: &str) -> Option<Rule> {
    let (actions, on) = match rpc {
        // HBase: preCreateTable needs A or C on the namespace.
        "CreateTable" => (AC, On::Namespace),
        // preModifyTable, preDisableTable, preEnableTable, preTruncateTable, preDeleteTable,
        // preTableFlush, preCompact: A or C on the table.
        "AlterTable" | "DisableTable" | "EnableTable" | "TruncateTable" | "DeleteTable"
        | "Flush" | "Compact" | "ListFiles" | "ClearBlockCache" => (AC, On::Table),
        // preSplitRegion, preMergeRegions: A on the table (C is not enough).
        "Split" | "Merge" => (A, On::Table),
        // preSnapshot: A on the table.
        "Snapshot" => (A, On::Table),
        // Snapshots are not owned here: listing, deleting, cloning and restoring them need
        // global A (HBase also lets a snapshot's owner do so).
        "ListSnapshots" | "DeleteSnapshot" | "CloneSnapshot" | "RestoreSnapshot"
        | "ImportSnapshot" => (A, On::Global),
        // preCreateNamespace, preModifyNamespace, preDeleteNamespace: global A.
        "CreateNamespace" | "ModifyNamespace" | "DeleteNamespace" => (A, On::Global),
        "UpdateConfiguration" | "ListProcedures" => (A, On::Global),
        // MasterQuotaManager.setQuota: global A (HBase's preSetUserQuota and the others);
        // listing, which HBase answers from hbase:quota, needs global A here too (RFC 0029).
        "SetQuota" | "ListQuotas" => (A, On::Global),
        // preSetSplitOrMergeEnabled: global A; reading the switch needs nothing.
        "SetSwitch" => (A, On::Global),
        "GetSwitch" => (NONE, On::Anyone),
        // preBalance, preBalanceSwitch, preDecommissionRegionServers and the others: global A.
        // HBase's preMove, preAssign and preUnassign need A on the region's table; here a
        // region is named before it is resolved, so global A (RFC 0026, "Differences").
        "MoveRegion" | "AssignRegion" | "UnassignRegion" | "Balance" | "Decommission"
        | "Recommission" | "ListDecommissioned" => (A, On::Global),
        "DescribeTable" | "AlterStatus" => (NONE, On::AnyWithinTable),
        // Listing tables answers only those the caller holds a permission on.
        "ListTables" | "Locate" | "Status" | "GetNamespace" | "ListNamespaces" | "WhoAmI" => {
            (NONE, On::Anyone)
        }
        "Grant" | "Revoke" | "GetUserPermissions" => (A, On::Itself),
        _ => return None,
    };
    Some(Rule { actions, on })
}
