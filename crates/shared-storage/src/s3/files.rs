//! The engine's [`FileStore`] operations on the bucket (contracts in `mod.rs`).

use std::io;
use std::path::Path;
use std::sync::Arc;

use futures_util::StreamExt;
use object_store::{ObjectStore, ObjectStoreExt};
use strata_storage::vfs::{DirEntry, FileStore, FileWriter, Source};

use super::source::S3Source;
use super::writer::S3Writer;
use super::{key, prefix, S3Requests, S3};

impl FileStore for S3 {
    fn url(&self, path: &Path) -> String {
        match key(path) {
            Ok(k) => self.url_of(k.as_ref()),
            Err(_) => self.url_of(&path.display().to_string()),
        }
    }

    fn scheme(&self) -> &'static str {
        "s3"
    }

    fn create_dir_all(&self, dir: &Path) -> io::Result<()> {
        // Directories are prefixes; only check the name is a valid key.
        key(dir).map(|_| ())
    }

    fn list(&self, dir: &Path) -> io::Result<Vec<DirEntry>> {
        S3Requests::count(&self.inner.requests.list);
        let dir_key = key(dir)?;
        let listed = self.run("list", dir, |s, k| async move {
            s.list_with_delimiter(prefix(&k)).await
        })?;
        let mut out: Vec<DirEntry> = listed
            .common_prefixes
            .iter()
            .filter_map(|p| p.filename())
            .map(|name| DirEntry {
                name: name.to_owned(),
                len: 0,
                is_dir: true,
            })
            .collect();
        // SeaweedFS lists an emptied directory's own entry (`dir/`) as an object under it,
        // whose key is the directory's: not a file in it.
        let files = listed.objects.iter().filter(|o| o.location != dir_key);
        out.extend(files.filter_map(|o| {
            o.location.filename().map(|name| DirEntry {
                name: name.to_owned(),
                len: o.size,
                is_dir: false,
            })
        }));
        Ok(out)
    }

    fn len(&self, path: &Path) -> io::Result<Option<u64>> {
        if key(path)?.as_ref().is_empty() {
            return Ok(Some(0));
        }
        S3Requests::count(&self.inner.requests.head);
        match self.run("head", path, |s, k| async move { s.head(&k).await }) {
            Ok(meta) => return Ok(Some(meta.size)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        // A directory exists while something is under it.
        S3Requests::count(&self.inner.requests.list);
        let any = self.run("list", path, |s, k| async move {
            let mut stream = s.list(Some(&k));
            match stream.next().await {
                Some(Ok(_)) => Ok(true),
                Some(Err(e)) => Err(e),
                None => Ok(false),
            }
        })?;
        Ok(any.then_some(0))
    }

    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        // Manifests, the catalog, markers: never cached, always the current object.
        Ok(self.get_tagged(path)?.0.to_vec())
    }

    fn open(&self, path: &Path) -> io::Result<Arc<dyn Source>> {
        S3Requests::count(&self.inner.requests.head);
        let meta = self.run("head", path, |s, k| async move { s.head(&k).await })?;
        Ok(Arc::new(S3Source::new(
            self.clone(),
            meta.location,
            meta.size,
        )))
    }

    fn create(&self, path: &Path) -> io::Result<Box<dyn FileWriter>> {
        self.check_fence()?;
        let k = key(path)?;
        self.forget(path);
        Ok(Box::new(S3Writer::new(self.clone(), k)))
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        self.check_fence()?;
        let target = key(to)?;
        S3Requests::count(&self.inner.requests.other);
        self.forget(to);
        self.run("copy", from, move |s, k| async move {
            s.copy(&k, &target).await
        })?;
        self.delete(from)
    }

    fn remove_file(&self, path: &Path) -> io::Result<()> {
        // S3's DELETE succeeds on a missing object: ask first, to say NotFound as the
        // contract wants.
        S3Requests::count(&self.inner.requests.head);
        self.run("head", path, |s, k| async move { s.head(&k).await })?;
        self.delete(path)
    }

    fn remove_dir_all(&self, dir: &Path) -> io::Result<()> {
        S3Requests::count(&self.inner.requests.list);
        let keys = self.run("list", dir, |s, k| async move {
            let mut stream = s.list(prefix(&k));
            let mut keys = Vec::new();
            while let Some(meta) = stream.next().await {
                keys.push(meta?.location);
            }
            Ok(keys)
        })?;
        for k in keys {
            self.delete(Path::new(k.as_ref()))?;
        }
        Ok(())
    }

    fn sync_dir(&self, _dir: &Path) -> io::Result<()> {
        // S3 answers a PUT, COPY or DELETE once it is durable.
        Ok(())
    }

    fn lock(&self, path: &Path) -> io::Result<Box<dyn Send + Sync>> {
        super::lock::lock(self, path)
    }
}
