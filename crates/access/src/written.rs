//! The columns a mutation writes, as the checks of `W` take them.

use strata_model::ops::{Mutation, RowMutations};

/// Each column `rm` writes: family and qualifier, or the family alone for a family delete. A
/// delete of a whole row (no markers) writes every family, and yields nothing: the check then
/// asks for the table.
pub fn written(rm: &RowMutations) -> Vec<(&[u8], Option<&[u8]>)> {
    let mut out = Vec::new();
    for m in &rm.mutations {
        match m {
            Mutation::Put(p) => out.extend(
                p.cells
                    .iter()
                    .map(|c| (&c.family[..], Some(&c.qualifier[..]))),
            ),
            Mutation::Increment(i) => out.extend(
                i.cells
                    .iter()
                    .map(|c| (&c.family[..], Some(&c.qualifier[..]))),
            ),
            Mutation::Append(a) => out.extend(
                a.cells
                    .iter()
                    .map(|c| (&c.family[..], Some(&c.qualifier[..]))),
            ),
            Mutation::Delete(d) if d.markers.is_empty() => return Vec::new(),
            Mutation::Delete(d) => out.extend(d.markers.iter().map(|mk| {
                if mk.kind.is_family() {
                    (&mk.family[..], None)
                } else {
                    (&mk.family[..], Some(&mk.qualifier[..]))
                }
            })),
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}
