//! Logging of the `strata` process with `tracing`: a compact human format on standard error
//! by default, JSON on request, optionally to a file rotated daily or hourly, filtered by
//! `--log-level` or `RUST_LOG` (the same directive syntax, e.g. `info,strata_storage=debug`).
//!
//! The libraries under the RPC and HTTP layers (h2, hyper, tonic, tower, …) log every frame
//! at DEBUG: they stay at WARN unless the filter names them (`debug,h2=debug`). Colours are
//! written only when standard error is a terminal. The filter can be replaced while the
//! process runs ([`set_level`], on a configuration reload).

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::OnceLock;

use tracing_appender::rolling::{Builder, Rotation};
use tracing_subscriber::fmt::{self, writer::MakeWriterExt};
use tracing_subscriber::layer::{Layer, Layered, SubscriberExt};
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{reload, EnvFilter, Registry};

/// The line format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// One compact human-readable line per event.
    Compact,
    /// One JSON object per event (for log shippers).
    Json,
}

/// When the log file starts a new file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Rotate {
    /// A new file each day (`NAME.YYYY-MM-DD`).
    Daily,
    /// A new file each hour (`NAME.YYYY-MM-DD-HH`).
    Hourly,
    /// One file, never rotated.
    Never,
}

/// Logging options, common to every subcommand.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// What to log: a level (error, warn, info, debug, trace) or `RUST_LOG`-style directives
    /// such as `info,strata_storage=debug` [default: $RUST_LOG, else info]. Reloadable.
    #[arg(long, global = true, value_parser = parse_level)]
    log_level: Option<String>,
    /// The line format.
    #[arg(long, global = true, value_enum, default_value_t = Format::Compact)]
    log_format: Format,
    /// Also write the log to this file (rotated as --log-rotation says).
    #[arg(long, global = true)]
    log_file: Option<PathBuf>,
    /// When the log file rotates.
    #[arg(long, global = true, value_enum, default_value_t = Rotate::Daily)]
    log_rotation: Rotate,
    /// How many rotated log files to keep (0 keeps all).
    #[arg(long, global = true, default_value_t = 7)]
    log_keep: usize,
}

/// Held for the life of the process. Lines go to the file as they are logged (no writer
/// thread, no buffer), so the lines logged before a crash or a kill -9 are in the file: those
/// are the ones an operator needs.
pub struct Guard {
    _private: (),
}

/// `--log-level`'s value, once its directives parse.
fn parse_level(level: &str) -> Result<String, String> {
    EnvFilter::try_new(directives(level))
        .map(|_| level.to_owned())
        .map_err(|e| e.to_string())
}

/// The handle that swaps the process's filter (`--log-level` is reloadable).
static FILTER: OnceLock<reload::Handle<EnvFilter, Registry>> = OnceLock::new();

/// The filter for `level` (`--log-level`'s value), or when none is given `$RUST_LOG`, else
/// `info`.
fn filter(level: Option<&str>) -> Result<EnvFilter, String> {
    match level {
        Some(level) => {
            EnvFilter::try_new(directives(level)).map_err(|e| format!("--log-level: {e}"))
        }
        None => match std::env::var(EnvFilter::DEFAULT_ENV) {
            Ok(env) => EnvFilter::try_new(directives(&env))
                .map_err(|e| format!("{}: {e}", EnvFilter::DEFAULT_ENV)),
            Err(_) => Ok(EnvFilter::new(directives("info"))),
        },
    }
}

/// Replaces the filter of the running logger with `level`'s (as [`init`] reads it).
///
/// # Errors
/// A bad filter directive (the filter in force stays), or no logger is installed.
pub fn set_level(level: Option<&str>) -> Result<(), String> {
    let filter = filter(level)?;
    FILTER
        .get()
        .ok_or_else(|| "no logger is installed".to_owned())?
        .reload(filter)
        .map_err(|e| format!("cannot change the log filter: {e}"))
}

/// Installs the process's logger.
///
/// # Errors
/// A bad filter directive, or the log file's directory cannot be created.
pub fn init(args: &Args) -> Result<Guard, String> {
    let (filter, handle) = reload::Layer::new(filter(args.log_level.as_deref())?);
    let ansi = std::io::stderr().is_terminal();
    let file = match &args.log_file {
        None => None,
        Some(path) => Some(file_appender(args, path)?),
    };
    let layer = fmt::layer().with_target(true);
    // Lines go to standard error and, if configured, to the file too.
    let lines: Box<dyn Layer<Layered<reload::Layer<EnvFilter, Registry>, Registry>> + Send + Sync> =
        match (args.log_format, file) {
            (Format::Compact, None) => layer
                .compact()
                .with_ansi(ansi)
                .with_writer(std::io::stderr)
                .boxed(),
            (Format::Json, None) => layer.json().with_writer(std::io::stderr).boxed(),
            (Format::Compact, Some(f)) => layer
                .compact()
                .with_ansi(false)
                .with_writer(std::io::stderr.and(f))
                .boxed(),
            (Format::Json, Some(f)) => layer.json().with_writer(std::io::stderr.and(f)).boxed(),
        };
    tracing_subscriber::registry()
        .with(filter)
        .with(lines)
        .try_init()
        .map_err(|e| format!("cannot install the logger: {e}"))?;
    let _ = FILTER.set(handle);
    Ok(Guard { _private: () })
}

/// Libraries whose DEBUG lines (frames, connection pool churn) drown the process's own.
const QUIET_DEPENDENCIES: &[&str] = &[
    "h2",
    "hyper",
    "hyper_util",
    "tonic",
    "tower",
    "tower_http",
    "axum",
    "reqwest",
    "rustls",
    "mio",
];

/// The filter `user` asked for, with [`QUIET_DEPENDENCIES`] it does not name held at WARN.
pub fn directives(user: &str) -> String {
    let named: Vec<&str> = user
        .split(',')
        .filter_map(|d| d.split(['=', '[', ':']).next())
        .map(str::trim)
        .collect();
    let mut out = user.trim().to_owned();
    for dep in QUIET_DEPENDENCIES {
        if !named.contains(dep) {
            if !out.is_empty() {
                out.push(',');
            }
            out.push_str(dep);
            out.push_str("=warn");
        }
    }
    out
}

fn file_appender(
    args: &Args,
    path: &std::path::Path,
) -> Result<tracing_appender::rolling::RollingFileAppender, String> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or_else(|| std::path::Path::new("."));
    let name = path
        .file_name()
        .ok_or_else(|| format!("--log-file {}: not a file name", path.display()))?;
    std::fs::create_dir_all(dir).map_err(|e| format!("--log-file {}: {e}", dir.display()))?;
    let rotation = match args.log_rotation {
        Rotate::Daily => Rotation::DAILY,
        Rotate::Hourly => Rotation::HOURLY,
        Rotate::Never => Rotation::NEVER,
    };
    let mut builder = Builder::new()
        .rotation(rotation)
        .filename_prefix(name.to_string_lossy());
    if args.log_keep > 0 {
        builder = builder.max_log_files(args.log_keep);
    }
    builder
        .build(dir)
        .map_err(|e| format!("--log-file {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dependencies_stay_at_warn_unless_named() {
        let d = directives("debug");
        assert!(d.starts_with("debug,h2=warn,hyper=warn,"), "{d}");
        assert!(
            d.contains(",tonic=warn") && d.contains(",tower=warn"),
            "{d}"
        );
        let d = directives("debug,h2=trace");
        assert!(d.contains("h2=trace") && !d.contains("h2=warn"), "{d}");
        assert!(d.contains("hyper=warn"), "{d}");
        // What the filter then lets through.
        let f = EnvFilter::new(directives("debug"));
        assert_eq!(
            f.max_level_hint(),
            Some(tracing::level_filters::LevelFilter::DEBUG)
        );
    }
}
