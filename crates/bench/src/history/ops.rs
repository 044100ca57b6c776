//! Choosing an operation for a row and running it through the client: one request per
//! operation, its answer turned into an [`Outcome`].

use bytes::Bytes;
use rand::Rng;
use strata_client::Table;
use strata_model::cell::Cell;
use strata_model::ops::{Append, CheckAndMutate, Condition, Get, Increment, Mutation, Put};

use super::record::{Call, Model, Outcome};

/// The family every workload writes.
pub const FAMILY: &str = "f";

/// The column of a model's rows.
fn qualifier(model: Model) -> &'static str {
    match model {
        Model::Register | Model::Cas => "v",
        Model::Counter => "n",
        Model::List => "l",
    }
}

/// Row `index` of `model`'s rows. The three-digit prefix spreads rows over a table split at
/// three-digit keys (`250`, `500`, `750`, as `scripts/faults.sh` creates it).
pub fn row_key(model: Model, index: usize) -> String {
    let m = Model::ALL.iter().position(|x| *x == model).unwrap_or(0);
    let prefix = (index * 397 + m * 251 + 13) % 1000;
    format!("{prefix:03}-{}-{index}", model.name())
}

/// A call on a row of `model`. `fresh` gives unique values; `last` is the latest value this
/// client saw on the row (what a compare-and-set expects, so that some apply).
pub fn choose(
    rng: &mut impl Rng,
    model: Model,
    fresh: &mut impl FnMut() -> u64,
    last: u64,
) -> Call {
    let p: f64 = rng.gen();
    match model {
        Model::Register if p < 0.5 => Call::Write(fresh()),
        Model::Register => Call::Read,
        Model::Cas if p < 0.2 => Call::Write(fresh()),
        Model::Cas if p < 0.6 => Call::Cas {
            expect: last,
            new: fresh(),
        },
        Model::Cas => Call::Read,
        Model::Counter if p < 0.7 => Call::Add,
        Model::Counter => Call::Read,
        Model::List if p < 0.7 => Call::Append(fresh()),
        Model::List => Call::Read,
    }
}

/// Runs `call` on `row`. A read without an answer failed (no effect); a write without one,
/// or with an error, has an unknown outcome: the error may have come after it was applied.
pub async fn execute(table: &Table, model: Model, row: &str, call: &Call) -> Outcome {
    let q = qualifier(model);
    let row = Bytes::copy_from_slice(row.as_bytes());
    let cell_of = |cells: Vec<Cell>| cells.into_iter().find(|c| c.qualifier == q.as_bytes());
    match call {
        Call::Read => {
            let get = Get::new(row).with_column(FAMILY, q);
            match table.get(&get).await {
                Ok(cells) => decode(model, cell_of(cells).map(|c| c.value)),
                Err(_) => Outcome::Failed,
            }
        }
        Call::Write(v) => {
            let put = Put::new(row).add(FAMILY, q, v.to_string());
            match table.put(&put).await {
                Ok(()) => Outcome::Done,
                Err(_) => Outcome::Unknown,
            }
        }
        Call::Cas { expect, new } => {
            let condition = match expect {
                0 => Condition::absent(FAMILY, q),
                v => Condition::equals(FAMILY, q, v.to_string()),
            };
            let put = Put::new(row).add(FAMILY, q, new.to_string());
            match table
                .check_and_mutate(&CheckAndMutate::new(condition, Mutation::Put(put)))
                .await
            {
                Ok(applied) => Outcome::Applied(applied),
                Err(_) => Outcome::Unknown,
            }
        }
        Call::Add => match table
            .increment(&Increment::new(row).add(FAMILY, q, 1))
            .await
        {
            Ok(cells) => decode(model, cell_of(cells).map(|c| c.value)),
            Err(_) => Outcome::Unknown,
        },
        Call::Append(e) => {
            let app = Append::new(row).add(FAMILY, q, format!(",{e}"));
            match table.append(&app).await {
                Ok(cells) => decode(model, cell_of(cells).map(|c| c.value)),
                Err(_) => Outcome::Unknown,
            }
        }
    }
}

/// A cell's value (or its absence: the initial state) as `model` answers it. A value no
/// operation of the workload could leave is answered as [`UNREADABLE`], which no state of
/// the checker's models equals, so that the row is reported.
fn decode(model: Model, value: Option<Bytes>) -> Outcome {
    let Some(value) = value else {
        return match model {
            Model::List => Outcome::List(Vec::new()),
            _ => Outcome::Value(0),
        };
    };
    let text = std::str::from_utf8(&value).ok();
    match model {
        Model::Register | Model::Cas => {
            Outcome::Value(text.and_then(|s| s.parse().ok()).unwrap_or(UNREADABLE))
        }
        Model::Counter => Outcome::Value(
            <[u8; 8]>::try_from(value.as_ref())
                .ok()
                .and_then(|b| u64::try_from(i64::from_be_bytes(b)).ok())
                .unwrap_or(UNREADABLE),
        ),
        Model::List => Outcome::List(
            text.and_then(|s| {
                s.split(',')
                    .filter(|e| !e.is_empty())
                    .map(|e| e.parse().ok())
                    .collect::<Option<Vec<u64>>>()
            })
            .unwrap_or_else(|| vec![UNREADABLE]),
        ),
    }
}

/// What an undecodable value reads as.
pub const UNREADABLE: u64 = u64::MAX;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_spread_over_a_table_split_at_three_digit_keys() {
        let mut quarters = [0; 4];
        for m in Model::ALL {
            for i in 0..4 {
                let key = row_key(m, i);
                let prefix: usize = key[..3].parse().unwrap();
                quarters[prefix / 250] += 1;
            }
        }
        assert!(quarters.iter().all(|&n| n > 0), "{quarters:?}");
    }

    #[test]
    fn values_decode_per_model_and_absence_is_the_initial_state() {
        assert_eq!(decode(Model::Cas, None), Outcome::Value(0));
        assert_eq!(decode(Model::List, None), Outcome::List(vec![]));
        assert_eq!(
            decode(Model::Register, Some(Bytes::from("42"))),
            Outcome::Value(42)
        );
        assert_eq!(
            decode(
                Model::Counter,
                Some(Bytes::copy_from_slice(&7i64.to_be_bytes()))
            ),
            Outcome::Value(7)
        );
        assert_eq!(
            decode(Model::List, Some(Bytes::from(",3,8"))),
            Outcome::List(vec![3, 8])
        );
        assert_eq!(
            decode(Model::Counter, Some(Bytes::from("x"))),
            Outcome::Value(UNREADABLE)
        );
    }
}
