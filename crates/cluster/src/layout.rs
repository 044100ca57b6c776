//! Where everything lives in etcd, under one prefix per cluster (e.g. `/strata/<cluster>/`):
//!
//! | key | value | written by |
//! |---|---|---|
//! | `master/<lease hex>` | master address (election candidate, leased) | each master |
//! | `rs/<host:port:startcode>` | region-server address (leased) | the region server |
//! | `table/<table>` | [`TableRecord`](crate::record::TableRecord) | active master |
//! | `region/<table>,<seq hex>` | [`RegionRecord`](crate::record::RegionRecord) | active master |
//! | `proc/<id>` | [`Procedure`](crate::record::Procedure) | active master |
//! | `inbox/<server>/<region>` | [`Order`](crate::record::Order) to open or close | active master |
//! | `ack/<server>/<region>` | [`Ack`](crate::record::Ack) of an order (leased) | the region server |
//! | `request/<id>` | an [`AdminRequest`](crate::master::AdminRequest) | any client |
//! | `result/<id>` | `accepted <procedure>` or `rejected <kind> <reason>` (`RefusalKind::code`) | active master |
//! | `load/<server>` | [`ServerLoad`](crate::load::ServerLoad) (leased) | the region server |
//! | `metrics/<server>` | [`ServerMetrics`](crate::region_metrics::ServerMetrics) (leased) | the region server |
//! | `setting/balancer` | `on` or `off` (the balancer switch) | active master |
//! | `drain/<server>` | decommissioned: drained, nothing assigned to it | active master |
//! | `dead/<server>` | a server whose crash was recovered (for `status`) | active master |
//!
//! The active master's writes are transactions guarded by its election key's create revision
//! (its epoch), so a deposed master cannot write. Region servers write only their own `rs/`,
//! `ack/`, `load/` and `metrics/` keys, under their lease, so a dead server's keys vanish with it.

/// Key builder for one cluster's prefix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    root: String,
}

impl Layout {
    /// The layout under `root` (a trailing `/` is added if missing).
    pub fn new(root: &str) -> Layout {
        let mut root = root.to_string();
        if !root.ends_with('/') {
            root.push('/');
        }
        Layout { root }
    }

    /// The cluster prefix.
    pub fn root(&self) -> &str {
        &self.root
    }

    /// Prefix of the master election keys.
    pub fn election(&self) -> String {
        format!("{}master/", self.root)
    }

    /// A master's election key.
    pub fn election_key(&self, lease: i64) -> String {
        format!("{}master/{lease:016x}", self.root)
    }

    /// Prefix of region-server registrations.
    pub fn servers(&self) -> String {
        format!("{}rs/", self.root)
    }

    /// A region server's registration key.
    pub fn server(&self, server: &str) -> String {
        format!("{}rs/{server}", self.root)
    }

    /// Prefix of table records.
    pub fn tables(&self) -> String {
        format!("{}table/", self.root)
    }

    /// A table's record key.
    pub fn table(&self, table: &str) -> String {
        format!("{}table/{table}", self.root)
    }

    /// Prefix of region records.
    pub fn regions(&self) -> String {
        format!("{}region/", self.root)
    }

    /// Prefix of one table's region records.
    pub fn table_regions(&self, table: &str) -> String {
        format!("{}region/{table},", self.root)
    }

    /// A region's record key.
    pub fn region(&self, region: &str) -> String {
        format!("{}region/{region}", self.root)
    }

    /// Prefix of procedures.
    pub fn procs(&self) -> String {
        format!("{}proc/", self.root)
    }

    /// A procedure's key.
    pub fn proc(&self, id: &str) -> String {
        format!("{}proc/{id}", self.root)
    }

    /// Prefix of one server's orders.
    pub fn inbox(&self, server: &str) -> String {
        format!("{}inbox/{server}/", self.root)
    }

    /// An order to `server` about `region`.
    pub fn order(&self, server: &str, region: &str) -> String {
        format!("{}inbox/{server}/{region}", self.root)
    }

    /// Prefix of every acknowledgement.
    pub fn acks(&self) -> String {
        format!("{}ack/", self.root)
    }

    /// Prefix of one server's acknowledgements.
    pub fn server_acks(&self, server: &str) -> String {
        format!("{}ack/{server}/", self.root)
    }

    /// `server`'s acknowledgement about `region`.
    pub fn ack(&self, server: &str, region: &str) -> String {
        format!("{}ack/{server}/{region}", self.root)
    }

    /// Prefix of admin requests waiting for the active master.
    pub fn requests(&self) -> String {
        format!("{}request/", self.root)
    }

    /// An admin request.
    pub fn request(&self, id: &str) -> String {
        format!("{}request/{id}", self.root)
    }

    /// The outcome of an admin request (written by the master when it takes the request).
    pub fn result(&self, id: &str) -> String {
        format!("{}result/{id}", self.root)
    }

    /// A table's schema key (the schema is written by clients, read by region servers, and
    /// deleted with the table).
    pub fn schema(&self, table: &str) -> String {
        format!("{}schema/{table}", self.root)
    }

    /// Prefix of the namespaces created explicitly (HBase's namespaces; `default`, `hbase`
    /// and those of tables created before namespaces were recorded exist without a key).
    pub fn namespaces(&self) -> String {
        format!("{}namespace/", self.root)
    }

    /// A namespace's key: its `NamespaceDescriptor` (protobuf; empty = no properties).
    pub fn namespace(&self, name: &str) -> String {
        format!("{}namespace/{name}", self.root)
    }

    /// Prefix of the access grants (RFC 0026): `acl/<scope>/<who>` holds the letters.
    pub fn acls(&self) -> String {
        format!("{}acl/", self.root)
    }

    /// Prefix of the snapshots' records (RFC 0025).
    pub fn snapshots(&self) -> String {
        format!("{}snapshot/", self.root)
    }

    /// A snapshot's record: `taking …` while it is taken, `done …` once complete.
    pub fn snapshot(&self, name: &str) -> String {
        format!("{}snapshot/{name}", self.root)
    }

    /// Prefix of the records of tables that read a snapshot's files through links.
    pub fn links(&self) -> String {
        format!("{}link/", self.root)
    }

    /// The record of `table`, cloned or restored from a snapshot: the snapshot's name.
    pub fn link(&self, table: &str) -> String {
        format!("{}link/{table}", self.root)
    }

    /// Prefix of the records of tables being made from snapshots (clone, restore).
    pub fn makings(&self) -> String {
        format!("{}making/", self.root)
    }

    /// The record of `table` while it is made from a snapshot: resumed if its maker dies.
    pub fn making(&self, table: &str) -> String {
        format!("{}making/{table}", self.root)
    }

    /// Prefix of the region servers' load reports.
    pub fn loads(&self) -> String {
        format!("{}load/", self.root)
    }

    /// `server`'s load report.
    pub fn load(&self, server: &str) -> String {
        format!("{}load/{server}", self.root)
    }

    /// Prefix of the region servers' region statistics.
    pub fn metrics_prefix(&self) -> String {
        format!("{}metrics/", self.root)
    }

    /// `server`'s region statistics.
    pub fn metrics(&self, server: &str) -> String {
        format!("{}metrics/{server}", self.root)
    }

    /// Prefix of the cluster's settings (written by the active master).
    pub fn settings(&self) -> String {
        format!("{}setting/", self.root)
    }

    /// The balancer switch (`on` / `off`; absent: the master's configured default).
    pub fn balancer_switch(&self) -> String {
        format!("{}setting/balancer", self.root)
    }

    /// The split or merge switch (`on` / `off`; absent: on), by [`Switch::name`].
    ///
    /// [`Switch::name`]: crate::master::Switch::name
    pub fn switch(&self, name: &str) -> String {
        format!("{}setting/{name}", self.root)
    }

    /// Prefix of decommissioned (draining) servers.
    pub fn drains(&self) -> String {
        format!("{}drain/", self.root)
    }

    /// The mark of decommissioned `server`.
    pub fn drain(&self, server: &str) -> String {
        format!("{}drain/{server}", self.root)
    }

    /// Prefix of dead servers (crashes recovered, listed by `status`).
    pub fn deads(&self) -> String {
        format!("{}dead/", self.root)
    }

    /// The record of dead `server`.
    pub fn dead(&self, server: &str) -> String {
        format!("{}dead/{server}", self.root)
    }

    /// The part of `key` after `prefix`, if it starts with it.
    pub fn strip<'a>(key: &'a str, prefix: &str) -> Option<&'a str> {
        key.strip_prefix(prefix)
    }

    /// Splits `<server>/<region>` (an inbox or ack key after its prefix).
    pub fn split_server_region(rest: &str) -> Option<(&str, &str)> {
        rest.split_once('/')
    }
}

/// The region id of region number `seq` of `table`: `<table>,<seq as 8 hex digits>`.
pub fn region_id(table: &str, seq: u32) -> String {
    format!("{table},{seq:08x}")
}

/// The name of region number `seq` of the incarnation `incarnation` of `table`:
/// `<table>,<incarnation>.<seq as 8 hex digits>` (`<table>,<seq>` for the empty incarnation).
pub fn incarnation_region_id(table: &str, incarnation: &str, seq: u32) -> String {
    if incarnation.is_empty() {
        region_id(table, seq)
    } else {
        format!("{table},{incarnation}.{seq:08x}")
    }
}

/// The incarnation of a table from the id of the procedure creating it
/// (`<epoch hex>-<counter hex>`, unique in the cluster): leading zeros dropped.
pub fn incarnation_of(proc_id: &str) -> String {
    proc_id
        .split('-')
        .map(|p| {
            let t = p.trim_start_matches('0');
            if t.is_empty() {
                "0"
            } else {
                t
            }
        })
        .collect::<Vec<_>>()
        .join("-")
}

/// The table of a region id.
pub fn region_table(region: &str) -> &str {
    region.rsplit_once(',').map_or(region, |(t, _)| t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_nest_under_the_root() {
        let l = Layout::new("/strata/c1");
        assert_eq!(
            l.region(&region_id("ns:t", 3)),
            "/strata/c1/region/ns:t,00000003"
        );
        assert!(l
            .region(&region_id("t", 0))
            .starts_with(&l.table_regions("t")));
        assert!(!l
            .region(&region_id("t2", 0))
            .starts_with(&l.table_regions("t")));
        assert_eq!(region_table("ns:t,00000003"), "ns:t");
        let inc = incarnation_of("000000000000001a-00000003");
        assert_eq!(inc, "1a-3");
        assert_eq!(incarnation_region_id("ns:t", &inc, 2), "ns:t,1a-3.00000002");
        assert_eq!(region_table("ns:t,1a-3.00000002"), "ns:t");
        assert_eq!(incarnation_region_id("t", "", 2), region_id("t", 2));
        let ack = l.ack("h:1:5", "t,00000001");
        let rest = Layout::strip(&ack, &l.acks()).unwrap();
        assert_eq!(
            Layout::split_server_region(rest),
            Some(("h:1:5", "t,00000001"))
        );
    }
}
