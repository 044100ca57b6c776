//! Namespace commands, as HBase's shell takes them: `create_namespace 'ns' [, {'k' => 'v'}]`,
//! `alter_namespace 'ns', {METHOD => 'set', 'k' => 'v'}` or `{METHOD => 'unset', NAME => 'k'}`,
//! `describe_namespace`, `drop_namespace`, `list_namespace ['regex']`,
//! `list_namespace_tables 'ns'`.

use super::args::{setting_text, Args};
use super::{Command, NamespaceChange};
use crate::value::Value;
use crate::ShellError;

/// The namespace named by the next argument, checked as HBase checks namespace names.
fn namespace(args: &mut Args) -> Result<String, ShellError> {
    let v = args.required("namespace name")?;
    let name = args.text(&v, "namespace name")?;
    let legal = strata_model::schema::TableName::parse(&format!("{name}:t"))
        .is_ok_and(|t| t.namespace() == name);
    if !legal {
        return Err(args.invalid(format!("illegal namespace name '{name}'")));
    }
    Ok(name)
}

/// A hash argument's pairs.
fn hash(args: &Args, v: Value) -> Result<Vec<(Value, Value)>, ShellError> {
    match v {
        Value::Hash(pairs) => Ok(pairs),
        other => Err(args.usage(format!("expected a hash {{...}}, got {}", other.kind()))),
    }
}

/// A property's name and value as `addConfiguration(k, v.to_s)` takes them.
fn property(args: &Args, k: &Value, v: &Value) -> Result<(String, String), ShellError> {
    let key = k
        .as_name()
        .ok_or_else(|| args.usage(format!("property names must be strings, got {}", k.kind())))?;
    let value = setting_text(args, &key, v)?;
    Ok((key, value))
}

fn is_key(k: &Value, name: &str) -> bool {
    k.as_name().is_some_and(|n| n == name)
}

/// Parses a namespace command.
pub(super) fn parse(mut args: Args) -> Result<Command, ShellError> {
    Ok(match args.name() {
        "create_namespace" => {
            args.arity(1, 2)?;
            let name = namespace(&mut args)?;
            let mut properties = Vec::new();
            if let Some(v) = args.next() {
                for (k, v) in hash(&args, v)? {
                    properties.push(property(&args, &k, &v)?);
                }
            }
            Command::CreateNamespace { name, properties }
        }
        "alter_namespace" => {
            args.arity(2, usize::MAX)?;
            let name = namespace(&mut args)?;
            let mut changes = Vec::new();
            for v in args.rest() {
                let pairs = hash(&args, v)?;
                let method = pairs
                    .iter()
                    .find(|(k, _)| is_key(k, "METHOD"))
                    .map(|(_, v)| args.text(v, "METHOD"))
                    .transpose()?;
                match method.as_deref() {
                    Some("set") => {
                        let mut set = Vec::new();
                        for (k, v) in pairs.iter().filter(|(k, _)| !is_key(k, "METHOD")) {
                            set.push(property(&args, k, v)?);
                        }
                        changes.push(NamespaceChange::Set(set));
                    }
                    Some("unset") => {
                        let key = pairs
                            .iter()
                            .find(|(k, _)| is_key(k, "NAME"))
                            .ok_or_else(|| args.usage("METHOD => 'unset' needs NAME => 'key'"))?;
                        changes.push(NamespaceChange::Unset(args.text(&key.1, "NAME")?));
                    }
                    Some(other) => return Err(args.invalid(format!("Unknown method {other}"))),
                    None => return Err(args.invalid("Unknown method ")),
                }
            }
            Command::AlterNamespace { name, changes }
        }
        "list_namespace" => {
            args.arity(0, 1)?;
            let pattern = match args.next() {
                Some(v) => Some(args.text(&v, "pattern")?),
                None => None,
            };
            Command::ListNamespace { pattern }
        }
        name => {
            args.arity(1, 1)?;
            let ns = namespace(&mut args)?;
            match name {
                "describe_namespace" => Command::DescribeNamespace(ns),
                "drop_namespace" => Command::DropNamespace(ns),
                _ => Command::ListNamespaceTables(ns),
            }
        }
    })
}
