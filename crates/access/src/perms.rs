//! Permissions: HBase's five actions and sets of them, written as HBase writes them (`RWXCA`).

use std::fmt;

/// One of HBase's actions (`Permission.Action`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    /// `R`: read cells.
    Read,
    /// `W`: write cells.
    Write,
    /// `X`: execute coprocessor endpoints (Strata runs none; the letter is kept for HBase's
    /// grants).
    Exec,
    /// `C`: create, alter, drop, truncate, flush, compact, split and snapshot within the scope.
    Create,
    /// `A`: administer: grant and revoke within the scope, balance, move, assign.
    Admin,
}

impl Action {
    /// Every action, in HBase's order of letters.
    pub const ALL: [Action; 5] = [
        Action::Read,
        Action::Write,
        Action::Exec,
        Action::Create,
        Action::Admin,
    ];

    /// Its letter.
    pub fn letter(self) -> char {
        match self {
            Action::Read => 'R',
            Action::Write => 'W',
            Action::Exec => 'X',
            Action::Create => 'C',
            Action::Admin => 'A',
        }
    }

    /// HBase's name of it (`READ`, `WRITE`, `EXEC`, `CREATE`, `ADMIN`).
    pub fn name(self) -> &'static str {
        match self {
            Action::Read => "READ",
            Action::Write => "WRITE",
            Action::Exec => "EXEC",
            Action::Create => "CREATE",
            Action::Admin => "ADMIN",
        }
    }

    fn bit(self) -> u8 {
        match self {
            Action::Read => 1,
            Action::Write => 2,
            Action::Exec => 4,
            Action::Create => 8,
            Action::Admin => 16,
        }
    }
}

/// A set of actions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Perms(u8);

impl Perms {
    /// No action.
    pub const NONE: Perms = Perms(0);
    /// Every action.
    pub const ALL: Perms = Perms(31);

    /// Parses letters as HBase's shell takes them (`'RW'`, `'rwxca'`); each letter at most
    /// once is not required (HBase accepts repeats).
    ///
    /// # Errors
    /// A character that is none of R, W, X, C, A, or no letter at all.
    pub fn parse(letters: &str) -> Result<Perms, String> {
        let mut perms = Perms::NONE;
        for c in letters.chars() {
            let action = match c.to_ascii_uppercase() {
                'R' => Action::Read,
                'W' => Action::Write,
                'X' => Action::Exec,
                'C' => Action::Create,
                'A' => Action::Admin,
                _ => {
                    return Err(format!(
                        "'{c}' is not a permission: use the letters R, W, X, C and A"
                    ))
                }
            };
            perms = perms.with(action);
        }
        if perms.is_empty() {
            return Err("no permission given: use the letters R, W, X, C and A".into());
        }
        Ok(perms)
    }

    /// The set with `action` added.
    #[must_use]
    pub fn with(self, action: Action) -> Perms {
        Perms(self.0 | action.bit())
    }

    /// Whether `action` is in the set.
    pub fn has(self, action: Action) -> bool {
        self.0 & action.bit() != 0
    }

    /// Whether the set has no action.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Both sets' actions.
    #[must_use]
    pub fn union(self, other: Perms) -> Perms {
        Perms(self.0 | other.0)
    }

    /// This set's actions that are not in `other`.
    #[must_use]
    pub fn minus(self, other: Perms) -> Perms {
        Perms(self.0 & !other.0)
    }

    /// The actions, in HBase's order.
    pub fn actions(self) -> impl Iterator<Item = Action> {
        Action::ALL.into_iter().filter(move |a| self.has(*a))
    }

    /// HBase's printed form of a permission's actions: `READ,WRITE`.
    pub fn names(self) -> String {
        self.actions()
            .map(Action::name)
            .collect::<Vec<_>>()
            .join(",")
    }
}

impl fmt::Display for Perms {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for a in self.actions() {
            write!(f, "{}", a.letter())?;
        }
        Ok(())
    }
}
