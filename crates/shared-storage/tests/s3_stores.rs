//! The file store on a real S3-compatible service (SeaweedFS from scripts/s3.sh): the same
//! contract as on HDFS, plus the page cache, the root lock and bad endpoints.
#![allow(clippy::unwrap_used)]

mod s3support;

use std::io::Write;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use strata_shared_storage::{S3Options, S3};
use strata_storage::vfs::FileStore;

#[test]
fn files_are_written_once_read_by_range_listed_renamed_and_removed() {
    let Some(s3) = s3support::store(None) else {
        return;
    };
    let dir = s3support::unique_dir("files");
    s3.create_dir_all(&dir).unwrap();
    // Larger than one part: a multipart upload, invisible until closed.
    let path = dir.join("a.sst");
    let data: Vec<u8> = (0..20_000_000u32).map(|i| (i % 251) as u8).collect();
    let mut w = s3.create(&path).unwrap();
    w.write_all(&data).unwrap();
    w.sync().unwrap();
    assert_eq!(s3.len(&path).unwrap(), None, "visible before close");
    w.close().unwrap();
    assert_eq!(s3.len(&path).unwrap(), Some(data.len() as u64));
    let src = s3.open(&path).unwrap();
    assert_eq!(src.size().unwrap(), data.len() as u64);
    assert_eq!(
        &src.read_at(9_000_000, 10).unwrap()[..],
        &data[9_000_000..9_000_010]
    );
    assert!(
        src.read_at(data.len() as u64 - 1, 2).is_err(),
        "read past the end"
    );
    // A writer dropped without close leaves nothing.
    let mut w = s3.create(&dir.join("torn")).unwrap();
    w.write_all(&data[..1000]).unwrap();
    drop(w);
    assert_eq!(s3.len(&dir.join("torn")).unwrap(), None);
    s3.write_atomic(&dir.join("MANIFEST"), b"one").unwrap();
    s3.write_atomic(&dir.join("MANIFEST"), b"two").unwrap();
    assert_eq!(s3.read(&dir.join("MANIFEST")).unwrap(), b"two");
    s3.write_atomic(&dir.join("sub/x"), b"x").unwrap();
    let mut names: Vec<(String, bool)> = s3
        .list(&dir)
        .unwrap()
        .into_iter()
        .map(|e| (e.name, e.is_dir))
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            ("MANIFEST".into(), false),
            ("a.sst".into(), false),
            ("sub".into(), true)
        ]
    );
    assert_eq!(
        s3.len(&dir.join("sub")).unwrap(),
        Some(0),
        "a prefix is a directory"
    );
    assert!(s3.exists(&dir).unwrap());
    s3.rename(&path, &dir.join("b.sst")).unwrap();
    assert_eq!(s3.len(&path).unwrap(), None);
    assert_eq!(s3.read(&dir.join("b.sst")).unwrap(), data);
    s3.remove_file(&dir.join("b.sst")).unwrap();
    let gone = s3.remove_file(&dir.join("b.sst")).unwrap_err();
    assert_eq!(gone.kind(), std::io::ErrorKind::NotFound);
    // A directory emptied by removing its last file lists nothing, not itself (SeaweedFS
    // keeps the directory's entry, `sub/`, which a listing of `sub` must not call a file).
    s3.remove_file(&dir.join("sub/x")).unwrap();
    let emptied = s3.list(&dir.join("sub")).unwrap();
    assert!(emptied.is_empty(), "{emptied:?}");
    assert!(s3.url(&path).starts_with("s3://"), "{}", s3.url(&path));
    s3.remove_dir_all(&dir).unwrap();
    assert!(!s3.exists(&dir).unwrap());
    // No object is left. (SeaweedFS's filer may keep an emptied "directory" listed as a
    // common prefix for a while; S3 itself does not.)
    let left = s3.list(&dir).unwrap();
    assert!(left.iter().all(|e| e.is_dir), "{left:?}");
}

#[test]
fn warm_reads_come_from_the_page_cache_without_a_get() {
    let cache = tempfile::tempdir().unwrap();
    let Some(s3) = s3support::store(Some(cache.path())) else {
        return;
    };
    let dir = s3support::unique_dir("cache");
    let path = dir.join("f");
    let data: Vec<u8> = (0..1_000_000u32).map(|i| (i % 13) as u8).collect();
    s3.write_atomic(&path, &data).unwrap();
    // A second store (another process) starts cold.
    let cold = s3support::store(Some(&cache.path().join("cold"))).unwrap();
    let src = cold.open(&path).unwrap();
    let gets = || cold.requests().get.load(Ordering::Relaxed);
    assert_eq!(
        &src.read_at(300_000, 200_000).unwrap()[..],
        &data[300_000..500_000]
    );
    assert_eq!(gets(), 1, "one ranged GET for the missing pages");
    for (at, len) in [(300_000, 200_000), (310_000, 10), (400_000, 100_000)] {
        assert_eq!(
            &src.read_at(at, len).unwrap()[..],
            &data[at as usize..][..len]
        );
    }
    assert_eq!(gets(), 1, "warm reads sent a GET");
    // Cached pages are read without waiting (a runtime worker's reads), across two pages
    // too; a range with a page that is not cached is refused, without a GET.
    for (at, len) in [(310_000, 10), (300_000, 200_000)] {
        let got = src.read_at_nowait(at, len).unwrap().expect("cached pages");
        assert_eq!(&got[..], &data[at as usize..][..len]);
    }
    assert_eq!(
        src.read_at_nowait(0, 10).unwrap(),
        None,
        "page 0 is not cached"
    );
    assert_eq!(gets(), 1, "reads without waiting never send a GET");
    // A read spanning cached and missing pages fetches only the missing ones.
    assert_eq!(&src.read_at(0, 1_000_000).unwrap()[..], &data[..]);
    assert_eq!(gets(), 3);
    assert_eq!(&src.read_at(0, 1_000_000).unwrap()[..], &data[..]);
    assert_eq!(gets(), 3);
    // Bounded: a tiny cache keeps at most its size.
    let mut small = s3support::options(Some(&cache.path().join("small"))).unwrap();
    small.cache_bytes = 256 << 10;
    let small = S3::connect(small, Duration::from_secs(20)).unwrap();
    small.open(&path).unwrap().read_at(0, 1_000_000).unwrap();
    assert!(small.cache().unwrap().used() <= 256 << 10);
    s3.remove_dir_all(&dir).unwrap();
}

#[test]
fn the_root_lock_admits_one_process() {
    let Some(s3) = s3support::store(None) else {
        return;
    };
    let dir = s3support::unique_dir("lock");
    let lock = dir.join("LOCK");
    let held = s3.lock(&lock).unwrap();
    let other = s3support::store(None).unwrap();
    let refused = match other.lock(&lock) {
        Err(e) => e,
        Ok(_) => panic!("a second process took the lock"),
    };
    assert_eq!(refused.kind(), std::io::ErrorKind::WouldBlock);
    assert!(refused.to_string().contains("held by process"), "{refused}");
    drop(held);
    let again = other.lock(&lock).unwrap();
    drop(again);
    // A lock left by a process of this host that is gone is taken over.
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
    let dead = format!("{} 4294967\n", host.trim());
    s3.write_atomic(&lock, dead.as_bytes()).unwrap();
    let taken = other.lock(&lock).unwrap();
    let text = String::from_utf8(s3.read(&lock).unwrap()).unwrap();
    assert_eq!(
        text.split_whitespace().nth(1),
        Some(std::process::id().to_string().as_str()),
        "{text}"
    );
    drop(taken);
    s3.remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_endpoints_and_credentials_fail_fast_with_a_clear_error() {
    let Some(good) = s3support::options(None) else {
        return;
    };
    let started = Instant::now();
    let mut unreachable = S3Options::new("strata", None);
    unreachable.endpoint = Some("http://127.0.0.1:1".into());
    let e = S3::connect(unreachable, Duration::from_secs(5)).unwrap_err();
    assert!(e.to_string().contains("127.0.0.1:1"), "{e}");
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "{:?}",
        started.elapsed()
    );
    let mut missing = good.clone();
    missing.bucket = "no-such-bucket-strata".into();
    let e = S3::connect(missing, Duration::from_secs(10)).unwrap_err();
    assert!(e.to_string().contains("no-such-bucket-strata"), "{e}");
}

#[test]
fn two_processes_on_one_cold_root_keep_their_own_page_caches() {
    let Some(opts) = s3support::options(None) else {
        return;
    };
    let dir = s3support::unique_dir("shared-cache");
    let url = format!("s3://{}{}", opts.bucket, dir.display());
    let root_options = strata_shared_storage::RootOptions {
        s3_endpoint: opts.endpoint.clone(),
        s3_cache_bytes: 16 << 20,
        ..strata_shared_storage::RootOptions::new()
    };
    // The default cache directory: one name per URL under the temporary directory.
    let (first, prefix) = strata_shared_storage::open_cold_root(&url, &root_options).unwrap();
    let path = prefix.join("f.sst");
    let data: Vec<u8> = (0..300_000u32).map(|i| (i % 17) as u8).collect();
    first.write_atomic(&path, &data).unwrap();
    let src = first.open(&path).unwrap();
    assert_eq!(&src.read_at(0, 300_000).unwrap()[..], &data[..]);
    let gets = || first.requests().get.load(Ordering::Relaxed);
    let warm = gets();
    // Another process of this host on the same cold root: a directory of its own, so the
    // first one's pages stay (before, it emptied the shared directory).
    let (second, _) = strata_shared_storage::open_cold_root(&url, &root_options).unwrap();
    let (a, b) = (
        first.cache().unwrap().dir().to_owned(),
        second.cache().unwrap().dir().to_owned(),
    );
    assert_ne!(a, b);
    assert_eq!(&src.read_at(0, 300_000).unwrap()[..], &data[..]);
    assert_eq!(gets(), warm, "the first process's warm read sent a GET");
    // So does one given explicitly to both.
    let mine = tempfile::tempdir().unwrap();
    let explicit = strata_shared_storage::RootOptions {
        s3_cache_dir: Some(mine.path().to_owned()),
        ..root_options.clone()
    };
    let third = strata_shared_storage::open_cold_root(&url, &explicit)
        .unwrap()
        .0;
    let fourth = strata_shared_storage::open_cold_root(&url, &explicit)
        .unwrap()
        .0;
    assert_eq!(third.cache().unwrap().dir(), mine.path().join("cold"));
    assert_eq!(fourth.cache().unwrap().dir(), mine.path().join("cold-1"));
    first.remove_dir_all(&prefix).unwrap();
    drop((src, first, second, third, fourth));
    for d in [a, b] {
        let _ = std::fs::remove_dir_all(d);
    }
}
