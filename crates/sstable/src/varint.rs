//! Unsigned LEB128 varints: 7 bits a byte, low bits first, high bit set on all but the last.

/// Appends `v` as a varint.
#[inline]
pub fn put_u64(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Appends `v` as a varint.
#[inline]
pub fn put_u32(out: &mut Vec<u8>, v: u32) {
    put_u64(out, u64::from(v));
}

/// Bytes `v` takes as a varint.
#[cfg(test)]
#[inline]
pub fn len_u64(mut v: u64) -> usize {
    let mut n = 1;
    while v >= 0x80 {
        v >>= 7;
        n += 1;
    }
    n
}

/// Reads a varint at `*pos`, advancing it. `None` if the input ends or the varint is longer
/// than 10 bytes (a u64 never is).
#[inline]
pub fn get_u64(buf: &[u8], pos: &mut usize) -> Option<u64> {
    let mut result = 0u64;
    let mut shift = 0u32;
    loop {
        let b = *buf.get(*pos)?;
        *pos += 1;
        if shift == 63 && b > 1 {
            return None;
        }
        result |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Some(result);
        }
        shift += 7;
        if shift > 63 {
            return None;
        }
    }
}

/// Reads a varint that must fit in u32.
#[inline]
pub fn get_u32(buf: &[u8], pos: &mut usize) -> Option<u32> {
    get_u64(buf, pos).and_then(|v| u32::try_from(v).ok())
}

/// Reads a varint that must fit in usize and be at most `max`.
#[inline]
pub fn get_len(buf: &[u8], pos: &mut usize, max: usize) -> Option<usize> {
    let v = usize::try_from(get_u64(buf, pos)?).ok()?;
    (v <= max).then_some(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn round_trips(v: u64) {
            let mut out = Vec::new();
            put_u64(&mut out, v);
            prop_assert_eq!(out.len(), len_u64(v));
            let mut pos = 0;
            prop_assert_eq!(get_u64(&out, &mut pos), Some(v));
            prop_assert_eq!(pos, out.len());
        }

        #[test]
        fn never_panics(bytes: Vec<u8>) {
            let mut pos = 0;
            let _ = get_u64(&bytes, &mut pos);
            prop_assert!(pos <= bytes.len());
        }
    }

    #[test]
    fn rejects_overlong() {
        let mut pos = 0;
        assert_eq!(get_u64(&[0xff; 11], &mut pos), None);
        let mut pos = 0;
        assert_eq!(
            get_u64(
                &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02],
                &mut pos
            ),
            None
        );
        let mut pos = 0;
        assert_eq!(get_u64(&[0x80], &mut pos), None);
    }
}
