package strata.hbase;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.NavigableMap;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.ClusterMetrics;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.NamespaceExistException;
import org.apache.hadoop.hbase.NamespaceNotFoundException;
import org.apache.hadoop.hbase.TableExistsException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.TableNotFoundException;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Append;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.CheckAndMutateResult;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.RetriesExhaustedWithDetailsException;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Row;
import org.apache.hadoop.hbase.client.RowMutations;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.filter.BinaryComparator;
import org.apache.hadoop.hbase.filter.BinaryPrefixComparator;
import org.apache.hadoop.hbase.filter.ColumnCountGetFilter;
import org.apache.hadoop.hbase.filter.ColumnPaginationFilter;
import org.apache.hadoop.hbase.filter.ColumnRangeFilter;
import org.apache.hadoop.hbase.filter.ColumnValueFilter;
import org.apache.hadoop.hbase.filter.DependentColumnFilter;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.FirstKeyValueMatchingQualifiersFilter;
import org.apache.hadoop.hbase.filter.FuzzyRowFilter;
import org.apache.hadoop.hbase.filter.InclusiveStopFilter;
import org.apache.hadoop.hbase.filter.KeyOnlyFilter;
import org.apache.hadoop.hbase.filter.MultiRowRangeFilter;
import org.apache.hadoop.hbase.filter.PageFilter;
import org.apache.hadoop.hbase.filter.PrefixFilter;
import org.apache.hadoop.hbase.filter.QualifierFilter;
import org.apache.hadoop.hbase.filter.RandomRowFilter;
import org.apache.hadoop.hbase.filter.RegexStringComparator;
import org.apache.hadoop.hbase.filter.RowFilter;
import org.apache.hadoop.hbase.filter.SingleColumnValueExcludeFilter;
import org.apache.hadoop.hbase.filter.SingleColumnValueFilter;
import org.apache.hadoop.hbase.filter.SkipFilter;
import org.apache.hadoop.hbase.filter.SubstringComparator;
import org.apache.hadoop.hbase.filter.TimestampsFilter;
import org.apache.hadoop.hbase.filter.ValueFilter;
import org.apache.hadoop.hbase.filter.WhileMatchFilter;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.Pair;

/**
 * Strata's HBase-client compatibility test: only hbase-client 2.6 APIs, against a server
 * named by {@code hbase.client.bootstrap.servers} (the first argument). Every check prints
 * one line; the run ends with "N passed, M failed" and exits non-zero on any failure.
 */
public final class ClientTest {
  static final byte[] F = Bytes.toBytes("f");
  private static final byte[] G = Bytes.toBytes("g");
  private static int passed;
  private static int failed;

  /**
   * A client configuration bootstrapping from {@code servers} (host:port[,host:port]) through
   * HBase 2.6's RPC registry, as an application configured for Strata would have it.
   */
  static Configuration clientConf(String servers, int retries, int pauseMs, int rpcTimeoutMs) {
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.client.registry.impl", "org.apache.hadoop.hbase.client.RpcConnectionRegistry");
    conf.set("hbase.client.bootstrap.servers", servers);
    conf.setInt("hbase.client.retries.number", retries);
    conf.setInt("hbase.client.pause", pauseMs);
    conf.setInt("hbase.rpc.timeout", rpcTimeoutMs);
    conf.setInt("hbase.client.operation.timeout", 60000);
    return conf;
  }

  static String summary() {
    return passed + " passed, " + failed + " failed";
  }

  static int failures() {
    return failed;
  }

  interface Check {
    void run() throws Exception;
  }

  static void check(String name, Check c) {
    try {
      c.run();
      passed++;
      System.out.println("PASS " + name);
    } catch (Throwable t) {
      failed++;
      System.out.println("FAIL " + name + ": " + t);
      if (t instanceof RetriesExhaustedWithDetailsException) {
        for (Throwable cause : ((RetriesExhaustedWithDetailsException) t).getCauses()) {
          System.out.println("  cause: " + cause);
          cause.printStackTrace(System.out);
        }
      }
      t.printStackTrace(System.out);
    }
  }

  static void eq(Object want, Object got, String what) {
    boolean same = want == null ? got == null
        : (want instanceof byte[] && got instanceof byte[])
            ? Arrays.equals((byte[]) want, (byte[]) got) : want.equals(got);
    if (!same) {
      String w = want instanceof byte[] ? Bytes.toStringBinary((byte[]) want) : String.valueOf(want);
      String g = got instanceof byte[] ? Bytes.toStringBinary((byte[]) got) : String.valueOf(got);
      throw new AssertionError(what + ": want " + w + ", got " + g);
    }
  }

  static void yes(boolean cond, String what) {
    if (!cond) {
      throw new AssertionError(what);
    }
  }

  static byte[] b(String s) {
    return Bytes.toBytes(s);
  }

  private static String row(int i) {
    return String.format("r%03d", i);
  }

  static List<String> rows(ResultScanner scanner) throws IOException {
    List<String> out = new ArrayList<>();
    for (Result r : scanner) {
      out.add(Bytes.toString(r.getRow()));
    }
    scanner.close();
    return out;
  }

  private static List<String> expectRows(int from, int to, int step) {
    List<String> out = new ArrayList<>();
    for (int i = from; step > 0 ? i < to : i > to; i += step) {
      out.add(row(i));
    }
    return out;
  }

  static void createTable(Admin admin, TableName name, int versions, byte[][] splits)
      throws IOException {
    if (admin.tableExists(name)) {
      if (admin.isTableEnabled(name)) {
        admin.disableTable(name);
      }
      admin.deleteTable(name);
    }
    TableDescriptor desc = TableDescriptorBuilder.newBuilder(name)
        .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(F).setMaxVersions(versions).build())
        .setColumnFamily(ColumnFamilyDescriptorBuilder.of(G))
        .build();
    if (splits == null) {
      admin.createTable(desc);
    } else {
      admin.createTable(desc, splits);
    }
  }

  public static void main(String[] args) throws Exception {
    Configuration conf = clientConf(args[0], 6, 50, 15000);
    try (Connection conn = ConnectionFactory.createConnection(conf); Admin admin = conn.getAdmin()) {
      lifecycle(admin);
      namespaces(admin);
      TableName data = TableName.valueOf("hbrpc_data");
      createTable(admin, data, 3, null);
      try (Table t = conn.getTable(data)) {
        putsAndGets(t);
        deletes(t);
        rawAndLimits(t);
        counters(t);
        checkAndMutate(t);
        checkAndMutateResults(t);
        cellTtl(t);
        batch(t);
      }
      TableName scans = TableName.valueOf("hbrpc_scans");
      createTable(admin, scans, 1, new byte[][] {b(row(100)), b(row(200))});
      bufferedMutator(conn, scans);
      try (Table t = conn.getTable(scans)) {
        scanning(conn, t, scans);
        filters(t);
      }
      check("flush and major compaction keep every row", () -> {
        admin.flush(scans);
        admin.majorCompact(scans);
        try (Table t = conn.getTable(scans)) {
          eq(expectRows(0, 300, 1), rows(t.getScanner(new Scan())), "rows");
        }
      });
      check("getCompactionState: NONE once the compactions ended (AdminService.GetRegionInfo)",
          () -> {
            eq(org.apache.hadoop.hbase.client.CompactionState.NONE,
                admin.getCompactionState(scans), "compaction state");
            byte[] first = admin.getRegions(scans).get(0).getRegionName();
            eq(org.apache.hadoop.hbase.client.CompactionState.NONE,
                admin.getCompactionStateForRegion(first), "a region's compaction state");
          });
      splitUnderScan(admin, conn, scans);
      CompatCases.run(conn, admin);
      if (args.length > 1) {
        serverRestart(conn, scans, args[1]);
      }
      CompatCases.afterRestart(admin);
      check("drop tables", () -> {
        for (TableName n : new TableName[] {data, scans}) {
          admin.disableTable(n);
          admin.deleteTable(n);
          yes(!admin.tableExists(n), n + " gone");
        }
      });
    }
    System.out.println(passed + " passed, " + failed + " failed");
    System.exit(failed == 0 ? 0 : 1);
  }

  private static void lifecycle(Admin admin) {
    TableName name = TableName.valueOf("hbrpc_life");
    check("create table with split keys", () -> {
      createTable(admin, name, 3, new byte[][] {b("g"), b("p")});
      yes(admin.tableExists(name), "table exists");
      yes(admin.isTableEnabled(name), "table enabled");
      yes(admin.isTableAvailable(name), "table available");
      eq(3, admin.getRegions(name).size(), "regions");
    });
    check("cluster metrics", () -> {
      ClusterMetrics m = admin.getClusterMetrics();
      eq(1, m.getLiveServerMetrics().size(), "live servers");
      yes(m.getMasterName() != null, "active master");
      yes(m.getClusterId() != null && m.getClusterId().startsWith("strata-"), "cluster id");
      eq(3, m.getLiveServerMetrics().values().iterator().next().getRegionMetrics().size(),
          "regions of the one table");
    });
    check("list and describe tables", () -> {
      yes(Arrays.asList(admin.listTableNames()).contains(name), "listed");
      TableDescriptor d = admin.getDescriptor(name);
      eq(3, d.getColumnFamily(F).getMaxVersions(), "f VERSIONS");
      yes(d.getColumnFamily(G) != null, "family g described");
    });
    check("a family's PREFETCH_BLOCKS_ON_OPEN is set and described", () -> {
      ColumnFamilyDescriptor g = admin.getDescriptor(name).getColumnFamily(G);
      yes(!g.isPrefetchBlocksOnOpen(), "off by default");
      admin.modifyColumnFamily(name,
          ColumnFamilyDescriptorBuilder.newBuilder(g).setPrefetchBlocksOnOpen(true).build());
      yes(admin.getDescriptor(name).getColumnFamily(G).isPrefetchBlocksOnOpen(), "on");
    });
    check("a table's COMPACTION_ENABLED is set and described", () -> {
      TableDescriptor cur = admin.getDescriptor(name);
      yes(cur.isCompactionEnabled(), "on by default");
      admin.modifyTable(TableDescriptorBuilder.newBuilder(cur).setCompactionEnabled(false).build());
      yes(!admin.getDescriptor(name).isCompactionEnabled(), "off");
      admin.majorCompact(name);
      admin.modifyTable(TableDescriptorBuilder.newBuilder(admin.getDescriptor(name))
          .setCompactionEnabled(true).build());
      yes(admin.getDescriptor(name).isCompactionEnabled(), "on again");
    });
    check("a table's SPLIT_ENABLED and MERGE_ENABLED refuse splits and merges", () -> {
      TableDescriptor cur = admin.getDescriptor(name);
      yes(cur.isSplitEnabled() && cur.isMergeEnabled(), "on by default");
      admin.modifyTable(TableDescriptorBuilder.newBuilder(cur)
          .setSplitEnabled(false).setMergeEnabled(false).build());
      TableDescriptor off = admin.getDescriptor(name);
      yes(!off.isSplitEnabled() && !off.isMergeEnabled(), "off");
      eq("false", off.getValue("SPLIT_ENABLED"), "HBase's spelling");
      try {
        admin.split(name, b("m"));
        throw new AssertionError("split while SPLIT_ENABLED is false");
      } catch (java.io.IOException expected) {
        yes(String.valueOf(expected.getMessage()).contains("region split is disabled"),
            "HBase's message: " + expected.getMessage());
      }
      admin.modifyTable(TableDescriptorBuilder.newBuilder(admin.getDescriptor(name))
          .setSplitEnabled(true).setMergeEnabled(true).build());
      TableDescriptor on = admin.getDescriptor(name);
      yes(on.isSplitEnabled() && on.isMergeEnabled(), "on again");
    });
    check("splitSwitch and mergeSwitch turn the cluster's splits and merges off", () -> {
      yes(admin.isSplitEnabled() && admin.isMergeEnabled(), "on by default");
      yes(admin.splitSwitch(false, true), "split was on");
      yes(admin.mergeSwitch(false, false), "merge was on");
      yes(!admin.isSplitEnabled() && !admin.isMergeEnabled(), "off");
      try {
        admin.split(name, b("m"));
        throw new AssertionError("split while the split switch is off");
      } catch (java.io.IOException expected) {
        yes(String.valueOf(expected.getMessage()).contains("split switch off"),
            "HBase's message: " + expected.getMessage());
      }
      yes(!admin.splitSwitch(true, true), "split was off");
      yes(!admin.mergeSwitch(true, true), "merge was off");
      yes(admin.isSplitEnabled() && admin.isMergeEnabled(), "on again");
    });
    check("getSecurityCapabilities without --auth: simple authentication only", () -> {
      eq(java.util.Collections.singletonList(
              org.apache.hadoop.hbase.client.security.SecurityCapability.SIMPLE_AUTHENTICATION),
          admin.getSecurityCapabilities(), "capabilities");
      try {
        admin.hasUserPermissions(java.util.Collections.singletonList(
            org.apache.hadoop.hbase.security.access.Permission.newBuilder(name)
                .withActions(org.apache.hadoop.hbase.security.access.Permission.Action.READ)
                .build()));
        throw new AssertionError("hasUserPermissions answered without access control");
      } catch (java.io.IOException expected) {
        // as HBase without its AccessController
      }
    });
    check("balancerSwitch, balance, getRegions(server), move, unassign, assign and decommissioning", () -> {
      yes(admin.isBalancerEnabled(), "on by default");
      yes(admin.balancerSwitch(false, true), "was on");
      yes(!admin.isBalancerEnabled(), "off");
      yes(!admin.balance(), "no round while off");
      yes(!admin.balancerSwitch(true, true), "was off");
      yes(admin.balance(), "a round once on");
      org.apache.hadoop.hbase.client.RegionInfo r = admin.getRegions(name).get(1);
      org.apache.hadoop.hbase.ServerName server =
          admin.getRegionServers().iterator().next();
      // Admin.getRegions(server) (GetOnlineRegion): every region of the table is there.
      java.util.Set<String> online = new java.util.HashSet<>();
      for (org.apache.hadoop.hbase.client.RegionInfo i : admin.getRegions(server)) {
        online.add(i.getEncodedName());
      }
      for (org.apache.hadoop.hbase.client.RegionInfo i : admin.getRegions(name)) {
        yes(online.contains(i.getEncodedName()), "getRegions(server) lists " + i);
      }
      yes(!admin.isMasterInMaintenanceMode(), "never in maintenance mode");
      admin.move(r.getEncodedNameAsBytes());
      admin.move(r.getEncodedNameAsBytes(), server);
      admin.unassign(r.getRegionName());
      admin.assign(r.getRegionName());
      eq(3, admin.getRegions(name).size(), "regions after the moves");
      try {
        admin.move(b("0123456789abcdef0123456789abcdef"));
        throw new AssertionError("an unknown region moved");
      } catch (java.io.IOException expected) {
        // as HBase: UnknownRegionException
      }
      yes(admin.listDecommissionedRegionServers().isEmpty(), "none decommissioned");
      try {
        admin.decommissionRegionServers(java.util.Collections.singletonList(server), true);
        throw new AssertionError("the only server decommissioned");
      } catch (java.io.IOException expected) {
        yes(String.valueOf(expected.getMessage()).contains("last region server"),
            "refused: " + expected.getMessage());
      }
      yes(admin.listDecommissionedRegionServers().isEmpty(), "still none");
    });
    check("create an existing table fails with TableExistsException", () -> {
      try {
        admin.createTable(TableDescriptorBuilder.newBuilder(name)
            .setColumnFamily(ColumnFamilyDescriptorBuilder.of(F)).build());
        throw new AssertionError("no exception");
      } catch (TableExistsException expected) {
        // as HBase
      }
    });
    check("disable, enable, delete", () -> {
      admin.disableTable(name);
      yes(admin.isTableDisabled(name), "disabled");
      admin.enableTable(name);
      yes(admin.isTableEnabled(name), "enabled again");
      admin.disableTable(name);
      admin.deleteTable(name);
      yes(!admin.tableExists(name), "gone");
    });
    check("delete a missing table fails with TableNotFoundException", () -> {
      try {
        admin.deleteTable(TableName.valueOf("hbrpc_missing"));
        throw new AssertionError("no exception");
      } catch (TableNotFoundException expected) {
        // as HBase
      }
    });
  }

  private static List<String> namespaceNames(Admin admin) throws IOException {
    List<String> out = new ArrayList<>();
    for (NamespaceDescriptor d : admin.listNamespaceDescriptors()) {
      out.add(d.getName());
    }
    return out;
  }

  private static void namespaces(Admin admin) {
    TableName t = TableName.valueOf("hbrpc_ns", "t");
    check("namespaces: create, list, get, refuse a non-empty delete, delete", () -> {
      List<String> before = namespaceNames(admin);
      yes(before.contains("default") && before.contains("hbase"), "default and hbase: " + before);
      try {
        admin.createTable(TableDescriptorBuilder.newBuilder(t)
            .setColumnFamily(ColumnFamilyDescriptorBuilder.of(F)).build());
        throw new AssertionError("a table in a missing namespace was created");
      } catch (NamespaceNotFoundException expected) {
        // as HBase
      }
      admin.createNamespace(NamespaceDescriptor.create("hbrpc_ns").build());
      eq("hbrpc_ns", admin.getNamespaceDescriptor("hbrpc_ns").getName(), "descriptor");
      yes(namespaceNames(admin).contains("hbrpc_ns"), "listed");
      try {
        admin.createNamespace(NamespaceDescriptor.create("hbrpc_ns").build());
        throw new AssertionError("created twice");
      } catch (NamespaceExistException expected) {
        // as HBase
      }
      admin.createTable(TableDescriptorBuilder.newBuilder(t)
          .setColumnFamily(ColumnFamilyDescriptorBuilder.of(F)).build());
      eq(1, admin.listTableNamesByNamespace("hbrpc_ns").length, "tables in the namespace");
      try {
        admin.deleteNamespace("hbrpc_ns");
        throw new AssertionError("a namespace holding a table was deleted");
      } catch (IOException e) {
        // HBase's ConstraintException (a server class: the client sees it by name)
        StringBuilder all = new StringBuilder();
        for (Throwable c = e; c != null; c = c.getCause()) {
          all.append(c).append('\n');
        }
        yes(all.toString().contains("ConstraintException"), "ConstraintException: " + all);
      }
      admin.disableTable(t);
      admin.deleteTable(t);
      admin.deleteNamespace("hbrpc_ns");
      yes(!namespaceNames(admin).contains("hbrpc_ns"), "gone");
      try {
        admin.getNamespaceDescriptor("hbrpc_ns");
        throw new AssertionError("a deleted namespace is described");
      } catch (NamespaceNotFoundException expected) {
        // as HBase
      }
    });
  }

  private static void putsAndGets(Table t) {
    check("put and get with explicit timestamps and versions", () -> {
      byte[] r = b("pg1");
      for (long ts = 1; ts <= 4; ts++) {
        t.put(new Put(r).addColumn(F, b("q"), ts, b("v" + ts)));
      }
      Result latest = t.get(new Get(r));
      eq("v4", Bytes.toString(latest.getValue(F, b("q"))), "latest");
      Result all = t.get(new Get(r).readVersions(10));
      List<Cell> cells = all.getColumnCells(F, b("q"));
      eq(3, cells.size(), "versions kept (VERSIONS 3)");
      eq(4L, cells.get(0).getTimestamp(), "newest first");
      Result range = t.get(new Get(r).setTimeRange(2, 4).readVersions(10));
      eq(2, range.getColumnCells(F, b("q")).size(), "time range [2,4)");
      Result at = t.get(new Get(r).setTimestamp(3));
      eq("v3", Bytes.toString(at.getValue(F, b("q"))), "at ts 3");
    });
    check("get of a missing row is empty; exists", () -> {
      yes(t.get(new Get(b("nope"))).isEmpty(), "empty");
      yes(!t.exists(new Get(b("nope"))), "not exists");
      yes(t.exists(new Get(b("pg1"))), "exists");
    });
    check("put several columns and families, get a column", () -> {
      t.put(new Put(b("pg2")).addColumn(F, b("a"), b("1")).addColumn(F, b("b"), b("2"))
          .addColumn(G, b("c"), b("3")));
      Result r = t.get(new Get(b("pg2")));
      eq(3, r.size(), "cells");
      Result one = t.get(new Get(b("pg2")).addColumn(F, b("b")));
      eq(1, one.size(), "one column");
      eq("2", Bytes.toString(one.getValue(F, b("b"))), "value");
      Result fam = t.get(new Get(b("pg2")).addFamily(G));
      eq("3", Bytes.toString(fam.getValue(G, b("c"))), "family g");
    });
    check("put to a missing family fails", () -> {
      try {
        t.put(new Put(b("pg3")).addColumn(b("nofamily"), b("q"), b("v")));
        throw new AssertionError("no exception");
      } catch (IOException expected) {
        yes(String.valueOf(expected).contains("NoSuchColumnFamily")
            || String.valueOf(expected).contains("nofamily"), "names the family: " + expected);
      }
    });
  }

  private static void deletes(Table t) {
    check("delete kinds: version, column, family, row, with timestamps", () -> {
      byte[] r = b("del1");
      for (long ts = 1; ts <= 3; ts++) {
        t.put(new Put(r).addColumn(F, b("a"), ts, b("a" + ts)).addColumn(F, b("b"), ts, b("b" + ts))
            .addColumn(G, b("c"), ts, b("c" + ts)));
      }
      t.delete(new Delete(r).addColumn(F, b("a"), 3));
      eq("a2", Bytes.toString(t.get(new Get(r)).getValue(F, b("a"))), "version 3 deleted");
      t.delete(new Delete(r).addColumns(F, b("b"), 2));
      eq(1, t.get(new Get(r).addColumn(F, b("b")).readVersions(5)).size(), "b versions <= 2 deleted");
      t.delete(new Delete(r).addFamily(G));
      yes(t.get(new Get(r).addFamily(G)).isEmpty(), "family g deleted");
      t.delete(new Delete(r));
      yes(t.get(new Get(r)).isEmpty(), "row deleted");
    });
  }

  /** `type@ts` of each cell, in result order. */
  private static List<String> typed(Result r) {
    List<String> out = new ArrayList<>();
    for (Cell c : r.rawCells()) {
      out.add(Bytes.toString(CellUtil.cloneQualifier(c)) + ":" + c.getType() + "@" + c.getTimestamp());
    }
    return out;
  }

  private static void rawAndLimits(Table t) {
    check("raw scan returns delete markers and the cells they mask", () -> {
      byte[] r = b("raw1");
      for (long ts = 1; ts <= 2; ts++) {
        t.put(new Put(r).addColumn(F, b("a"), ts, b("a" + ts)).addColumn(F, b("b"), ts, b("b" + ts)));
      }
      t.delete(new Delete(r).addColumn(F, b("a"), 2));
      t.delete(new Delete(r).addColumns(F, b("b"), 1));
      t.delete(new Delete(r).addFamilyVersion(F, 1));
      Scan scan = new Scan().withStartRow(r).withStopRow(b("raw2")).setRaw(true).readVersions(5)
          .addFamily(F);
      try (ResultScanner s = t.getScanner(scan)) {
        Result res = s.next();
        eq(Arrays.asList(":DeleteFamilyVersion@1", "a:Delete@2", "a:Put@2", "a:Put@1",
            "b:Put@2", "b:DeleteColumn@1", "b:Put@1"), typed(res), "raw cells");
      }
      eq(Arrays.asList("b:Put@2"), typed(t.get(new Get(r).readVersions(5))), "normal get");
    });
    check("maxResultsPerColumnFamily and rowOffsetPerColumnFamily", () -> {
      byte[] r = b("lim1");
      Put p = new Put(r);
      for (String q : new String[] {"a", "b", "c", "d"}) {
        p.addColumn(F, b(q), 1, b(q)).addColumn(G, b(q), 1, b(q));
      }
      t.put(p);
      Get g = new Get(r).setMaxResultsPerColumnFamily(2).setRowOffsetPerColumnFamily(1);
      eq(Arrays.asList("b:Put@1", "c:Put@1", "b:Put@1", "c:Put@1"), typed(t.get(g)), "get");
      Scan scan = new Scan().withStartRow(r).withStopRow(b("lim2")).setMaxResultsPerColumnFamily(1)
          .setRowOffsetPerColumnFamily(3);
      try (ResultScanner s = t.getScanner(scan)) {
        eq(Arrays.asList("d:Put@1", "d:Put@1"), typed(s.next()), "scan");
      }
    });
    check("ValueFilter sees older versions before versions are counted", () -> {
      byte[] r = b("ver1");
      for (long ts = 1; ts <= 3; ts++) {
        t.put(new Put(r).addColumn(F, b("a"), ts, b("v" + ts)));
      }
      Get g = new Get(r).setFilter(new ValueFilter(CompareOperator.EQUAL, new BinaryComparator(b("v1"))));
      eq(Arrays.asList("a:Put@1"), typed(t.get(g)), "older matching version");
    });
  }

  private static void counters(Table t) {
    check("increment and append", () -> {
      byte[] r = b("cnt");
      t.increment(new Increment(r).addColumn(F, b("n"), 5));
      Result res = t.increment(new Increment(r).addColumn(F, b("n"), 7));
      eq(12L, Bytes.toLong(res.getValue(F, b("n"))), "incremented");
      eq(20L, t.incrementColumnValue(r, F, b("n"), 8), "incrementColumnValue");
      t.append(new Append(r).addColumn(F, b("s"), b("ab")));
      Result app = t.append(new Append(r).addColumn(F, b("s"), b("cd")));
      eq("abcd", Bytes.toString(app.getValue(F, b("s"))), "appended");
    });
  }

  private static void checkAndMutate(Table t) {
    check("checkAndMutate: equals, mismatch, not exists, row mutations", () -> {
      byte[] r = b("cam");
      t.put(new Put(r).addColumn(F, b("k"), b("v1")));
      CheckAndMutateResult ok = t.checkAndMutate(CheckAndMutate.newBuilder(r)
          .ifEquals(F, b("k"), b("v1")).build(new Put(r).addColumn(F, b("k"), b("v2"))));
      yes(ok.isSuccess(), "matched");
      CheckAndMutateResult no = t.checkAndMutate(CheckAndMutate.newBuilder(r)
          .ifEquals(F, b("k"), b("v1")).build(new Put(r).addColumn(F, b("k"), b("v3"))));
      yes(!no.isSuccess(), "mismatch not applied");
      eq("v2", Bytes.toString(t.get(new Get(r)).getValue(F, b("k"))), "value after");
      CheckAndMutateResult absent = t.checkAndMutate(CheckAndMutate.newBuilder(r)
          .ifNotExists(F, b("z")).build(new Put(r).addColumn(F, b("z"), b("new"))));
      yes(absent.isSuccess(), "ifNotExists");
      RowMutations rm = new RowMutations(r);
      rm.add(new Put(r).addColumn(F, b("m"), b("1")));
      rm.add(new Delete(r).addColumns(F, b("z")));
      CheckAndMutateResult multi = t.checkAndMutate(CheckAndMutate.newBuilder(r)
          .ifMatches(F, b("k"), CompareOperator.EQUAL, b("v2")).build(rm));
      yes(multi.isSuccess(), "row mutations applied");
      Result after = t.get(new Get(r));
      eq("1", Bytes.toString(after.getValue(F, b("m"))), "m put");
      yes(after.getValue(F, b("z")) == null, "z deleted");
    });
  }

  private static void checkAndMutateResults(Table t) {
    check("checkAndMutate: an increment or append returns its new values", () -> {
      byte[] r = b("camr");
      t.put(new Put(r).addColumn(F, b("n"), Bytes.toBytes(5L)));
      CheckAndMutateResult inc = t.checkAndMutate(CheckAndMutate.newBuilder(r)
          .ifEquals(F, b("n"), Bytes.toBytes(5L)).build(new Increment(r).addColumn(F, b("n"), 3)));
      yes(inc.isSuccess(), "increment applied");
      eq(8L, Bytes.toLong(inc.getResult().getValue(F, b("n"))), "getResult() of the increment");
      CheckAndMutateResult app = t.checkAndMutate(CheckAndMutate.newBuilder(r)
          .ifNotExists(F, b("s")).build(new Append(r).addColumn(F, b("s"), b("xy"))));
      yes(app.isSuccess(), "append applied");
      eq("xy", Bytes.toString(app.getResult().getValue(F, b("s"))), "getResult() of the append");
      CheckAndMutateResult no = t.checkAndMutate(CheckAndMutate.newBuilder(r)
          .ifEquals(F, b("n"), Bytes.toBytes(5L)).build(new Increment(r).addColumn(F, b("n"), 3)));
      yes(!no.isSuccess(), "mismatch not applied");
      eq(8L, Bytes.toLong(t.get(new Get(r)).getValue(F, b("n"))), "value after");
    });
  }

  private static void cellTtl(Table t) {
    check("Mutation.setTTL: cells expire counted from their timestamp", () -> {
      byte[] r = b("ttl");
      long minuteAgo = System.currentTimeMillis() - 60_000;
      t.put(new Put(r).addColumn(F, b("q"), minuteAgo, b("old")));
      Put gone = new Put(r).addColumn(F, b("q"), minuteAgo + 1, b("gone"));
      gone.setTTL(10_000);
      t.put(gone);
      eq("old", Bytes.toString(t.get(new Get(r)).getValue(F, b("q"))),
          "the expired newest version is skipped, the older one shows");
      Put kept = new Put(r).addColumn(F, b("k"), minuteAgo, b("kept"));
      kept.setTTL(3_600_000);
      t.put(kept);
      eq("kept", Bytes.toString(t.get(new Get(r)).getValue(F, b("k"))), "an unexpired TTL cell");
    });
  }

  private static void batch(Table t) {
    check("batch with a failing action", () -> {
      List<Row> actions = new ArrayList<>();
      actions.add(new Put(b("bat1")).addColumn(F, b("q"), b("1")));
      actions.add(new Put(b("bat2")).addColumn(b("nofamily"), b("q"), b("2")));
      actions.add(new Get(b("pg2")));
      actions.add(new Delete(b("bat1")));
      Object[] results = new Object[actions.size()];
      try {
        t.batch(actions, results);
        throw new AssertionError("no exception for the bad family");
      } catch (IOException expected) {
        // RetriesExhaustedWithDetailsException names the failed action
      }
      yes(results[0] instanceof Result, "put ok: " + results[0]);
      yes(results[1] instanceof Throwable, "bad family failed: " + results[1]);
      yes(results[2] instanceof Result && !((Result) results[2]).isEmpty(), "get ok");
      yes(results[3] instanceof Result, "delete ok");
    });
  }

  private static void bufferedMutator(Connection conn, TableName name) {
    check("BufferedMutator loads 300 rows over 3 regions", () -> {
      try (BufferedMutator m = conn.getBufferedMutator(name)) {
        for (int i = 0; i < 300; i++) {
          m.mutate(new Put(b(row(i))).addColumn(F, b("a"), b("va" + i))
              .addColumn(F, b("b"), b(i % 2 == 0 ? "even" : "odd"))
              .addColumn(F, b("c"), 100, b("old")));
          if (i % 3 == 0) {
            m.mutate(new Put(b(row(i))).addColumn(G, b("x"), b("gx" + i)));
          }
        }
        m.flush();
      }
    });
  }

  private static void scanning(Connection conn, Table t, TableName name) {
    check("region locations come from hbase:meta", () -> {
      try (RegionLocator loc = conn.getRegionLocator(name)) {
        List<HRegionLocation> all = loc.getAllRegionLocations();
        eq(3, all.size(), "regions");
        Pair<byte[][], byte[][]> keys = loc.getStartEndKeys();
        eq(row(100), Bytes.toString(keys.getFirst()[1]), "second region start");
        eq(row(200), Bytes.toString(loc.getRegionLocation(b(row(250))).getRegion().getStartKey()),
            "region of r250");
      }
    });
    check("full scan across regions in order", () -> {
      eq(expectRows(0, 300, 1), rows(t.getScanner(new Scan())), "rows");
    });
    check("scan with small caching", () -> {
      eq(expectRows(0, 300, 1), rows(t.getScanner(new Scan().setCaching(7))), "rows");
    });
    check("scan range and limit", () -> {
      eq(expectRows(90, 210, 1),
          rows(t.getScanner(new Scan().withStartRow(b(row(90))).withStopRow(b(row(210))))), "range");
      eq(expectRows(95, 120, 1),
          rows(t.getScanner(new Scan().withStartRow(b(row(95))).setLimit(25).setCaching(4))), "limit");
      eq(expectRows(90, 211, 1), rows(t.getScanner(
          new Scan().withStartRow(b(row(90))).withStopRow(b(row(210)), true))), "inclusive stop");
    });
    check("reversed scans", () -> {
      eq(expectRows(299, -1, -1), rows(t.getScanner(new Scan().setReversed(true))), "all reversed");
      eq(expectRows(205, 95, -1), rows(t.getScanner(new Scan().setReversed(true)
          .withStartRow(b(row(205))).withStopRow(b(row(95))).setCaching(9))), "range reversed");
      eq(expectRows(150, 140, -1), rows(t.getScanner(new Scan().setReversed(true)
          .withStartRow(b(row(150))).setLimit(10))), "limit reversed");
    });
    check("scan with batch splits rows", () -> {
      int results = 0;
      int cells = 0;
      try (ResultScanner s = t.getScanner(new Scan().addFamily(F).setBatch(2)
          .withStartRow(b(row(98))).withStopRow(b(row(101))))) {
        for (Result r : s) {
          results++;
          cells += r.size();
        }
      }
      eq(6, results, "two results for each row of 3 cells (3 rows, across a region boundary)");
      eq(9, cells, "cells");
    });
    check("scan of versions and time range", () -> {
      Result r = t.get(new Get(b(row(1))).addColumn(F, b("c")));
      eq(100L, r.rawCells()[0].getTimestamp(), "explicit ts");
      int n = rows(t.getScanner(new Scan().setTimeRange(0, 101))).size();
      eq(300, n, "rows with a cell in [0,101)");
    });
  }

  private static void splitUnderScan(Admin admin, Connection conn, TableName name) {
    check("a region splits under a running scan", () -> {
      List<String> seen = new ArrayList<>();
      try (Table t = conn.getTable(name);
          ResultScanner s = t.getScanner(new Scan().setCaching(10))) {
        for (Result r : s) {
          seen.add(Bytes.toString(r.getRow()));
          if (seen.size() == 125) {
            // The scanner is inside [r100, r200); split that region at r150.
            admin.split(name, b(row(150)));
          }
        }
      }
      eq(expectRows(0, 300, 1), seen, "every row once, in order");
      try (RegionLocator loc = conn.getRegionLocator(name)) {
        eq(4, loc.getAllRegionLocations().size(), "regions after the split");
        eq(row(150), Bytes.toString(loc.getRegionLocation(b(row(160)), true).getRegion()
            .getStartKey()), "the new region's start");
      }
      eq(expectRows(140, 160, 1), rows(conn.getTable(name).getScanner(
          new Scan().withStartRow(b(row(140))).withStopRow(b(row(160))))), "scan across the split");
    });
  }

  /**
   * Writes, then asks the harness to restart the server (a line "RESTART-SERVER" on stdout)
   * and waits for the file {@code ready} to appear; the same connection must then read what
   * was written and write again (the client reconnects and relocates regions by itself).
   */
  private static void serverRestart(Connection conn, TableName name, String ready) {
    check("the client reconnects after a server restart", () -> {
      try (Table t = conn.getTable(name)) {
        t.put(new Put(b("restart")).addColumn(F, b("q"), b("before")));
        System.out.println("RESTART-SERVER");
        System.out.flush();
        java.io.File f = new java.io.File(ready);
        for (int i = 0; i < 600 && !f.exists(); i++) {
          Thread.sleep(100);
        }
        yes(f.exists(), "the harness restarted the server");
        eq("before", Bytes.toString(t.get(new Get(b("restart"))).getValue(F, b("q"))), "read back");
        t.put(new Put(b("restart")).addColumn(F, b("q"), b("after")));
        eq("after", Bytes.toString(t.get(new Get(b("restart"))).getValue(F, b("q"))), "written");
        eq(301, rows(t.getScanner(new Scan())).size(), "scan after the restart");
      }
    });
  }

  private static List<String> filtered(Table t, Scan s) throws IOException {
    return rows(t.getScanner(s));
  }

  private static void filters(Table t) {
    check("PrefixFilter", () -> {
      eq(expectRows(120, 130, 1), filtered(t, new Scan().setFilter(new PrefixFilter(b("r12")))),
          "rows");
    });
    check("SingleColumnValueFilter with filterIfMissing", () -> {
      SingleColumnValueFilter f = new SingleColumnValueFilter(F, b("b"), CompareOperator.EQUAL, b("odd"));
      f.setFilterIfMissing(true);
      eq(expectRows(1, 300, 2), filtered(t, new Scan().setFilter(f)), "odd rows");
      SingleColumnValueFilter g = new SingleColumnValueFilter(G, b("x"), CompareOperator.EQUAL,
          new BinaryPrefixComparator(b("gx")));
      g.setFilterIfMissing(true);
      eq(expectRows(0, 300, 3), filtered(t, new Scan().setFilter(g)), "rows with g:x");
    });
    check("ColumnRangeFilter and KeyOnlyFilter", () -> {
      Result r = t.get(new Get(b(row(3))).setFilter(new ColumnRangeFilter(b("a"), true, b("b"), true)));
      eq(2, r.size(), "columns a..b");
      Result k = t.get(new Get(b(row(3))).setFilter(new KeyOnlyFilter()));
      for (Cell c : k.rawCells()) {
        eq(0, c.getValueLength(), "no value");
      }
    });
    check("PageFilter and FilterList", () -> {
      // As in HBase, a PageFilter limits rows per region: 5 from the region ending at r200,
      // then 10 from the next.
      eq(15, filtered(t, new Scan().withStartRow(b(row(195))).setFilter(new PageFilter(10))).size(),
          "page across a region boundary");
      FilterList or = new FilterList(FilterList.Operator.MUST_PASS_ONE,
          new PrefixFilter(b("r01")), new PrefixFilter(b("r29")));
      List<String> want = expectRows(10, 20, 1);
      want.addAll(expectRows(290, 300, 1));
      eq(want, filtered(t, new Scan().setFilter(or)), "or of prefixes");
      FilterList and = new FilterList(new PrefixFilter(b("r1")),
          new RowFilter(CompareOperator.GREATER_OR_EQUAL, new BinaryComparator(b(row(150)))));
      eq(expectRows(150, 200, 1), filtered(t, new Scan().setFilter(and)), "and");
    });
    check("regex, substring and qualifier comparators", () -> {
      eq(expectRows(7, 300, 10), filtered(t, new Scan().setFilter(
          new RowFilter(CompareOperator.EQUAL, new RegexStringComparator("r\\d\\d7")))), "regex rows");
      List<String> sub = filtered(t, new Scan().addColumn(F, b("a")).setFilter(
          new ValueFilter(CompareOperator.EQUAL, new SubstringComparator("A29"))));
      List<String> want = new ArrayList<>();
      want.add(row(29));
      want.addAll(expectRows(290, 300, 1));
      eq(want, sub, "substring (case-insensitive)");
      Result q = t.get(new Get(b(row(5))).setFilter(
          new QualifierFilter(CompareOperator.LESS, new BinaryComparator(b("b")))));
      eq(1, q.size(), "qualifier < b");
    });
    check("TimestampsFilter", () -> {
      Result r = t.get(new Get(b(row(5))).setFilter(new TimestampsFilter(Arrays.asList(100L))));
      eq(1, r.size(), "only the ts=100 cell");
    });
    moreFilters(t);
  }

  /** Family:qualifier@value of a result's cells, in order. */
  private static List<String> columns(Result r) {
    List<String> out = new ArrayList<>();
    for (Cell c : r.rawCells()) {
      out.add(Bytes.toString(CellUtil.cloneFamily(c)) + ":" + Bytes.toString(CellUtil.cloneQualifier(c))
          + "=" + Bytes.toString(CellUtil.cloneValue(c)));
    }
    return out;
  }

  private static List<String> list(String... items) {
    return new ArrayList<>(Arrays.asList(items));
  }

  /**
   * The rest of HBase 2.6's filters on the 300-row table (f:a = va{i}, f:b = even/odd, f:c@100 =
   * old, g:x = gx{i} on every third row; regions split at r100 and r200).
   */
  private static void moreFilters(Table t) {
    check("ColumnPaginationFilter by offset and by column", () -> {
      eq(list("f:b=odd", "f:c=old"), columns(t.get(new Get(b(row(3)))
          .setFilter(new ColumnPaginationFilter(2, 1)))), "2 columns after the first");
      eq(list("g:x=gx3"), columns(t.get(new Get(b(row(3)))
          .setFilter(new ColumnPaginationFilter(1, 3)))), "counted across families");
      eq(list("f:b=odd", "f:c=old"), columns(t.get(new Get(b(row(3)))
          .setFilter(new ColumnPaginationFilter(2, b("b"))))), "from column b");
      List<String> cs = new ArrayList<>();
      try (ResultScanner s = t.getScanner(new Scan().withStartRow(b(row(98)))
          .withStopRow(b(row(102))).setFilter(new ColumnPaginationFilter(1, b("bb"))))) {
        for (Result r : s) {
          cs.add(Bytes.toString(r.getRow()) + " " + columns(r));
        }
      }
      eq(list("r098 [f:c=old]", "r099 [f:c=old]", "r100 [f:c=old]", "r101 [f:c=old]"), cs,
          "seek to the first column at or after bb, per row");
    });
    check("FuzzyRowFilter", () -> {
      eq(expectRows(7, 300, 10), filtered(t, new Scan().setFilter(new FuzzyRowFilter(
          Arrays.asList(new Pair<>(b("r??7"), new byte[] {0, 1, 1, 0}))))), "r??7");
      List<String> two = list("r015", "r115", "r215", "r250", "r251", "r252", "r253", "r254",
          "r255", "r256", "r257", "r258", "r259");
      eq(two, filtered(t, new Scan().setFilter(new FuzzyRowFilter(Arrays.asList(
          new Pair<>(b("r?15"), new byte[] {0, 1, 0, 0}),
          new Pair<>(b("r25?"), new byte[] {0, 0, 0, 1}))))), "two patterns");
    });
    check("SingleColumnValueExcludeFilter and DependentColumnFilter", () -> {
      SingleColumnValueExcludeFilter f =
          new SingleColumnValueExcludeFilter(F, b("b"), CompareOperator.EQUAL, b("odd"));
      f.setFilterIfMissing(true);
      eq(list("f:a=va1", "f:c=old"), columns(t.get(new Get(b(row(1))).setFilter(f))),
          "odd row without f:b");
      eq(0, t.get(new Get(b(row(2))).setFilter(f)).size(), "even row");
      eq(list("f:c=old"), columns(t.get(new Get(b(row(3)))
          .setFilter(new DependentColumnFilter(F, b("c"))))), "cells at f:c's timestamps");
      eq(0, t.get(new Get(b(row(3))).setFilter(new DependentColumnFilter(F, b("c"), true)))
          .size(), "dropping f:c");
      eq(0, t.get(new Get(b(row(3))).setFilter(new DependentColumnFilter(F, b("c"), false,
          CompareOperator.EQUAL, new BinaryComparator(b("new"))))).size(), "value test fails");
    });
    check("ColumnCountGetFilter, FirstKeyValueMatchingQualifiersFilter, ColumnValueFilter", () -> {
      eq(list("f:a=va3", "f:b=odd"), columns(t.get(new Get(b(row(3)))
          .setFilter(new ColumnCountGetFilter(2)))), "first 2 columns");
      java.util.Set<byte[]> qs = new java.util.TreeSet<>(Bytes.BYTES_COMPARATOR);
      qs.add(b("b"));
      eq(list("f:a=va3", "f:b=odd"), columns(t.get(new Get(b(row(3)))
          .setFilter(new FirstKeyValueMatchingQualifiersFilter(qs)))), "up to f:b");
      List<String> cs = new ArrayList<>();
      try (ResultScanner s = t.getScanner(new Scan().withStopRow(b(row(5)))
          .setFilter(new ColumnValueFilter(F, b("b"), CompareOperator.EQUAL, b("even"))))) {
        for (Result r : s) {
          cs.add(Bytes.toString(r.getRow()) + " " + columns(r));
        }
      }
      eq(list("r000 [f:b=even]", "r002 [f:b=even]", "r004 [f:b=even]"), cs, "only f:b");
    });
    check("InclusiveStopFilter, WhileMatchFilter, SkipFilter, RandomRowFilter", () -> {
      eq(expectRows(95, 106, 1), filtered(t, new Scan().withStartRow(b(row(95)))
          .setFilter(new InclusiveStopFilter(b(row(105))))), "up to r105 inclusive");
      eq(expectRows(0, 5, 1), filtered(t, new Scan().setFilter(new WhileMatchFilter(
          new RowFilter(CompareOperator.LESS, new BinaryComparator(b(row(5))))))), "while < r005");
      eq(expectRows(0, 300, 2), filtered(t, new Scan().addFamily(F).setFilter(new SkipFilter(
          new ValueFilter(CompareOperator.NOT_EQUAL, new BinaryComparator(b("odd")))))),
          "rows without an odd cell");
      eq(0, filtered(t, new Scan().setFilter(new RandomRowFilter(0.0f))).size(), "chance 0");
      eq(300, filtered(t, new Scan().setFilter(new RandomRowFilter(1.0f))).size(), "chance 1");
    });
    check("TimestampsFilter with canHint and MultiRowRangeFilter", () -> {
      eq(list("f:c=old"), columns(t.get(new Get(b(row(5)))
          .setFilter(new TimestampsFilter(Arrays.asList(100L), true)))), "ts 100 by hint");
      List<MultiRowRangeFilter.RowRange> ranges = new ArrayList<>();
      ranges.add(new MultiRowRangeFilter.RowRange(row(10), true, row(12), false));
      ranges.add(new MultiRowRangeFilter.RowRange(row(150), true, row(151), true));
      eq(list("r010", "r011", "r150", "r151"),
          filtered(t, new Scan().setFilter(new MultiRowRangeFilter(ranges))), "two ranges");
    });
    check("reversed scan with an inclusive stop row", () -> {
      eq(expectRows(105, 94, -1), rows(t.getScanner(new Scan().setReversed(true)
          .withStartRow(b(row(105))).withStopRow(b(row(95)), true))), "r105 down to r095");
      eq(expectRows(195, 206, 1), rows(t.getScanner(new Scan()
          .withStartRow(b(row(195))).withStopRow(b(row(205)), true))), "r195 up to r205");
    });
  }
}
