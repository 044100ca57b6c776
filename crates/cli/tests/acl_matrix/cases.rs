//! The cases: for each operation of [`OPS`], each grant scope and each relevant set of
//! permissions granted or not, the outcome derived from the operation's needs.

use super::scopes::{scope_of, target};
use super::spec::{covers, Front, GrantScope, Letter, Op, OPS};

/// One case: `op` run by a user holding `perms` on `scope` (and nothing else).
#[derive(Debug, Clone)]
pub struct Case {
    pub id: usize,
    pub op: &'static Op,
    pub scope: GrantScope,
    pub perms: Vec<Letter>,
    pub allowed: bool,
}

impl Case {
    pub fn letters(&self) -> String {
        self.perms.iter().map(|l| l.char()).collect()
    }

    pub fn describe(&self) -> String {
        format!(
            "#{} {} with {} on {}",
            self.id,
            self.op.name,
            if self.perms.is_empty() {
                "nothing".to_owned()
            } else {
                self.letters()
            },
            self.scope.name()
        )
    }
}

/// The letters an operation's needs name (any letter at all for a need of "any permission").
fn relevant(op: &Op) -> Vec<Letter> {
    let mut out = Vec::new();
    for need in op.needs {
        let letters: &[Letter] = if need.any_of.is_empty() {
            &[Letter::R, Letter::A]
        } else {
            need.any_of
        };
        for l in letters {
            if !out.contains(l) {
                out.push(*l);
            }
        }
    }
    out
}

/// Whether holding `perms` on `scope` satisfies every need of `op`.
pub fn expected(op: &Op, scope: GrantScope, perms: &[Letter]) -> bool {
    op.needs.iter().all(|need| {
        covers(scope, need.at)
            && (need.any_of.is_empty() && !perms.is_empty()
                || need.any_of.iter().any(|l| perms.contains(l)))
    })
}

/// The sets of permissions tried on a covering scope: each relevant letter alone, all of them
/// together when an operation needs several, and every other letter (the needed ones not
/// granted).
fn perm_sets(op: &Op) -> Vec<Vec<Letter>> {
    let letters = relevant(op);
    let mut sets: Vec<Vec<Letter>> = letters.iter().map(|l| vec![*l]).collect();
    if op.needs.len() > 1 {
        sets.push(letters.clone());
    }
    let any = op.needs.iter().any(|n| n.any_of.is_empty());
    let rest: Vec<Letter> = Letter::ALL
        .into_iter()
        .filter(|l| !letters.contains(l))
        .collect();
    if !any && !rest.is_empty() {
        sets.push(rest);
    }
    sets
}

/// Every case of the operations `front` runs, numbered from `first`.
pub fn generate(front: Front, first: usize) -> Vec<Case> {
    let mut cases = Vec::new();
    for op in OPS.iter().filter(|op| op.fronts.contains(&front)) {
        for scope in GrantScope::ALL {
            let sets = match scope {
                GrantScope::None => vec![Vec::new()],
                // A scope that covers nothing the operation needs: every relevant letter.
                s if s.is_other() => vec![relevant(op)],
                _ => perm_sets(op),
            };
            for perms in sets {
                let allowed = expected(op, scope, &perms);
                cases.push(Case {
                    id: first + cases.len(),
                    op,
                    scope,
                    perms,
                    allowed,
                });
            }
        }
    }
    cases
}

/// The cases as JSON lines for HBase's Java client (`strata.hbase.MatrixTest`): one object a
/// line, `{"id","op","table","scope","perms","allowed","grant":{"kind","namespace","table",
/// "family","qualifier"}}`, the grant resolved (`kind` `none`: no grant).
pub fn to_json_lines(cases: &[Case]) -> String {
    use strata_client::access::Scope;
    let mut out = String::new();
    for c in cases {
        let text = |b: &Option<bytes::Bytes>| {
            b.as_ref()
                .map(|b| String::from_utf8_lossy(b).into_owned())
                .unwrap_or_default()
        };
        let (kind, ns, table, family, qualifier) = match scope_of(c) {
            None => (
                "none",
                String::new(),
                String::new(),
                String::new(),
                String::new(),
            ),
            Some(Scope::Global) => (
                "global",
                String::new(),
                String::new(),
                String::new(),
                String::new(),
            ),
            Some(Scope::Namespace(ns)) => {
                ("namespace", ns, String::new(), String::new(), String::new())
            }
            Some(Scope::Table(t)) => (
                "table",
                t.namespace.clone(),
                format!("{}:{}", t.namespace, t.table),
                text(&t.family),
                text(&t.qualifier),
            ),
        };
        out.push_str(&format!(
            "{{\"id\":{},\"op\":\"{}\",\"table\":\"{}\",\"scope\":\"{}\",\"perms\":\"{}\",\
             \"allowed\":{},\"grant\":{{\"kind\":\"{kind}\",\"namespace\":\"{ns}\",\
             \"table\":\"{table}\",\"family\":\"{family}\",\"qualifier\":\"{qualifier}\"}}}}\n",
            c.id,
            c.op.name,
            target(c),
            c.scope.name(),
            c.letters(),
            c.allowed
        ));
    }
    out
}

/// Checks the table itself: each need names a level, no operation is allowed without a
/// grant, and each is allowed by some case (so every operation is tried both ways).
pub fn check(cases: &[Case]) {
    for op in OPS {
        let mine: Vec<&Case> = cases.iter().filter(|c| c.op.name == op.name).collect();
        if mine.is_empty() {
            continue;
        }
        assert!(
            mine.iter().any(|c| c.allowed) && mine.iter().any(|c| !c.allowed),
            "{}: every operation must be tried allowed and denied",
            op.name
        );
        assert!(
            mine.iter()
                .filter(|c| c.scope == GrantScope::None)
                .all(|c| !c.allowed),
            "{}: nothing is allowed without a grant",
            op.name
        );
        assert!(
            mine.iter()
                .filter(|c| c.scope == GrantScope::Global)
                .any(|c| c.allowed),
            "{}: some global grant allows it",
            op.name
        );
    }
}
