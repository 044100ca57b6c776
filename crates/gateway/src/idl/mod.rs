//! HBase's Thrift1 IDL (`Hbase.thrift`), written by hand: typed field reads ([`Fields`]),
//! the request structs, and builders of the reply structs.

mod fields;
mod schema;
mod types;

pub use fields::Fields;
pub use schema::{family_from_thrift, family_to_thrift, region_to_thrift};
pub use types::{
    column_name, row_result, tcell, tcells, AppendSpec, BatchMutation, Increment, Mutation,
    ScanSpec,
};
