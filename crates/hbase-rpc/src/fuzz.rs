//! Entry points for the fuzz targets (`fuzz/`) and their corpus replay test: a client's bytes
//! taken as the listener takes them, with the listener's own functions, in its order — the
//! preamble (or the registry's and the security preamble's), the SASL GSSAPI tokens of a
//! Kerberos connection (each fed to [`GssapiServer`] when an acceptor is given), the
//! connection header and its codec, then every call: its frame, header, parameter decoded as
//! its method's request and turned into Strata's operations, and its cell block decoded with
//! the connection's codec. Whatever the bytes, this returns; a panic is the bug a fuzzer
//! finds. Nothing here is used by the server.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use bytes::{Bytes, BytesMut};
use prost::Message;
use strata_gss::Acceptor;

use crate::cellblock::{self, Codec};
use crate::{convert, frame, pb, sasl};

/// Largest frame taken (the listener's default bound is larger; the fuzzer's inputs are small).
const MAX_FRAME: usize = 1 << 20;
/// Most SASL tokens taken from one input.
const MAX_TOKENS: usize = 8;

/// Runs a future that cannot wait (it reads from a slice) to its end.
fn ready<F: Future>(f: F) -> Option<F::Output> {
    let mut f = pin!(f);
    match f.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(out) => Some(out),
        Poll::Pending => None,
    }
}

/// How far a connection's bytes got.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Reached {
    /// SASL tokens taken.
    pub tokens: usize,
    /// The connection header decoded.
    pub header: bool,
    /// Calls decoded (header, parameter and cell block).
    pub calls: usize,
    /// Calls whose parameter decoded as their method's request.
    pub requests: usize,
}

/// Takes `data` as the bytes a client sent on a new connection.
pub fn connection(data: &[u8], acceptor: Option<&Acceptor>) -> Reached {
    let mut reached = Reached::default();
    let mut rest = data;
    let preamble = loop {
        let Some((preamble, after)) = rest.split_first_chunk::<6>() else {
            return reached;
        };
        rest = after;
        if preamble == frame::REGISTRY_PREAMBLE {
            return reached;
        }
        if preamble != frame::SECURITY_PREAMBLE {
            break *preamble;
        }
    };
    if frame::check_preamble(&preamble).is_err() {
        return reached;
    }
    if preamble[5] == frame::AUTH_KERBEROS
        && !sasl_exchange(&mut rest, acceptor, &mut reached.tokens)
    {
        return reached;
    }
    let mut input = BytesMut::from(rest);
    let Ok(Some(header)) = frame::take_frame(&mut input, MAX_FRAME) else {
        return reached;
    };
    let Ok(header) = frame::decode_connection_header(&header) else {
        return reached;
    };
    let codec = match header.cell_block_codec_class.as_deref() {
        None | Some("") => None,
        Some(class) => match Codec::from_class(class) {
            Some(codec) => Some(codec),
            None => return reached,
        },
    };
    reached.header = true;
    while let Ok(Some(call)) = frame::take_frame(&mut input, MAX_FRAME) {
        let Ok(call) = frame::decode_call(call) else {
            return reached;
        };
        reached.calls += 1;
        let block = match (call.cell_block.is_empty(), codec) {
            (true, _) => Vec::new(),
            (false, Some(codec)) => cellblock::decode(codec, &call.cell_block).unwrap_or_default(),
            (false, None) => Vec::new(),
        };
        if request(call.header.method_name(), &call.param, block) {
            reached.requests += 1;
        }
    }
    reached
}

/// The SASL tokens of a Kerberos connection; whether the exchange ended authenticated (only
/// with an acceptor: without one the first token is read and dropped, as a server without
/// Kerberos does, and the connection goes on); `tokens` counts the tokens taken.
fn sasl_exchange(rest: &mut &[u8], acceptor: Option<&Acceptor>, tokens: &mut usize) -> bool {
    let Some(acceptor) = acceptor else {
        let read = matches!(ready(sasl::read_token(rest)), Some(Ok(_)));
        *tokens += usize::from(read);
        return read;
    };
    let mut server = sasl::GssapiServer::new(acceptor, Box::new(|_| Ok(())));
    for _ in 0..MAX_TOKENS {
        let Some(Ok(token)) = ready(sasl::read_token(rest)) else {
            return false;
        };
        *tokens += 1;
        match server.step(&token) {
            Ok(sasl::Outcome::Challenge(_)) => {}
            Ok(sasl::Outcome::Authenticated(_)) => return true,
            Err(_) => return false,
        }
    }
    false
}

/// Decodes a call's parameter as `method`'s request and turns it into Strata's operations;
/// whether every part of it converted.
fn request(method: &str, param: &Bytes, block: Vec<strata_model::cell::Cell>) -> bool {
    let mut cells = block.into_iter();
    match method {
        "Get" => pb::GetRequest::decode(param.clone())
            .is_ok_and(|req| convert::get_from_pb(&req.get).is_ok()),
        "Mutate" => pb::MutateRequest::decode(param.clone()).is_ok_and(|req| {
            let mutation = convert::mutation_from_pb(&req.mutation, &mut cells).is_ok();
            let condition = req
                .condition
                .as_ref()
                .is_none_or(|c| convert::condition_from_pb(c).is_ok());
            mutation && condition
        }),
        "Multi" => pb::MultiRequest::decode(param.clone()).is_ok_and(|req| {
            let mut all = true;
            for action in req.region_action.iter().flat_map(|r| &r.action) {
                if let Some(m) = &action.mutation {
                    all &= convert::mutation_from_pb(m, &mut cells).is_ok();
                }
                if let Some(g) = &action.get {
                    all &= convert::get_from_pb(g).is_ok();
                }
            }
            all
        }),
        "Scan" => pb::ScanRequest::decode(param.clone()).is_ok_and(|req| {
            req.scan.as_ref().is_none_or(|scan| {
                convert::scan_from_pb(scan, req.number_of_rows.unwrap_or(0)).is_ok()
            })
        }),
        _ => false,
    }
}
