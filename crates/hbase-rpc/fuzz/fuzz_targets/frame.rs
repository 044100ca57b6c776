//! Fuzz target `frame`: arbitrary bytes as what a client sends after connecting — the 6-byte
//! preamble, the connection header frame, then call frames — through the same decoders the
//! server runs. Nothing may panic, no frame over the limit may be read, and every call the
//! decoders accept must account for exactly its frame's bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use strata_hbase_rpc::frame::{check_preamble, decode_call, decode_connection_header, read_frame};

/// The frame limit the harness uses (the server's is configurable).
const MAX_FRAME: usize = 1 << 16;

fuzz_target!(|data: &[u8]| {
    if data.len() < 6 {
        return;
    }
    let preamble: [u8; 6] = data[..6].try_into().expect("six bytes");
    let _ = check_preamble(&preamble);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a current-thread runtime");
    runtime.block_on(async {
        let mut rest = &data[6..];
        if let Ok(Some(header)) = read_frame(&mut rest, MAX_FRAME).await {
            assert!(header.len() <= MAX_FRAME);
            let _ = decode_connection_header(&header);
        }
        while let Ok(Some(frame)) = read_frame(&mut rest, MAX_FRAME).await {
            assert!(frame.len() <= MAX_FRAME);
            let len = frame.len();
            let Ok(call) = decode_call(frame) else { continue };
            let announced = call
                .header
                .cell_block_meta
                .as_ref()
                .map_or(0, |m| m.length() as usize);
            assert_eq!(call.cell_block.len(), announced);
            assert!(call.param.len() + call.cell_block.len() < len);
        }
    });
});
