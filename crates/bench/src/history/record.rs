//! One operation of a recorded history and its JSON line, the format the linearizability
//! checker (`tools/linearizability`) reads.
//!
//! ```text
//! {"process":3,"model":"cas","row":"371-cas-2","op":"cas","arg":17,"new":42,
//!  "outcome":"ok","applied":true,"invoked_ns":1200,"completed_ns":5400}
//! ```
//!
//! `outcome` is `ok` (the server answered), `fail` (a read that got no answer: it had no
//! effect, the checker drops it) or `unknown` (a write that got no answer or an error: it may
//! or may not have taken effect, so the checker lets it take effect at any time after its
//! invocation, or never). Times are nanoseconds on the client's monotonic clock since the
//! history's first line, `{"history":1,"seed":N,"start_unix_ns":T}`.

use std::fmt::Write as _;

/// The sequential object a row holds, which the checker models.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Model {
    /// Puts of unique values and gets.
    Register,
    /// Puts, gets and compare-and-set through check-and-mutate.
    Cas,
    /// Increments by one (returning the new value) and gets.
    Counter,
    /// Appends of unique elements (returning the new list) and gets of the whole list.
    List,
}

impl Model {
    /// Every model, in the order rows are numbered.
    pub const ALL: [Model; 4] = [Model::Register, Model::Cas, Model::Counter, Model::List];

    /// The name in a history line and in row keys.
    pub fn name(self) -> &'static str {
        match self {
            Model::Register => "register",
            Model::Cas => "cas",
            Model::Counter => "counter",
            Model::List => "list",
        }
    }
}

/// What an operation asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Call {
    /// Put this (unique) value.
    Write(u64),
    /// Get the row's value.
    Read,
    /// Put `new` if the value is `expect` (0: the column is absent).
    Cas {
        /// The value required.
        expect: u64,
        /// The value written.
        new: u64,
    },
    /// Increment by one.
    Add,
    /// Append this (unique) element.
    Append(u64),
}

/// What an operation answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// A put acknowledged (it answers no value).
    Done,
    /// A compare-and-set answered with whether it applied.
    Applied(bool),
    /// A value: a register's or counter's (0 when absent), an increment's new value.
    Value(u64),
    /// A list: a read's or an append's new one.
    List(Vec<u64>),
    /// No answer, for a read: no effect.
    Failed,
    /// No answer, for a write: it may or may not have taken effect.
    Unknown,
}

/// One operation of the history.
#[derive(Clone, Debug)]
pub struct Record {
    /// The logical client: a new one after each unknown outcome, as Jepsen's processes.
    pub process: u64,
    /// The row's model.
    pub model: Model,
    /// The row.
    pub row: String,
    /// What was asked.
    pub call: Call,
    /// What came back.
    pub outcome: Outcome,
    /// Nanoseconds since the history started, before the request was sent.
    pub invoked_ns: u64,
    /// Nanoseconds since the history started, after the answer (or the error) came.
    pub completed_ns: u64,
}

impl Record {
    /// The record as one JSON line (with its newline).
    pub fn json_line(&self) -> String {
        let mut s = format!(
            r#"{{"process":{},"model":"{}","row":"{}""#,
            self.process,
            self.model.name(),
            self.row
        );
        let _ = match self.call {
            Call::Write(v) => write!(s, r#","op":"write","arg":{v}"#),
            Call::Read => write!(s, r#","op":"read""#),
            Call::Cas { expect, new } => write!(s, r#","op":"cas","arg":{expect},"new":{new}"#),
            Call::Add => write!(s, r#","op":"add","arg":1"#),
            Call::Append(e) => write!(s, r#","op":"append","arg":{e}"#),
        };
        let _ = match &self.outcome {
            Outcome::Done => write!(s, r#","outcome":"ok""#),
            Outcome::Applied(a) => write!(s, r#","outcome":"ok","applied":{a}"#),
            Outcome::Value(v) => write!(s, r#","outcome":"ok","value":{v}"#),
            Outcome::List(l) => {
                let items: Vec<String> = l.iter().map(u64::to_string).collect();
                write!(s, r#","outcome":"ok","list":[{}]"#, items.join(","))
            }
            Outcome::Failed => write!(s, r#","outcome":"fail""#),
            Outcome::Unknown => write!(s, r#","outcome":"unknown""#),
        };
        let _ = writeln!(
            s,
            r#","invoked_ns":{},"completed_ns":{}}}"#,
            self.invoked_ns, self.completed_ns
        );
        s
    }
}

/// The history's first line.
pub fn header_line(seed: u64, start_unix_ns: u128) -> String {
    format!("{{\"history\":1,\"seed\":{seed},\"start_unix_ns\":{start_unix_ns}}}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_carry_every_field_the_checker_reads() {
        let cas = Record {
            process: 3,
            model: Model::Cas,
            row: "371-cas-2".into(),
            call: Call::Cas {
                expect: 17,
                new: 42,
            },
            outcome: Outcome::Applied(true),
            invoked_ns: 1200,
            completed_ns: 5400,
        };
        assert_eq!(
            cas.json_line(),
            "{\"process\":3,\"model\":\"cas\",\"row\":\"371-cas-2\",\"op\":\"cas\",\"arg\":17,\
             \"new\":42,\"outcome\":\"ok\",\"applied\":true,\"invoked_ns\":1200,\
             \"completed_ns\":5400}\n"
        );
        let append = Record {
            process: 0,
            model: Model::List,
            row: "5-list-0".into(),
            call: Call::Append(9),
            outcome: Outcome::List(vec![4, 9]),
            invoked_ns: 1,
            completed_ns: 2,
        };
        assert!(append
            .json_line()
            .contains(r#""op":"append","arg":9,"outcome":"ok","list":[4,9]"#));
        let lost = Record {
            outcome: Outcome::Unknown,
            call: Call::Add,
            model: Model::Counter,
            ..append
        };
        assert!(lost
            .json_line()
            .contains(r#""op":"add","arg":1,"outcome":"unknown""#));
        assert_eq!(
            header_line(7, 99),
            "{\"history\":1,\"seed\":7,\"start_unix_ns\":99}\n"
        );
    }
}
