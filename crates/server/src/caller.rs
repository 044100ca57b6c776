//! The caller of a request, as its connection knows it (RFC 0026): the name a client
//! certificate proves, and the client's address. A gRPC connection hands it to tonic as its
//! connect info; the framed protocol puts it into each request's extensions; both land in
//! the same place, read by [`caller`].

use strata_access::{AuthMethod, Caller};
use strata_tls::Stream;
use tonic::Request;

/// The caller of a connection.
pub fn of_stream(stream: &Stream) -> Caller {
    let addr = stream.peer_addr().ok();
    match stream.peer_user() {
        Some(user) => Caller::certified(&user, addr),
        None => Caller {
            user: None,
            how: AuthMethod::None,
            addr,
        },
    }
}

/// The caller of `request` (anonymous for a request built in this process without one).
pub fn caller<T>(request: &Request<T>) -> Caller {
    request
        .extensions()
        .get::<Caller>()
        .cloned()
        .unwrap_or_else(|| Caller::anonymous(None))
}

/// `request` made as `caller`.
pub fn as_caller<T>(mut request: Request<T>, caller: Caller) -> Request<T> {
    request.extensions_mut().insert(caller);
    request
}
