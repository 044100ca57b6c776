//! Mutations, get and scan specifications, filters.
