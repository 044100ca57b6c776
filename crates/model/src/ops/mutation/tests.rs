use super::*;
use crate::cell::CellType;
use crate::limits::MAX_VALUE_LEN;
use crate::ops::RowMutations;

#[test]
fn builders_fill_the_plain_data() {
    let p = Put::new("r").add("cf", "a", "1").add_at("cf", "b", 7, "2");
    assert_eq!(p.cells.len(), 2);
    assert_eq!(p.cells[0].timestamp, None);
    assert_eq!(p.cells[1].timestamp, Some(7));
    assert_eq!(p.validate(), Ok(()));

    let d = Delete::new("r")
        .version("cf", "a")
        .version_at("cf", "a", 3)
        .column("cf", "b")
        .column_upto("cf", "b", 4)
        .family("cf")
        .family_upto("cf", 5)
        .family_version("cf", 6);
    let types: Vec<CellType> = d.markers.iter().map(|m| m.kind.cell_type()).collect();
    assert_eq!(
        types,
        [
            CellType::Delete,
            CellType::Delete,
            CellType::DeleteColumn,
            CellType::DeleteColumn,
            CellType::DeleteFamily,
            CellType::DeleteFamily,
            CellType::DeleteFamilyVersion,
        ]
    );
    assert_eq!(d.validate(), Ok(()));
    assert_eq!(Delete::new("r").validate(), Ok(()), "a whole-row delete");

    let m: Mutation = Increment::new("r").add("cf", "n", -2).into();
    assert_eq!((m.kind(), m.row().as_ref()), ("increment", b"r".as_ref()));
    assert_eq!(m.validate(), Ok(()));
    let m: Mutation = Append::new("r").add("cf", "s", "x").into();
    assert_eq!(m.validate(), Ok(()));
}

#[test]
fn validation_names_the_problem() {
    assert_eq!(
        Put::new("").add("cf", "q", "v").validate(),
        Err(OpError::EmptyRow)
    );
    assert_eq!(
        Put::new("r").validate().unwrap_err().to_string(),
        "put has no columns"
    );
    assert_eq!(
        Put::new("r").add("", "q", "v").validate(),
        Err(OpError::EmptyFamily)
    );
    assert_eq!(
        Put::new("r").add_at("cf", "q", -1, "v").validate(),
        Err(OpError::NegativeTimestamp(-1))
    );
    let big = vec![0u8; MAX_VALUE_LEN + 1];
    assert!(matches!(
        Put::new("r").add("cf", "q", big).validate(),
        Err(OpError::TooLong { what: "value", .. })
    ));
    assert!(Increment::new("r").validate().is_err());
    assert!(Append::new("r").validate().is_err());

    let mut d = Delete::new("r");
    d.markers.push(DeleteMarker {
        kind: DeleteKind::FamilyVersion,
        family: "cf".into(),
        qualifier: Bytes::new(),
        timestamp: None,
    });
    assert_eq!(
        d.validate().unwrap_err().to_string(),
        "DeleteFamilyVersion: needs a timestamp"
    );
    let mut d = Delete::new("r");
    d.markers.push(DeleteMarker {
        kind: DeleteKind::Family,
        family: "cf".into(),
        qualifier: "q".into(),
        timestamp: None,
    });
    assert!(d.validate().is_err());
}

#[test]
fn row_mutations_stay_on_one_row() {
    let mut rm = RowMutations::new("r");
    assert_eq!(
        rm.validate().unwrap_err().to_string(),
        "row mutations for row 'r' are empty"
    );
    rm.add(Put::new("r").add("cf", "a", "1")).unwrap();
    rm.add(Delete::new("r").column("cf", "b")).unwrap();
    assert_eq!(
        rm.add(Put::new("s\x01").add("cf", "a", "1"))
            .unwrap_err()
            .to_string(),
        "mutation for row 's\\x01' in an atomic group for row 'r'"
    );
    assert_eq!(rm.mutations.len(), 2);
    assert_eq!(rm.validate(), Ok(()));
    rm.mutations.push(Put::new("x").add("cf", "a", "1").into());
    assert!(matches!(rm.validate(), Err(OpError::RowMismatch { .. })));
    let single = RowMutations::from(Mutation::from(Put::new("q").add("cf", "a", "1")));
    assert_eq!(single.row.as_ref(), b"q");
}
