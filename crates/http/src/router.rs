//! Routes, shared state, and the mapping of page errors to HTTP statuses.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{RawQuery, State as Extract};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use strata_master::Master;

use crate::pages;
use crate::query::{self, BadQuery};
use crate::rates::Rates;

/// What every handler reads.
#[derive(Clone)]
pub struct State {
    /// The process's master (and through it the region server).
    pub master: Arc<Master>,
    /// Extra configuration rows (the process's flags).
    pub settings: Arc<Vec<(String, String)>>,
    /// Recent request rates.
    pub rates: Arc<Rates>,
    /// Where this endpoint listens.
    pub addr: SocketAddr,
}

impl State {
    /// The state of an endpoint at `addr`.
    pub fn new(master: Arc<Master>, settings: Vec<(String, String)>, addr: SocketAddr) -> State {
        State {
            master,
            settings: Arc::new(settings),
            rates: Arc::new(Rates::default()),
            addr,
        }
    }
}

/// Why a page cannot be shown.
#[derive(Debug)]
pub enum PageError {
    /// A bad query string (400).
    BadRequest(String),
    /// No such table or region (404).
    NotFound(String),
    /// What the page reads from cannot be reached now (503).
    Unavailable(String),
}

impl From<BadQuery> for PageError {
    fn from(e: BadQuery) -> Self {
        PageError::BadRequest(e.0)
    }
}

impl IntoResponse for PageError {
    fn into_response(self) -> Response {
        let (status, message) = match self {
            PageError::BadRequest(m) => (StatusCode::BAD_REQUEST, m),
            PageError::NotFound(m) => (StatusCode::NOT_FOUND, m),
            PageError::Unavailable(m) => (StatusCode::SERVICE_UNAVAILABLE, m),
        };
        let body = pages::layout::page(
            status.canonical_reason().unwrap_or("Error"),
            &format!("<p class=\"error\">{}</p>", pages::layout::esc(&message)),
        );
        (status, html_headers(), body).into_response()
    }
}

fn html_headers() -> [(header::HeaderName, &'static str); 2] {
    [
        (header::CONTENT_TYPE, "text/html; charset=utf-8"),
        (header::CACHE_CONTROL, "no-store"),
    ]
}

type Page = Result<Response, PageError>;

fn html(body: String) -> Response {
    (html_headers(), body).into_response()
}

fn params(raw: Option<String>, allowed: &[&str]) -> Result<HashMap<String, String>, PageError> {
    Ok(query::parse(raw.as_deref(), allowed)?)
}

fn required<'a>(p: &'a HashMap<String, String>, name: &str) -> Result<&'a str, PageError> {
    p.get(name)
        .map(String::as_str)
        .ok_or_else(|| PageError::BadRequest(format!("missing parameter '{name}'")))
}

/// The endpoint's routes.
pub fn router(state: State) -> Router {
    Router::new()
        .route("/", get(cluster))
        .route("/table", get(table))
        .route("/region", get(region))
        .route("/heatmap", get(heatmap))
        .route("/slow", get(slow))
        .route("/history", get(history))
        .route("/config", get(config))
        .route("/metrics", get(metrics))
        .fallback(not_found)
        .with_state(state)
}

async fn cluster(Extract(s): Extract<State>, RawQuery(q): RawQuery) -> Page {
    params(q, &[])?;
    Ok(html(pages::cluster::render(&s)))
}

async fn table(Extract(s): Extract<State>, RawQuery(q): RawQuery) -> Page {
    let p = params(q, &["name"])?;
    Ok(html(pages::table::render(&s, required(&p, "name")?)?))
}

async fn region(Extract(s): Extract<State>, RawQuery(q): RawQuery) -> Page {
    let p = params(q, &["id"])?;
    let id = required(&p, "id")?
        .parse::<u64>()
        .map_err(|_| PageError::BadRequest("parameter 'id' must be a region id".to_owned()))?;
    Ok(html(pages::region::render(s.master.host(), id)?))
}

async fn heatmap(Extract(s): Extract<State>, RawQuery(q): RawQuery) -> Page {
    let p = params(q, &["table", "kind"])?;
    let kind = pages::heatmap::parse_kind(p.get("kind").map(String::as_str))?;
    Ok(html(pages::heatmap::render(
        &s,
        required(&p, "table")?,
        kind,
    )?))
}

async fn slow(Extract(s): Extract<State>, RawQuery(q): RawQuery) -> Page {
    params(q, &[])?;
    Ok(html(pages::slow::render(s.master.host())))
}

async fn history(RawQuery(q): RawQuery) -> Page {
    params(q, &[])?;
    Ok(html(pages::history::render()))
}

async fn config(Extract(s): Extract<State>, RawQuery(q): RawQuery) -> Page {
    params(q, &[])?;
    Ok(html(pages::config::render(
        Some(s.master.host()),
        s.addr,
        &s.settings,
    )))
}

async fn metrics(Extract(s): Extract<State>, RawQuery(q): RawQuery, headers: HeaderMap) -> Page {
    params(q, &[])?;
    let (content_type, body) =
        crate::metrics::negotiate(accept(&headers), crate::metrics::render(&s.master));
    Ok((
        [
            (header::CONTENT_TYPE, content_type),
            (header::CACHE_CONTROL, "no-store"),
        ],
        body,
    )
        .into_response())
}

/// The request's `Accept` header, if it is text.
pub(crate) fn accept(headers: &HeaderMap) -> Option<&str> {
    headers.get(header::ACCEPT).and_then(|v| v.to_str().ok())
}

async fn not_found() -> PageError {
    PageError::NotFound("no such page".to_owned())
}
