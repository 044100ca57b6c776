//! What the HTTP endpoints of cluster processes show (RFC 0018): [`RegionServerView`] (its
//! regions, lease and orders, with the engine's figures) and [`MasterView`] (the cluster as
//! etcd records it: masters, servers, tables, regions and where they are, procedures).
//! The master's view reads etcd at request time, and shows each table's key-access heatmap
//! from the [`ClusterHeatmap`] its process feeds from the load reports (`heat_feed`); a
//! region server's view reads only its own counters.

use std::collections::BTreeMap;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use parking_lot::Mutex;
use strata_cluster::kv::{range_all, Kv};
use strata_cluster::layout::Layout;
use strata_cluster::record::{Procedure, RegionRecord};
use strata_cluster::status::ClusterStatus;
use strata_http::{Figure, FigureKind, NodeView, Section, TablePage};
use strata_server::observe::HeatmapView;
use strata_server::RegionServer;

use crate::counted::{KvCounts, OrderCounts};
use crate::heat::ClusterHeatmap;
use crate::heat_feed::wall_ms;
use crate::serve::Gate;

/// At most this many regions are listed on the master's page (all are counted).
pub const MAX_LISTED_REGIONS: usize = 2000;

fn gauge(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

fn etcd_figures(counts: &KvCounts) -> Vec<Figure> {
    let rows = counts.by_kind();
    vec![
        Figure {
            name: "strata_etcd_operations",
            help: "Requests this process made to etcd, by kind.",
            kind: FigureKind::Counter,
            rows: rows
                .iter()
                .map(|(k, n, _)| (vec![("op", (*k).to_owned())], gauge(*n)))
                .collect(),
        },
        Figure {
            name: "strata_etcd_operation_errors",
            help: "Requests to etcd that failed (unavailable or refused), by kind.",
            kind: FigureKind::Counter,
            rows: rows
                .iter()
                .map(|(k, _, e)| (vec![("op", (*k).to_owned())], gauge(*e)))
                .collect(),
        },
    ]
}

/// What the coordination loop of a region server publishes for its endpoint.
#[derive(Debug, Default)]
pub struct Served {
    /// Regions served now (cluster names) with their epochs.
    pub regions: Mutex<Vec<(String, u64)>>,
    /// Times the served set changed.
    pub changes: AtomicU64,
}

/// The endpoint view of a region server with data.
pub struct RegionServerView {
    name: String,
    server: Arc<RegionServer>,
    gate: Arc<Gate>,
    kv: Arc<KvCounts>,
    orders: Arc<OrderCounts>,
    served: Arc<Served>,
}

impl RegionServerView {
    /// The view of server `name` (`host:port:startcode`).
    pub fn new(
        name: String,
        server: Arc<RegionServer>,
        gate: Arc<Gate>,
        kv: Arc<KvCounts>,
        orders: Arc<OrderCounts>,
        served: Arc<Served>,
    ) -> Self {
        RegionServerView {
            name,
            server,
            gate,
            kv,
            orders,
            served,
        }
    }
}

impl NodeView for RegionServerView {
    fn title(&self) -> String {
        format!("Region server {}", self.name)
    }

    fn server(&self) -> Option<&Arc<RegionServer>> {
        Some(&self.server)
    }

    fn sections(&self) -> Result<Vec<Section>, String> {
        let serving = self.gate.is_open();
        let left = self.gate.deadline().saturating_sub(self.gate.now());
        let regions = self.served.regions.lock().clone();
        Ok(vec![
            Section {
                title: "Coordination".into(),
                note: String::new(),
                head: vec!["", ""],
                rows: vec![
                    vec!["name".into(), self.name.clone()],
                    vec![
                        "serving".into(),
                        if serving {
                            format!("yes (lease deadline in {left} ms)")
                        } else {
                            "no (lease not held)".into()
                        },
                    ],
                    vec!["lease renewals".into(), format!("#{}", self.kv.renewals())],
                ],
            },
            Section {
                title: "Regions assigned here".into(),
                note: format!("{} regions, as etcd's orders assign them.", regions.len()),
                head: vec!["Region", "Epoch"],
                rows: regions
                    .into_iter()
                    .map(|(r, e)| vec![r, format!("#{e}")])
                    .collect(),
            },
            Section {
                title: "Orders carried out".into(),
                note: String::new(),
                head: vec!["Order", "Outcome", "Count"],
                rows: self
                    .orders
                    .rows()
                    .into_iter()
                    .map(|(o, r, n)| vec![o.into(), r.into(), format!("#{n}")])
                    .collect(),
            },
        ])
    }

    fn figures(&self) -> Vec<Figure> {
        let mut out = vec![
            Figure::single(
                "strata_cluster_serving",
                "1 while this region server holds its lease and serves requests.",
                FigureKind::Gauge,
                i64::from(self.gate.is_open()),
            ),
            Figure::single(
                "strata_cluster_regions_assigned",
                "Regions the cluster assigns to this server (opened under etcd's orders).",
                FigureKind::Gauge,
                gauge(self.served.regions.lock().len() as u64),
            ),
            Figure::single(
                "strata_cluster_lease_renewals",
                "Lease renewals that found the lease.",
                FigureKind::Counter,
                gauge(self.kv.renewals()),
            ),
            Figure {
                name: "strata_cluster_orders",
                help: "Open and close orders carried out, by order and outcome.",
                kind: FigureKind::Counter,
                rows: self
                    .orders
                    .rows()
                    .into_iter()
                    .map(|(o, r, n)| {
                        (
                            vec![("order", o.to_owned()), ("outcome", r.to_owned())],
                            gauge(n),
                        )
                    })
                    .collect(),
            },
        ];
        out.extend(etcd_figures(&self.kv));
        out
    }
}

/// The endpoint view of a process running the master and a region server (a cluster of one):
/// the region server's pages and figures, and the master's tables, table pages and heatmaps.
pub struct OneProcessView<K> {
    server: RegionServerView,
    master: MasterView<K>,
}

impl<K: Kv + Send + Sync + 'static> OneProcessView<K> {
    /// The view of `server`'s process, which also runs the master `master` describes.
    pub fn new(server: RegionServerView, master: MasterView<K>) -> Self {
        OneProcessView { server, master }
    }
}

impl<K: Kv + Send + Sync + 'static> NodeView for OneProcessView<K> {
    fn title(&self) -> String {
        format!("Standalone {}", self.master.address)
    }

    fn server(&self) -> Option<&Arc<RegionServer>> {
        self.server.server()
    }

    fn sections(&self) -> Result<Vec<Section>, String> {
        let mut out = self.master.sections()?;
        out.extend(self.server.sections()?);
        Ok(out)
    }

    fn figures(&self) -> Vec<Figure> {
        // Both count the same coordination store's operations: a name is reported once.
        let mut out = self.server.figures();
        let names: std::collections::BTreeSet<&'static str> = out.iter().map(|f| f.name).collect();
        out.extend(
            self.master
                .figures()
                .into_iter()
                .filter(|f| !names.contains(f.name)),
        );
        out
    }

    /// From the region server's own request observer: every region is here, and its
    /// heatmaps sample row keys as they are accessed (no wait for a load report).
    fn heatmaps(&self) -> Vec<(String, HeatmapView)> {
        let now = std::time::Instant::now();
        self.server
            .server
            .observer()
            .tables()
            .iter()
            .filter_map(|t| Some((t.name().to_owned(), t.heatmap(now)?)))
            .collect()
    }

    fn table(&self, name: &str) -> Result<Option<TablePage>, String> {
        let Some(mut page) = self.master.table(name)? else {
            return Ok(None);
        };
        if let Some(view) = self
            .server
            .server
            .observer()
            .find(name)
            .and_then(|t| t.heatmap(std::time::Instant::now()))
        {
            page.heatmap = view;
        }
        Ok(Some(page))
    }
}

/// The endpoint view of a master: the cluster read from etcd at request time.
pub struct MasterView<K> {
    kv: Arc<K>,
    layout: Layout,
    address: String,
    counts: Arc<KvCounts>,
    heat: Arc<Mutex<ClusterHeatmap>>,
}

impl<K: Kv + Send + Sync + 'static> MasterView<K> {
    /// The view of the master announcing `address`, reading the cluster under `layout`
    /// through `kv`; `counts` are the master's own etcd operations. (An etcd client owns a
    /// runtime: the caller keeps a handle to `kv` and drops it last, off the endpoint's.)
    /// `heat` is the heatmap its process feeds (see `heat_feed`).
    pub fn new(
        kv: Arc<K>,
        layout: Layout,
        address: String,
        counts: Arc<KvCounts>,
        heat: Arc<Mutex<ClusterHeatmap>>,
    ) -> Self {
        MasterView {
            kv,
            layout,
            address,
            counts,
            heat,
        }
    }

    fn regions(&self) -> Result<Vec<(String, RegionRecord)>, String> {
        self.regions_under(&self.layout.regions())
    }

    /// The region records of `table`, in start-key order.
    fn table_regions(&self, table: &str) -> Result<Vec<(String, RegionRecord)>, String> {
        let mut regions = self.regions_under(&self.layout.table_regions(table))?;
        regions.sort_by(|a, b| a.1.start.cmp(&b.1.start));
        Ok(regions)
    }

    fn regions_under(&self, prefix: &str) -> Result<Vec<(String, RegionRecord)>, String> {
        let names = self.layout.regions();
        Ok(range_all(self.kv.as_ref(), prefix, 1000)
            .map_err(|e| e.to_string())?
            .kvs
            .into_iter()
            .filter_map(|kv| {
                let name = kv.key.strip_prefix(&names)?.to_owned();
                RegionRecord::decode(&kv.value).ok().map(|r| (name, r))
            })
            .collect())
    }
}

/// The kind of a procedure: its variant's name.
pub fn procedure_kind(p: &Procedure) -> String {
    let debug = format!("{p:?}");
    debug
        .split(|c: char| !c.is_alphanumeric())
        .next()
        .unwrap_or_default()
        .to_owned()
}

/// Servers that died and are not recovered yet: those of crash procedures and those still
/// recorded as holding open regions.
fn dead_servers(status: &ClusterStatus) -> Vec<String> {
    let mut dead: Vec<String> = status
        .regions_by_server
        .keys()
        .filter(|s| !status.servers.contains(s))
        .cloned()
        .collect();
    for (_, p) in &status.procedures {
        if let Procedure::ServerCrash { server, .. } = p {
            if !dead.contains(server) {
                dead.push(server.clone());
            }
        }
    }
    dead.sort();
    dead
}

impl<K: Kv + Send + Sync + 'static> NodeView for MasterView<K> {
    fn title(&self) -> String {
        format!("Master {}", self.address)
    }

    fn server(&self) -> Option<&Arc<RegionServer>> {
        None
    }

    fn sections(&self) -> Result<Vec<Section>, String> {
        let status =
            ClusterStatus::read(self.kv.as_ref(), &self.layout).map_err(|e| e.to_string())?;
        let regions = self.regions()?;
        let masters = Section {
            title: "Masters".into(),
            note: String::new(),
            head: vec!["Master", "Role"],
            rows: status
                .masters
                .iter()
                .enumerate()
                .map(|(i, m)| {
                    let role = if i == 0 { "active" } else { "standing by" };
                    let me = if *m == self.address {
                        " (this one)"
                    } else {
                        ""
                    };
                    vec![m.clone(), format!("{role}{me}")]
                })
                .collect(),
        };
        let mut servers: Vec<Vec<String>> = status
            .servers
            .iter()
            .map(|s| {
                let n = status.regions_by_server.get(s).copied().unwrap_or(0);
                let rate = status
                    .loads
                    .get(s)
                    .map_or_else(String::new, |l| format!("#{:.1}", l.requests_per_sec()));
                vec![s.clone(), "live".into(), format!("#{n}"), rate]
            })
            .collect();
        for s in dead_servers(&status) {
            let n = status.regions_by_server.get(&s).copied().unwrap_or(0);
            servers.push(vec![
                s,
                "dead (recovering)".into(),
                format!("#{n}"),
                String::new(),
            ]);
        }
        let total: f64 = status.loads.values().map(|l| l.requests_per_sec()).sum();
        let tables = Section {
            title: "Tables".into(),
            note: String::new(),
            head: vec!["Table", "State", "Regions"],
            rows: status
                .tables
                .iter()
                .map(|(t, s, n)| vec![t.clone(), format!("{s:?}"), format!("#{n}")])
                .collect(),
        };
        let states: Vec<String> = status
            .regions_by_state
            .iter()
            .map(|(s, n)| format!("{n} {s}"))
            .collect();
        let listed = regions.len().min(MAX_LISTED_REGIONS);
        let region_rows = regions
            .iter()
            .take(MAX_LISTED_REGIONS)
            .map(|(name, r)| {
                vec![
                    name.clone(),
                    strata_model::ops::escape(&r.start),
                    strata_model::ops::escape(&r.end),
                    format!("{:?}", r.state).to_lowercase(),
                    r.server.clone().unwrap_or_default(),
                    format!("#{}", r.epoch),
                    r.proc.clone().unwrap_or_default(),
                ]
            })
            .collect();
        let procedures = Section {
            title: "Procedures".into(),
            note: format!("{} in progress.", status.procedures.len()),
            head: vec!["Id", "Kind", "Detail"],
            rows: status
                .procedures
                .iter()
                .map(|(id, p)| vec![id.clone(), procedure_kind(p), format!("{p:?}")])
                .collect(),
        };
        Ok(vec![
            masters,
            Section {
                title: "Region servers".into(),
                note: format!(
                    "{total:.1} requests/s in all, as each server last reported (every 5 s)."
                ),
                head: vec!["Server", "State", "Open regions", "Requests/s"],
                rows: servers,
            },
            tables,
            Section {
                title: "Regions".into(),
                note: format!(
                    "{} regions ({}); {listed} listed.",
                    regions.len(),
                    if states.is_empty() {
                        "none".to_owned()
                    } else {
                        states.join(", ")
                    }
                ),
                head: vec![
                    "Region",
                    "Start row",
                    "End row",
                    "State",
                    "Server",
                    "Epoch",
                    "Procedure",
                ],
                rows: region_rows,
            },
            procedures,
        ])
    }

    fn heatmaps(&self) -> Vec<(String, HeatmapView)> {
        let now = wall_ms();
        let tables = self.heat.lock().tables();
        tables
            .into_iter()
            .map(|t| {
                let starts: Vec<Vec<u8>> = self
                    .table_regions(&t)
                    .map(|r| r.into_iter().map(|(_, r)| r.start).collect())
                    .unwrap_or_default();
                let view = self.heat.lock().view(&t, now, &starts);
                (t, view)
            })
            .collect()
    }

    fn table(&self, name: &str) -> Result<Option<TablePage>, String> {
        let status =
            ClusterStatus::read(self.kv.as_ref(), &self.layout).map_err(|e| e.to_string())?;
        let Some((_, state, _)) = status.tables.iter().find(|(t, _, _)| t == name) else {
            return Ok(None);
        };
        let regions = self.table_regions(name)?;
        let mut rates: BTreeMap<&str, (u64, strata_cluster::load::Accesses)> = BTreeMap::new();
        for load in status.loads.values() {
            for (r, m) in &load.per_region {
                let c = load.counts.get(r).copied().unwrap_or_default();
                rates.insert(r.as_str(), (*m, c));
            }
        }
        let total: u64 = regions
            .iter()
            .filter_map(|(n, _)| rates.get(n.as_str()).map(|(m, _)| m))
            .sum();
        let rows = regions
            .iter()
            .map(|(n, r)| {
                let (milli, c) = rates.get(n.as_str()).copied().unwrap_or_default();
                #[expect(clippy::cast_precision_loss, reason = "a rate for display")]
                let rate = milli as f64 / 1000.0;
                vec![
                    n.clone(),
                    strata_model::ops::escape(&r.start),
                    strata_model::ops::escape(&r.end),
                    format!("{:?}", r.state).to_lowercase(),
                    r.server.clone().unwrap_or_default(),
                    format!("#{rate:.1}"),
                    format!("#{}", c.reads),
                    format!("#{}", c.writes),
                ]
            })
            .collect();
        let starts: Vec<Vec<u8>> = regions.iter().map(|(_, r)| r.start.clone()).collect();
        let heatmap = self.heat.lock().view(name, wall_ms(), &starts);
        #[expect(clippy::cast_precision_loss, reason = "a rate for display")]
        let total = total as f64 / 1000.0;
        Ok(Some(TablePage {
            sections: vec![Section {
                title: "Regions".into(),
                note: format!(
                    "{:?}; {} regions; {total:.1} requests/s. Reads and writes are those of \
                     each region's server's last load report.",
                    state,
                    regions.len()
                ),
                head: vec![
                    "Region",
                    "Start row",
                    "End row",
                    "State",
                    "Server",
                    "Requests/s",
                    "Reads",
                    "Writes",
                ],
                rows,
            }],
            heatmap,
        }))
    }

    fn figures(&self) -> Vec<Figure> {
        let mut out = Vec::new();
        match ClusterStatus::read(self.kv.as_ref(), &self.layout) {
            Ok(status) => {
                let active = status.masters.first() == Some(&self.address);
                out.push(Figure::single(
                    "strata_master_active",
                    "1 if this master is the active one, 0 if it stands by.",
                    FigureKind::Gauge,
                    i64::from(active),
                ));
                out.push(Figure::single(
                    "strata_cluster_masters",
                    "Masters registered for election (active and standing by).",
                    FigureKind::Gauge,
                    gauge(status.masters.len() as u64),
                ));
                let dead = dead_servers(&status).len();
                out.push(Figure {
                    name: "strata_cluster_servers",
                    help: "Region servers: live (registered) and dead (not yet recovered).",
                    kind: FigureKind::Gauge,
                    rows: vec![
                        (
                            vec![("state", "live".into())],
                            gauge(status.servers.len() as u64),
                        ),
                        (vec![("state", "dead".into())], gauge(dead as u64)),
                    ],
                });
                out.push(Figure::single(
                    "strata_cluster_tables",
                    "Tables recorded in etcd.",
                    FigureKind::Gauge,
                    gauge(status.tables.len() as u64),
                ));
                let mut by_state: BTreeMap<String, u64> =
                    ["offline", "opening", "open", "closing", "closed"]
                        .iter()
                        .map(|s| ((*s).to_owned(), 0))
                        .collect();
                for (s, n) in &status.regions_by_state {
                    *by_state.entry(s.clone()).or_default() += *n as u64;
                }
                out.push(Figure {
                    name: "strata_cluster_regions",
                    help: "Regions by state, as etcd records them.",
                    kind: FigureKind::Gauge,
                    rows: by_state
                        .iter()
                        .map(|(s, n)| (vec![("state", s.clone())], gauge(*n)))
                        .collect(),
                });
                let rit: u64 = by_state
                    .iter()
                    .filter(|(s, _)| !matches!(s.as_str(), "open" | "closed"))
                    .map(|(_, n)| *n)
                    .sum();
                out.push(Figure::single(
                    "strata_cluster_regions_in_transition",
                    "Regions neither open nor closed (offline, opening, closing).",
                    FigureKind::Gauge,
                    gauge(rit),
                ));
                let mut kinds: BTreeMap<String, u64> = BTreeMap::new();
                for (_, p) in &status.procedures {
                    *kinds.entry(procedure_kind(p)).or_default() += 1;
                }
                out.push(Figure {
                    name: "strata_cluster_procedures",
                    help: "Procedures in progress, by kind.",
                    kind: FigureKind::Gauge,
                    rows: kinds
                        .into_iter()
                        .map(|(k, n)| (vec![("kind", k)], gauge(n)))
                        .collect(),
                });
                out.push(Figure::single(
                    "strata_cluster_up",
                    "1 if etcd answered this scrape's reads.",
                    FigureKind::Gauge,
                    1,
                ));
            }
            Err(e) => {
                tracing::warn!(error = %e, "reading the cluster for /metrics failed");
                out.push(Figure::single(
                    "strata_cluster_up",
                    "1 if etcd answered this scrape's reads.",
                    FigureKind::Gauge,
                    0,
                ));
            }
        }
        out.extend(etcd_figures(&self.counts));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn procedure_kinds_are_variant_names() {
        let p = Procedure::ServerCrash {
            server: "h:1:2".into(),
            step: strata_cluster::record::CrashStep::Fence,
        };
        assert_eq!(procedure_kind(&p), "ServerCrash");
    }
}
