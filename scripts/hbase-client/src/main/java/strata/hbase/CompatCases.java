package strata.hbase;

import static strata.hbase.ClientTest.F;
import static strata.hbase.ClientTest.b;
import static strata.hbase.ClientTest.check;
import static strata.hbase.ClientTest.eq;
import static strata.hbase.ClientTest.rows;
import static strata.hbase.ClientTest.yes;

import java.io.IOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.RegionMetrics;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.TableNotDisabledException;
import org.apache.hadoop.hbase.TableNotEnabledException;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.filter.BigDecimalComparator;
import org.apache.hadoop.hbase.filter.BinaryComponentComparator;
import org.apache.hadoop.hbase.filter.BitComparator;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.LongComparator;
import org.apache.hadoop.hbase.filter.NullComparator;
import org.apache.hadoop.hbase.filter.RowFilter;
import org.apache.hadoop.hbase.filter.SingleColumnValueFilter;
import org.apache.hadoop.hbase.filter.ValueFilter;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Admin and filter behaviours checked against HBase 2.6 itself: truncate's table states, the
 * exception of a write or scan on a disabled table, custom table and family values, numeric
 * and bit comparators, table-name patterns. Run by {@link ClientTest}, or alone (the first
 * argument names the server) to compare with an HBase peer.
 */
final class CompatCases {
  private static final TableName T = TableName.valueOf("hbrpc_compat");

  private CompatCases() {}

  public static void main(String[] args) throws Exception {
    Configuration conf = ClientTest.clientConf(args[0], 6, 50, 15000);
    try (Connection conn = ConnectionFactory.createConnection(conf); Admin admin = conn.getAdmin()) {
      run(conn, admin);
      afterRestart(admin);
    }
    System.out.println(ClientTest.summary());
    System.exit(ClientTest.failures() == 0 ? 0 : 1);
  }

  static void run(Connection conn, Admin admin) throws IOException {
    ClientTest.createTable(admin, T, 1, null);
    truncate(conn, admin);
    disabled(conn, admin);
    comparators(conn);
    customValues(admin);
    patterns(admin);
    check("getRegionMetrics of each live server: the table's region with its store files and request counts", () -> {
      admin.flush(T);
      int regions = 0;
      int files = 0;
      long reads = 0;
      long writes = 0;
      for (ServerName sn : admin.getClusterMetrics().getLiveServerMetrics().keySet()) {
        for (RegionMetrics m : admin.getRegionMetrics(sn, T)) {
          regions++;
          files += m.getStoreFileCount();
          reads += m.getReadRequestCount();
          writes += m.getWriteRequestCount();
          yes(m.getNameAsString().startsWith(T.getNameAsString() + ","), m.getNameAsString());
        }
      }
      eq(1, regions, "regions of the table");
      yes(files >= 1, "store files after a flush: " + files);
      // The cases above read and wrote the table.
      yes(reads > 0 && writes > 0, "request counts: " + reads + " reads, " + writes + " writes");
    });
    check("drop the compat table", () -> {
      admin.disableTable(T);
      admin.deleteTable(T);
    });
  }

  /** After {@link #run} (and a server restart in between, under the harness). */
  static void afterRestart(Admin admin) {
    check("custom values survive a restart", () -> {
      TableDescriptor d = admin.getDescriptor(CUSTOM);
      eq("v2", d.getValue("k2"), "table value");
      eq("1", d.getColumnFamily(F).getConfigurationValue("hbase.fc"), "family configuration");
      admin.disableTable(CUSTOM);
      admin.deleteTable(CUSTOM);
    });
  }

  /** True if {@code want} is {@code e} or one of its causes. */
  private static boolean caused(Throwable e, Class<? extends Throwable> want) {
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (want.isInstance(c)) {
        return true;
      }
    }
    return false;
  }

  private static void truncate(Connection conn, Admin admin) {
    check("truncate of an enabled table fails with TableNotDisabledException", () -> {
      try (Table t = conn.getTable(T)) {
        t.put(new Put(b("x")).addColumn(F, b("q"), b("v")));
      }
      try {
        admin.truncateTable(T, false);
        throw new AssertionError("no exception");
      } catch (TableNotDisabledException expected) {
        // as HBase's TruncateTableProcedure
      }
      yes(admin.isTableEnabled(T), "still enabled");
    });
    check("truncate of a disabled table empties it and leaves it enabled", () -> {
      admin.disableTable(T);
      admin.truncateTable(T, false);
      yes(admin.isTableEnabled(T), "enabled after truncate");
      try (Table t = conn.getTable(T)) {
        eq(0, rows(t.getScanner(new Scan())).size(), "rows after truncate");
      }
    });
  }

  private static void disabled(Connection conn, Admin admin) {
    check("put and scan on a disabled table fail with TableNotEnabledException", () -> {
      admin.disableTable(T);
      try (Table t = conn.getTable(T)) {
        try {
          t.put(new Put(b("y")).addColumn(F, b("q"), b("v")));
          throw new AssertionError("put: no exception");
        } catch (IOException e) {
          yes(caused(e, TableNotEnabledException.class), "put: " + e);
        }
        try {
          rows(t.getScanner(new Scan()));
          throw new AssertionError("scan: no exception");
        } catch (IOException | RuntimeException e) {
          yes(caused(e, TableNotEnabledException.class), "scan: " + e);
        }
      } finally {
        admin.enableTable(T);
      }
    });
  }

  private static List<String> scan(Table t, Filter f) throws IOException {
    return rows(t.getScanner(new Scan().setFilter(f)));
  }

  private static void comparators(Connection conn) {
    check("LongComparator, BitComparator, NullComparator, BigDecimalComparator, "
        + "BinaryComponentComparator", () -> {
      String[] decimals = {"-2.5", "0", "1.50", "1.5001", "30"};
      try (Table t = conn.getTable(T)) {
        List<Put> puts = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
          Put p = new Put(b("k" + i + (i % 2 == 0 ? "a" : "b")))
              .addColumn(F, b("l"), Bytes.toBytes(i * 10L - 20))
              .addColumn(F, b("d"), Bytes.toBytes(new BigDecimal(decimals[i])));
          if (i != 2) {
            p.addColumn(F, b("n"), b("v" + i));
          }
          puts.add(p);
        }
        t.put(puts);
        eq(Arrays.asList("k3b", "k4a"), scan(t, new SingleColumnValueFilter(F, b("l"),
            CompareOperator.GREATER, new LongComparator(0L))), "long > 0");
        eq(Arrays.asList("k0a", "k1b", "k2a"), scan(t, new SingleColumnValueFilter(F, b("l"),
            CompareOperator.LESS_OR_EQUAL, new LongComparator(0L))), "long <= 0");
        Scan bits = new Scan().addColumn(F, b("l")).setFilter(new ValueFilter(
            CompareOperator.EQUAL, new BitComparator(Bytes.toBytes(-1L), BitComparator.BitwiseOp.AND)));
        eq(Arrays.asList("k0a", "k1b", "k3b", "k4a"), rows(t.getScanner(bits)), "bits AND");
        Scan xor = new Scan().addColumn(F, b("l")).setFilter(new ValueFilter(
            CompareOperator.NOT_EQUAL,
            new BitComparator(Bytes.toBytes(10L), BitComparator.BitwiseOp.XOR)));
        eq(Arrays.asList("k3b"), rows(t.getScanner(xor)), "bits XOR: equal values");
        Scan or = new Scan().addColumn(F, b("l")).setFilter(new ValueFilter(
            CompareOperator.NOT_EQUAL, new BitComparator(new byte[8], BitComparator.BitwiseOp.OR)));
        eq(Arrays.asList("k2a"), rows(t.getScanner(or)), "bits OR: zero");
        eq(Arrays.asList("k2a"), scan(t, new SingleColumnValueFilter(F, b("n"),
            CompareOperator.EQUAL, new NullComparator())), "null: only the row without n");
        eq(Arrays.asList("k0a", "k1b", "k2a", "k3b", "k4a"), scan(t, new SingleColumnValueFilter(
            F, b("n"), CompareOperator.NOT_EQUAL, new NullComparator())), "null: !=");
        eq(Arrays.asList("k0a", "k1b", "k2a"), scan(t, new SingleColumnValueFilter(F, b("d"),
            CompareOperator.LESS_OR_EQUAL, new BigDecimalComparator(new BigDecimal("1.5")))),
            "decimal <= 1.5 (1.50 equals 1.5)");
        eq(Arrays.asList("k2a"), scan(t, new SingleColumnValueFilter(F, b("d"),
            CompareOperator.EQUAL, new BigDecimalComparator(new BigDecimal("1.500")))),
            "decimal = 1.500");
        eq(Arrays.asList("k0a", "k2a", "k4a"), scan(t, new RowFilter(CompareOperator.EQUAL,
            new BinaryComponentComparator(b("a"), 2))), "row component at 2");
        eq(Arrays.asList("k3b", "k4a"), scan(t, new RowFilter(CompareOperator.GREATER_OR_EQUAL,
            new BinaryComponentComparator(b("3"), 1))), "row component at 1 >= 3");
      }
    });
  }

  private static final TableName CUSTOM = TableName.valueOf("hbrpc_custom");

  private static void customValues(Admin admin) {
    check("custom table and family values persist and come back", () -> {
      if (admin.tableExists(CUSTOM)) {
        admin.disableTable(CUSTOM);
        admin.deleteTable(CUSTOM);
      }
      ColumnFamilyDescriptor cf = ColumnFamilyDescriptorBuilder.newBuilder(F)
          .setValue("fk", "fv").setConfiguration("hbase.fc", "1").build();
      admin.createTable(TableDescriptorBuilder.newBuilder(CUSTOM).setColumnFamily(cf)
          .setValue("owner", "team-a").setValue("COMPACTION_ENABLED", "false").build());
      TableDescriptor d = admin.getDescriptor(CUSTOM);
      eq("team-a", d.getValue("owner"), "table value");
      eq("false", d.getValue("COMPACTION_ENABLED"), "table value HBase keeps as is");
      ColumnFamilyDescriptor f = d.getColumnFamily(F);
      eq("fv", f.getValue(b("fk")) == null ? null : Bytes.toString(f.getValue(b("fk"))),
          "family value");
      eq("1", f.getConfigurationValue("hbase.fc"), "family configuration");
      admin.modifyTable(TableDescriptorBuilder.newBuilder(d).removeValue(b("owner"))
          .setValue("k2", "v2").build());
      d = admin.getDescriptor(CUSTOM);
      eq(null, d.getValue("owner"), "removed value");
      eq("v2", d.getValue("k2"), "added value");
      eq("fv", Bytes.toString(d.getColumnFamily(F).getValue(b("fk"))), "family value kept");
      List<TableDescriptor> listed = admin.listTableDescriptors(Arrays.asList(CUSTOM));
      eq("v2", listed.get(0).getValue("k2"), "listed descriptor");
    });
  }

  private static void patterns(Admin admin) {
    check("listTableNames and listTableDescriptors by pattern", () -> {
      eq(Arrays.asList(CUSTOM), Arrays.asList(admin.listTableNames(Pattern.compile("hbrpc_cus.*"))),
          "names by pattern");
      eq(Arrays.asList(CUSTOM), Arrays.asList(
          admin.listTableNames(Pattern.compile("default:hbrpc_custo[m]"), false)),
          "qualified pattern");
      eq(0, admin.listTableNames(Pattern.compile("custom")).length, "whole-name match");
      List<String> names = new ArrayList<>();
      for (TableDescriptor d : admin.listTableDescriptors(Pattern.compile("hbrpc_(compat|custom)"))) {
        names.add(d.getTableName().getNameAsString());
      }
      java.util.Collections.sort(names);
      eq(Arrays.asList("hbrpc_compat", "hbrpc_custom"), names, "descriptors by pattern");
    });
  }
}
