//! Fuzz target `cellblock`: arbitrary bytes as a cell block, for both KeyValue codecs. Nothing
//! may panic; whatever decodes must re-encode to the same cells.
#![no_main]

use bytes::{Bytes, BytesMut};
use libfuzzer_sys::fuzz_target;
use strata_hbase_rpc::cellblock::{decode, encode, Codec};

fuzz_target!(|data: &[u8]| {
    let block = Bytes::copy_from_slice(data);
    for codec in [Codec::KeyValue, Codec::KeyValueWithTags] {
        if let Ok(cells) = decode(codec, &block) {
            let mut out = BytesMut::new();
            encode(codec, &cells, &mut out);
            let again = decode(codec, &out.freeze()).expect("re-encoded cells decode");
            assert_eq!(again, cells);
        }
    }
});
