//! Why a page cannot be shown, as an HTTP status and a small page.

use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};

use crate::pages;

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

impl From<crate::query::BadQuery> for PageError {
    fn from(e: crate::query::BadQuery) -> Self {
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

/// The request's `Accept` header, if it is text.
pub(crate) fn accept(headers: &HeaderMap) -> Option<&str> {
    headers.get(header::ACCEPT).and_then(|v| v.to_str().ok())
}
