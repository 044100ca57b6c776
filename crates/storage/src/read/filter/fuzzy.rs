//! `FuzzyRowFilter`: rows matching any of a set of patterns with fixed and free byte
//! positions, and the next row that can match (HBase's `satisfies` and
//! `getNextForFuzzyRule`), so a scan seeks from one candidate row to the next.

use bytes::Bytes;
use strata_model::cell::compare_bytes;
use strata_model::ops::FuzzyKey;

use super::ReturnCode;

/// One pattern: `fixed[i]` says whether position `i` must equal `key[i]`.
#[derive(Clone, Debug)]
struct Pattern {
    key: Vec<u8>,
    fixed: Vec<bool>,
}

impl Pattern {
    fn new(k: &FuzzyKey) -> Pattern {
        let fixed: Vec<bool> = k.mask.iter().map(|&m| m == 0).collect();
        let key = k
            .key
            .iter()
            .zip(&fixed)
            .map(|(&b, &f)| if f { b } else { 0 })
            .collect();
        Pattern { key, fixed }
    }

    /// HBase's `satisfies`: the fixed positions within the common length match (a row
    /// shorter than the pattern is compared on its own length).
    fn matches(&self, row: &[u8]) -> bool {
        row.iter()
            .zip(self.key.iter().zip(&self.fixed))
            .all(|(&r, (&k, &f))| !f || r == k)
    }

    fn is_fixed(&self, i: usize) -> bool {
        self.fixed.get(i).copied().unwrap_or(false)
    }

    /// HBase's `getNextForFuzzyRule` (ascending), for a row the pattern rejects: the smallest
    /// row after `row` that matches, or `None` if no later row can.
    fn next_after(&self, row: &[u8]) -> Option<Vec<u8>> {
        let mut result = self.key.clone();
        result.resize(row.len().max(self.key.len()), 0);
        let mut to_inc: Option<usize> = None;
        let mut increased = false;
        for (i, slot) in result.iter_mut().enumerate() {
            let Some(&r) = row.get(i) else {
                // The row is a prefix of the pattern's fixed bytes so far: the pattern
                // itself, longer, sorts after it.
                increased = true;
                break;
            };
            if self.is_fixed(i) {
                if r < self.key[i] {
                    increased = true;
                    break;
                }
                if r > self.key[i] {
                    break;
                }
            } else {
                *slot = r;
                if r != u8::MAX {
                    to_inc = Some(i);
                }
            }
        }
        if !increased {
            let t = to_inc?;
            result[t] += 1;
            for (i, b) in result.iter_mut().enumerate().skip(t + 1) {
                if !self.is_fixed(i) {
                    *b = 0;
                }
            }
        }
        // `result` matches, and so does each of its prefixes longer than the first byte where
        // it passes `row` (a row shorter than the pattern is compared on its own length): the
        // shortest of those is the next candidate. HBase seeks to `result` itself (trailing
        // free zeros trimmed), passing over such shorter rows.
        let differs = result
            .iter()
            .zip(row)
            .position(|(a, b)| a != b)
            .unwrap_or(row.len());
        result.truncate(differs + 1);
        Some(result)
    }
}

/// The compiled filter.
#[derive(Clone, Debug)]
pub(super) struct FuzzyRows {
    patterns: Vec<Pattern>,
    reversed: bool,
    /// The current row matched no pattern (HBase's `filterRow`, HBASE-26967).
    pub(super) filter_out: bool,
    /// No later row can match.
    pub(super) done: bool,
    /// Pattern that matched last, tried first.
    last: usize,
}

impl FuzzyRows {
    pub(super) fn new(keys: &[FuzzyKey], reversed: bool) -> FuzzyRows {
        FuzzyRows {
            patterns: keys.iter().map(Pattern::new).collect(),
            reversed,
            filter_out: false,
            done: false,
            last: 0,
        }
    }

    pub(super) fn filter_cell(&mut self, row: &[u8]) -> ReturnCode {
        let n = self.patterns.len();
        for i in 0..n {
            let index = (self.last + i) % n;
            if self.patterns[index].matches(row) {
                self.last = index;
                return ReturnCode::Include;
            }
        }
        self.filter_out = true;
        if self.reversed {
            ReturnCode::NextRow
        } else {
            ReturnCode::SeekNextUsingHint
        }
    }

    /// The nearest row after `row` any pattern may match; `None` (and done) if there is none.
    pub(super) fn next_row(&mut self, row: &[u8]) -> Option<Bytes> {
        if self.reversed {
            return None;
        }
        let next = self
            .patterns
            .iter()
            .filter_map(|p| p.next_after(row))
            .min_by(|a, b| compare_bytes(a, b));
        if next.is_none() {
            self.done = true;
        }
        next.map(Bytes::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pattern(p: &[u8]) -> Pattern {
        Pattern::new(&FuzzyKey::with_wildcard(p, b'?'))
    }

    #[test]
    fn matches_fixed_positions_over_the_common_length() {
        let p = pattern(b"??_1");
        assert!(p.matches(b"ab_1") && p.matches(b"zz_1xyz") && p.matches(b"ab"));
        assert!(!p.matches(b"ab_2") && !p.matches(b"abc1"));
    }

    /// Every row from a small alphabet that a pattern rejects: the next candidate never passes a matching row and is
    /// always after the current one.
    #[test]
    fn next_candidate_never_skips_a_match() {
        let alphabet = [0u8, 1, 2, 0xfe, 0xff];
        let mut rows: Vec<Vec<u8>> = vec![vec![]];
        for len in 1..=4 {
            let mut next = Vec::new();
            for r in rows.iter().filter(|r| r.len() == len - 1) {
                for &b in &alphabet {
                    let mut v = r.clone();
                    v.push(b);
                    next.push(v);
                }
            }
            rows.extend(next);
        }
        rows.sort();
        let patterns = [
            Pattern {
                key: vec![1, 0, 2],
                fixed: vec![true, false, true],
            },
            Pattern {
                key: vec![0, 0xff],
                fixed: vec![false, true],
            },
            Pattern {
                key: vec![0xff, 0, 0],
                fixed: vec![true, false, false],
            },
        ];
        for p in &patterns {
            for (i, row) in rows.iter().enumerate() {
                if p.matches(row) {
                    continue; // asked only about rows that do not match
                }
                let next_match = rows[i + 1..].iter().find(|r| p.matches(r));
                match p.next_after(row) {
                    Some(hint) => {
                        assert!(hint.as_slice() > row.as_slice(), "{p:?} {row:?} {hint:?}");
                        if let Some(m) = next_match {
                            assert!(
                                hint.as_slice() <= m.as_slice(),
                                "{p:?} {row:?} {hint:?} {m:?}"
                            );
                        }
                    }
                    None => assert_eq!(next_match, None, "{p:?} after {row:?}"),
                }
            }
        }
    }
}
