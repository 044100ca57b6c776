package strata.hbase;

import static strata.hbase.Transcript.F;
import static strata.hbase.Transcript.attempt;
import static strata.hbase.Transcript.b;
import static strata.hbase.Transcript.run;
import static strata.hbase.Transcript.say;
import static strata.hbase.Transcript.scan;

import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.SnapshotDescription;
import org.apache.hadoop.hbase.client.Table;

/** The transcript's snapshot cases: take, list, clone, restore, delete, and refusals. */
final class TranscriptSnapshots {
  private TranscriptSnapshots() {}

  static void all(Connection conn, Admin admin) throws Exception {
    TableName t = Transcript.table(admin, "tx_snap", 1);
    TableName clone = TableName.valueOf("tx_snap_clone");
    run("snapshots: take, list, clone, restore, delete", () -> {
      for (SnapshotDescription s : admin.listSnapshots(Pattern.compile("tx_.*"))) {
        admin.deleteSnapshot(s.getName());
      }
      Transcript.drop(admin, clone);
      try (Table table = conn.getTable(t)) {
        table.put(new Put(b("a")).addColumn(F, b("q"), 1, b("v1")));
        table.put(new Put(b("b")).addColumn(F, b("q"), 1, b("v1")));
        admin.snapshot("tx_s1", t);
        table.put(new Put(b("a")).addColumn(F, b("q"), 2, b("v2")));
        table.delete(new Delete(b("b")));
        say("listed: " + describe(admin.listSnapshots(Pattern.compile("tx_.*"))));
        say("of the table: "
            + describe(admin.listTableSnapshots(Pattern.compile("tx_snap"), Pattern.compile(".*"))));
        say("of another table: "
            + describe(admin.listTableSnapshots(Pattern.compile("tx_snapx"), Pattern.compile(".*"))));
        attempt("snapshot an existing name", () -> admin.snapshot("tx_s1", t));
        attempt("snapshot a missing table",
            () -> admin.snapshot("tx_s2", TableName.valueOf("tx_nothing")));
        attempt("a bad snapshot name", () -> admin.snapshot("tx bad", t));
        attempt("clone a missing snapshot", () -> admin.cloneSnapshot("tx_nosuch", clone));
        attempt("clone onto an existing table", () -> admin.cloneSnapshot("tx_s1", t));
        attempt("restore an enabled table", () -> admin.restoreSnapshot("tx_s1"));
        attempt("restore a missing snapshot", () -> admin.restoreSnapshot("tx_nosuch"));
        attempt("delete a missing snapshot", () -> admin.deleteSnapshot("tx_nosuch"));
        admin.cloneSnapshot("tx_s1", clone);
        say("clone enabled: " + admin.isTableEnabled(clone));
        try (Table c = conn.getTable(clone)) {
          scan(c, new Scan(), true);
        }
        admin.disableTable(t);
        admin.snapshot("tx_s2", t);
        say("of a disabled table: " + describe(admin.listSnapshots(Pattern.compile("tx_s2"))));
        admin.restoreSnapshot("tx_s1");
        say("after restore: enabled " + admin.isTableEnabled(t));
        admin.enableTable(t);
        scan(table, new Scan(), true);
        admin.deleteSnapshot("tx_s1");
        admin.deleteSnapshot("tx_s2");
        say("after delete: " + describe(admin.listSnapshots(Pattern.compile("tx_.*"))));
        try (Table c = conn.getTable(clone)) {
          scan(c, new Scan(), true);
        }
      }
      Transcript.drop(admin, clone);
    });
    Transcript.drop(admin, t);
  }

  /** Names, tables and types; creation times vary and are left out. */
  private static String describe(List<SnapshotDescription> list) {
    return list.stream()
        .map(s -> s.getName() + " of " + s.getTableNameAsString() + " (" + s.getType() + ")")
        .sorted()
        .collect(Collectors.toList())
        .toString();
  }
}
