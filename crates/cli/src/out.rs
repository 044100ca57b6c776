//! Standard output of the one-shot commands (`strata cluster …`, `sst`, `config`, `cert`).
//! A reader that has gone away (`strata cluster status | grep -q live`, `… | head`) ends the
//! command quietly with success, as Unix tools end on SIGPIPE, instead of the panic of
//! `println!`; any other write error ends it with a message and failure.

use std::fmt;
use std::io::{self, Write};

/// Writes `args` to standard output; on a closed pipe, exits the process with success.
pub fn write(args: fmt::Arguments<'_>) {
    let mut out = io::stdout().lock();
    let written = out.write_fmt(args).and_then(|()| out.flush());
    match written {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => std::process::exit(0),
        Err(e) => {
            eprintln!("strata: write to standard output: {e}");
            std::process::exit(1);
        }
    }
}

/// `println!` for the one-shot commands: see the module's comment.
macro_rules! outln {
    () => { $crate::out::write(format_args!("\n")) };
    ($($arg:tt)*) => { $crate::out::write(format_args!("{}\n", format_args!($($arg)*))) };
}
