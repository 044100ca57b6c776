use super::*;

fn get_request() -> pb::GetRequest {
    pb::GetRequest {
        region: pb::RegionSpecifier {
            r#type: 1,
            value: Bytes::from_static(b"t,,1.x."),
        },
        get: pb::Get {
            row: Bytes::from_static(b"row"),
            ..pb::Get::default()
        },
    }
}

#[test]
fn preamble_checks_magic_version_and_auth() {
    assert!(check_preamble(b"HBas\x00\x50").is_ok());
    assert!(check_preamble(b"HBas\x00\x51").is_ok());
    assert!(matches!(
        check_preamble(b"GET / "),
        Err(FrameError::BadPreamble(_))
    ));
    assert!(matches!(
        check_preamble(b"HBas\x01\x50"),
        Err(FrameError::UnsupportedVersion(1))
    ));
    assert!(matches!(
        check_preamble(b"HBas\x00\x52"),
        Err(FrameError::UnsupportedAuth(82))
    ));
}

#[test]
fn request_round_trips_with_and_without_cell_block() {
    for block in [&b""[..], b"cells!"] {
        let framed = encode_request(7, "Get", &get_request(), block);
        let body = framed.slice(4..);
        assert_eq!(
            u32::from_be_bytes(framed[..4].try_into().unwrap()) as usize,
            body.len()
        );
        let call = decode_call(body).unwrap();
        assert_eq!(call.header.call_id(), 7);
        assert_eq!(call.header.method_name(), "Get");
        assert_eq!(pb::GetRequest::decode(call.param).unwrap(), get_request());
        assert_eq!(call.cell_block.as_ref(), block);
    }
}

#[test]
fn reply_and_exception_round_trip() {
    let resp = pb::GetResponse::default();
    let framed = encode_reply(9, &resp.encode_to_vec(), Some(b"blk"));
    let (header, message, block) = decode_reply(framed.slice(4..)).unwrap();
    assert_eq!(header.call_id(), 9);
    assert_eq!(header.cell_block_meta.unwrap().length(), 3);
    assert_eq!(pb::GetResponse::decode(message).unwrap(), resp);
    assert_eq!(block.as_ref(), b"blk");

    let e = pb::ExceptionResponse {
        exception_class_name: Some("org.apache.hadoop.hbase.UnknownScannerException".into()),
        ..pb::ExceptionResponse::default()
    };
    let framed = encode_exception(3, e.clone());
    let (header, message, _) = decode_reply(framed.slice(4..)).unwrap();
    assert_eq!(header.exception, Some(e));
    assert!(message.is_empty());
}

#[test]
fn malformed_calls_are_errors() {
    let good = encode_request(1, "Get", &get_request(), b"xyz").slice(4..);
    // Every truncation is refused (the cell block length no longer matches, or a delimited
    // part runs past the end).
    for cut in 0..good.len() {
        assert!(decode_call(good.slice(..cut)).is_err(), "cut at {cut}");
    }
    // Extra bytes after the announced cell block.
    let mut extra = good.to_vec();
    extra.push(0);
    assert!(decode_call(Bytes::from(extra)).is_err());
    // A header length varint claiming more than the frame.
    assert!(decode_call(Bytes::from_static(&[0xff, 0xff, 0xff, 0x0f, 1])).is_err());
    // Not a request header at all.
    assert!(decode_call(Bytes::from_static(&[2, 0xff, 0xff])).is_err());
}

#[tokio::test]
async fn frames_over_the_limit_or_truncated_are_refused() {
    let mut ok: &[u8] = &[0, 0, 0, 2, 9, 9];
    assert_eq!(
        read_frame(&mut ok, 16).await.unwrap().unwrap().as_ref(),
        &[9, 9]
    );
    let mut empty: &[u8] = &[];
    assert!(read_frame(&mut empty, 16).await.unwrap().is_none());
    let mut big: &[u8] = &[0, 0, 1, 0];
    assert!(matches!(
        read_frame(&mut big, 16).await,
        Err(FrameError::TooLarge { len: 256, max: 16 })
    ));
    let mut short: &[u8] = &[0, 0, 0, 5, 1, 2];
    assert!(matches!(
        read_frame(&mut short, 16).await,
        Err(FrameError::Truncated)
    ));
    let mut half_length: &[u8] = &[0, 0];
    assert!(matches!(
        read_frame(&mut half_length, 16).await,
        Err(FrameError::Truncated)
    ));
}

mod garbage {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn decoders_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
            let frame = Bytes::from(bytes.clone());
            if let Ok(call) = decode_call(frame.clone()) {
                let announced = call
                    .header
                    .cell_block_meta
                    .as_ref()
                    .map_or(0, |m| m.length() as usize);
                prop_assert_eq!(call.cell_block.len(), announced);
            }
            let _ = decode_reply(frame);
            let _ = decode_connection_header(&bytes);
            if bytes.len() >= 6 {
                let preamble: [u8; 6] = bytes[..6].try_into().unwrap();
                let _ = check_preamble(&preamble);
            }
        }
    }
}

#[test]
fn buffered_frames_are_taken_whole_one_at_a_time() {
    let first = encode_request(1, "Get", &get_request(), &[]);
    let second = encode_request(2, "Get", &get_request(), b"cells");
    let mut input = BytesMut::new();
    input.extend_from_slice(&first);
    input.extend_from_slice(&second[..7]);
    assert_eq!(
        frame_needs(&input[first.len()..], 1 << 20),
        second.len() - 7
    );
    let call = decode_call(take_frame(&mut input, 1 << 20).unwrap().unwrap()).unwrap();
    assert_eq!(call.header.call_id(), 1);
    assert!(
        take_frame(&mut input, 1 << 20).unwrap().is_none(),
        "the second is partial"
    );
    assert_eq!(input.len(), 7, "nothing of a partial frame is taken");
    input.extend_from_slice(&second[7..]);
    assert_eq!(frame_needs(&input, 1 << 20), 0);
    let call = decode_call(take_frame(&mut input, 1 << 20).unwrap().unwrap()).unwrap();
    assert_eq!(
        (call.header.call_id(), &call.cell_block[..]),
        (2, &b"cells"[..])
    );
    assert!(input.is_empty());
    for short in 0..4 {
        let mut input = BytesMut::from(&first[..short]);
        assert!(take_frame(&mut input, 1 << 20).unwrap().is_none());
        assert_eq!(
            frame_needs(&input, 1 << 20),
            0,
            "the length is not read yet"
        );
    }
}

#[test]
fn a_buffered_frame_over_the_limit_is_refused_before_it_arrives() {
    let mut input = BytesMut::from(&u32::MAX.to_be_bytes()[..]);
    assert!(matches!(
        take_frame(&mut input, 1 << 20),
        Err(FrameError::TooLarge { len, max }) if len == u32::MAX as usize && max == 1 << 20
    ));
    assert_eq!(input.len(), 4, "nothing is taken");
    assert_eq!(frame_needs(&input, 1 << 20), 0);
}

#[test]
fn replies_appended_to_a_buffer_are_the_encoded_ones() {
    let mut out = BytesMut::new();
    put_reply(&mut out, 3, b"msg", Some(b"cells"));
    put_exception(&mut out, 4, pb::ExceptionResponse::default());
    let mut expected = BytesMut::new();
    expected.extend_from_slice(&encode_reply(3, b"msg", Some(b"cells")));
    expected.extend_from_slice(&encode_exception(4, pb::ExceptionResponse::default()));
    assert_eq!(out, expected);
    let first = take_frame(&mut out, 1 << 20).unwrap().unwrap();
    let (header, message, block) = decode_reply(first).unwrap();
    assert_eq!(
        (header.call_id(), &message[..], &block[..]),
        (3, &b"msg"[..], &b"cells"[..])
    );
    let (header, _, _) = decode_reply(take_frame(&mut out, 1 << 20).unwrap().unwrap()).unwrap();
    assert_eq!(header.call_id(), 4);
    assert!(header.exception.is_some());
}
