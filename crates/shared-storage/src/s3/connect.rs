//! Settings of a bucket and connecting to it: the client (timeouts, retries, conditional
//! puts by ETag, path-style URLs for an endpoint), the page cache, and one LIST that must
//! answer within the connect timeout.

use std::io;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use object_store::aws::{AmazonS3Builder, S3ConditionalPut};
use object_store::{BackoffConfig, ClientOptions, ObjectStore, RetryConfig};

use super::{io_error, Inner, S3Requests, S3};
use crate::runtime::Bridge;
use crate::s3_cache::PageCache;

/// How to reach a bucket. Credentials and anything not set here come from the standard AWS
/// environment variables (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`,
/// `AWS_REGION`, `AWS_ENDPOINT_URL`, `AWS_ALLOW_HTTP`, …).
#[derive(Clone, Debug)]
pub struct S3Options {
    /// The bucket.
    pub bucket: String,
    /// The endpoint URL of an S3-compatible service (`http://127.0.0.1:8333`); AWS's own when
    /// unset. Plain HTTP is allowed for a loopback host, elsewhere only with
    /// `AWS_ALLOW_HTTP=true`.
    pub endpoint: Option<String>,
    /// The region (default `AWS_REGION`, else `us-east-1`).
    pub region: Option<String>,
    /// Where the local page cache lives; `None` disables it. While another process holds it,
    /// the cache goes to the first free `<cache_dir>-<n>` (`PageCache::open_first_free`), so
    /// no process empties another's pages.
    pub cache_dir: Option<PathBuf>,
    /// Most bytes the page cache keeps.
    pub cache_bytes: u64,
    /// Longest wait for one request, retries included.
    pub op_timeout: Duration,
    /// How often the holder of a root's `LOCK` renews it (`s3/lock.rs`); the lock expires
    /// when a taker has seen it unrenewed for three times this.
    pub lock_renew: Duration,
    /// The host name written in `LOCK` (default: this host's).
    pub lock_host: Option<String>,
}

impl S3Options {
    /// Options for `bucket` with a 1 GiB cache in `cache_dir` and a 60 s request bound.
    pub fn new(bucket: &str, cache_dir: Option<PathBuf>) -> S3Options {
        S3Options {
            bucket: bucket.to_owned(),
            endpoint: None,
            region: None,
            cache_dir,
            cache_bytes: 1 << 30,
            op_timeout: Duration::from_secs(60),
            lock_renew: Duration::from_secs(10),
            lock_host: None,
        }
    }
}

fn is_loopback(endpoint: &str) -> bool {
    let host = endpoint
        .split_once("://")
        .map_or(endpoint, |(_, rest)| rest)
        .split(['/', '?'])
        .next()
        .unwrap_or_default();
    let host = host.rsplit_once(':').map_or(host, |(h, port)| {
        if port.chars().all(|c| c.is_ascii_digit()) {
            h
        } else {
            host
        }
    });
    matches!(host, "127.0.0.1" | "localhost" | "[::1]")
}

impl S3 {
    /// Connects to `options.bucket` and checks within `connect_timeout` that it answers: the
    /// endpoint is reachable, the bucket exists and the credentials are accepted.
    ///
    /// # Errors
    /// A bad setting, an unreachable endpoint, a missing bucket or refused credentials; the
    /// error names the bucket and the endpoint.
    pub fn connect(options: S3Options, connect_timeout: Duration) -> io::Result<S3> {
        // TLS through rustls with ring (the process may have chosen a provider already).
        let _ = rustls::crypto::ring::default_provider().install_default();
        let endpoint = options
            .endpoint
            .clone()
            .or_else(|| std::env::var("AWS_ENDPOINT_URL").ok());
        let allow_http = endpoint.as_deref().is_some_and(is_loopback)
            || std::env::var("AWS_ALLOW_HTTP").is_ok_and(|v| v.eq_ignore_ascii_case("true"));
        let client = ClientOptions::new()
            .with_allow_http(allow_http)
            .with_connect_timeout(connect_timeout.min(Duration::from_secs(5)))
            .with_timeout(options.op_timeout);
        let retry = RetryConfig {
            backoff: BackoffConfig {
                init_backoff: Duration::from_millis(100),
                max_backoff: Duration::from_secs(2),
                base: 2.0,
            },
            max_retries: 4,
            retry_timeout: options.op_timeout,
        };
        let mut builder = AmazonS3Builder::from_env()
            .with_bucket_name(&options.bucket)
            .with_client_options(client)
            .with_retry(retry)
            .with_conditional_put(S3ConditionalPut::ETagMatch);
        if let Some(endpoint) = &endpoint {
            builder = builder
                .with_endpoint(endpoint)
                .with_virtual_hosted_style_request(false);
        }
        if let Some(region) = &options.region {
            builder = builder.with_region(region);
        }
        let where_ = format!(
            "s3://{} at {}",
            options.bucket,
            endpoint.as_deref().unwrap_or("AWS")
        );
        let store = builder
            .build()
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, format!("{where_}: {e}")))?;
        let cache = match &options.cache_dir {
            Some(dir) if options.cache_bytes > 0 => Some(
                PageCache::open_first_free(dir, options.cache_bytes).map_err(|e| {
                    io::Error::new(e.kind(), format!("S3 cache {}: {e}", dir.display()))
                })?,
            ),
            _ => None,
        };
        let s3 = S3 {
            inner: Arc::new(Inner {
                store: Arc::new(store),
                bucket: options.bucket.clone(),
                bridge: Bridge::named("S3", options.op_timeout)?,
                cache,
                requests: S3Requests::default(),
                lock_renew: options.lock_renew.max(Duration::from_millis(10)),
                lock_host: options.lock_host.clone(),
                fenced: parking_lot::Mutex::new(None),
            }),
        };
        let store = s3.inner.store.clone();
        S3Requests::count(&s3.inner.requests.list);
        s3.inner
            .bridge
            .run_for("connect", connect_timeout, async move {
                store
                    .list_with_delimiter(None)
                    .await
                    .map(|_| ())
                    .map_err(io_error)
            })
            .map_err(|e| {
                // Without keys in the environment the client asks the EC2 instance metadata
                // service, whose failure alone would not say what is missing.
                let hint = if e.to_string().contains("169.254.169.254") {
                    " (no credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY; the \
                     instance metadata service did not answer)"
                } else {
                    ""
                };
                io::Error::new(e.kind(), format!("{where_}: {e}{hint}"))
            })?;
        Ok(s3)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_http_is_for_loopback_endpoints() {
        assert!(is_loopback("http://127.0.0.1:8333"));
        assert!(is_loopback("http://localhost:9000/"));
        assert!(!is_loopback("http://s3.example.com:80"));
        assert!(!is_loopback("http://127.0.0.1.example.com"));
    }
}
