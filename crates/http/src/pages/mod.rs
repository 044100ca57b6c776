//! The UI's pages: plain HTML rendered on the server, no scripts.

pub mod config;
pub mod engine;
pub mod heatmap;
pub mod history;
pub mod layout;
pub mod region;
pub mod slow;
