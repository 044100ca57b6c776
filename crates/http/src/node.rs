//! The endpoint of a cluster process (`strata master`, `strata regionserver`), which has no
//! standalone master: the process describes itself through a [`NodeView`] (tables for its
//! page, figures for `/metrics`), and a region server with data also hands over its
//! [`RegionServer`], whose engine figures and region pages are the standalone ones.
//!
//! ```text
//!  GET /          the process: its view's sections, its tables' key-access heatmaps
//!                 (masters), then the regions open here
//!  GET /table?name=T[&kind=reads|writes|all]   one table: the view's sections and heatmap
//!  GET /region?id=N   one open region (region servers with data)
//!  GET /slow          the slow-operation log (region servers with data)
//!  GET /history       flushes and compactions
//!  GET /config        settings
//!  GET /metrics       the view's figures, then the engine's
//! ```

use std::collections::HashMap;
use std::fmt::Write as _;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{RawQuery, State as Extract};
use axum::http::{header, HeaderMap};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use strata_server::observe::HeatmapView;
use strata_server::RegionServer;

use crate::metrics::Figure;
use crate::page_error::PageError;
use crate::pages;
use crate::pages::layout::{bytes, esc, key, page, table};
use crate::query;
use crate::rates::Rates;

/// One table of a process page: plain-text cells (escaped when rendered); a cell starting
/// with `#` is a number (right-aligned).
#[derive(Clone, Debug, Default)]
pub struct Section {
    /// The heading.
    pub title: String,
    /// A sentence above the table (may be empty).
    pub note: String,
    /// Column headings.
    pub head: Vec<&'static str>,
    /// Rows of cells.
    pub rows: Vec<Vec<String>>,
}

/// A table's page on a cluster process.
#[derive(Clone, Debug, Default)]
pub struct TablePage {
    /// Tables of the page (regions, load).
    pub sections: Vec<Section>,
    /// The table's key-access heatmap.
    pub heatmap: HeatmapView,
}

/// Most tables whose heatmap the process page shows (the others are linked).
pub const HOME_HEATMAPS: usize = 8;

/// What a cluster process shows of itself. Its methods may block (they read etcd): the
/// endpoint calls them off its async threads.
pub trait NodeView: Send + Sync + 'static {
    /// The page's title (`Master 127.0.0.1:16000`).
    fn title(&self) -> String;

    /// The process's region server, if it serves data.
    fn server(&self) -> Option<&Arc<RegionServer>>;

    /// The tables of the process page.
    ///
    /// # Errors
    /// What it reads from is unavailable (shown on the page, status 503).
    fn sections(&self) -> Result<Vec<Section>, String>;

    /// Figures for `/metrics` besides the region server's (a figure that cannot be read now
    /// is left out).
    fn figures(&self) -> Vec<Figure>;

    /// Tables with a key-access heatmap, each with it (shown on the process page, the first
    /// [`HOME_HEATMAPS`]). The default has none.
    fn heatmaps(&self) -> Vec<(String, HeatmapView)> {
        Vec::new()
    }

    /// The page of table `name`; `None` if there is no such table (or the process has no
    /// table pages: the default).
    ///
    /// # Errors
    /// What it reads from is unavailable.
    fn table(&self, name: &str) -> Result<Option<TablePage>, String> {
        let _ = name;
        Ok(None)
    }
}

/// What the node routes read.
#[derive(Clone)]
pub struct NodeState {
    view: Arc<dyn NodeView>,
    settings: Arc<Vec<(String, String)>>,
    /// Recent request rates (region servers with data).
    pub rates: Arc<Rates>,
    addr: SocketAddr,
}

impl NodeState {
    /// The state of an endpoint at `addr` showing `view`.
    pub fn new(
        view: Arc<dyn NodeView>,
        settings: Vec<(String, String)>,
        addr: SocketAddr,
    ) -> NodeState {
        NodeState {
            view,
            settings: Arc::new(settings),
            rates: Arc::new(Rates::default()),
            addr,
        }
    }

    /// The region server, if any.
    pub fn server(&self) -> Option<Arc<RegionServer>> {
        self.view.server().cloned()
    }
}

type Page = Result<Response, PageError>;

fn html(body: String) -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        body,
    )
        .into_response()
}

fn params(raw: Option<String>, allowed: &[&str]) -> Result<HashMap<String, String>, PageError> {
    Ok(query::parse(raw.as_deref(), allowed)?)
}

fn no_server() -> PageError {
    PageError::NotFound("this process serves no regions".to_owned())
}

/// Runs a blocking read of the view off the async threads.
async fn blocking<T: Send + 'static>(
    s: &NodeState,
    f: impl FnOnce(&dyn NodeView) -> T + Send + 'static,
) -> Result<T, PageError> {
    let view = s.view.clone();
    tokio::task::spawn_blocking(move || f(view.as_ref()))
        .await
        .map_err(|e| PageError::Unavailable(format!("the page failed: {e}")))
}

/// The routes of a cluster process's endpoint.
pub fn router(state: NodeState) -> Router {
    Router::new()
        .route("/", get(home))
        .route("/region", get(region))
        .route("/table", get(table_page))
        .route("/slow", get(slow))
        .route("/history", get(history))
        .route("/config", get(config))
        .route("/metrics", get(metrics))
        .fallback(not_found)
        .with_state(state)
}

/// Renders `sections` as page HTML.
pub fn render_sections(sections: &[Section]) -> String {
    let mut body = String::new();
    for s in sections {
        let _ = write!(body, "<h2>{}</h2>", esc(&s.title));
        if !s.note.is_empty() {
            let _ = write!(body, "<p>{}</p>", esc(&s.note));
        }
        let rows: Vec<Vec<String>> = s
            .rows
            .iter()
            .map(|r| {
                r.iter()
                    .map(|c| match c.strip_prefix('#') {
                        Some(n) => format!("#{}", esc(n)),
                        None => esc(c),
                    })
                    .collect()
            })
            .collect();
        body.push_str(&table(&s.head, &rows));
    }
    body
}

/// The regions open on `host`, linked to their pages.
fn open_regions(host: &RegionServer, rates: &Rates) -> String {
    let rates = rates.per_table();
    let mut hosted = host.hosted_regions();
    hosted.sort_by(|a, b| {
        let (a, b) = (a.region.info(), b.region.info());
        (&a.table, &a.start_row).cmp(&(&b.table, &b.start_row))
    });
    let rows: Vec<Vec<String>> = hosted
        .iter()
        .map(|h| {
            let info = h.region.info();
            let (mut files, mut file_bytes, mut mem) = (0, 0, 0);
            for st in h.region.store_stats() {
                files += st.files;
                file_bytes += st.file_bytes;
                mem += st.memtable_bytes;
            }
            vec![
                format!("<a href=\"/region?id={id}\">{id}</a>", id = info.region_id),
                format!(
                    "<a href=\"/table?name={}\">{}</a>",
                    crate::query::encode(&info.table),
                    esc(&info.table)
                ),
                format!("<code>{}</code>", key(&info.start_row)),
                format!("<code>{}</code>", key(&info.end_row)),
                format!("#{files}"),
                format!("#{}", bytes(file_bytes)),
                format!("#{}", bytes(mem)),
            ]
        })
        .collect();
    let total: f64 = rates.values().sum();
    format!(
        "<h2>Regions open here</h2><p>{} regions, {total:.1} requests/s.</p>{}",
        hosted.len(),
        table(
            &[
                "Region",
                "Table",
                "Start row",
                "End row",
                "Store files",
                "File bytes",
                "Memtables"
            ],
            &rows
        )
    )
}

async fn home(Extract(s): Extract<NodeState>, RawQuery(q): RawQuery) -> Page {
    params(q, &[])?;
    let (title, sections, heatmaps) =
        blocking(&s, |v| (v.title(), v.sections(), v.heatmaps())).await?;
    let mut body = match sections {
        Ok(sections) => render_sections(&sections),
        Err(e) => {
            return Err(PageError::Unavailable(format!(
                "{title}: cannot read the cluster: {e}"
            )))
        }
    };
    body.push_str(&home_heatmaps(&heatmaps));
    if let Some(host) = s.server() {
        body.push_str(&open_regions(&host, &s.rates));
        body.push_str(&pages::engine::render(&host));
    }
    Ok(html(page(&title, &body)))
}

/// The key-access heatmaps of the process page.
fn home_heatmaps(heatmaps: &[(String, HeatmapView)]) -> String {
    if heatmaps.is_empty() {
        return String::new();
    }
    let mut body = format!(
        "<h2>Key access by table</h2><p>Reads and writes by key range over time, from the \
         region servers' load reports ({} tables).</p>",
        heatmaps.len()
    );
    for (name, view) in heatmaps.iter().take(HOME_HEATMAPS) {
        let base = format!("/table?name={}", crate::query::encode(name));
        let _ = write!(body, "<h3><a href=\"{base}\">{}</a></h3>", esc(name));
        body.push_str(&pages::heatmap::block(
            view,
            pages::heatmap::Kind::All,
            &base,
        ));
    }
    if heatmaps.len() > HOME_HEATMAPS {
        let more: Vec<String> = heatmaps[HOME_HEATMAPS..]
            .iter()
            .map(|(n, _)| {
                format!(
                    "<a href=\"/table?name={}\">{}</a>",
                    crate::query::encode(n),
                    esc(n)
                )
            })
            .collect();
        let _ = write!(body, "<p>Other tables: {}.</p>", more.join(", "));
    }
    body
}

async fn table_page(Extract(s): Extract<NodeState>, RawQuery(q): RawQuery) -> Page {
    let p = params(q, &["name", "kind"])?;
    let kind = pages::heatmap::parse_kind(p.get("kind").map(String::as_str))?;
    let name = p
        .get("name")
        .ok_or_else(|| PageError::BadRequest("missing parameter 'name'".to_owned()))?
        .clone();
    let wanted = name.clone();
    let (title, found) = blocking(&s, move |v| (v.title(), v.table(&wanted))).await?;
    let table = found
        .map_err(|e| PageError::Unavailable(format!("{title}: cannot read the cluster: {e}")))?
        .ok_or_else(|| PageError::NotFound(format!("no table '{name}'")))?;
    let mut body = render_sections(&table.sections);
    body.push_str("<h2>Key access</h2>");
    let base = format!("/table?name={}", crate::query::encode(&name));
    body.push_str(&pages::heatmap::block(&table.heatmap, kind, &base));
    Ok(html(page(&format!("Table {name}"), &body)))
}

async fn region(Extract(s): Extract<NodeState>, RawQuery(q): RawQuery) -> Page {
    let p = params(q, &["id"])?;
    let host = s.server().ok_or_else(no_server)?;
    let id = p
        .get("id")
        .ok_or_else(|| PageError::BadRequest("missing parameter 'id'".to_owned()))?
        .parse::<u64>()
        .map_err(|_| PageError::BadRequest("parameter 'id' must be a region id".to_owned()))?;
    Ok(html(pages::region::render(&host, id)?))
}

async fn slow(Extract(s): Extract<NodeState>, RawQuery(q): RawQuery) -> Page {
    params(q, &[])?;
    let host = s.server().ok_or_else(no_server)?;
    Ok(html(pages::slow::render(&host)))
}

async fn history(RawQuery(q): RawQuery) -> Page {
    params(q, &[])?;
    Ok(html(pages::history::render()))
}

async fn config(Extract(s): Extract<NodeState>, RawQuery(q): RawQuery) -> Page {
    params(q, &[])?;
    let host = s.server();
    Ok(html(pages::config::render(
        host.as_deref(),
        s.addr,
        &s.settings,
    )))
}

async fn metrics(
    Extract(s): Extract<NodeState>,
    RawQuery(q): RawQuery,
    headers: HeaderMap,
) -> Page {
    params(q, &[])?;
    let body = blocking(&s, |v| {
        crate::metrics::render_node(v.server(), &v.figures())
    })
    .await?;
    let (content_type, body) = crate::metrics::negotiate(crate::page_error::accept(&headers), body);
    Ok((
        [
            (header::CONTENT_TYPE, content_type),
            (header::CACHE_CONTROL, "no-store"),
        ],
        body,
    )
        .into_response())
}

async fn not_found() -> PageError {
    PageError::NotFound("no such page".to_owned())
}
