//! One `strata standalone --auth` with mutual TLS for every case: the superuser `admin`, a
//! certificate per case's user, the namespace `mx` and its tables, and what each operation
//! needs in place before it runs.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use strata_client::access::{Perms, Scope};
use strata_client::{ClientOptions, Connection, NamespaceDescriptor};
use strata_model::ops::Put;
use strata_model::schema::{FamilyDescriptor, TableDescriptor, TableName};
use strata_proto::pb::ErrorCode;
use strata_tls::ca::{self, Request};
use strata_tls::{ClientFiles, ClientTls};

use super::cases::Case;
use super::scopes::{own_table, scope_of, NS, OTHER_TABLE, SHARED};
use super::spec::Target;
use crate::support;

/// The value of `f:q` in row `r` of every table: what a read allowed returns.
pub const SECRET: &str = "secret1";
/// The user grants are made to, revoked from and listed by the permission operations.
pub const OTHER: &str = "other";
/// A user with a grant on the shared table no operation changes: what a listing of the
/// table's grants shows.
pub const LISTER: &str = "lister";
/// The namespace `drop_namespace` drops (made again after each drop).
pub const GONE_NS: &str = "mxgone";

/// The server and the certificates of its users.
pub struct Secured {
    pub dir: tempfile::TempDir,
    pub addr: String,
    pub admin: Connection,
    _server: support::Killed,
}

impl Secured {
    /// Starts the server and makes the tables every case acts on.
    pub async fn start() -> Secured {
        let dir = tempfile::tempdir().unwrap();
        let certs = dir.path().join("certs");
        ca::init(&certs, 30).unwrap();
        let mut server = Request::new("server", 30);
        server.ips = vec!["127.0.0.1".parse().unwrap()];
        ca::issue(&certs, &server).unwrap();
        ca::issue(&certs, &Request::new("admin", 30)).unwrap();
        let file = |name: &str| certs.join(name).display().to_string();
        let extra: Vec<String> = [
            "--tls-cert",
            &file("server.pem"),
            "--tls-key",
            &file("server.key"),
            "--tls-client-ca",
            &file("ca.pem"),
            "--auth",
            "--superuser",
            "admin",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        let (child, addr) = support::spawn(&dir.path().join("data"), &extra, Stdio::null());
        let server = support::Killed(child);
        let admin = connect(&certs, &addr, "admin").await;
        let s = Secured {
            dir,
            addr,
            admin,
            _server: server,
        };
        s.setup().await;
        s
    }

    fn certs(&self) -> PathBuf {
        self.dir.path().join("certs")
    }

    /// Makes `user`'s certificate, unless made already.
    pub fn issue(&self, user: &str) {
        let certs = self.certs();
        if !certs.join(format!("{user}.pem")).exists() {
            ca::issue(&certs, &Request::new(user, 30)).unwrap();
        }
    }

    /// A connection as `user`, whose certificate is made on first use.
    pub async fn connect_as(&self, user: &str) -> Connection {
        self.issue(user);
        connect(&self.certs(), &self.addr, user).await
    }

    async fn setup(&self) {
        let admin = self.admin.admin();
        admin
            .create_namespace(&NamespaceDescriptor::new(NS))
            .await
            .unwrap();
        for table in [SHARED, OTHER_TABLE] {
            create(&self.admin, table).await;
        }
        for op in super::spec::OPS {
            if op.target == Target::Own {
                create(&self.admin, &own_table(op.name)).await;
            }
        }
        for who in [OTHER, LISTER] {
            admin
                .grant(
                    who,
                    Perms::parse("R").unwrap(),
                    &Scope::table(SHARED, None, None).unwrap(),
                    false,
                )
                .await
                .unwrap();
        }
    }

    /// Puts in place what `case`'s operation needs before it runs: its table enabled or
    /// disabled, made again after a drop, the namespace a drop removes.
    pub async fn prepare(&self, case: &Case) {
        let admin = self.admin.admin();
        match case.op.name {
            "enable" | "truncate" | "drop" | "disable" => {
                let table = own_table(case.op.name);
                let enabled = match admin.describe_table(&table).await {
                    Ok(info) => info.enabled,
                    Err(e) if e.code == ErrorCode::TableNotFound => {
                        create(&self.admin, &table).await;
                        true
                    }
                    Err(e) => panic!("{}: describing {table}: {e}", case.describe()),
                };
                let want = case.op.name == "disable";
                if enabled && !want {
                    admin.disable_table(&table).await.unwrap();
                } else if !enabled && want {
                    admin.enable_table(&table).await.unwrap();
                }
            }
            "drop_namespace" => {
                match admin
                    .create_namespace(&NamespaceDescriptor::new(GONE_NS))
                    .await
                {
                    Ok(()) => {}
                    Err(e) if e.code == ErrorCode::NamespaceExists => {}
                    Err(e) => panic!("{}: {e}", case.describe()),
                }
            }
            _ => {}
        }
    }

    /// Gives `case`'s user its one grant (none for scope `none`).
    pub async fn grant(&self, case: &Case, user: &str) {
        grant_with(&self.admin, case, user).await;
    }
}

/// Gives `case`'s user its one grant through `admin` (none for scope `none`).
pub async fn grant_with(admin: &Connection, case: &Case, user: &str) {
    let Some(scope) = scope_of(case) else { return };
    if case.perms.is_empty() {
        return;
    }
    let perms = Perms::parse(&case.letters()).unwrap();
    admin
        .admin()
        .grant(user, perms, &scope, false)
        .await
        .unwrap_or_else(|e| panic!("{}: granting: {e}", case.describe()));
}

async fn connect(certs: &Path, addr: &str, user: &str) -> Connection {
    let tls = ClientTls::load(ClientFiles {
        ca: ca::ca_cert(certs),
        cert: Some(certs.join(format!("{user}.pem"))),
        key: Some(certs.join(format!("{user}.key"))),
    })
    .unwrap();
    let options = ClientOptions {
        retry_max: Duration::from_millis(200),
        retries: 3,
        tls: Some(tls),
        ..ClientOptions::default()
    };
    Connection::connect_with(addr, options).await.unwrap()
}

/// Makes `name` with families `f` and `g`, and row `r`: `f:q` = [`SECRET`], `f:q2`, `g:q`.
pub async fn create(admin: &Connection, name: &str) {
    let t = TableDescriptor::new(TableName::parse(name).unwrap())
        .with_family(FamilyDescriptor::new("f"))
        .with_family(FamilyDescriptor::new("g"));
    admin.admin().create_table(&t, &[]).await.unwrap();
    admin
        .table(name)
        .unwrap()
        .put(
            &Put::new("r")
                .add("f", "q", SECRET)
                .add("f", "q2", "v2")
                .add("g", "q", "w1"),
        )
        .await
        .unwrap();
}
