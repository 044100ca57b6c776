//! Pre-split keys for `create ..., NUMREGIONS => n, SPLITALGO => ...`, computed as HBase's
//! `RegionSplitter` algorithms do.

use bytes::Bytes;

/// A `SPLITALGO`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SplitAlgorithm {
    /// `HexStringSplit`: rows are 8 lowercase hex digits, `00000000`..=`ffffffff`.
    HexString,
    /// `UniformSplit`: rows are raw bytes, spread evenly over 8-byte prefixes.
    Uniform,
}

impl SplitAlgorithm {
    /// The algorithm by its HBase name (also the fully qualified class name).
    pub fn parse(name: &str) -> Option<SplitAlgorithm> {
        let short = name.rsplit(['.', '$']).next().unwrap_or(name);
        match short {
            "HexStringSplit" => Some(SplitAlgorithm::HexString),
            "UniformSplit" => Some(SplitAlgorithm::Uniform),
            _ => None,
        }
    }

    /// The `regions - 1` split keys that cut the key space into `regions` equal parts; the
    /// last region takes the remainder. Requires: `regions >= 2`.
    pub fn split(self, regions: u32) -> Vec<Bytes> {
        let n = u128::from(regions.max(1));
        match self {
            // RegionSplitter.HexStringSplit: range = 0xffffffff - 0 + 1, step = range / n.
            SplitAlgorithm::HexString => {
                let step = (1u128 << 32) / n;
                (1..n)
                    .map(|i| Bytes::from(format!("{:08x}", step * i)))
                    .collect()
            }
            // RegionSplitter.UniformSplit: Bytes.split over [0x00 x8, 0xff x8] inclusive.
            SplitAlgorithm::Uniform => {
                let step = (1u128 << 64) / n;
                (1..n)
                    .map(|i| {
                        let key = u64::try_from(step * i).unwrap_or(u64::MAX);
                        Bytes::copy_from_slice(&key.to_be_bytes())
                    })
                    .collect()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_string_split_matches_hbase() {
        let keys = SplitAlgorithm::HexString.split(4);
        assert_eq!(keys, vec!["40000000", "80000000", "c0000000"]);
        // 2^32 / 3 = 0x55555555 (HBase leaves the remainder to the last region).
        let keys = SplitAlgorithm::HexString.split(3);
        assert_eq!(keys, vec!["55555555", "aaaaaaaa"]);
        assert_eq!(SplitAlgorithm::HexString.split(2), vec!["80000000"]);
    }

    #[test]
    fn uniform_split_matches_hbase() {
        let keys = SplitAlgorithm::Uniform.split(4);
        let expected: Vec<Bytes> = [0x40u8, 0x80, 0xc0]
            .iter()
            .map(|&b| Bytes::from(vec![b, 0, 0, 0, 0, 0, 0, 0]))
            .collect();
        assert_eq!(keys, expected);
        let keys = SplitAlgorithm::Uniform.split(3);
        assert_eq!(keys[0].as_ref(), &[0x55; 8]);
        assert_eq!(keys[1].as_ref(), &[0xaa; 8]);
    }

    #[test]
    fn algorithm_names() {
        assert_eq!(
            SplitAlgorithm::parse("org.apache.hadoop.hbase.util.RegionSplitter$HexStringSplit"),
            Some(SplitAlgorithm::HexString)
        );
        assert_eq!(
            SplitAlgorithm::parse("UniformSplit"),
            Some(SplitAlgorithm::Uniform)
        );
        assert_eq!(SplitAlgorithm::parse("DecimalStringSplit"), None);
    }
}
