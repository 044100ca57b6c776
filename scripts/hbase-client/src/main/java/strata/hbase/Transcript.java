package strata.hbase;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.RetriesExhaustedWithDetailsException;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The comparison transcript: every case prints what the server answered (cells with their
 * timestamps and types, exception classes, descriptors), never a verdict. Recorded once
 * against HBase 2.6 into {@code scripts/hbase-client/expected/transcript.txt} and diffed
 * against Strata's by {@code scripts/hbase-client-test.sh}. Cases use fixed timestamps so the
 * output does not depend on the clock. The cases are in {@link TranscriptData},
 * {@link TranscriptFilters} and {@link TranscriptAdmin}.
 */
public final class Transcript {
  static final byte[] F = Bytes.toBytes("f");
  static final byte[] G = Bytes.toBytes("g");
  private static final StringBuilder OUT = new StringBuilder();

  private Transcript() {}

  interface Case {
    void run() throws Exception;
  }

  public static void main(String[] args) throws Exception {
    Configuration conf = ClientTest.clientConf(args[0], 3, 50, 15000);
    try (Connection conn = ConnectionFactory.createConnection(conf); Admin admin = conn.getAdmin()) {
      TranscriptData.all(conn, admin);
      TranscriptFilters.all(conn, admin);
      TranscriptAdmin.all(conn, admin);
      TranscriptSnapshots.all(conn, admin);
    }
    System.out.print(OUT);
    System.out.flush();
    System.exit(0);
  }

  /** Runs one case: its name, then what it printed, or the exception that ended it. */
  static void run(String name, Case c) {
    OUT.append("== ").append(name).append('\n');
    try {
      c.run();
    } catch (Throwable t) {
      say("! " + error(t));
    }
  }

  static void say(String line) {
    OUT.append(line).append('\n');
  }

  /** Runs {@code c} and prints the exception's class if it throws, "ok" if not. */
  static void attempt(String what, Case c) {
    try {
      c.run();
      say(what + ": ok");
    } catch (Throwable t) {
      say(what + ": ! " + error(t));
    }
  }

  /**
   * The HBase exception a client would catch: the first class in the cause chain that is not a
   * retry or transport wrapper, by simple name (messages differ between servers and are not
   * compared).
   */
  static String error(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof RetriesExhaustedWithDetailsException) {
        RetriesExhaustedWithDetailsException r = (RetriesExhaustedWithDetailsException) c;
        if (r.getNumExceptions() > 0) {
          return error(r.getCause(0));
        }
      }
      String n = c.getClass().getSimpleName();
      boolean wrapper = n.equals("RetriesExhaustedException") || n.equals("RemoteException")
          || n.equals("UndeclaredThrowableException") || n.equals("ExecutionException")
          || n.equals("CompletionException") || n.equals("RemoteWithExtrasException");
      if (!wrapper || c.getCause() == null) {
        return n;
      }
    }
    return t.getClass().getSimpleName();
  }

  /** Drops and creates a table with families f (the given versions) and g (1 version). */
  static TableName table(Admin admin, String name, int versions) throws IOException {
    TableName t = TableName.valueOf(name);
    drop(admin, t);
    admin.createTable(TableDescriptorBuilder.newBuilder(t)
        .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(F).setMaxVersions(versions).build())
        .setColumnFamily(ColumnFamilyDescriptorBuilder.of(G)).build());
    return t;
  }

  static void drop(Admin admin, TableName t) throws IOException {
    if (admin.tableExists(t)) {
      if (admin.isTableEnabled(t)) {
        admin.disableTable(t);
      }
      admin.deleteTable(t);
    }
  }

  static byte[] b(String s) {
    return Bytes.toBytes(s);
  }

  /** A cell as {@code family:qualifier@ts/Type=value}; {@code ts} false leaves the time out. */
  static String cell(Cell c, boolean ts) {
    StringBuilder s = new StringBuilder();
    s.append(Bytes.toStringBinary(CellUtil.cloneFamily(c))).append(':')
        .append(Bytes.toStringBinary(CellUtil.cloneQualifier(c)));
    if (ts) {
      s.append('@').append(c.getTimestamp());
    }
    if (c.getType() != Cell.Type.Put) {
      s.append('/').append(c.getType());
    }
    return s.append('=').append(Bytes.toStringBinary(CellUtil.cloneValue(c))).toString();
  }

  /** A result as {@code row [cells]}, or {@code (empty)}. */
  static String result(Result r, boolean ts) {
    if (r == null || r.isEmpty()) {
      return "(empty)";
    }
    List<String> cells = new ArrayList<>();
    for (Cell c : r.rawCells()) {
      cells.add(cell(c, ts));
    }
    return Bytes.toStringBinary(r.getRow()) + " " + cells;
  }

  /** Prints a scan's results, one line each, then their count. */
  static void scan(Table t, Scan s, boolean ts) throws IOException {
    int n = 0;
    try (ResultScanner rs = t.getScanner(s)) {
      for (Result r : rs) {
        say("  " + result(r, ts));
        n++;
      }
    }
    say("  " + n + " result(s)");
  }

  /** A table descriptor's user-visible settings, in a fixed order. */
  static String descriptor(TableDescriptor d) {
    StringBuilder s = new StringBuilder(d.getTableName().getNameAsString());
    Map<String, String> values = new TreeMap<>();
    d.getValues().forEach((k, v) -> values.put(Bytes.toString(k.get()), Bytes.toString(v.get())));
    values.remove("IS_META");
    // HBase 2.6's master adds its store-file tracker's name to every table it creates; Strata
    // has no pluggable tracker and sends none (RFC 0014, "Differences kept").
    values.remove("hbase.store.file-tracker.impl");
    s.append(" values=").append(values);
    for (ColumnFamilyDescriptor f : d.getColumnFamilies()) {
      s.append("\n  family ").append(f.getNameAsString()).append(" VERSIONS=")
          .append(f.getMaxVersions()).append(" MIN_VERSIONS=").append(f.getMinVersions())
          .append(" TTL=").append(f.getTimeToLive()).append(" BLOOMFILTER=")
          .append(f.getBloomFilterType()).append(" COMPRESSION=").append(f.getCompressionType())
          .append(" DATA_BLOCK_ENCODING=").append(f.getDataBlockEncoding())
          .append(" BLOCKSIZE=").append(f.getBlocksize()).append(" IN_MEMORY=")
          .append(f.isInMemory()).append(" KEEP_DELETED_CELLS=").append(f.getKeepDeletedCells());
      Map<String, String> custom = new TreeMap<>();
      f.getValues().forEach((k, v) -> custom.put(Bytes.toString(k.get()), Bytes.toString(v.get())));
      custom.keySet().retainAll(new TreeSet<>(Arrays.asList("fk")));
      if (!custom.isEmpty()) {
        s.append(" custom=").append(custom);
      }
      if (!f.getConfiguration().isEmpty()) {
        s.append(" configuration=").append(new TreeMap<>(f.getConfiguration()));
      }
    }
    return s.toString();
  }

  /** Table names matching a pattern, sorted, without the test's other tables. */
  static List<String> names(Admin admin, Pattern p) throws IOException {
    List<String> out = new ArrayList<>();
    for (TableName n : admin.listTableNames(p)) {
      out.add(n.getNameAsString());
    }
    out.sort(null);
    return out;
  }
}
