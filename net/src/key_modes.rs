//! Who may change or read a team's keys, checked as ssh checks its own (StrictModes): a key
//! directory or `team.pub` that another user could write would let them swap the team's
//! public keys, and a secret key that others could read lets them sign as its member. Each
//! is refused with the command that mends it; nothing is used quietly. `affect keys` makes
//! the directory 0700, every secret key 0600 and `team.pub` 0644.

use std::path::Path;

/// The mode `affect keys` gives a key directory it creates.
pub const DIR_MODE: u32 = 0o700;
/// The mode of `team.pub`: everyone may read it, only its owner change it.
pub const TEAM_MODE: u32 = 0o644;
/// The mode of a secret key.
pub const SECRET_MODE: u32 = 0o600;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum What {
    /// The key directory: nobody but its owner may write it.
    Dir,
    /// `team.pub`: nobody but its owner may write it.
    Team,
    /// A secret key: nobody but its owner may read or write it.
    Secret,
}

impl What {
    /// The permission bits that must be clear.
    fn forbidden(self) -> u32 {
        match self {
            What::Dir | What::Team => 0o022,
            What::Secret => 0o077,
        }
    }

    fn mend(self) -> u32 {
        match self {
            What::Dir => DIR_MODE,
            What::Team => TEAM_MODE,
            What::Secret => SECRET_MODE,
        }
    }
}

/// Refuses `path` when others than its owner (or root) may write it, or, for a secret key,
/// read it; or when it belongs to another user.
#[cfg(unix)]
pub fn check(path: &Path, what: What) -> Result<(), String> {
    use std::os::unix::fs::MetadataExt;
    let meta =
        std::fs::metadata(path).map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
    let mode = meta.mode() & 0o777;
    // SAFETY: geteuid(2) has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    if meta.uid() != me && meta.uid() != 0 {
        return Err(format!(
            "`{}` belongs to another user (uid {}): the team's keys must be yours",
            path.display(),
            meta.uid()
        ));
    }
    let bad = mode & what.forbidden();
    if bad == 0 {
        return Ok(());
    }
    let who = match (bad & 0o070 != 0, bad & 0o007 != 0) {
        (true, true) => "its group and others",
        (true, false) => "its group",
        _ => "others",
    };
    let (verb, risk) = match what {
        What::Dir => ("write", "could swap the team's keys"),
        What::Team => ("write", "could swap the team's public keys"),
        What::Secret => ("read", "could sign as its member"),
    };
    Err(format!(
        "`{}` has mode {mode:04o}: {who} may {verb} it and {risk}; refused (`chmod {:o} {}`)",
        path.display(),
        what.mend(),
        path.display()
    ))
}

#[cfg(not(unix))]
pub fn check(_path: &Path, _what: What) -> Result<(), String> {
    Ok(())
}

/// Gives `path` exactly `mode` (the umask may only have taken bits away).
#[cfg(unix)]
pub fn set(path: &Path, mode: u32) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
        .map_err(|e| format!("cannot set the mode of `{}`: {e}", path.display()))
}

#[cfg(not(unix))]
pub fn set(_path: &Path, _mode: u32) -> Result<(), String> {
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn writable_by_others_or_secret_readable_by_others_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let f = tmp.path().join("x");
        std::fs::write(&f, "k").unwrap();
        for (mode, what, ok) in [
            (0o644, What::Team, true),
            (0o664, What::Team, false),
            (0o646, What::Team, false),
            (0o600, What::Secret, true),
            (0o400, What::Secret, true),
            (0o640, What::Secret, false),
            (0o604, What::Secret, false),
            (0o700, What::Dir, true),
            (0o755, What::Dir, true),
            (0o775, What::Dir, false),
            (0o777, What::Dir, false),
        ] {
            set(&f, mode).unwrap();
            let r = check(&f, what);
            assert_eq!(r.is_ok(), ok, "{mode:o} {what:?}: {r:?}");
        }
        set(&f, 0o644).unwrap();
        let e = check(&f, What::Secret).unwrap_err();
        assert!(
            e.ends_with(&format!(
                "has mode 0644: its group and others may read it and could sign as its member; refused (`chmod 600 {}`)",
                f.display()
            )),
            "{e}"
        );
    }
}
