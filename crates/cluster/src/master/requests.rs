//! Admin requests left in etcd by any client (`request/<id>`): the active master takes each in
//! the same transaction that persists its procedure, deleting the request and writing
//! `result/<id>`, so a request is carried out exactly once whichever master is active.

use super::{AdminError, AdminRequest, Halt, Kv, Master, Refusal, RefusalKind};
use crate::kv::{KvError, KvResult, Op, Txn};
use crate::layout::Layout;
use crate::wal::WalFencer;

/// Requests taken per tick, at most.
const PER_TICK: usize = 100;

impl<K: Kv, F: WalFencer> Master<K, F> {
    /// Turns pending requests into procedures (or rejections). Reads `request/` only when its
    /// watch saw a put since the last read that found it empty (and once after loading), so an
    /// idle cluster costs etcd no read per tick.
    pub(super) fn take_requests(&mut self) -> Result<(), Halt> {
        if !self.lead().requests_pending {
            return Ok(());
        }
        let prefix = self.layout.requests();
        let Ok(page) = self.kv.range(&prefix, None, PER_TICK) else {
            return Ok(());
        };
        // Events after this read's revision come through the watch at the next tick.
        self.lead().requests_pending = page.more;
        for kv in page.kvs {
            let Some(id) = kv.key.strip_prefix(&prefix) else {
                continue;
            };
            // An empty batch, so the request's deletion commits with its procedure.
            self.flush()?;
            let outcome = match AdminRequest::decode(&kv.value) {
                Ok(req) => self.stage_request(req),
                Err(e) => Err((None, AdminError::Invalid(e.into()))),
            };
            let result = match outcome {
                Ok(proc_id) => format!("accepted {proc_id}"),
                Err((None, e)) => rejected(&e),
                Err((Some(halt), _)) => return Err(halt),
            };
            self.stage(vec![
                Op::Delete(kv.key.clone()),
                Op::put(self.layout.result(id), result),
            ])?;
            self.flush()?;
        }
        Ok(())
    }
}

/// Leaves `req` for the active master under `id` (unique per request, e.g. time and process id).
///
/// # Errors
/// The store is unavailable, or a request with that id exists.
pub fn submit_request<K: Kv + ?Sized>(
    kv: &K,
    layout: &Layout,
    id: &str,
    req: &AdminRequest,
) -> KvResult<()> {
    let key = layout.request(id);
    let txn = Txn {
        compares: vec![crate::kv::Compare::CreateRevision(key.clone(), 0)],
        success: vec![Op::put(key, req.encode())],
    };
    if kv.txn(txn)?.succeeded {
        Ok(())
    } else {
        Err(KvError::Invalid(format!("request {id} exists")))
    }
}

/// A refusal as a request's result: `rejected <code word> <message>` (see [`RefusalKind`]).
fn rejected(e: &AdminError) -> String {
    match e {
        AdminError::Invalid(r) => format!("rejected {} {}", r.kind.code(), r.message),
        other => format!("rejected {} {other}", RefusalKind::Invalid.code()),
    }
}

/// What a request's result says: the id of the procedure the master started, or why it
/// refused (a result written by an older master without a code word reads as
/// [`RefusalKind::Invalid`]).
///
/// # Errors
/// The [`Refusal`].
pub fn parse_result(result: &str) -> Result<String, Refusal> {
    if let Some(proc_id) = result.strip_prefix("accepted ") {
        return Ok(proc_id.to_string());
    }
    let rest = result.strip_prefix("rejected ").unwrap_or(result);
    let (code, message) = rest.split_once(' ').unwrap_or((rest, ""));
    match RefusalKind::from_code(code) {
        Some(kind) => Err(Refusal::new(kind, message)),
        None => Err(Refusal::new(RefusalKind::Invalid, rest)),
    }
}

/// The outcome of request `id` once the active master took it (`accepted <procedure>` or
/// `rejected <reason>`); the result is deleted when read.
///
/// # Errors
/// The store is unavailable.
pub fn take_result<K: Kv + ?Sized>(kv: &K, layout: &Layout, id: &str) -> KvResult<Option<String>> {
    let key = layout.result(id);
    let Some(found) = kv.get(&key)? else {
        return Ok(None);
    };
    kv.txn(Txn {
        compares: vec![],
        success: vec![Op::Delete(key)],
    })?;
    Ok(Some(String::from_utf8_lossy(&found.value).into_owned()))
}

#[cfg(test)]
mod tests {
    use std::rc::Rc;

    use super::*;
    use crate::master::MasterConfig;
    use crate::mem::{MemKv, MemStore, Perfect};
    use crate::wal::MemWal;

    #[test]
    fn requests_are_taken_once_with_their_outcome() {
        let store = MemStore::new(1);
        let layout = Layout::new("/t");
        let client = MemKv::new(store.clone(), Rc::new(Perfect));
        let mut m = Master::new(
            MemKv::new(store.clone(), Rc::new(Perfect)),
            MemWal::new(0),
            layout.clone(),
            "m:1".into(),
            MasterConfig::default(),
        );
        let mut now = 0;
        let mut tick = |m: &mut Master<MemKv, MemWal>| {
            now += 100;
            store.borrow_mut().advance(now);
            m.tick(now);
        };
        tick(&mut m);
        assert!(m.is_active());
        let create = AdminRequest::CreateTable {
            table: "t".into(),
            splits: vec![b"m".to_vec()],
        };
        submit_request(&client, &layout, "1", &create).unwrap();
        submit_request(&client, &layout, "2", &create).unwrap();
        client
            .txn(Txn {
                compares: vec![],
                success: vec![Op::put(layout.request("3"), "nonsense")],
            })
            .unwrap();
        assert!(
            submit_request(&client, &layout, "1", &create).is_err(),
            "ids are unique"
        );
        tick(&mut m);
        let first = take_result(&client, &layout, "1").unwrap().unwrap();
        assert!(first.starts_with("accepted "), "{first}");
        let second = take_result(&client, &layout, "2").unwrap().unwrap();
        assert!(second.contains("table t already exists"), "{second}");
        let third = take_result(&client, &layout, "3").unwrap().unwrap();
        assert!(third.starts_with("rejected "), "{third}");
        assert_eq!(
            take_result(&client, &layout, "1").unwrap(),
            None,
            "a result is read once"
        );
        assert!(crate::kv::range_all(&client, &layout.requests(), 10)
            .unwrap()
            .kvs
            .is_empty());
        tick(&mut m);
        assert_eq!(m.regions().len(), 2);
    }

    #[test]
    fn refusals_keep_their_kind_whatever_the_names_say() {
        // A table named like an error class must not change the class (`exists`, `enabled`).
        for (kind, message) in [
            (RefusalKind::TableNotFound, "no table exists"),
            (RefusalKind::TableExists, "table enabled exists"),
            (RefusalKind::TableDisabled, "table exists is disabled"),
            (RefusalKind::RegionNotFound, "no region t,00000001"),
            (RefusalKind::Invalid, "split keys must be non-empty"),
        ] {
            let result = rejected(&AdminError::Invalid(Refusal::new(kind, message)));
            assert_eq!(parse_result(&result), Err(Refusal::new(kind, message)));
        }
        assert_eq!(parse_result("accepted p-17"), Ok("p-17".to_string()));
        let old = parse_result("rejected invalid request: table t exists").unwrap_err();
        assert_eq!(old.kind, RefusalKind::Invalid);
    }

    #[test]
    fn requests_round_trip() {
        let reqs = [
            AdminRequest::CreateTable {
                table: "ns:t".into(),
                splits: vec![b"a".to_vec(), vec![0, 255]],
            },
            AdminRequest::CreateTable {
                table: "t".into(),
                splits: vec![],
            },
            AdminRequest::DropTable { table: "t".into() },
            AdminRequest::Assign {
                region: "t,00000001".into(),
            },
            AdminRequest::Unassign {
                region: "t,00000001".into(),
            },
            AdminRequest::Move {
                region: "t,00000001".into(),
                target: Some("h:1:2".into()),
            },
            AdminRequest::Move {
                region: "t,00000001".into(),
                target: None,
            },
            AdminRequest::DisableTable { table: "t".into() },
            AdminRequest::EnableTable { table: "t".into() },
            AdminRequest::ReopenTable { table: "t".into() },
            AdminRequest::TruncateTable {
                table: "t".into(),
                preserve: true,
            },
            AdminRequest::Merge {
                a: "t,1a-3.00000001".into(),
                b: "t,1a-3.00000002".into(),
            },
        ];
        for r in reqs {
            assert_eq!(AdminRequest::decode(&r.encode()).unwrap(), r);
        }
        assert!(AdminRequest::decode(b"req1 create t zz").is_err());
        assert!(AdminRequest::decode(b"req1 truncate t 2").is_err());
        assert!(AdminRequest::decode(b"req1 merge t,00000001").is_err());
        assert!(AdminRequest::decode(b"req1 merge t,1 t,2 t,3").is_err());
    }
}
