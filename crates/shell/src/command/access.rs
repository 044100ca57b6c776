//! Access-control commands, as HBase's shell takes them (RFC 0026):
//! `grant 'user', 'RWXCA'[, '@ns' | 't'[, 'f'[, 'q']]]`,
//! `revoke 'user'[, '@ns' | 't'[, 'f'[, 'q']]]` (every permission on that scope),
//! `user_permission ['@ns' | 'table_regex']`. A user may be `@group`.

use bytes::Bytes;
use strata_access::{Perms, Scope};

use super::args::Args;
use super::Command;
use crate::ShellError;

/// The scope the remaining arguments name: none is global, `@ns` a namespace, else a table
/// with an optional family and qualifier.
fn scope(args: &mut Args) -> Result<Scope, ShellError> {
    let Some(first) = args.next() else {
        return Ok(Scope::Global);
    };
    let name = args.text(&first, "namespace or table")?;
    if let Some(ns) = name.strip_prefix('@') {
        if args.next().is_some() {
            return Err(args.usage("a namespace's permission takes no family or qualifier"));
        }
        return Ok(Scope::Namespace(ns.to_owned()));
    }
    let table = args.table_name(&first)?.to_string();
    let family = match args.next() {
        Some(v) => Some(args.bytes(&v, "family")?).filter(|f: &Bytes| !f.is_empty()),
        None => None,
    };
    let qualifier = match args.next() {
        Some(v) => Some(args.bytes(&v, "qualifier")?).filter(|q: &Bytes| !q.is_empty()),
        None => None,
    };
    Scope::table(&table, family, qualifier).map_err(|e| args.invalid(e))
}

fn user(args: &mut Args) -> Result<String, ShellError> {
    let v = args.required("user")?;
    let name = args.text(&v, "user")?;
    if name.is_empty() || name == "@" {
        return Err(args.invalid("the user must not be empty"));
    }
    Ok(name)
}

/// Parses an access-control command.
pub(super) fn parse(mut args: Args) -> Result<Command, ShellError> {
    Ok(match args.name() {
        "grant" => {
            args.arity(2, 5)?;
            let user = user(&mut args)?;
            let v = args.required("permissions")?;
            let letters = args.text(&v, "permissions")?;
            let perms = Perms::parse(&letters).map_err(|e| args.invalid(e))?;
            let scope = scope(&mut args)?;
            Command::Grant { user, perms, scope }
        }
        "revoke" => {
            args.arity(1, 4)?;
            let user = user(&mut args)?;
            let scope = scope(&mut args)?;
            Command::Revoke { user, scope }
        }
        _ => {
            args.arity(0, 1)?;
            let filter = match args.next() {
                Some(v) => Some(args.text(&v, "namespace or table regex")?),
                None => None,
            };
            Command::UserPermission { filter }
        }
    })
}
