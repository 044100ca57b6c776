//! Zipfian ranks over `[0, n)` with exponent `s`, by exact CDF and binary search (as the HBase
//! peer's read test draws them), scrambled so hot keys spread over the table.

use rand::Rng;

/// A Zipf sampler.
pub struct Zipf {
    cdf: Vec<f64>,
}

impl Zipf {
    /// Ranks `0..n` with exponent `s`.
    pub fn new(n: usize, s: f64) -> Zipf {
        let mut cdf = Vec::with_capacity(n);
        let mut total = 0.0;
        for r in 1..=n {
            total += 1.0 / (r as f64).powf(s);
            cdf.push(total);
        }
        for c in &mut cdf {
            *c /= total;
        }
        Zipf { cdf }
    }

    /// A key index: a rank drawn from the distribution, scrambled over `[0, n)`.
    pub fn sample(&self, rng: &mut impl Rng) -> u64 {
        let u: f64 = rng.gen();
        let rank = self.cdf.partition_point(|c| *c < u) as u64;
        let n = self.cdf.len() as u64;
        (rank.wrapping_mul(2_654_435_761)) % n
    }
}
