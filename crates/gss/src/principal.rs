//! Kerberos principal names (`primary[/instance][@REALM]`) and HBase's default mapping of a
//! client's principal to its user name (Hadoop's `auth_to_local` rule `DEFAULT`).

use std::fmt;

/// A principal's parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Principal {
    primary: String,
    instance: Option<String>,
    realm: Option<String>,
}

impl Principal {
    /// Parses `primary[/instance][@REALM]` (one instance component, as HBase's services and
    /// users have).
    ///
    /// # Errors
    /// An empty part, more than one `/` or `@`.
    pub fn parse(name: &str) -> Result<Principal, String> {
        let bad = |why: &str| format!("{name:?} is not a Kerberos principal ({why})");
        let (names, realm) = match name.split_once('@') {
            Some((_, r)) if r.is_empty() || r.contains('@') => {
                return Err(bad("a realm after @ must be one non-empty name"))
            }
            Some((n, r)) => (n, Some(r.to_owned())),
            None => (name, None),
        };
        let (primary, instance) = match names.split_once('/') {
            Some((_, i)) if i.is_empty() || i.contains('/') => {
                return Err(bad("expected primary/instance"))
            }
            Some((p, i)) => (p, Some(i.to_owned())),
            None => (names, None),
        };
        if primary.is_empty() {
            return Err(bad("its first part is empty"));
        }
        Ok(Principal {
            primary: primary.to_owned(),
            instance,
            realm,
        })
    }

    /// The first part (`alice` of `alice/admin@REALM`).
    pub fn primary(&self) -> &str {
        &self.primary
    }

    /// The instance (`admin` of `alice/admin@REALM`).
    pub fn instance(&self) -> Option<&str> {
        self.instance.as_deref()
    }

    /// The realm.
    pub fn realm(&self) -> Option<&str> {
        self.realm.as_deref()
    }

    /// With an instance of `_HOST` replaced by `host` in lower case, as HBase expands
    /// `hbase/_HOST@REALM` (`SecurityUtil.getServerPrincipal`).
    pub fn with_host(&self, host: &str) -> Principal {
        let mut p = self.clone();
        if p.instance.as_deref() == Some("_HOST") {
            p.instance = Some(host.to_lowercase());
        }
        p
    }

    /// The user name of a client with this principal, by HBase's default rule: the first part
    /// of a principal of `default_realm` (`alice@REALM` and `alice/host@REALM` are `alice`).
    ///
    /// # Errors
    /// The principal is of another realm (or of none): no rule maps it.
    pub fn short_name(&self, default_realm: &str) -> Result<&str, String> {
        match self.realm.as_deref() {
            Some(r) if r == default_realm => Ok(&self.primary),
            Some(r) => Err(format!(
                "{self} is of realm {r}, not this server's realm {default_realm}: no rule maps \
                 it to a user"
            )),
            None => Err(format!("{self} has no realm")),
        }
    }
}

impl fmt::Display for Principal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.primary)?;
        if let Some(i) = &self.instance {
            write!(f, "/{i}")?;
        }
        if let Some(r) = &self.realm {
            write!(f, "@{r}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Principal {
        Principal::parse(s).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn users_of_the_default_realm_map_to_their_first_part() {
        assert_eq!(
            p("alice@STRATA.TEST").short_name("STRATA.TEST"),
            Ok("alice")
        );
        assert_eq!(
            p("alice/host1@STRATA.TEST").short_name("STRATA.TEST"),
            Ok("alice")
        );
        assert_eq!(
            p("hbase/localhost@STRATA.TEST").short_name("STRATA.TEST"),
            Ok("hbase")
        );
    }

    #[test]
    fn other_realms_and_no_realm_are_refused() {
        let mallory = p("mallory@OTHER.TEST");
        let e = mallory.short_name("STRATA.TEST");
        assert!(e.is_err_and(|e| e.contains("OTHER.TEST")));
        // Realms compare exactly (Kerberos realms are case-sensitive).
        assert!(p("alice@strata.test").short_name("STRATA.TEST").is_err());
        assert!(p("alice").short_name("STRATA.TEST").is_err());
    }

    #[test]
    fn parses_and_prints_back() {
        for s in ["alice", "alice@R", "hbase/h.example.com@EXAMPLE.COM", "a/b"] {
            assert_eq!(p(s).to_string(), s);
        }
        let h = p("hbase/_HOST@R");
        assert_eq!(h.instance(), Some("_HOST"));
        assert_eq!(
            h.with_host("Node1.Example.COM").to_string(),
            "hbase/node1.example.com@R"
        );
        assert_eq!(
            p("hbase/fixed@R").with_host("x").to_string(),
            "hbase/fixed@R"
        );
    }

    #[test]
    fn malformed_names_are_refused() {
        for s in ["", "@R", "a@", "a@b@c", "a/", "/b@R", "a/b/c@R"] {
            assert!(Principal::parse(s).is_err(), "{s:?} parsed");
        }
    }
}
