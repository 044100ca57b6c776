//! YCSB's number generators, with YCSB's exact arithmetic so key choices match YCSB runs on
//! HBase: FNV-1a-style `fnvhash64`, `ZipfianGenerator` (Gray et al.), the scrambled zipfian
//! over 10^10 items, skewed-latest, hotspot and uniform.

use rand::Rng;

/// YCSB's `Utils.fnvhash64`.
pub fn fnvhash64(mut val: u64) -> u64 {
    let mut hash: i64 = 0xCBF2_9CE4_8422_2325_u64 as i64;
    for _ in 0..8 {
        let octet = (val & 0xff) as i64;
        val >>= 8;
        hash ^= octet;
        hash = hash.wrapping_mul(1_099_511_628_211);
    }
    hash.wrapping_abs() as u64
}

/// YCSB's default zipfian constant.
pub const ZIPFIAN_CONSTANT: f64 = 0.99;

/// YCSB's `ZipfianGenerator` over `[base, base + items)`.
#[derive(Clone, Debug)]
pub struct Zipfian {
    base: u64,
    items: u64,
    theta: f64,
    alpha: f64,
    zetan: f64,
    eta: f64,
    half_pow_theta: f64,
}

fn zeta(n: u64, theta: f64) -> f64 {
    (1..=n).map(|i| 1.0 / (i as f64).powf(theta)).sum()
}

impl Zipfian {
    /// A generator over `[min, max]` with constant `theta`; computes zeta(n) (O(n)).
    pub fn new(min: u64, max: u64, theta: f64) -> Zipfian {
        let items = max - min + 1;
        Self::with_zetan(min, items, theta, zeta(items, theta))
    }

    fn with_zetan(base: u64, items: u64, theta: f64, zetan: f64) -> Zipfian {
        let zeta2 = zeta(2, theta);
        Zipfian {
            base,
            items,
            theta,
            alpha: 1.0 / (1.0 - theta),
            zetan,
            eta: (1.0 - (2.0 / items as f64).powf(1.0 - theta)) / (1.0 - zeta2 / zetan),
            half_pow_theta: 0.5f64.powf(theta),
        }
    }

    /// The next value.
    pub fn next(&self, rng: &mut impl Rng) -> u64 {
        let u: f64 = rng.gen();
        let uz = u * self.zetan;
        if uz < 1.0 {
            return self.base;
        }
        if uz < 1.0 + self.half_pow_theta {
            return self.base + 1;
        }
        self.base + (self.items as f64 * (self.eta * u - self.eta + 1.0).powf(self.alpha)) as u64
    }

    /// The constant.
    pub fn theta(&self) -> f64 {
        self.theta
    }
}

/// YCSB's `ScrambledZipfianGenerator`: popular items scattered over `[min, max]`.
#[derive(Clone, Debug)]
pub struct ScrambledZipfian {
    min: u64,
    items: u64,
    gen: Zipfian,
}

impl ScrambledZipfian {
    /// YCSB's item count and precomputed zeta for the default constant.
    const ITEM_COUNT: u64 = 10_000_000_000;
    const ZETAN: f64 = 26.469_028_201_783_02;

    /// Over `[min, max]` with YCSB's constant.
    pub fn new(min: u64, max: u64) -> ScrambledZipfian {
        ScrambledZipfian {
            min,
            items: max - min + 1,
            gen: Zipfian::with_zetan(0, Self::ITEM_COUNT, ZIPFIAN_CONSTANT, Self::ZETAN),
        }
    }

    /// The next value.
    pub fn next(&self, rng: &mut impl Rng) -> u64 {
        self.min + fnvhash64(self.gen.next(rng)) % self.items
    }
}

/// YCSB's `HotspotIntegerGenerator`.
#[derive(Clone, Debug)]
pub struct Hotspot {
    lower: u64,
    hot_interval: u64,
    cold_interval: u64,
    hot_op_fraction: f64,
}

impl Hotspot {
    /// `hot_data_fraction` of `[lower, upper]` gets `hot_op_fraction` of the operations.
    pub fn new(lower: u64, upper: u64, hot_data_fraction: f64, hot_op_fraction: f64) -> Hotspot {
        let interval = upper - lower + 1;
        let hot_interval = ((interval as f64 * hot_data_fraction) as u64).max(1);
        Hotspot {
            lower,
            hot_interval,
            cold_interval: (interval - hot_interval).max(1),
            hot_op_fraction,
        }
    }

    /// The next value.
    pub fn next(&self, rng: &mut impl Rng) -> u64 {
        if rng.gen::<f64>() < self.hot_op_fraction {
            self.lower + rng.gen_range(0..self.hot_interval)
        } else {
            self.lower + self.hot_interval + rng.gen_range(0..self.cold_interval)
        }
    }
}

/// How a run picks keys (YCSB's `requestdistribution`).
#[derive(Clone, Debug)]
pub enum KeyChooser {
    /// Uniform over the loaded keys.
    Uniform {
        /// First key number.
        min: u64,
        /// Last key number.
        max: u64,
    },
    /// Scrambled zipfian (also covering keys expected to be inserted).
    Zipfian(ScrambledZipfian),
    /// Skewed towards the most recently inserted keys.
    Latest,
    /// A hot set.
    Hotspot(Hotspot),
}

impl KeyChooser {
    /// A key number at most `last_inserted` (YCSB retries zipfian picks past it).
    pub fn next(&self, rng: &mut impl Rng, last_inserted: u64, latest: &Zipfian) -> u64 {
        match self {
            KeyChooser::Uniform { min, max } => rng.gen_range(*min..=*max),
            KeyChooser::Zipfian(z) => loop {
                let k = z.next(rng);
                if k <= last_inserted {
                    return k;
                }
            },
            KeyChooser::Latest => {
                last_inserted.saturating_sub(latest.next(rng) % (last_inserted + 1))
            }
            KeyChooser::Hotspot(h) => h.next(rng),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::SmallRng;
    use rand::SeedableRng;

    #[test]
    fn fnv_matches_ycsb() {
        // Java's arithmetic: signed 64-bit wrap-around, then Math.abs.
        assert_eq!(fnvhash64(0), 6_284_781_860_667_377_211);
        assert_eq!(fnvhash64(1), 8_517_097_267_634_966_620);
        assert_eq!(fnvhash64(12_345), 1_792_800_413_050_876_852);
        assert_eq!(fnvhash64(999_999), 2_744_965_632_448_235_251);
    }

    #[test]
    fn zipfian_is_skewed_and_in_range() {
        let z = Zipfian::new(0, 999, ZIPFIAN_CONSTANT);
        let mut rng = SmallRng::seed_from_u64(1);
        let mut counts = vec![0u32; 1000];
        for _ in 0..100_000 {
            let v = z.next(&mut rng);
            assert!(v < 1000);
            counts[v as usize] += 1;
        }
        assert!(counts[0] > counts[10] && counts[10] > counts[500]);
        let s = ScrambledZipfian::new(100, 199);
        for _ in 0..10_000 {
            assert!((100..=199).contains(&s.next(&mut rng)));
        }
        let h = Hotspot::new(0, 99, 0.2, 0.8);
        let hot = (0..10_000).filter(|_| h.next(&mut rng) < 20).count();
        assert!((7_500..8_500).contains(&hot), "{hot}");
    }
}
