//! Block compression codecs. Decompression of any input returns an error, never panics, and
//! never allocates more than the declared raw length.

use std::io::{Read, Write};

use strata_model::schema::Compression;

/// Zstandard level: 3 is zstd's default, a good ratio at LZ4-like decode speed.
const ZSTD_LEVEL: i32 = 3;

/// Compresses `input` with `codec`, appending to `out`.
pub(crate) fn compress(codec: Compression, input: &[u8], out: &mut Vec<u8>) {
    match codec {
        Compression::None => out.extend_from_slice(input),
        Compression::Snappy => {
            let start = out.len();
            out.resize(start + snap::raw::max_compress_len(input.len()), 0);
            match snap::raw::Encoder::new().compress(input, &mut out[start..]) {
                Ok(n) => out.truncate(start + n),
                // Only fails for inputs over 4 GiB, which blocks never are.
                Err(_) => {
                    out.truncate(start);
                    out.extend_from_slice(input);
                }
            }
        }
        Compression::Lz4 => out.extend_from_slice(&lz4_flex::block::compress(input)),
        Compression::Zstd => match zstd::bulk::compress(input, ZSTD_LEVEL) {
            Ok(c) => out.extend_from_slice(&c),
            Err(_) => out.extend_from_slice(input),
        },
        Compression::Gz => {
            let mut enc = flate2::write::GzEncoder::new(out, flate2::Compression::default());
            // Writing to a Vec cannot fail.
            let _ = enc.write_all(input);
            let _ = enc.finish();
        }
    }
}

/// Decompresses `input` that must expand to exactly `raw_len` bytes.
///
/// # Errors
/// A static reason when the input is not valid for the codec or has another length.
pub(crate) fn decompress(
    codec: Compression,
    input: &[u8],
    raw_len: usize,
) -> Result<Vec<u8>, &'static str> {
    let out = match codec {
        Compression::None => input.to_vec(),
        Compression::Snappy => {
            let len = snap::raw::decompress_len(input).map_err(|_| "bad snappy header")?;
            if len != raw_len {
                return Err("snappy length differs from the block's raw length");
            }
            let mut out = vec![0; raw_len];
            snap::raw::Decoder::new()
                .decompress(input, &mut out)
                .map_err(|_| "bad snappy data")?;
            out
        }
        Compression::Lz4 => {
            lz4_flex::block::decompress(input, raw_len).map_err(|_| "bad lz4 data")?
        }
        Compression::Zstd => zstd::bulk::decompress(input, raw_len).map_err(|_| "bad zstd data")?,
        Compression::Gz => {
            let mut out = Vec::with_capacity(raw_len);
            flate2::read::GzDecoder::new(input)
                .take(raw_len as u64 + 1)
                .read_to_end(&mut out)
                .map_err(|_| "bad gzip data")?;
            out
        }
    };
    if out.len() != raw_len {
        return Err("decompressed length differs from the block's raw length");
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn round_trips(data: Vec<u8>) {
            for codec in Compression::ALL {
                let mut c = Vec::new();
                compress(codec, &data, &mut c);
                prop_assert_eq!(decompress(codec, &c, data.len()).unwrap(), data.clone());
            }
        }

        #[test]
        fn garbage_is_an_error_not_a_panic(data: Vec<u8>, raw_len in 0usize..100_000) {
            for codec in Compression::ALL {
                let _ = decompress(codec, &data, raw_len);
            }
        }
    }

    #[test]
    fn wrong_length_is_rejected() {
        let data = vec![7u8; 1000];
        for codec in Compression::ALL {
            let mut c = Vec::new();
            compress(codec, &data, &mut c);
            assert!(decompress(codec, &c, 999).is_err(), "{codec}");
            assert!(decompress(codec, &c, 1001).is_err(), "{codec}");
        }
    }
}
