//! The access-control flags of a server process (RFC 0026): `--auth` turns the checks on;
//! `--superuser`, `--group-mapping` and `--audit-log` shape them; `--kerberos-keytab` and
//! `--kerberos-principal` let HBase's Java client authenticate with Kerberos. Settable in the
//! configuration file like every flag (RFC 0022).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use strata_access::{Audit, Guard, GuardConfig};

/// Who may do what on this process's listeners.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct AuthArgs {
    /// Check every call against the grants (`grant`, `revoke`): a call must come with an
    /// authenticated user (a client certificate under --tls-client-ca, or a Kerberos ticket on
    /// HBase RPC with --kerberos-keytab) and a permission covering it. Without it, every
    /// caller may do everything (a laptop's default).
    #[arg(long)]
    pub auth: bool,
    /// A user allowed everything, or `@group` (repeatable; HBase's `hbase.superuser`). The
    /// user the process runs as is one too, and so is the name of the certificate the process
    /// presents (--tls-client-cert, else --tls-cert). Give the names of the certificates
    /// other Strata processes present, unless they share this one's (`strata cert issue
    /// --name strata-server`).
    #[arg(long = "superuser", value_name = "NAME")]
    pub superusers: Vec<String>,
    /// A TOML file of users' groups (`alice = ["ops", "analysts"]`): grants to `@ops` apply to
    /// alice.
    #[arg(long, value_name = "FILE")]
    pub group_mapping: Option<PathBuf>,
    /// Append the audit log (JSON lines: denials, grants, revokes and every administrative
    /// call) to this file as well as to the `strata::audit` log target.
    #[arg(long, value_name = "FILE")]
    pub audit_log: Option<PathBuf>,
    /// Accept Kerberos on HBase RPC (SASL GSSAPI, as HBase with
    /// hbase.security.authentication=kerberos): the keytab holding --kerberos-principal's keys.
    /// A client's principal of that realm is its user (alice@REALM and alice/host@REALM are
    /// alice); other realms are refused. Needs --auth.
    #[arg(long, value_name = "FILE", requires = "kerberos_principal")]
    pub kerberos_keytab: Option<PathBuf>,
    /// The service principal clients ask tickets for, HBase's hbase/_HOST@REALM (the value
    /// of the clients' hbase.regionserver.kerberos.principal and hbase.master.kerberos.principal):
    /// _HOST is the advertised host name, `localhost` on a loopback address.
    #[arg(long, value_name = "PRINCIPAL", requires = "kerberos_keytab")]
    pub kerberos_principal: Option<String>,
    /// Listen on addresses other than loopback without --auth: anyone who reaches a port may
    /// then read, write or drop anything. Without it such a start is refused.
    #[arg(long)]
    pub insecure: bool,
}

impl AuthArgs {
    /// The process's guard: off without --auth. The name of `own_certificate`, the
    /// certificate the process presents to other servers (and to itself: a standalone
    /// server forwards a table's flush to its own data port), is a superuser, as the user
    /// the process runs as is (HBase's login user).
    ///
    /// # Errors
    /// --auth without mutual TLS or Kerberos, a group mapping that does not parse, an audit
    /// log that cannot be opened, an own certificate that cannot be read, or a setting given
    /// without --auth.
    pub fn guard(
        &self,
        mutual_tls: bool,
        own_certificate: Option<&std::path::Path>,
    ) -> Result<Arc<Guard>, String> {
        if !self.auth {
            if !self.superusers.is_empty()
                || self.group_mapping.is_some()
                || self.audit_log.is_some()
                || self.kerberos_keytab.is_some()
            {
                return Err(
                    "--superuser, --group-mapping, --audit-log and --kerberos-keytab \
                            need --auth"
                        .to_owned(),
                );
            }
            return Ok(Guard::off());
        }
        if !mutual_tls && self.kerberos_keytab.is_none() {
            return Err(
                "--auth needs callers that prove who they are: give --tls-cert, \
                        --tls-key and --tls-client-ca (client certificates name the users), \
                        or --kerberos-keytab and --kerberos-principal (HBase's Java client with \
                        Kerberos)"
                    .to_owned(),
            );
        }
        let groups = match &self.group_mapping {
            None => HashMap::new(),
            Some(path) => read_groups(path)?,
        };
        let audit = match &self.audit_log {
            None => Audit::to_log(),
            Some(path) => {
                Audit::to_file(path).map_err(|e| format!("--audit-log {}: {e}", path.display()))?
            }
        };
        let me = std::env::var("USER").ok().filter(|u| !u.is_empty());
        let mut superusers = self.superusers.clone();
        if let Some(path) = own_certificate {
            let name = strata_tls::certificate_file_user(path)
                .map_err(|e| format!("the process's own certificate: {e}"))?;
            superusers.extend(name);
        }
        Ok(Guard::on(
            GuardConfig { superusers, groups },
            me.as_deref(),
            audit,
        ))
    }
}

impl AuthArgs {
    /// Kerberos on HBase RPC, if configured (the keys are read when the listener starts, once
    /// its host is known).
    ///
    /// # Errors
    /// The principal does not parse or has no realm, or the keytab is not a readable file.
    pub fn kerberos(&self) -> Result<Option<strata_hbase_rpc::KerberosConfig>, String> {
        let (Some(keytab), Some(principal)) = (&self.kerberos_keytab, &self.kerberos_principal)
        else {
            return Ok(None);
        };
        let parsed = strata_gss::Principal::parse(principal)
            .map_err(|e| format!("--kerberos-principal: {e}"))?;
        if parsed.realm().is_none() {
            return Err(format!(
                "--kerberos-principal {principal} has no realm: give service/host@REALM \
                 (HBase's hbase/_HOST@REALM)"
            ));
        }
        std::fs::File::open(keytab)
            .map_err(|e| format!("--kerberos-keytab {}: {e}", keytab.display()))?;
        Ok(Some(strata_hbase_rpc::KerberosConfig {
            keytab: keytab.clone(),
            principal: principal.clone(),
        }))
    }

    /// Refuses listeners on addresses other than loopback without --auth, unless --insecure
    /// is given (then each is logged as a warning). `listeners` are (flag, address) pairs.
    ///
    /// # Errors
    /// Such a listener without --auth or --insecure.
    pub fn check_exposed(
        &self,
        process: &str,
        listeners: &[(&str, Option<std::net::SocketAddr>)],
    ) -> Result<(), String> {
        if self.auth {
            return Ok(());
        }
        for (flag, addr) in listeners {
            let Some(addr) = addr.filter(|a| !a.ip().is_loopback()) else {
                continue;
            };
            if self.insecure {
                tracing::warn!(
                    "{process}: {flag} {addr} is reachable from other hosts and access control \
                     is off (--insecure): anyone who reaches it may read, write or drop anything"
                );
                eprintln!(
                    "strata {process}: warning: {flag} {addr} is open to other hosts without \
                     access control (--insecure)"
                );
            } else {
                return Err(format!(
                    "{flag} {addr} is not a loopback address and access control is off: give \
                     --auth (with --tls-cert, --tls-key and --tls-client-ca, or Kerberos) so \
                     that only granted users reach the data, or --insecure to accept that anyone who \
                     reaches the port may read, write or drop anything"
                ));
            }
        }
        Ok(())
    }
}

/// The groups of each user in a TOML file of `user = ["group", …]`.
fn read_groups(path: &std::path::Path) -> Result<HashMap<String, Vec<String>>, String> {
    let what = |e: String| format!("--group-mapping {}: {e}", path.display());
    let text = std::fs::read_to_string(path).map_err(|e| what(e.to_string()))?;
    let doc = toml_edit::Document::parse(text).map_err(|e| what(format!("{e}")))?;
    let mut out = HashMap::new();
    for (user, item) in doc.as_table().iter() {
        let groups = item
            .as_array()
            .ok_or_else(|| what(format!("{user} must be a list of group names")))?
            .iter()
            .map(|g| {
                g.as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| what(format!("{user}'s groups must be strings")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        out.insert(user.to_owned(), groups);
    }
    Ok(out)
}
