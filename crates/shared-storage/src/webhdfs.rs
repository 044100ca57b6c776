//! The few NameNode calls `hdfs-native` 0.14 does not expose, through the NameNode's WebHDFS
//! REST endpoint (`http://namenode:9870/webhdfs/v1/...`): setting and reading storage
//! policies, and where a file's blocks are (which storage type each replica is on).
//!
//! A minimal HTTP/1.1 client over a `TcpStream` with timeouts: one request per connection,
//! `Connection: close`, no redirects followed (the NameNode answers these operations itself).

use std::io::{self, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

/// A NameNode's WebHDFS endpoint.
#[derive(Clone, Debug)]
pub struct WebHdfs {
    /// `host:port` of the NameNode's HTTP server.
    pub addr: String,
    /// The user named in requests (`user.name`).
    pub user: String,
    /// Connect and read timeout.
    pub timeout: Duration,
}

impl WebHdfs {
    /// Sets the storage policy of `path` (HDFS's names: `HOT`, `ALL_SSD`, …).
    ///
    /// # Errors
    /// The NameNode could not be reached or refused the request (its message is included).
    pub fn set_storage_policy(&self, path: &str, policy: &str) -> io::Result<()> {
        self.request(
            "PUT",
            path,
            &format!("op=SETSTORAGEPOLICY&storagepolicy={policy}"),
        )
        .map(|_| ())
    }

    /// The JSON of `GETFILEBLOCKLOCATIONS` for `path`: every block with the storage type of
    /// each replica (`"storageTypes":["SSD","DISK"]`).
    ///
    /// # Errors
    /// The NameNode could not be reached or refused the request.
    pub fn block_locations(&self, path: &str) -> io::Result<String> {
        self.request("GET", path, "op=GETFILEBLOCKLOCATIONS")
    }

    /// The JSON of `GETSTORAGEPOLICY` for `path`.
    ///
    /// # Errors
    /// The NameNode could not be reached or refused the request.
    pub fn storage_policy(&self, path: &str) -> io::Result<String> {
        self.request("GET", path, "op=GETSTORAGEPOLICY")
    }

    fn request(&self, method: &str, path: &str, query: &str) -> io::Result<String> {
        let fail = |what: String| io::Error::other(format!("webhdfs {} {path}: {what}", self.addr));
        // Not reaching a WebHDFS endpoint at all is `NotConnected` ([`is_unreachable`]).
        let unreachable = |what: String| {
            io::Error::new(
                io::ErrorKind::NotConnected,
                format!("webhdfs {} {path}: {what}", self.addr),
            )
        };
        let addr = self
            .addr
            .to_socket_addrs()
            .map_err(|e| unreachable(format!("cannot resolve: {e}")))?
            .next()
            .ok_or_else(|| unreachable("no address".into()))?;
        let mut stream = TcpStream::connect_timeout(&addr, self.timeout)
            .map_err(|e| unreachable(format!("cannot connect: {e}")))?;
        stream.set_read_timeout(Some(self.timeout))?;
        stream.set_write_timeout(Some(self.timeout))?;
        let path = encode_path(path);
        write!(
            stream,
            "{method} /webhdfs/v1{path}?{query}&user.name={} HTTP/1.1\r\nHost: {}\r\n\
             Content-Length: 0\r\nConnection: close\r\n\r\n",
            self.user, self.addr
        )?;
        let mut response = Vec::new();
        stream.take(16 << 20).read_to_end(&mut response)?;
        let text = String::from_utf8_lossy(&response);
        let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
        let status: u16 = head
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| unreachable("not an HTTP response".into()))?;
        let body = if head
            .to_ascii_lowercase()
            .contains("transfer-encoding: chunked")
        {
            dechunk(body)
        } else {
            body.to_owned()
        };
        if status != 200 {
            return Err(fail(format!("HTTP {status}: {}", body.trim())));
        }
        Ok(body)
    }
}

/// True when `e` (from [`WebHdfs`]) means no WebHDFS endpoint answered at its address: it
/// could not be resolved or connected to, or did not speak HTTP.
pub fn is_unreachable(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::NotConnected
}

/// Percent-encodes what a path may hold but a URL may not.
fn encode_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"/-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The body of a chunked transfer encoding.
fn dechunk(body: &str) -> String {
    let mut out = String::new();
    let mut rest = body;
    while let Some((size, after)) = rest.split_once("\r\n") {
        let Ok(n) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if n == 0 || after.len() < n {
            break;
        }
        out.push_str(&after[..n]);
        rest = after[n..].trim_start_matches("\r\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_paths_and_dechunks() {
        assert_eq!(encode_path("/a b/c%"), "/a%20b/c%25");
        assert_eq!(
            dechunk("5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"),
            "hello world"
        );
    }

    #[test]
    fn unreachable_endpoint_is_a_clear_error() {
        let w = WebHdfs {
            addr: "127.0.0.1:1".into(),
            user: "strata".into(),
            timeout: Duration::from_secs(2),
        };
        let e = w.set_storage_policy("/x", "HOT").unwrap_err();
        assert!(e.to_string().contains("127.0.0.1:1"), "{e}");
        assert!(is_unreachable(&e), "{e:?}");
    }
}
