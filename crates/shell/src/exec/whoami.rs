//! `whoami`: the operating-system user running the shell and its groups, as HBase's shell
//! prints them without Kerberos (`root (auth:SIMPLE)`, then `    groups: root, wheel`: the
//! primary group first, as Hadoop's shell-based group mapping lists them).

use std::io::Write;

use super::ExecError;

/// The user's name (else its uid) and its group names (else numbers), primary group first.
fn identity() -> (String, Vec<String>) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
    let group = std::fs::read_to_string("/etc/group").unwrap_or_default();
    identity_from(&status, &passwd, &group)
}

/// [`identity`] from the texts of `/proc/self/status`, `/etc/passwd` and `/etc/group`.
fn identity_from(status: &str, passwd: &str, group: &str) -> (String, Vec<String>) {
    // `Uid:` and `Gid:` list the real, effective, saved and file-system ids.
    let first_id = |key: &str| -> Option<String> {
        status
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|rest| rest.split_whitespace().next())
            .map(str::to_owned)
    };
    let name_of = |table: &str, id: &str| -> Option<String> {
        table.lines().find_map(|l| {
            let fields: Vec<&str> = l.split(':').collect();
            (fields.get(2) == Some(&id)).then(|| fields[0].to_owned())
        })
    };
    let user = match first_id("Uid:") {
        Some(uid) => name_of(passwd, &uid).unwrap_or(uid),
        None => ["USER", "USERNAME", "LOGNAME"]
            .iter()
            .find_map(|k| std::env::var(k).ok().filter(|v| !v.is_empty()))
            .unwrap_or_else(|| "unknown".to_owned()),
    };
    let mut gids: Vec<String> = first_id("Gid:").into_iter().collect();
    let supplementary = status
        .lines()
        .find_map(|l| l.strip_prefix("Groups:"))
        .unwrap_or("");
    for gid in supplementary.split_whitespace() {
        if !gids.iter().any(|g| g == gid) {
            gids.push(gid.to_owned());
        }
    }
    let groups = gids
        .into_iter()
        .map(|gid| name_of(group, &gid).unwrap_or(gid))
        .collect();
    (user, groups)
}

/// Writes `whoami`'s lines.
pub(super) fn whoami(out: &mut impl Write) -> Result<(), ExecError> {
    let (user, groups) = identity();
    writeln!(out, "{user} (auth:SIMPLE)")?;
    writeln!(out, "    groups: {}", groups.join(", "))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_come_from_the_ids_primary_group_first() {
        let status = "Name:\tstrata\nUid:\t1000\t1000\t1000\t1000\nGid:\t100\t100\t100\t100\n\
                      Groups:\t10 100 4242\n";
        let passwd = "root:x:0:0:root:/root:/bin/sh\nops:x:1000:100::/home/ops:/bin/sh\n";
        let group = "root:x:0:\nwheel:x:10:ops\nusers:x:100:\n";
        let (user, groups) = identity_from(status, passwd, group);
        assert_eq!(user, "ops");
        assert_eq!(groups, ["users", "wheel", "4242"]);
    }

    #[test]
    fn this_process_has_a_user() {
        let (user, groups) = identity();
        assert!(!user.is_empty() && user != "unknown", "{user}");
        if std::path::Path::new("/proc/self/status").exists() {
            assert!(!groups.is_empty());
        }
    }
}
