//! Usage lines and descriptions of every shell command, for `help` and for error messages.

/// What `help` says about one command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CommandHelp {
    /// The command's name.
    pub name: &'static str,
    /// Other names for the same command.
    pub aliases: &'static [&'static str],
    /// The group it is listed under.
    pub group: Group,
    /// One line showing the arguments; `[...]` marks optional ones.
    pub usage: &'static str,
    /// A short description.
    pub description: &'static str,
    /// Example statements.
    pub examples: &'static [&'static str],
}

/// The groups `help` lists commands under, as HBase's shell does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    /// Shell and cluster information.
    General,
    /// Creating, changing and inspecting tables.
    Ddl,
    /// Reading and writing data.
    Dml,
    /// Namespaces.
    Namespace,
    /// Maintenance: flushes, compactions, splits, store files.
    Tools,
    /// Snapshots, clones and restores.
    Snapshots,
    /// Permissions: grants, revokes and listing them.
    Security,
}

impl Group {
    /// Every group, in listing order.
    pub const ALL: [Group; 7] = [
        Group::General,
        Group::Ddl,
        Group::Namespace,
        Group::Dml,
        Group::Tools,
        Group::Snapshots,
        Group::Security,
    ];

    /// The group's heading.
    pub fn title(self) -> &'static str {
        match self {
            Group::General => "general",
            Group::Ddl => "ddl",
            Group::Dml => "dml",
            Group::Namespace => "namespace",
            Group::Tools => "tools",
            Group::Snapshots => "snapshots",
            Group::Security => "security",
        }
    }
}

const fn cmd(
    name: &'static str,
    group: Group,
    usage: &'static str,
    description: &'static str,
    examples: &'static [&'static str],
) -> CommandHelp {
    CommandHelp {
        name,
        aliases: &[],
        group,
        usage,
        description,
        examples,
    }
}

/// Every command, grouped.
pub const COMMANDS: &[CommandHelp] = &[
    cmd("status", Group::General, "status ['simple' | 'summary' | 'detailed']",
        "Shows the cluster's status; 'summary' by default.", &["status", "status 'detailed'"]),
    cmd("version", Group::General, "version", "Shows the server's version.", &[]),
    cmd("whoami", Group::General, "whoami",
        "Shows the user the server takes this shell for (from its client certificate), how it \
         was proved, and its groups.", &[]),
    cmd("table_help", Group::General, "table_help",
        "Explains the table commands and HBase's table references (t = get_table 't', then \
         t.put ..., t.scan).", &["table_help"]),
    cmd("processlist", Group::General, "processlist",
        "Lists the procedures in progress, as list_procedures does.", &["processlist"]),
    cmd("help", Group::General, "help ['command']",
        "Lists the commands, or describes one.", &["help", "help 'scan'"]),
    CommandHelp {
        aliases: &["quit"],
        ..cmd("exit", Group::General, "exit", "Leaves the shell.", &[])
    },
    cmd("create", Group::Ddl,
        "create 'ns:t', 'cf' | {NAME => 'cf', SETTING => value, ...} [, ...] \
         [, {SPLITS => ['k1', ...] | NUMREGIONS => n, SPLITALGO => 'HexStringSplit' | 'UniformSplit', TABLE_SETTING => value}]",
        "Creates a table with the given column families, table settings and pre-split regions.",
        &["create 't1', 'f1', 'f2'",
          "create 't1', {NAME => 'f1', VERSIONS => 5, TTL => 86400}, {NAME => 'f2'}",
          "create 't1', 'f1', SPLITS => ['10', '20', '30']",
          "create 't1', 'f1', {NUMREGIONS => 15, SPLITALGO => 'HexStringSplit'}",
          "create 't1', 'f1', MAX_FILESIZE => '10GB', DURABILITY => 'ASYNC_WAL'",
          "create 't1', {NAME => 'f1', METADATA => {'k' => 'v'}}, {METADATA => {'owner' => 'team-a'}}"]),
    cmd("alter", Group::Ddl,
        "alter 't', {NAME => 'cf', SETTING => value} | {NAME => 'cf', METHOD => 'delete'} | 'delete' => 'cf' | TABLE_SETTING => value [, ...]",
        "Adds or changes column families, deletes them, or changes table settings. \
         Settings not mentioned keep their values.",
        &["alter 't1', {NAME => 'f1', VERSIONS => 5}",
          "alter 't1', NAME => 'f1', METHOD => 'delete'",
          "alter 't1', 'delete' => 'f1'",
          "alter 't1', MAX_FILESIZE => '134217728'",
          "alter 't1', METADATA => {'owner' => 'team-a'}, CONFIGURATION => {'hbase.x' => '1'}"]),
    CommandHelp {
        aliases: &["desc"],
        ..cmd("describe", Group::Ddl, "describe 't'",
              "Shows a table's settings and column families.", &["describe 't1'"])
    },
    cmd("list", Group::Ddl, "list ['regex']",
        "Lists tables, optionally those whose names match a regular expression.",
        &["list", "list 'abc.*'", "list 'ns:.*'"]),
    cmd("disable", Group::Ddl, "disable 't'", "Takes a table offline.", &[]),
    cmd("enable", Group::Ddl, "enable 't'", "Brings a disabled table online.", &[]),
    cmd("is_enabled", Group::Ddl, "is_enabled 't'", "Tells whether a table is enabled.", &[]),
    cmd("is_disabled", Group::Ddl, "is_disabled 't'", "Tells whether a table is disabled.", &[]),
    cmd("drop", Group::Ddl, "drop 't'", "Deletes a disabled table and its data.", &[]),
    cmd("exists", Group::Ddl, "exists 't'", "Tells whether a table exists.", &[]),
    cmd("put", Group::Dml, "put 't', 'row', 'cf:q', 'value' [, ts] [, {TTL => ms}]",
        "Writes one cell; the timestamp (ms) defaults to the server's clock. TTL gives the \
         cell its own time to live in ms from its timestamp (it can only shorten the \
         family's TTL).",
        &["put 't1', 'r1', 'f1:c1', 'value'", "put 't1', \"\\x00\\x01\", 'f1:c1', 'v', 1700000000000",
          "put 't1', 'r1', 'f1:c1', 'value', {TTL => 60000}"]),
    cmd("get", Group::Dml,
        "get 't', 'row' [, 'cf:q', ... | ['cf:q', ...] | {COLUMN => 'cf:q', COLUMNS => [...], TIMESTAMP => ts, TIMERANGE => [min, max], VERSIONS => n, FILTER => \"...\"}]",
        "Reads one row, optionally restricted to columns, timestamps and versions.",
        &["get 't1', 'r1'", "get 't1', 'r1', 'f1:c1', 'f1:c2'",
          "get 't1', 'r1', {COLUMN => 'f1', VERSIONS => 3, TIMERANGE => [0, 1700000000000]}"]),
    cmd("scan", Group::Dml,
        "scan 't' [, {STARTROW => 'r', STOPROW => 'r', ROWPREFIXFILTER => 'p', COLUMNS => [...], LIMIT => n, TIMERANGE => [min, max], TIMESTAMP => ts, VERSIONS => n, FILTER => \"...\", REVERSED => true, CACHE => n, BATCH => n, CACHE_BLOCKS => false}]",
        "Reads rows in order.",
        &["scan 't1'", "scan 't1', {STARTROW => 'a', STOPROW => 'b', LIMIT => 10}",
          "scan 't1', {ROWPREFIXFILTER => \"\\x00\", COLUMNS => ['f1:c1'], REVERSED => true}"]),
    cmd("delete", Group::Dml, "delete 't', 'row', 'cf:q' [, ts]",
        "Deletes every version of a column at or before the timestamp (default: now); \
         a bare 'cf' deletes the whole family.",
        &["delete 't1', 'r1', 'f1:c1'", "delete 't1', 'r1', 'f1:c1', 1700000000000"]),
    cmd("deleteall", Group::Dml, "deleteall 't', 'row' [, 'cf:q' | 'cf' | nil [, ts]]",
        "Deletes a whole row, or one column or family of it, at or before the timestamp.",
        &["deleteall 't1', 'r1'", "deleteall 't1', 'r1', 'f1:c1', 1700000000000"]),
    cmd("incr", Group::Dml, "incr 't', 'row', 'cf:q' [, n]",
        "Adds n (default 1) to a counter column.", &["incr 't1', 'r1', 'f1:hits'", "incr 't1', 'r1', 'f1:hits', -5"]),
    cmd("append", Group::Dml, "append 't', 'row', 'cf:q', 'value'",
        "Appends bytes to a column's latest value.", &["append 't1', 'r1', 'f1:c1', 'more'"]),
    cmd("get_counter", Group::Dml, "get_counter 't', 'row', 'cf:q'",
        "Reads a counter column as a 64-bit integer.", &["get_counter 't1', 'r1', 'f1:hits'"]),
    cmd("count", Group::Dml, "count 't' [, {INTERVAL => n, CACHE => n, scan options...}]",
        "Counts rows, reporting progress every INTERVAL rows (default 1000).",
        &["count 't1'", "count 't1', INTERVAL => 100000, CACHE => 1000"]),
    cmd("truncate", Group::Dml, "truncate 't'",
        "Disables, drops and recreates a table, losing its data and its region boundaries.", &[]),
    cmd("truncate_preserve", Group::Dml, "truncate_preserve 't'",
        "Like truncate, but keeps the region boundaries.", &[]),
    cmd("create_namespace", Group::Namespace, "create_namespace 'ns' [, {'key' => 'value', ...}]",
        "Creates a namespace, with properties such as hbase.namespace.quota.maxtables and \
         hbase.namespace.quota.maxregions.",
        &["create_namespace 'ns1'",
          "create_namespace 'ns1', {'hbase.namespace.quota.maxtables' => '10'}"]),
    cmd("alter_namespace", Group::Namespace,
        "alter_namespace 'ns', {METHOD => 'set', 'key' => 'value', ...} | {METHOD => 'unset', NAME => 'key'}",
        "Sets or removes properties of a namespace.",
        &["alter_namespace 'ns1', {METHOD => 'set', 'hbase.namespace.quota.maxregions' => '100'}",
          "alter_namespace 'ns1', {METHOD => 'unset', NAME => 'hbase.namespace.quota.maxregions'}"]),
    cmd("describe_namespace", Group::Namespace, "describe_namespace 'ns'",
        "Shows a namespace and its properties.", &["describe_namespace 'ns1'"]),
    cmd("drop_namespace", Group::Namespace, "drop_namespace 'ns'",
        "Deletes an empty namespace (default and hbase cannot be deleted).", &[]),
    cmd("list_namespace", Group::Namespace, "list_namespace ['regex']",
        "Lists namespaces, optionally those whose names contain a match of a regular \
         expression.", &["list_namespace", "list_namespace 'ns.*'"]),
    cmd("list_namespace_tables", Group::Namespace, "list_namespace_tables 'ns'",
        "Lists the tables of a namespace (by their names within it).",
        &["list_namespace_tables 'ns1'"]),
    cmd("grant", Group::Security, "grant 'user', 'RWXCA'[, '@namespace' | 'table'[, 'family'[, 'qualifier']]]",
        "Adds permissions (R read, W write, X exec, C create, A admin) to a user or '@group', \
         globally, on a namespace, a table, a family or a column. Needs A on that scope.",
        &["grant 'alice', 'RW', 't1'", "grant '@ops', 'RWXCA'", "grant 'bob', 'C', '@ns1'",
          "grant 'carol', 'R', 't1', 'f1', 'q1'"]),
    cmd("revoke", Group::Security, "revoke 'user'[, '@namespace' | 'table'[, 'family'[, 'qualifier']]]",
        "Removes every permission of a user or '@group' on a scope (global without one).",
        &["revoke 'alice', 't1'", "revoke 'bob', '@ns1'"]),
    cmd("user_permission", Group::Security, "user_permission ['@namespace' | 'table_regex']",
        "Lists the grants: all of them, a namespace's, or those on the tables a regex matches.",
        &["user_permission", "user_permission '@ns1'", "user_permission 't.*'"]),
    cmd("set_quota", Group::Security,
        "set_quota TYPE => THROTTLE, USER => 'u' | TABLE => 't' | NAMESPACE => 'ns'[, THROTTLE_TYPE => READ | WRITE | REQUEST], LIMIT => '100req/sec' | '10M/sec' | NONE\n\
         set_quota TYPE => SPACE, TABLE => 't' | NAMESPACE => 'ns', LIMIT => '1G' | NONE, POLICY => NO_INSERTS | NO_WRITES | NO_WRITES_COMPACTIONS | DISABLE",
        "Throttles a user, a table or a namespace on every region server: at most LIMIT \
         requests (req) or bytes (B, K, M, G, T, P) per sec, min, hour or day, of reads, \
         writes or every request. LIMIT => NONE removes the throttles (of that type). A \
         throttled request waits and is retried by the client. With TYPE => SPACE, limits \
         the bytes of store files of a table or of a namespace's tables (a table's own quota \
         wins over its namespace's): above it, POLICY refuses puts, increments and appends \
         (NO_INSERTS), every write (NO_WRITES), writes and compactions \
         (NO_WRITES_COMPACTIONS), or disables the table (DISABLE), until space is freed or \
         the quota removed. Needs global A.",
        &["set_quota TYPE => THROTTLE, USER => 'bob', LIMIT => '100req/sec'",
          "set_quota TYPE => THROTTLE, THROTTLE_TYPE => WRITE, TABLE => 't1', LIMIT => '10M/sec'",
          "set_quota TYPE => THROTTLE, NAMESPACE => 'ns1', LIMIT => '1000req/min'",
          "set_quota TYPE => THROTTLE, USER => 'bob', LIMIT => NONE",
          "set_quota TYPE => SPACE, TABLE => 't1', LIMIT => '1G', POLICY => NO_INSERTS",
          "set_quota TYPE => SPACE, NAMESPACE => 'ns1', LIMIT => NONE"]),
    cmd("list_quotas", Group::Security, "list_quotas [USER => 'regex'][, TABLE => 'regex'][, NAMESPACE => 'regex']",
        "Lists the throttles and space quotas: all of them, or those of the users, tables and \
         namespaces whose names match. Needs global A.",
        &["list_quotas", "list_quotas USER => 'bob.*'", "list_quotas TABLE => 'ns1:.*'"]),
    cmd("list_quota_snapshots", Group::Security,
        "list_quota_snapshots [TABLE => 't'][, NAMESPACE => 'ns']",
        "Lists each table's state under the space quota covering it, as the master last \
         decided it: its usage and limit in bytes, whether it is in violation, and the policy \
         then in force. TABLE is the table's name without its namespace. Needs global A.",
        &["list_quota_snapshots", "list_quota_snapshots TABLE => 't1'",
          "list_quota_snapshots NAMESPACE => 'ns1'"]),
    cmd("enable_rpc_throttle", Group::Security, "enable_rpc_throttle",
        "Turns the throttles set with set_quota back on, on every server; prints the previous \
         state. Needs global A.",
        &["enable_rpc_throttle"]),
    cmd("disable_rpc_throttle", Group::Security, "disable_rpc_throttle",
        "Stops every throttle from refusing requests, on every server, without removing \
         them (list_quotas still lists them); prints the previous state. Needs global A.",
        &["disable_rpc_throttle"]),
    cmd("list_quota_table_sizes", Group::Security, "list_quota_table_sizes",
        "Lists every table's store file bytes as the region servers last reported them for \
         space quotas. Needs global A.",
        &["list_quota_table_sizes"]),
    cmd("snapshot", Group::Snapshots, "snapshot 't', 'snapshot_name'",
        "Takes a snapshot of a table while it serves reads and writes: every write \
         acknowledged before the command began is in it. It references the table's store \
         files, so it takes about as long for a large table as for a small one.",
        &["snapshot 't1', 't1_before_upgrade'", "snapshot 'ns1:t1', 'nightly.2026-12-05'"]),
    cmd("list_snapshots", Group::Snapshots, "list_snapshots ['regex']",
        "Lists the snapshots, optionally those whose whole name matches a regular expression.",
        &["list_snapshots", "list_snapshots 'nightly.*'"]),
    cmd("list_table_snapshots", Group::Snapshots,
        "list_table_snapshots 'table_regex' [, 'snapshot_regex']",
        "Lists the snapshots of the tables whose whole name matches a regular expression, \
         optionally only those whose name matches a second one.",
        &["list_table_snapshots 't1'", "list_table_snapshots 'ns1:.*', 'nightly.*'"]),
    cmd("clone_snapshot", Group::Snapshots, "clone_snapshot 'snapshot_name', 'new_table'",
        "Creates a new table from a snapshot: its schema, region boundaries and data. The new \
         table shares the snapshot's files (nothing is copied) and is independent of the \
         snapshot's table.",
        &["clone_snapshot 't1_before_upgrade', 't1_copy'"]),
    cmd("restore_snapshot", Group::Snapshots, "restore_snapshot 'snapshot_name'",
        "Puts a disabled table back to a snapshot of it (its schema and data); writes made \
         after the snapshot are gone. The table stays disabled: enable it afterwards.",
        &["disable 't1'", "restore_snapshot 't1_before_upgrade'", "enable 't1'"]),
    cmd("delete_snapshot", Group::Snapshots, "delete_snapshot 'snapshot_name'",
        "Deletes a snapshot. Tables cloned from it keep their data.", &[]),
    cmd("flush", Group::Tools, "flush 't' [, 'cf']",
        "Writes a table's (or one family's) memtables to store files.", &[]),
    cmd("compact", Group::Tools, "compact 't' [, 'cf']",
        "Requests a minor compaction of a table or one family.", &[]),
    cmd("major_compact", Group::Tools, "major_compact 't' [, 'cf']",
        "Requests a major compaction of a table or one family.", &[]),
    cmd("compaction_state", Group::Tools, "compaction_state 't'",
        "Prints the compactions running in a table's regions now: NONE, MINOR, MAJOR, or \
         MAJOR_AND_MINOR (a major and a minor compaction, in one region or two). A \
         compaction requested but not started yet is not counted.",
        &["compaction_state 't1'", "compaction_state 'ns1:t1'"]),
    cmd("split", Group::Tools, "split 't' | 'REGION' [, 'split_key']",
        "Splits a table's regions (or one region, by any of its names: see merge_region), at \
         their midpoints or at the given key.",
        &["split 't1'", "split 't1,row5,7311830427394719745.6b0a3a6c1c9b4a2e8f0d7c5b3a1e9f2d.'"]),
    cmd("merge_region", Group::Tools, "merge_region 'REGION_A', 'REGION_B'",
        "Merges two adjacent regions of a table into one; the master first moves them onto one \
         server. A region is named as list_regions and locate_region print it \
         ('table,start,id.encoded.'), by its encoded name alone, or by its record name \
         ('table,seq').",
        &["merge_region 't1,,1701234567890.0c4d2f1e8a7b6c5d4e3f2a1b0c9d8e7f.', \
           't1,row5,1701234567891.9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b.'",
          "merge_region '0c4d2f1e8a7b6c5d4e3f2a1b0c9d8e7f', '9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b'"]),
    cmd("list_regions", Group::Tools,
        "list_regions 't' [, 'SERVER' | {SERVER_NAME => 'SERVER'} [, ['COLUMN', ...]]]",
        "Lists a table's regions: server, region name, start and end key, store file size in \
         MB, requests served since the region opened, and locality ('-': not measured). A \
         server name prefix keeps only the regions of matching servers; an array picks \
         columns among SERVER_NAME, REGION_NAME, START_KEY, END_KEY, SIZE, REQ, LOCALITY.",
        &["list_regions 't1'", "list_regions 't1', '127.0.0.1:16020'",
          "list_regions 't1', {}, ['SERVER_NAME', 'start_key']"]),
    cmd("get_splits", Group::Tools, "get_splits 't'",
        "Prints the number of regions of a table and the row each region after the first \
         starts at.", &["get_splits 't1'", "get_splits 'ns1:t1'"]),
    cmd("locate_region", Group::Tools, "locate_region 't', 'row'",
        "Prints the server and region holding a row.", &["locate_region 't1', 'row5'"]),
    CommandHelp {
        aliases: &["list_files"],
        ..cmd("files", Group::Tools, "files 't'",
              "Lists a table's store files: region, family, size, cells, date-tiered window, \
               storage tier and path.",
              &["files 't1'"])
    },
    cmd("compact_rs", Group::Tools, "compact_rs 'SERVER' [, major]",
        "Compacts every table with a region on the server (a minor compaction, or major if \
         true); the server compacts whole tables, so their regions elsewhere are compacted too.",
        &["compact_rs '127.0.0.1:16020'", "compact_rs '127.0.0.1:16020', true"]),
    cmd("clear_block_cache", Group::Tools, "clear_block_cache 't'",
        "Drops every cached block of the table's store files from the block cache of each \
         server hosting one of its regions, and prints how many blocks and bytes left \
         (HBase's CacheEvictionStats). Later reads read those blocks from the files again.",
        &["clear_block_cache 't1'"]),
    cmd("splitormerge_switch", Group::Tools, "splitormerge_switch 'SPLIT' | 'MERGE', true | false",
        "Turns region splits (or merges) on or off for the whole cluster, asked for and \
         automatic alike (kept by the master); prints the previous state.",
        &["splitormerge_switch 'SPLIT', false", "splitormerge_switch 'MERGE', true"]),
    cmd("splitormerge_enabled", Group::Tools, "splitormerge_enabled 'SPLIT' | 'MERGE'",
        "Prints whether region splits (or merges) are on.",
        &["splitormerge_enabled 'SPLIT'"]),
    cmd("move", Group::Tools, "move 'REGION' [, 'SERVER']",
        "Moves a region (any of its names, as merge_region takes them, or its numeric id) to a live server ('host:port:startcode' or 'host:port'), or where the master picks.",
        &["move 't1,00000001'", "move 't1,00000001', '127.0.0.1:16021'"]),
    cmd("assign", Group::Tools, "assign 'REGION'",
        "Opens a closed region.", &["assign 't1,00000001'"]),
    cmd("unassign", Group::Tools, "unassign 'REGION' [, force]",
        "Closes a region; it stays closed until assigned.",
        &["unassign 't1,00000001'"]),
    cmd("balancer", Group::Tools, "balancer ['force']",
        "Runs the balancer now (by table, region count and request load); prints false, with the reason, while it is off or regions are in transition.", &["balancer"]),
    cmd("balance_switch", Group::Tools, "balance_switch true | false",
        "Turns the balancer on or off (kept for every master); prints the previous state.", &["balance_switch false"]),
    cmd("balancer_enabled", Group::Tools, "balancer_enabled",
        "Prints whether the balancer is on.", &["balancer_enabled"]),
    CommandHelp {
        aliases: &["decommission"],
        ..cmd("decommission_regionservers", Group::Tools,
              "decommission_regionservers 'SERVER' | ['SERVER', ...] [, true]",
              "Moves every region off the servers and assigns them nothing (refused for the last server not decommissioned).",
              &["decommission_regionservers '127.0.0.1:16021'"])
    },
    CommandHelp {
        aliases: &["recommission"],
        ..cmd("recommission_regionserver", Group::Tools, "recommission_regionserver 'SERVER'",
              "Lets a decommissioned server take regions again.",
              &["recommission_regionserver '127.0.0.1:16021'"])
    },
    cmd("list_decommissioned_regionservers", Group::Tools, "list_decommissioned_regionservers",
        "Lists decommissioned servers.", &[]),
    cmd("update_config", Group::Tools, "update_config 'SERVER'",
        "Reloads the configuration file of one live server ('host:port', \
         'host:port:startcode' or 'host,port,startcode'), as SIGHUP does: the keys that can \
         change at run time (log-level, compaction-throughput-*) are applied, the others are \
         named and wait for a restart. A server started without --config reloads nothing.",
        &["update_config '127.0.0.1:16020'"]),
    cmd("update_all_config", Group::Tools, "update_all_config",
        "Reloads the configuration file of every live server, as update_config does for one; \
         a cluster's masters reload theirs on SIGHUP.", &["update_all_config"]),
    cmd("list_procedures", Group::Tools, "list_procedures",
        "Lists the procedures in progress (table changes, region assignments, splits, merges, \
         crash recoveries): id, HBase's name for the procedure, state, and the table or region \
         with the step it is at. Finished procedures are not kept, and no times are recorded \
         (Submitted_Time and Last_Update show -).", &["list_procedures"]),
    cmd("list_locks", Group::Tools, "list_locks",
        "Lists the locks procedures hold: none, always. Strata's master keeps no lock table; a \
         procedure owns its table or region by the state it records (DISABLING, a region in \
         transition), which list_procedures shows. Prints nothing, as HBase's shell does when \
         there are no locks.", &["list_locks"]),
    cmd("alter_async", Group::Ddl,
        "alter_async 't', {NAME => 'cf', SETTING => value} | ... (as alter)",
        "Changes a table as alter does, without waiting for its regions to reopen with the new \
         schema; alter_status follows them.",
        &["alter_async 't1', {NAME => 'f1', VERSIONS => 5}", "alter_async 't1', 'delete' => 'f1'"]),
    cmd("alter_status", Group::Ddl, "alter_status 't'",
        "Prints how many of a table's regions serve its current schema ('N/M regions \
         updated.'), then Done. once all do.", &["alter_status 't1'"]),
];

/// The command named `name` or one of its aliases.
pub fn find(name: &str) -> Option<&'static CommandHelp> {
    COMMANDS
        .iter()
        .find(|c| c.name == name || c.aliases.contains(&name))
}

/// Every name and alias, for suggestions.
pub fn all_names() -> impl Iterator<Item = &'static str> {
    COMMANDS
        .iter()
        .flat_map(|c| std::iter::once(c.name).chain(c.aliases.iter().copied()))
}

/// The text of `help`: every command by group, with its usage line.
pub fn overview() -> String {
    let mut out = String::from("Commands (type help 'name' for details):\n");
    for group in Group::ALL {
        out.push_str(&format!("\n  {}:\n", group.title()));
        for c in COMMANDS.iter().filter(|c| c.group == group) {
            let text = wrap(c.description, WIDTH - 23).join(&format!("\n{:23}", ""));
            if c.name.len() > 18 {
                // A long name gets its own line; the description goes under the others'.
                out.push_str(&format!("    {}\n{:23}{text}\n", c.name, ""));
            } else {
                out.push_str(&format!("    {:<18} {text}\n", c.name));
            }
        }
    }
    out
}

/// The text of `help 'name'`: usage, aliases, description and examples.
pub fn detail(help: &CommandHelp) -> String {
    let mut out = format!(
        "{}\n\n  usage: {}\n",
        wrap(help.description, WIDTH).join("\n"),
        help.usage
    );
    if !help.aliases.is_empty() {
        out.push_str(&format!("  aliases: {}\n", help.aliases.join(", ")));
    }
    if !help.examples.is_empty() {
        out.push_str("\n  examples:\n");
        for e in help.examples {
            out.push_str(&format!("    {e}\n"));
        }
    }
    out
}

/// The width descriptions are wrapped to (usage lines and examples stay whole, to be
/// copied).
const WIDTH: usize = 80;

/// `text` cut into lines of at most `width` characters at spaces (a longer word gets a line
/// of its own).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    lines.push(line);
    lines
}

/// The known command name closest to `word` by edit distance, if it is a likely typo. Two
/// swapped letters count as one edit (`lsit` is one from `list`, two from `exit`); among
/// names equally close, the one sharing the longest start with `word` wins, then the one
/// listed first.
pub fn suggest(word: &str) -> Option<&'static str> {
    let limit = (word.chars().count() / 3).max(2);
    let common_start = |name: &str| -> usize {
        word.chars()
            .zip(name.chars())
            .take_while(|(a, b)| a == b)
            .count()
    };
    all_names()
        .map(|name| (edit_distance(word, name), name))
        .filter(|&(d, _)| d <= limit)
        .min_by_key(|&(d, name)| (d, std::cmp::Reverse(common_start(name))))
        .map(|(_, name)| name)
}

/// Edit distance over characters: insertions, deletions, substitutions and swaps of two
/// adjacent characters each count one (the optimal string alignment distance).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // Three rows: two back (for swaps), the last, and the one being filled.
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut last: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut row = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            row[j] = (last[j] + 1).min(row[j - 1] + 1).min(last[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                row[j] = row[j].min(before[j - 2] + 1);
            }
        }
        before = std::mem::replace(&mut last, row);
    }
    last[b.len()]
}
