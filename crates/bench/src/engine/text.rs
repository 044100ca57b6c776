//! A deterministic, text-like value buffer: words drawn with a Zipf-like skew from a small
//! vocabulary plus made-up words, in sentences. Compresses roughly like prose.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

const COMMON: [&str; 40] = [
    "the", "of", "and", "to", "in", "a", "is", "that", "for", "it", "as", "was", "with", "be",
    "by", "on", "not", "he", "this", "are", "or", "his", "from", "at", "which", "but", "have",
    "an", "had", "they", "you", "were", "their", "one", "all", "we", "can", "her", "has", "there",
];

/// A buffer of `len` bytes of text.
pub fn buffer(len: usize, seed: u64) -> Vec<u8> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let syllables = [
        "ka", "lo", "mi", "ne", "ra", "to", "shi", "vu", "de", "po", "an", "el",
    ];
    let mut out = Vec::with_capacity(len + 64);
    let mut in_sentence = 0;
    while out.len() < len {
        let word: String = if rng.gen_bool(0.6) {
            // Zipf-like: low indexes much more often.
            let r: f64 = rng.gen();
            COMMON[((r * r * r) * COMMON.len() as f64) as usize].to_owned()
        } else {
            (0..rng.gen_range(1..4))
                .map(|_| syllables[rng.gen_range(0..syllables.len())])
                .collect()
        };
        if in_sentence == 0 {
            let mut w = word.into_bytes();
            w[0] = w[0].to_ascii_uppercase();
            out.extend_from_slice(&w);
        } else {
            out.extend_from_slice(word.as_bytes());
        }
        in_sentence += 1;
        if in_sentence > rng.gen_range(5..20) {
            out.extend_from_slice(b". ");
            in_sentence = 0;
        } else {
            out.push(b' ');
        }
    }
    out.truncate(len);
    out
}
