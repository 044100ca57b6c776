//! `strata cert`: a test certificate authority and certificates it signs
//! (`strata_tls::ca`), for trying TLS and for tests. A production deployment uses its own CA.

use std::net::IpAddr;
use std::path::PathBuf;

use strata_tls::ca;

/// `strata cert …`.
#[derive(clap::Subcommand)]
pub enum Command {
    /// Makes a test CA in DIR: `ca.pem` (what clients and servers trust: --tls-ca,
    /// --tls-client-ca, HBase's hbase.rpc.tls.truststore.location) and `ca.key`.
    Init {
        /// The directory (created if missing); an existing CA in it is never overwritten.
        dir: PathBuf,
        /// Days the CA is valid.
        #[arg(long, default_value_t = 3650)]
        days: u32,
    },
    /// Issues a certificate signed by the CA in DIR: `DIR/NAME.pem` and `DIR/NAME.key`, good
    /// for servers (--tls-cert, --tls-key) and clients (--tls-client-cert, --tls-client-key).
    Issue {
        /// The CA's directory.
        dir: PathBuf,
        /// The certificate's name (its common name and its files' name).
        #[arg(long)]
        name: String,
        /// A DNS name the certificate is valid for; repeatable [default: NAME, if no --ip].
        #[arg(long)]
        dns: Vec<String>,
        /// An IP address the certificate is valid for; repeatable.
        #[arg(long)]
        ip: Vec<IpAddr>,
        /// Days the certificate is valid.
        #[arg(long, default_value_t = 365)]
        days: u32,
    },
}

/// Runs `strata cert …`.
///
/// # Errors
/// The CA exists already or is missing, a name is invalid, or a file cannot be written.
pub fn run(command: &Command) -> Result<(), String> {
    match command {
        Command::Init { dir, days } => {
            let cert = ca::init(dir, *days).map_err(|e| e.to_string())?;
            outln!("CA certificate: {}", cert.display());
            outln!(
                "CA key: {} (keep it private; it signs certificates)",
                dir.join("ca.key").display()
            );
            outln!(
                "next: strata cert issue {} --name HOST [--ip ADDRESS] [--dns NAME]",
                dir.display()
            );
        }
        Command::Issue {
            dir,
            name,
            dns,
            ip,
            days,
        } => {
            let mut request = ca::Request::new(name, *days);
            request.dns.clone_from(dns);
            request.ips.clone_from(ip);
            let (cert, key) = ca::issue(dir, &request).map_err(|e| e.to_string())?;
            outln!("certificate: {}", cert.display());
            outln!("key: {}", key.display());
            outln!(
                "serve with: --tls-cert {} --tls-key {}; clients trust {}",
                cert.display(),
                key.display(),
                ca::ca_cert(dir).display()
            );
        }
    }
    Ok(())
}
