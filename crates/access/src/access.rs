//! [`Access`]: the grants in force, and what they allow one user.

use std::collections::{BTreeMap, HashMap};

use bytes::Bytes;
use strata_model::ops::Columns;

use crate::perms::{Action, Perms};
use crate::scope::{Scope, TableScope};

/// One grant: `perms` on `scope` to `who` (a user, or `@group`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    /// A user's name, or `@` and a group's.
    pub who: String,
    /// Where it applies.
    pub scope: Scope,
    /// What it allows.
    pub perms: Perms,
}

/// A user a call is made as, with what the configuration says of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User {
    /// The name grants are given to.
    pub name: String,
    /// Its groups (grants to `@group` apply to it).
    pub groups: Vec<String>,
    /// Allowed everything (`--superuser`, or the process's own user).
    pub superuser: bool,
}

impl User {
    /// A user in no group, not a superuser.
    pub fn named(name: &str) -> User {
        User {
            name: name.to_owned(),
            groups: Vec::new(),
            superuser: false,
        }
    }
}

/// What a read of a table may return to one user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Readable {
    /// Everything: `R` on the table or wider.
    All,
    /// Only these columns (`R` on some families or qualifiers): other cells are left out, as
    /// HBase's `AccessControlFilter` leaves them out.
    Columns(Columns),
    /// Nothing.
    Nothing,
}

impl Readable {
    /// The columns a read that asks for `asked` may read: `None` when none of them.
    pub fn narrow(&self, asked: &Columns) -> Option<Columns> {
        match self {
            Readable::All => Some(asked.clone()),
            Readable::Nothing => None,
            Readable::Columns(allowed) if asked.is_all() => Some(allowed.clone()),
            Readable::Columns(allowed) => {
                let mut out = Columns::default();
                for (family, wanted) in &asked.families {
                    let Some(may) = allowed.families.get(family) else {
                        continue;
                    };
                    let narrowed = match (wanted, may) {
                        (w, None) => w.clone(),
                        (None, Some(q)) => Some(q.clone()),
                        (Some(w), Some(q)) => {
                            let both: std::collections::BTreeSet<Bytes> =
                                w.intersection(q).cloned().collect();
                            if both.is_empty() {
                                continue;
                            }
                            Some(both)
                        }
                    };
                    out.families.insert(family.clone(), narrowed);
                }
                (!out.is_all()).then_some(out)
            }
        }
    }
}

/// The grants in force, indexed by grantee.
#[derive(Debug, Clone, Default)]
pub struct Access {
    by_who: HashMap<String, Vec<(Scope, Perms)>>,
}

impl Access {
    /// The grants `grants` make (two grants to one grantee on one scope add up).
    pub fn from_grants(grants: impl IntoIterator<Item = Grant>) -> Access {
        let mut merged: BTreeMap<(String, Scope), Perms> = BTreeMap::new();
        for g in grants {
            let at = merged.entry((g.who, g.scope)).or_default();
            *at = at.union(g.perms);
        }
        let mut by_who: HashMap<String, Vec<(Scope, Perms)>> = HashMap::new();
        for ((who, scope), perms) in merged {
            by_who.entry(who).or_default().push((scope, perms));
        }
        Access { by_who }
    }

    /// Every grant, by grantee then scope.
    pub fn grants(&self) -> Vec<Grant> {
        let mut out: Vec<Grant> = self
            .by_who
            .iter()
            .flat_map(|(who, list)| {
                list.iter().map(|(scope, perms)| Grant {
                    who: who.clone(),
                    scope: scope.clone(),
                    perms: *perms,
                })
            })
            .collect();
        out.sort_by(|a, b| (&a.who, &a.scope).cmp(&(&b.who, &b.scope)));
        out
    }

    /// The grants that apply to `user`: its own and its groups'.
    fn of<'a>(&'a self, user: &'a User) -> impl Iterator<Item = &'a (Scope, Perms)> + 'a {
        let own = self.by_who.get(&user.name).into_iter().flatten();
        let groups = user
            .groups
            .iter()
            .filter_map(|g| self.by_who.get(&format!("@{g}")))
            .flatten();
        own.chain(groups)
    }

    /// The actions `user` may take on `scope`: the union of its grants on scopes covering it.
    pub fn perms_on(&self, user: &User, scope: &Scope) -> Perms {
        if user.superuser {
            return Perms::ALL;
        }
        self.of(user)
            .filter(|(at, _)| at.covers(scope))
            .fold(Perms::NONE, |acc, (_, p)| acc.union(*p))
    }

    /// Whether `user` may take `action` on `scope`.
    pub fn allows(&self, user: &User, action: Action, scope: &Scope) -> bool {
        self.perms_on(user, scope).has(action)
    }

    /// Whether `user` may take one of `actions` on `scope`.
    pub fn allows_any(&self, user: &User, actions: &[Action], scope: &Scope) -> bool {
        let perms = self.perms_on(user, scope);
        actions.iter().any(|a| perms.has(*a))
    }

    /// Whether `user` holds any permission on `table` or within it (a family or a column).
    pub fn any_within(&self, user: &User, table: &TableScope) -> bool {
        let whole = Scope::Table(table.whole());
        if !self.perms_on(user, &whole).is_empty() {
            return true;
        }
        self.of(user).any(|(at, p)| {
            !p.is_empty() && matches!(at, Scope::Table(t) if t.namespace == table.namespace && t.table == table.table)
        })
    }

    /// What a read of `table` may return to `user`.
    pub fn readable(&self, user: &User, table: &TableScope) -> Readable {
        let whole = table.whole();
        if self.allows(user, Action::Read, &Scope::Table(whole.clone())) {
            return Readable::All;
        }
        let mut columns = Columns::default();
        for (at, perms) in self.of(user) {
            let Scope::Table(t) = at else { continue };
            if !perms.has(Action::Read) || t.namespace != whole.namespace || t.table != whole.table
            {
                continue;
            }
            match (&t.family, &t.qualifier) {
                (Some(f), None) => columns.add_family(f.clone()),
                (Some(f), Some(q)) if !matches!(columns.families.get(f), Some(None)) => {
                    columns.add_column(f.clone(), q.clone());
                }
                _ => {}
            }
        }
        if columns.is_all() {
            Readable::Nothing
        } else {
            Readable::Columns(columns)
        }
    }

    /// The first of `columns` (family, and qualifier unless the whole family is written, as a
    /// family delete does) of `table` that `user` may not take `action` on.
    pub fn first_denied<'a>(
        &self,
        user: &User,
        action: Action,
        table: &TableScope,
        columns: impl IntoIterator<Item = (&'a [u8], Option<&'a [u8]>)>,
    ) -> Option<Scope> {
        let whole = table.whole();
        if self.allows(user, action, &Scope::Table(whole.clone())) {
            return None;
        }
        let mut any = false;
        for (family, qualifier) in columns {
            any = true;
            let scope = Scope::Table(TableScope {
                family: Some(Bytes::copy_from_slice(family)),
                qualifier: qualifier.map(Bytes::copy_from_slice),
                ..whole.clone()
            });
            if !self.allows(user, action, &scope) {
                return Some(scope);
            }
        }
        (!any).then_some(Scope::Table(whole))
    }
}
