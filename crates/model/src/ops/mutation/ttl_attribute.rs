//! HBase's per-cell TTL attribute (`Mutation.OP_ATTRIBUTE_TTL`, set by `Mutation.setTTL`), as
//! HBase's clients send it: the HBase RPC's mutation attributes and Thrift1's call attributes
//! (which HBase's Thrift handler copies onto the mutation).

/// The attribute's name.
pub const TTL_ATTRIBUTE: &str = "_ttl";

/// The written cells' own time to live in ms from the attribute's value, HBase's
/// `Bytes.toBytes(long)`: `Long.MAX_VALUE` (HBase's "none") is `None`; a negative TTL expires
/// the cells at once, as `0` does.
///
/// # Errors
/// A value that is not 8 bytes (HBase's `Bytes.toLong` refuses it too), as a message.
pub fn ttl_from_attribute(value: &[u8]) -> Result<Option<u64>, String> {
    let bytes: [u8; 8] = value.try_into().map_err(|_| {
        format!(
            "the {TTL_ATTRIBUTE} attribute must be an 8-byte long, got {} bytes",
            value.len()
        )
    })?;
    Ok(match i64::from_be_bytes(bytes) {
        i64::MAX => None,
        ttl => Some(u64::try_from(ttl).unwrap_or(0)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn none_negative_and_malformed() {
        assert_eq!(ttl_from_attribute(&5000i64.to_be_bytes()), Ok(Some(5000)));
        assert_eq!(ttl_from_attribute(&i64::MAX.to_be_bytes()), Ok(None));
        assert_eq!(ttl_from_attribute(&(-3i64).to_be_bytes()), Ok(Some(0)));
        assert!(ttl_from_attribute(b"abc").is_err());
    }
}
