//! `create`: a table descriptor and its pre-split keys.

use bytes::Bytes;
use strata_model::schema::{FamilyDescriptor, TableDescriptor};

use super::args::{flatten_settings, Args, Options};
use super::splits::SplitAlgorithm;
use super::Command;
use crate::escape::to_string_binary;
use crate::value::Value;
use crate::ShellError;

/// How the table is pre-split, as gathered from the table hashes.
#[derive(Default)]
struct PreSplit {
    keys: Option<Vec<Bytes>>,
    regions: Option<u32>,
    algorithm: Option<SplitAlgorithm>,
}

pub(super) fn create(mut args: Args) -> Result<Command, ShellError> {
    args.arity(2, usize::MAX)?;
    let mut table = TableDescriptor::new(args.table()?);
    let mut presplit = PreSplit::default();
    for v in args.rest() {
        match v {
            Value::Str(_) => {
                let name = args.text(&v, "column family")?;
                table.families.push(FamilyDescriptor::new(name));
            }
            Value::Hash(_) => {
                let mut opts = args.options(v)?;
                match opts.take("NAME") {
                    Some(name) => {
                        let name = args.text(&name, "NAME")?;
                        table.families.push(family(&args, name, opts)?);
                    }
                    None => table_options(&args, opts, &mut table, &mut presplit)?,
                }
            }
            other => {
                return Err(args.usage(format!(
                    "expected a family name or a hash, got {}",
                    other.kind()
                )))
            }
        }
    }
    let splits = split_keys(&args, presplit)?;
    table.validate().map_err(|e| args.invalid(e))?;
    Ok(Command::Create { table, splits })
}

/// A family from a hash with `NAME` (already taken out).
fn family(args: &Args, name: String, opts: Options) -> Result<FamilyDescriptor, ShellError> {
    let mut family = FamilyDescriptor::new(name.clone());
    for pair in flatten_settings(args, opts.into_rest())? {
        pair.apply_family(&mut family)
            .map_err(|e| args.invalid(format!("family '{name}': {e}")))?;
    }
    Ok(family)
}

/// Table settings and pre-split options from a hash without `NAME`.
fn table_options(
    args: &Args,
    mut opts: Options,
    table: &mut TableDescriptor,
    presplit: &mut PreSplit,
) -> Result<(), ShellError> {
    if opts.take("SPLITS_FILE").is_some() {
        return Err(args.invalid(
            "SPLITS_FILE is not supported; list the keys inline with SPLITS => ['k1', 'k2']",
        ));
    }
    if let Some(v) = opts.take("SPLITS") {
        let Value::Array(items) = v else {
            return Err(args.usage(format!(
                "SPLITS must be an array of row keys, got {}",
                v.kind()
            )));
        };
        let keys = items
            .iter()
            .map(|i| args.bytes(i, "split key"))
            .collect::<Result<Vec<_>, _>>()?;
        presplit.keys.get_or_insert_with(Vec::new).extend(keys);
    }
    if let Some(v) = opts.take("NUMREGIONS") {
        let n = args.int(&v, "NUMREGIONS")?;
        let n = u32::try_from(n)
            .ok()
            .filter(|&n| n > 1)
            .ok_or_else(|| args.invalid(format!("NUMREGIONS must be at least 2, got {n}")))?;
        presplit.regions = Some(n);
    }
    if let Some(v) = opts.take("SPLITALGO") {
        let name = args.text(&v, "SPLITALGO")?;
        let algorithm = SplitAlgorithm::parse(&name).ok_or_else(|| {
            args.invalid(format!(
                "SPLITALGO '{name}' is not supported; use 'HexStringSplit' or 'UniformSplit'"
            ))
        })?;
        presplit.algorithm = Some(algorithm);
    }
    for pair in flatten_settings(args, opts.into_rest())? {
        pair.apply_table(table).map_err(|e| args.invalid(e))?;
    }
    Ok(())
}

/// Largest `NUMREGIONS` accepted, to keep a typo from creating millions of regions.
const MAX_NUMREGIONS: u32 = 65_536;

/// The sorted, unique split keys; HBase's `createTable` rules.
fn split_keys(args: &Args, presplit: PreSplit) -> Result<Vec<Bytes>, ShellError> {
    let mut keys = match (presplit.keys, presplit.regions, presplit.algorithm) {
        (Some(_), Some(_), _) | (Some(_), _, Some(_)) => {
            return Err(args.usage("give SPLITS or NUMREGIONS with SPLITALGO, not both"))
        }
        (Some(keys), None, None) => keys,
        (None, Some(n), Some(algorithm)) => {
            if n > MAX_NUMREGIONS {
                return Err(args.invalid(format!(
                    "NUMREGIONS {n} is more than the {MAX_NUMREGIONS} allowed"
                )));
            }
            algorithm.split(n)
        }
        (None, Some(_), None) => return Err(args.usage("NUMREGIONS needs SPLITALGO")),
        (None, None, Some(_)) => return Err(args.usage("SPLITALGO needs NUMREGIONS")),
        (None, None, None) => Vec::new(),
    };
    if keys.iter().any(|k| k.is_empty()) {
        return Err(args.invalid("split keys must not be empty"));
    }
    keys.sort();
    if let Some(w) = keys.windows(2).find(|w| w[0] == w[1]) {
        return Err(args.invalid(format!(
            "split keys must be unique; '{}' is given twice",
            to_string_binary(&w[0])
        )));
    }
    Ok(keys)
}
