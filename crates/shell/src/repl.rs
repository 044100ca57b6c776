//! `strata shell`: connects, then reads statements interactively (a terminal and no file)
//! or runs a script (a file, piped input, or `-n`).
//!
//! Interactive mode keeps history in `~/.strata_shell_history`, prompts
//! `strata:001:0> ` (`strata:001:1* ` while a statement continues), leaves on `exit`, `quit`
//! or Ctrl-D, and clears the line on Ctrl-C. Ctrl-C while a command runs abandons it.

use std::io::{self, IsTerminal, Read, Write};
use std::path::PathBuf;

use rustyline::error::ReadlineError;
use rustyline::DefaultEditor;
use strata_client::Connection;
use tokio::runtime::Runtime;

use super::exec::{report, Flow};
use super::format::{set_timestamp_style, TimestampStyle};
use super::references::References;
use super::script::{run_script, run_statement_in};
use super::statements::StatementReader;

/// Arguments of `strata shell`.
#[derive(clap::Args)]
pub struct Args {
    /// The master's address (`host:port`).
    #[arg(long, default_value = "127.0.0.1:16000")]
    server: String,
    /// A script to run, one statement per line; without it, statements are read from the
    /// terminal (or from piped input).
    file: Option<PathBuf>,
    /// Non-interactive: stop at the first failing statement and exit with status 1.
    #[arg(short = 'n', long = "noninteractive")]
    noninteractive: bool,
    /// Connect to a cluster through etcd (endpoints, comma-separated host:port) instead of
    /// --server: any live region server answers locations and table DDL.
    #[arg(long, value_delimiter = ',')]
    etcd: Vec<String>,
    /// The cluster's name, with --etcd.
    #[arg(long, default_value = "default")]
    cluster: String,
    #[command(flatten)]
    etcd_tls: strata_tls::args::EtcdArgs,
    /// How cell timestamps print: epoch milliseconds (`ms`, as HBase's shell with epoch
    /// timestamps; paste them back into commands) or ISO-8601 dates in UTC (`iso`).
    #[arg(long, value_enum, default_value_t = TimestampStyle::Ms)]
    timestamps: TimestampStyle,
    #[command(flatten)]
    tls: strata_tls::args::ConnectArgs,
}

/// Runs the shell.
///
/// # Errors
/// The server cannot be reached, the script cannot be read, or a statement of a script
/// failed (so the process exits with status 1).
pub fn run(args: &Args) -> Result<(), String> {
    set_timestamp_style(args.timestamps);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let options = strata_client::ClientOptions {
        tls: args.tls.load()?,
        ..Default::default()
    };
    strata_cluster::etcd_tls::use_files(args.etcd_tls.files()?);
    let conn = if args.etcd.is_empty() {
        runtime.block_on(connect(&args.server, options))?
    } else {
        let addrs = strata_cluster::node::server_addresses(&args.etcd, &args.cluster)?;
        crate::cluster_ops::set_shell_cluster(crate::cluster_ops::ClusterOps::connect(
            &args.etcd,
            &args.cluster,
        )?);
        runtime
            .block_on(Connection::connect_any(&addrs, options))
            .map_err(|e| format!("cannot reach the cluster's region servers {addrs:?}: {e}"))?
    };
    let interactive = args.file.is_none() && !args.noninteractive && io::stdin().is_terminal();
    if interactive {
        return interactive_loop(&runtime, &conn);
    }
    let source = match &args.file {
        Some(path) => std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?,
        None => {
            let mut text = String::new();
            io::stdin()
                .read_to_string(&mut text)
                .map_err(|e| format!("cannot read standard input: {e}"))?;
            text
        }
    };
    let outcome = runtime
        .block_on(run_script(
            &conn,
            &source,
            args.noninteractive,
            &mut io::stdout().lock(),
            &mut io::stderr().lock(),
        ))
        .map_err(|e| format!("writing output: {e}"))?;
    match outcome.failed {
        0 => Ok(()),
        1 => Err("1 statement failed".to_string()),
        n => Err(format!("{n} statements failed")),
    }
}

async fn connect(
    server: &str,
    options: strata_client::ClientOptions,
) -> Result<Connection, String> {
    Connection::connect_with(server, options)
        .await
        .map_err(|e| {
            format!(
                "cannot reach a Strata server at {server} ({}).\n\
             Start one with `strata standalone --data-dir DIR`, or point the shell at a \
             running one with `strata shell --server HOST:PORT`.",
                e.message
            )
        })
}

fn history_path() -> Option<PathBuf> {
    ["HOME", "USERPROFILE"]
        .iter()
        .find_map(|k| std::env::var_os(k).filter(|v| !v.is_empty()))
        .map(|home| PathBuf::from(home).join(".strata_shell_history"))
}

fn interactive_loop(runtime: &Runtime, conn: &Connection) -> Result<(), String> {
    let mut editor = DefaultEditor::new().map_err(|e| format!("cannot start the editor: {e}"))?;
    let history = history_path();
    if let Some(path) = &history {
        // A missing history file is normal on first use.
        let _ = editor.load_history(path);
    }
    println!("Strata shell; enter 'help' for the list of commands, 'exit' to leave.");
    let mut reader = StatementReader::new();
    let mut refs = References::new();
    let mut count = 1usize;
    loop {
        let prompt = if reader.is_pending() {
            format!("strata:{count:03}:1* ")
        } else {
            format!("strata:{count:03}:0> ")
        };
        let line = match editor.readline(&prompt) {
            Ok(line) => line,
            Err(ReadlineError::Interrupted) => {
                reader.clear();
                continue;
            }
            Err(ReadlineError::Eof) => break,
            Err(e) => return Err(format!("reading input: {e}")),
        };
        if !line.trim().is_empty() {
            // History is a convenience; failing to record it is not worth stopping for.
            let _ = editor.add_history_entry(line.as_str());
        }
        let mut leave = false;
        for statement in reader.feed(&line) {
            count += 1;
            if run_interactive(runtime, conn, &mut refs, &statement.text) == Flow::Exit {
                leave = true;
                break;
            }
        }
        if leave {
            break;
        }
    }
    if let Some(path) = &history {
        let _ = editor.save_history(path);
    }
    Ok(())
}

/// Runs one statement, printing its output and any error; Ctrl-C abandons it.
fn run_interactive(
    runtime: &Runtime,
    conn: &Connection,
    refs: &mut References,
    text: &str,
) -> Flow {
    let mut stdout = io::stdout().lock();
    let result = runtime.block_on(async {
        tokio::select! {
            result = run_statement_in(conn, refs, text, &mut stdout) => Some(result),
            _ = tokio::signal::ctrl_c() => None,
        }
    });
    let _ = stdout.flush();
    drop(stdout);
    match result {
        Some(Ok(flow)) => flow,
        Some(Err(e)) => {
            let _ = report(&e, &mut io::stderr().lock());
            Flow::Continue
        }
        None => {
            eprintln!("\ninterrupted");
            Flow::Continue
        }
    }
}
