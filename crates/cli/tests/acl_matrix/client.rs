//! Each operation through the Rust client.

use bytes::Bytes;
use strata_client::access::{Perms, Scope};
use strata_client::{Connection, Error, NamespaceDescriptor};
use strata_model::ops::{
    Append, CheckAndMutate, Condition, Delete, Get, Increment, Mutation, Put, RowMutations, Scan,
};
use strata_model::schema::{FamilyDescriptor, TableDescriptor, TableName};

use super::cases::Case;
use super::scopes::{target, NS};
use super::server::{Secured, GONE_NS, LISTER, OTHER, SECRET};
use super::Seen;

/// What the server answered, as [`Seen`]; another error fails the case.
fn seen<T>(case: &Case, r: Result<T, Error>) -> Result<Seen, String> {
    match r {
        Ok(_) => Ok(Seen::Allowed),
        Err(e) => refused(case, &e),
    }
}

fn refused(case: &Case, e: &Error) -> Result<Seen, String> {
    if e.code == strata_proto::pb::ErrorCode::AccessDenied {
        if case.allowed {
            eprintln!("{}: refused: {e}", case.describe());
        }
        Ok(Seen::Refused)
    } else {
        Err(format!("{}: not an access decision: {e}", case.describe()))
    }
}

/// Whether `cells` hold the secret of `f:q`.
fn shows_secret(cells: &[strata_model::Cell]) -> bool {
    cells.iter().any(|c| &c.value[..] == SECRET.as_bytes())
}

/// Runs `case`'s operation as `conn`'s user.
pub async fn run(s: &Secured, conn: &Connection, case: &Case) -> Result<Seen, String> {
    let name = target(case);
    let table = conn.table(&name).map_err(|e| e.to_string())?;
    let admin = conn.admin();
    let id = case.id;
    match case.op.name {
        "get" => match table.get(&Get::new("r").with_column("f", "q")).await {
            Ok(cells) if shows_secret(&cells) => Ok(Seen::Allowed),
            Ok(_) => Ok(Seen::LeftOut),
            Err(e) => refused(case, &e),
        },
        "exists" => match table.exists(&Get::new("r").with_column("f", "q")).await {
            Ok(true) => Ok(Seen::Allowed),
            Ok(false) => Ok(Seen::LeftOut),
            Err(e) => refused(case, &e),
        },
        "scan" => {
            let mut scan = Scan::new();
            scan.columns.add_column("f", "q");
            match table.scan_all(&scan).await {
                Ok(rows) if rows.iter().any(|r| shows_secret(r)) => Ok(Seen::Allowed),
                Ok(_) => Ok(Seen::LeftOut),
                Err(e) => refused(case, &e),
            }
        }
        "put" => seen(case, table.put(&Put::new("w").add("f", "q", "x")).await),
        "batch_put" => seen(
            case,
            table
                .put_many(&[
                    Put::new("w").add("f", "q", "y"),
                    Put::new("w2").add("f", "q", "z"),
                ])
                .await,
        ),
        "delete_column" => seen(case, table.delete(&Delete::new("w").column("f", "q")).await),
        "delete_family" => seen(case, table.delete(&Delete::new("w").family("f")).await),
        "delete_row" => seen(case, table.delete(&Delete::new("w")).await),
        "increment" => seen(
            case,
            table.increment(&Increment::new("n").add("f", "q", 1)).await,
        ),
        "append" => seen(
            case,
            table.append(&Append::new("w").add("f", "q", "a")).await,
        ),
        "check_and_put" => {
            let cam = CheckAndMutate::new(
                Condition::absent("f", "q"),
                RowMutations::from(Mutation::from(Put::new("c").add("f", "q", "p"))),
            );
            seen(case, table.check_and_mutate(&cam).await)
        }
        "check_and_delete" => {
            let cam = CheckAndMutate::new(
                Condition::equals("f", "q", "p"),
                RowMutations::from(Mutation::from(Delete::new("c").column("f", "q"))),
            );
            seen(case, table.check_and_mutate(&cam).await)
        }
        "flush" => seen(case, admin.flush(&name).await),
        "compact" => seen(case, admin.compact(&name, None, false).await),
        "split" => seen(
            case,
            admin
                .split(&name, Some(Bytes::from(format!("k{id:05}"))))
                .await,
        ),
        "alter" => {
            // The descriptor as it is (read as the superuser), with one setting changed.
            let mut desc = s
                .admin
                .admin()
                .describe_table(&name)
                .await
                .map_err(|e| e.to_string())?
                .descriptor;
            let family = desc.family_mut(b"f").ok_or("no family f")?;
            family
                .set_metadata("VERSIONS", &(id % 5 + 1).to_string())
                .map_err(|e| e.to_string())?;
            seen(case, admin.alter_table(&desc).await)
        }
        "disable" => seen(case, admin.disable_table(&name).await),
        "enable" => seen(case, admin.enable_table(&name).await),
        "truncate" => seen(case, admin.truncate_table(&name, false).await),
        "drop" => seen(case, admin.delete_table(&name).await),
        "snapshot" => seen(case, admin.snapshot(&name, &format!("snap{id}")).await),
        "describe" => seen(case, admin.describe_table(&name).await),
        "list_tables" => match admin.list_tables().await {
            Ok(tables) if tables.iter().any(|t| t.descriptor.name.to_string() == name) => {
                Ok(Seen::Allowed)
            }
            Ok(_) => Ok(Seen::LeftOut),
            Err(e) => refused(case, &e),
        },
        "create_table" => {
            let t = TableDescriptor::new(TableName::parse(&format!("{NS}:c{id}")).unwrap())
                .with_family(FamilyDescriptor::new("f"));
            seen(case, admin.create_table(&t, &[]).await)
        }
        "create_namespace" => seen(
            case,
            admin
                .create_namespace(&NamespaceDescriptor::new(format!("n{id}")))
                .await,
        ),
        "drop_namespace" => seen(case, admin.delete_namespace(GONE_NS).await),
        "grant_table" => seen(
            case,
            admin
                .grant(
                    OTHER,
                    Perms::parse("R").unwrap(),
                    &table_scope(&name),
                    false,
                )
                .await,
        ),
        "grant_namespace" => seen(
            case,
            admin
                .grant(
                    OTHER,
                    Perms::parse("R").unwrap(),
                    &Scope::Namespace(NS.into()),
                    false,
                )
                .await,
        ),
        "revoke_table" => seen(
            case,
            admin.revoke(OTHER, Perms::ALL, &table_scope(&name)).await,
        ),
        "user_permission_table" => match admin
            .user_permissions(Some(&table_scope(&name)), None)
            .await
        {
            Ok(grants) if grants.iter().any(|g| g.who == LISTER) => Ok(Seen::Allowed),
            Ok(_) => Ok(Seen::LeftOut),
            Err(e) => refused(case, &e),
        },
        other => Err(format!("no Rust client mapping for operation {other}")),
    }
}

fn table_scope(name: &str) -> Scope {
    Scope::table(name, None, None).unwrap()
}
