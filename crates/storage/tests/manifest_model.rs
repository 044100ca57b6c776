//! Random edits and crashes against a model (STYLE example 9): the model is the pure
//! `Version::apply`; the system is the durable manifest on a `SimFs`. After every crash, a
//! randomly chosen disk image must reopen to the acknowledged version or to the interrupted
//! edit's result, and the run continues from whichever it was.

use std::sync::Arc;

use bytes::Bytes;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use strata_storage::manifest::{Manifest, RegionInfo, SimFs, StoreFile, Version, VersionEdit};

const FAMILIES: [&[u8]; 3] = [b"a", b"b", b"c"];

fn file(name: String, seq: u64) -> StoreFile {
    StoreFile {
        name,
        size: seq * 10,
        max_seq_id: seq,
        min_timestamp: 0,
        max_timestamp: seq as i64,
        cell_count: seq,
        created_at_ms: 1,
        major: false,
        tier: String::new(),
        reference: None,
        link: None,
        bulk: false,
    }
}

/// A random edit that applies to `v`.
fn random_edit(rng: &mut StdRng, v: &Version, seq: &mut u64) -> VersionEdit {
    let family = Bytes::from_static(FAMILIES[rng.gen_range(0..FAMILIES.len())]);
    let Some(files) = v.family(&family) else {
        return VersionEdit::new().add_family(family);
    };
    *seq += 1;
    match rng.gen_range(0..10) {
        0 => VersionEdit::new().drop_family(family),
        1..=5 => VersionEdit::new()
            .add_file(family.clone(), file(format!("f{seq}"), *seq))
            .set_flushed_seq_id(family, *seq),
        _ => {
            let mut edit = VersionEdit::new();
            for f in files.files().filter(|_| rng.gen_bool(0.5)) {
                edit = edit.remove_file(family.clone(), f.name.clone());
            }
            edit.add_file(family, file(format!("c{seq}"), *seq))
        }
    }
}

fn run(seed: u64, steps: usize) -> (usize, usize) {
    let mut rng = StdRng::seed_from_u64(seed);
    let region = RegionInfo {
        table: "model".to_owned(),
        region_id: seed,
        start_row: Bytes::new(),
        end_row: Bytes::new(),
    };
    let first = Version::new(region, [Bytes::from_static(b"a")]).expect("valid");
    let mut fs = SimFs::new();
    let mut m = Manifest::create(Arc::new(fs.clone()), first.clone()).expect("create");
    let mut model = first;
    let mut seq = 0;
    let (mut crashes, mut interrupted_survived) = (0, 0);
    for step in 0..steps {
        let edit = random_edit(&mut rng, &model, &mut seq);
        let next = model.apply(&edit).expect("generated edits apply");
        let crash = rng.gen_bool(0.3);
        if crash {
            fs.set_crash_after(Some(fs.ops() + rng.gen_range(0..=5)));
        }
        let result = m.apply(&edit);
        if result.is_ok() {
            model = next.clone();
        }
        if crash || rng.gen_bool(0.1) {
            let images = fs.crash_images();
            let image = images[rng.gen_range(0..images.len())].fork();
            m = Manifest::open(Arc::new(image.clone()))
                .unwrap_or_else(|e| panic!("seed {seed} step {step}: {e}"));
            let found = m.current().as_ref();
            if found == &next && result.is_err() {
                interrupted_survived += 1;
                model = next;
            }
            assert_eq!(found, &model, "seed {seed} step {step}");
            fs = image;
            crashes += 1;
        }
    }
    (crashes, interrupted_survived)
}

#[test]
fn random_edits_and_crashes_match_the_model() {
    let (mut crashes, mut survived) = (0, 0);
    for seed in 0..8 {
        let (c, s) = run(seed, 250);
        crashes += c;
        survived += s;
    }
    eprintln!("{crashes} crashes, {survived} interrupted edits found durable");
    assert!(crashes > 400, "{crashes}");
    assert!(
        survived > 10,
        "both outcomes of an interrupted edit occur: {survived}"
    );
}
