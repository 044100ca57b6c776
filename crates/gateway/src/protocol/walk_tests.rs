use super::*;
use crate::protocol::{Encoder, Struct, Value, MAX_DEPTH};

const LIMIT: usize = 1 << 20;

/// A struct with every type, nested: a `mutateRows`-like list of row structs, a map, scalars.
fn sample() -> Vec<u8> {
    let row = |i: u8| {
        Value::Struct(Struct::new().with(1, Value::binary(vec![b'r', i])).with(
            2,
            Value::list(
                TType::Struct,
                vec![Value::Struct(
                            Struct::new()
                                .with(1, Value::Bool(false))
                                .with(2, Value::binary(b"f:c".to_vec()))
                                .with(3, Value::binary(vec![i; 100])),
                        )],
            ),
        ))
    };
    let body = Struct::new()
        .with(1, Value::binary(b"table".to_vec()))
        .with(2, Value::list(TType::Struct, (0..20).map(row).collect()))
        .with(
            3,
            Value::Map {
                key: TType::String,
                value: TType::I64,
                entries: vec![(Value::binary(b"k".to_vec()), Value::I64(-7))],
            },
        )
        .with(4, Value::Byte(-1))
        .with(5, Value::Double(0.5))
        .with(6, Value::I16(3))
        .with(7, Value::I32(9))
        .with(8, Value::list(TType::I32, vec![]));
    let mut e = Encoder::new();
    e.write_struct(&body);
    e.into_bytes()
}

/// The walk fed `buf` `step` bytes at a time: its result once it stops asking for more, and
/// how many bytes it had then.
fn walk_in_steps(buf: &[u8], step: usize) -> (Result<usize, DecodeError>, usize) {
    let mut walk = Walk::new(0);
    let mut have = 0;
    loop {
        have = (have + step).min(buf.len());
        match walk.resume(&buf[..have], LIMIT) {
            Err(DecodeError::Incomplete) if have < buf.len() => continue,
            other => return (other, have),
        }
    }
}

#[test]
fn walk_ends_where_the_decoder_ends_however_the_bytes_are_cut() {
    let message = sample();
    let mut d = Decoder::new(&message, LIMIT);
    d.read_struct().unwrap();
    assert_eq!(d.position(), message.len());
    // The next message's first bytes follow it in the buffer.
    let mut buf = message.clone();
    buf.extend_from_slice(&[0x80, 0x01, 0x00, 0x01]);
    for step in [1, 2, 3, 7, 64, 1000, buf.len()] {
        let (result, have) = walk_in_steps(&buf, step);
        assert_eq!(result, Ok(message.len()), "step {step}");
        assert!(have >= message.len(), "step {step}");
    }
    // Any proper prefix asks for more.
    for cut in 0..message.len() {
        assert_eq!(
            Walk::new(0).resume(&message[..cut], LIMIT),
            Err(DecodeError::Incomplete),
            "cut at {cut}"
        );
    }
}

#[test]
fn walk_starts_where_it_is_told() {
    let message = sample();
    let mut buf = vec![0xAA; 5];
    buf.extend_from_slice(&message);
    assert_eq!(Walk::new(5).resume(&buf, LIMIT), Ok(buf.len()));
}

/// Struct bodies the decoder rejects, each as it rejects them.
fn malformed() -> Vec<Vec<u8>> {
    let string_field = |len: i32| {
        let mut e = Encoder::new();
        e.write_u8(TType::String.code());
        e.write_i16(1);
        e.write_i32(len);
        e.into_bytes()
    };
    let mut deep = Vec::new();
    for _ in 0..=MAX_DEPTH + 1 {
        deep.extend_from_slice(&[TType::Struct.code(), 0, 1]);
    }
    deep.extend(std::iter::repeat_n(0, MAX_DEPTH + 2));
    let mut list_of_void = vec![TType::List.code(), 0, 1, TType::Void.code()];
    list_of_void.extend_from_slice(&2i32.to_be_bytes());
    let mut map_bad_value = vec![TType::Map.code(), 0, 1, TType::String.code(), 99];
    map_bad_value.extend_from_slice(&1i32.to_be_bytes());
    let mut list_too_long = vec![TType::List.code(), 0, 1, TType::I32.code()];
    list_too_long.extend_from_slice(&((LIMIT + 1) as i32).to_be_bytes());
    vec![
        vec![42, 0, 1],                 // unknown field type
        vec![TType::Void.code(), 0, 1], // void is no value
        string_field(-1),               // negative length
        string_field(LIMIT as i32 + 1), // over the limit
        deep,                           // nested too deep
        list_of_void,                   // elements of no value type
        map_bad_value,                  // unknown value type in a map header
        list_too_long,                  // list length over the limit
    ]
}

#[test]
fn walk_rejects_what_the_decoder_rejects_with_its_error() {
    for (i, body) in malformed().into_iter().enumerate() {
        let expected = Decoder::new(&body, LIMIT).read_struct().unwrap_err();
        assert!(
            matches!(expected, DecodeError::Invalid(_)),
            "case {i}: {expected:?}"
        );
        assert_eq!(
            Walk::new(0).resume(&body, LIMIT),
            Err(expected.clone()),
            "case {i}"
        );
        for step in [1, 3] {
            assert_eq!(
                walk_in_steps(&body, step).0,
                Err(expected.clone()),
                "case {i}"
            );
        }
    }
}
