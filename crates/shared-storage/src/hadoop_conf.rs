//! The NameNode's HTTP address (WebHDFS) from the Hadoop configuration of this host, as HBase
//! finds it on its classpath: `hdfs-site.xml` under `HADOOP_CONF_DIR`, else under
//! `HADOOP_HOME/etc/hadoop`.
//!
//! The address is `dfs.namenode.http-address`, or the suffixed key of the NameNode whose
//! `dfs.namenode.rpc-address.<suffix>` is the root's `host:port`, or for an HA nameservice the
//! first NameNode's `dfs.namenode.http-address.<nameservice>.<id>`. A wildcard host
//! (`0.0.0.0`, the NameNode's own bind address) is replaced by the root's host.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Where the configuration is read from: `HADOOP_CONF_DIR`, else `HADOOP_HOME/etc/hadoop`.
pub fn conf_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("HADOOP_CONF_DIR") {
        return Some(PathBuf::from(dir));
    }
    std::env::var_os("HADOOP_HOME").map(|home| PathBuf::from(home).join("etc/hadoop"))
}

/// The properties of a Hadoop `*-site.xml`: `None` when the file is missing or not XML.
pub fn read_site(path: &Path) -> Option<HashMap<String, String>> {
    let text = std::fs::read_to_string(path).ok()?;
    let doc = roxmltree::Document::parse(&text).ok()?;
    let mut props = HashMap::new();
    for p in doc.descendants().filter(|n| n.has_tag_name("property")) {
        let child = |tag: &str| {
            p.children()
                .find(|c| c.has_tag_name(tag))
                .and_then(|c| c.text())
                .map(|t| t.trim().to_owned())
        };
        if let (Some(name), Some(value)) = (child("name"), child("value")) {
            props.insert(name, value);
        }
    }
    Some(props)
}

/// The HTTP address of the NameNode at `authority` (`host:port`, or an HA nameservice) in
/// `props`, with the key it came from.
pub fn http_address(props: &HashMap<String, String>, authority: &str) -> Option<(String, String)> {
    const RPC: &str = "dfs.namenode.rpc-address";
    const HTTP: &str = "dfs.namenode.http-address";
    let host = authority.split(':').next().unwrap_or(authority);
    let pick = |key: String| {
        props
            .get(&key)
            .map(|addr| (unwildcard(addr, host), key.clone()))
    };
    // An HA nameservice: its first NameNode's address.
    if let Some(ids) = props.get(&format!("dfs.ha.namenodes.{authority}")) {
        if let Some(id) = ids.split(',').map(str::trim).find(|i| !i.is_empty()) {
            let key = format!("{HTTP}.{authority}.{id}");
            let rpc_host = props
                .get(&format!("{RPC}.{authority}.{id}"))
                .and_then(|a| a.split(':').next())
                .unwrap_or(host)
                .to_owned();
            return props
                .get(&key)
                .map(|addr| (unwildcard(addr, &rpc_host), key.clone()));
        }
    }
    // The NameNode whose RPC address is the root's.
    let mut suffixes: Vec<&str> = props
        .iter()
        .filter(|(k, v)| v.as_str() == authority && k.starts_with(&format!("{RPC}.")))
        .map(|(k, _)| &k[RPC.len()..])
        .collect();
    suffixes.sort_unstable();
    for suffix in suffixes {
        if let Some(found) = pick(format!("{HTTP}{suffix}")) {
            return Some(found);
        }
    }
    pick(HTTP.to_owned())
}

/// `addr` with a wildcard host replaced by `host`.
fn unwildcard(addr: &str, host: &str) -> String {
    match addr.rsplit_once(':') {
        Some(("0.0.0.0" | "::" | "[::]" | "", port)) => format!("{host}:{port}"),
        _ => addr.to_owned(),
    }
}

/// The HTTP address of the NameNode at `authority` from this host's Hadoop configuration,
/// with where it was read (`key in path`).
pub fn namenode_http_address(authority: &str) -> Option<(String, String)> {
    let site = conf_dir()?.join("hdfs-site.xml");
    let props = read_site(&site)?;
    let (addr, key) = http_address(&props, authority)?;
    Some((addr, format!("{key} in {}", site.display())))
}

/// The NameNode retry settings Strata's HDFS client runs with, where this host's
/// `core-site.xml` and `hdfs-site.xml` do not set them.
///
/// `hdfs-native` retries a NameNode it cannot reach (a connection refused while the NameNode
/// restarts) with HA failover's back-off, even for a single NameNode: 500 ms doubling up to
/// 15 s, 15 times. A flush or a region's close that began as the NameNode died then slept up
/// to 15 s between tries and answered seconds after the NameNode was back. Java's client
/// retries a single NameNode's connection every second (`ipc.client.connect.retry.interval`,
/// 1 s): so does this one — 100 ms doubling up to 1 s, for as many tries as the operation's
/// timeout allows (each operation is bounded by [`crate::HdfsOptions::op_timeout`]).
pub const NAMENODE_RETRY_DEFAULTS: [(&str, &str); 3] = [
    ("dfs.client.failover.sleep.base.millis", "100"),
    ("dfs.client.failover.sleep.max.millis", "1000"),
    ("dfs.client.failover.max.attempts", "600"),
];

/// [`NAMENODE_RETRY_DEFAULTS`] less the keys `site` (the merged site files) sets.
pub fn namenode_retry_settings(site: &HashMap<String, String>) -> Vec<(String, String)> {
    NAMENODE_RETRY_DEFAULTS
        .iter()
        .filter(|(k, _)| !site.contains_key(*k))
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

/// The properties of this host's `core-site.xml` and `hdfs-site.xml` (the latter winning),
/// empty without a configuration directory.
pub fn site_properties() -> HashMap<String, String> {
    let mut props = HashMap::new();
    if let Some(dir) = conf_dir() {
        for file in ["core-site.xml", "hdfs-site.xml"] {
            props.extend(read_site(&dir.join(file)).unwrap_or_default());
        }
    }
    props
}

#[cfg(test)]
mod tests {
    use super::*;

    fn props(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn retry_settings_leave_the_site_files_keys_alone() {
        let all = namenode_retry_settings(&HashMap::new());
        assert_eq!(all.len(), NAMENODE_RETRY_DEFAULTS.len());
        let site = props(&[("dfs.client.failover.sleep.max.millis", "15000")]);
        let kept = namenode_retry_settings(&site);
        assert_eq!(kept.len(), NAMENODE_RETRY_DEFAULTS.len() - 1);
        assert!(kept
            .iter()
            .all(|(k, _)| k != "dfs.client.failover.sleep.max.millis"));
    }

    #[test]
    fn reads_a_site_file() {
        let dir = tempfile::tempdir().unwrap();
        let site = dir.path().join("hdfs-site.xml");
        std::fs::write(
            &site,
            "<?xml version=\"1.0\"?>\n<configuration>\n  <property>\n    \
             <name>dfs.namenode.http-address</name>\n    <value> 0.0.0.0:50070 </value>\n  \
             </property>\n  <property><name>dfs.replication</name><value>1</value>\
             </property>\n</configuration>\n",
        )
        .unwrap();
        let p = read_site(&site).unwrap();
        assert_eq!(p["dfs.replication"], "1");
        let (addr, key) = http_address(&p, "nn1:8020").unwrap();
        assert_eq!(addr, "nn1:50070");
        assert_eq!(key, "dfs.namenode.http-address");
        assert!(read_site(&dir.path().join("missing.xml")).is_none());
        std::fs::write(&site, "not xml <").unwrap();
        assert!(read_site(&site).is_none());
    }

    #[test]
    fn picks_the_namenode_of_the_root() {
        let p = props(&[
            ("dfs.namenode.http-address", "default:1"),
            ("dfs.namenode.rpc-address.a", "nn-a:8020"),
            ("dfs.namenode.http-address.a", "nn-a:9871"),
            ("dfs.namenode.rpc-address.b", "nn-b:8020"),
            ("dfs.namenode.http-address.b", "nn-b:9872"),
        ]);
        assert_eq!(http_address(&p, "nn-b:8020").unwrap().0, "nn-b:9872");
        assert_eq!(http_address(&p, "other:8020").unwrap().0, "default:1");
        let ha = props(&[
            ("dfs.ha.namenodes.ns", "nn1, nn2"),
            ("dfs.namenode.rpc-address.ns.nn1", "h1:8020"),
            ("dfs.namenode.http-address.ns.nn1", "0.0.0.0:9870"),
        ]);
        let (addr, key) = http_address(&ha, "ns").unwrap();
        assert_eq!(addr, "h1:9870");
        assert_eq!(key, "dfs.namenode.http-address.ns.nn1");
        assert!(http_address(&props(&[]), "nn:8020").is_none());
    }
}
