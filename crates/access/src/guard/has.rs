//! Whether a user holds permissions (HBase's `Admin.hasUserPermissions`): asked of oneself by
//! anyone, of another user only with `A` on each scope asked about (HBase's
//! `AccessController.preHasUserPermissions`); a permission is held when every one of its
//! actions is granted on its scope or one covering it (global, namespace, table, family).

use super::{Denied, Guard};
use crate::{Action, Caller, Perms, Scope};

impl Guard {
    /// For each of `wanted`, whether `user` (the caller when `None`) holds all its actions on
    /// its scope.
    ///
    /// # Errors
    /// Access control is off (nothing to answer from), the caller proved no name, or it asks
    /// about another user without `A` on a scope asked about.
    pub fn has_permissions(
        &self,
        caller: &Caller,
        user: Option<&str>,
        wanted: &[(Scope, Perms)],
    ) -> Result<Vec<bool>, Denied> {
        const CALL: &str = "hasUserPermissions";
        if !self.on {
            return Err(Denied {
                message: "access control is off: start the server with --auth".to_owned(),
            });
        }
        let asker = self.authenticated(caller, CALL, "")?;
        let access = self.access.read().clone();
        let target = match user {
            Some(name) if name != asker.name => {
                for (scope, _) in wanted {
                    if !access.allows(&asker, Action::Admin, scope) {
                        return Err(self.insufficient(
                            caller,
                            &asker,
                            CALL,
                            scope,
                            &[Action::Admin],
                        ));
                    }
                }
                self.user(&Caller::certified(name, None))
                    .ok_or_else(|| Denied {
                        message: format!("no user {name}"),
                    })?
            }
            _ => asker,
        };
        Ok(wanted
            .iter()
            .map(|(scope, perms)| perms.actions().all(|a| access.allows(&target, a, scope)))
            .collect())
    }
}
