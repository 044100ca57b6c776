package strata.hbase;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.ClusterMetrics;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.RegionMetrics;
import org.apache.hadoop.hbase.ServerMetrics;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.filter.SingleColumnValueFilter;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * HBase's Admin API against a Strata cluster, bootstrapping from the masters' HBase RPC
 * listeners named by the first argument (the second argument: a standby master's listener
 * alone). Creates a table with split keys, writes and reads it across region servers,
 * disables and enables it, adds, modifies and deletes a family, flushes, truncates and deletes
 * it; checks getClusterMetrics() lists the cluster's region servers (the third argument, their
 * count) and, after a major compaction, every region's store files and last major compaction
 * (published by the region servers), as getLastMajorCompactionTimestamp does; reads a row larger than the scan's max result size back whole through a
 * ResultScanner (partial results), and a filtered scan over many rows (heartbeats); splits a
 * region and merges two (refusing two that are not adjacent) through Admin. Prints one line
 * per check; exits 1 on the first failure.
 */
public final class ClusterAdminTest {
  private static final byte[] F = Bytes.toBytes("f");
  private static final byte[] G = Bytes.toBytes("g");
  private static final byte[] Q = Bytes.toBytes("q");

  private static void check(boolean ok, String what) {
    if (!ok) {
      System.out.println("FAIL " + what);
      System.exit(1);
    }
    System.out.println("ok   " + what);
  }

  private static Connection connect(String bootstrap) throws Exception {
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.client.registry.impl", "org.apache.hadoop.hbase.client.RpcConnectionRegistry");
    conf.set("hbase.client.bootstrap.servers", bootstrap);
    conf.setInt("hbase.client.retries.number", 15);
    conf.setInt("hbase.client.pause", 100);
    conf.setInt("hbase.rpc.timeout", 20000);
    conf.setInt("hbase.client.operation.timeout", 90000);
    return ConnectionFactory.createConnection(conf);
  }

  /** The table's regions by start key. */
  private static List<RegionInfo> sortedRegions(Admin admin, TableName name) throws Exception {
    List<RegionInfo> regions = new ArrayList<>(admin.getRegions(name));
    regions.sort(RegionInfo.COMPARATOR);
    return regions;
  }

  private static String value(Table t, String row, byte[] family) throws Exception {
    Result r = t.get(new Get(Bytes.toBytes(row)));
    byte[] v = r.getValue(family, Q);
    return v == null ? null : Bytes.toString(v);
  }

  public static void main(String[] args) throws Exception {
    int regionServers = Integer.parseInt(args[2]);
    TableName name = TableName.valueOf("client_admin");
    try (Connection conn = connect(args[0]); Admin admin = conn.getAdmin()) {
      ClusterMetrics metrics = admin.getClusterMetrics();
      Map<ServerName, ServerMetrics> live = metrics.getLiveServerMetrics();
      check(live.size() == regionServers,
          "getClusterMetrics() lists the " + regionServers + " region servers " + live.keySet());
      check(metrics.getMasterName() != null, "and the active master " + metrics.getMasterName());

      byte[][] splits = {Bytes.toBytes("g"), Bytes.toBytes("p")};
      admin.createTable(
          TableDescriptorBuilder.newBuilder(name)
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(F))
              .build(),
          splits);
      check(admin.tableExists(name), "createTable with split keys: the table exists");
      check(admin.getRegions(name).size() == 3,
          "it has 3 regions (" + admin.getRegions(name).size() + ")");
      boolean listed = false;
      for (TableName t : admin.listTableNames()) {
        listed |= t.equals(name);
      }
      check(listed, "listTableNames() lists it");

      try (Table t = conn.getTable(name)) {
        List<Put> puts = new ArrayList<>();
        for (String row : new String[] {"a", "h", "q", "z"}) {
          puts.add(new Put(Bytes.toBytes(row)).addColumn(F, Q, Bytes.toBytes("v-" + row)));
        }
        t.put(puts);
        check("v-a".equals(value(t, "a", F)) && "v-z".equals(value(t, "z", F)),
            "rows in the first and last regions read back");

        admin.disableTable(name);
        check(admin.isTableDisabled(name), "disableTable: the table is disabled");
        admin.enableTable(name);
        check(admin.isTableEnabled(name), "enableTable: the table is enabled");
        check("v-h".equals(value(t, "h", F)), "its rows read back after enable");

        admin.addColumnFamily(name, ColumnFamilyDescriptorBuilder.of(G));
        TableDescriptor d = admin.getDescriptor(name);
        check(d.getColumnFamily(G) != null, "addColumnFamily: the descriptor lists family g");
        t.put(new Put(Bytes.toBytes("q")).addColumn(G, Q, Bytes.toBytes("in-g")));
        check("in-g".equals(value(t, "q", G)) && "v-q".equals(value(t, "q", F)),
            "a put in the new family reads back beside the old one");
        admin.modifyColumnFamily(name,
            ColumnFamilyDescriptorBuilder.newBuilder(G).setMaxVersions(3).build());
        check(admin.getDescriptor(name).getColumnFamily(G).getMaxVersions() == 3,
            "modifyColumnFamily: g keeps 3 versions");
        admin.deleteColumnFamily(name, G);
        check(admin.getDescriptor(name).getColumnFamily(G) == null,
            "deleteColumnFamily: g is gone");
        check("v-q".equals(value(t, "q", F)), "and family f still reads back");

        admin.flush(name);
        check("v-z".equals(value(t, "z", F)), "flush: rows read back from files");

        // Every region's figures reach getClusterMetrics through whichever process answers
        // (here a master, which holds no region): published by each region server with its
        // load report (every 5 s), and the master's last-major-compaction calls read them.
        admin.majorCompact(name);
        List<RegionInfo> majorRegions = sortedRegions(admin, name);
        long lastMajor = 0;
        int withFiles = 0;
        long deadline0 = System.currentTimeMillis() + 60_000;
        while (System.currentTimeMillis() < deadline0) {
          withFiles = 0;
          for (ServerMetrics sm : admin.getClusterMetrics().getLiveServerMetrics().values()) {
            for (RegionMetrics rm : sm.getRegionMetrics().values()) {
              if (RegionInfo.getTable(rm.getRegionName()).equals(name)
                  && rm.getStoreFileCount() > 0 && rm.getLastMajorCompactionTimestamp() > 0) {
                withFiles++;
              }
            }
          }
          lastMajor = admin.getLastMajorCompactionTimestamp(name);
          if (withFiles == majorRegions.size() && lastMajor > 0) {
            break;
          }
          Thread.sleep(500);
        }
        check(withFiles == majorRegions.size(),
            "getClusterMetrics: all " + majorRegions.size() + " regions show store files and a last"
                + " major compaction (" + withFiles + ")");
        long ofRegion = admin.getLastMajorCompactionTimestampForRegion(
            majorRegions.get(0).getRegionName());
        check(lastMajor > 0 && ofRegion >= lastMajor
                && ofRegion <= System.currentTimeMillis(),
            "getLastMajorCompactionTimestamp(table) " + lastMajor + ", ForRegion " + ofRegion);
        check(admin.getLastMajorCompactionTimestamp(TableName.valueOf("no_such_table")) == 0,
            "getLastMajorCompactionTimestamp of a table that does not exist: 0, as HBase");
        ClusterMetrics counted = admin.getClusterMetrics();
        boolean rates = true;
        for (ServerMetrics sm : counted.getLiveServerMetrics().values()) {
          rates &= sm.getRequestCountPerSecond() <= sm.getRequestCount();
        }
        check(counted.getRequestCount() > 0 && rates,
            "getClusterMetrics: " + counted.getRequestCount() + " requests counted over the"
                + " regions, each server's rate per second no more than its total");
        boolean balancer = admin.isBalancerEnabled();
        check(Boolean.valueOf(balancer).equals(counted.getBalancerOn()),
            "getClusterMetrics().getBalancerOn() is the balancer switch (" + balancer + ")");
        admin.balancerSwitch(!balancer, true);
        check(Boolean.valueOf(!balancer).equals(admin.getClusterMetrics().getBalancerOn()),
            "and follows it when switched");
        admin.balancerSwitch(balancer, true);

        // A row larger than the scan's max result size comes back whole.
        Put wide = new Put(Bytes.toBytes("wide"));
        byte[] big = new byte[8 << 10];
        for (int i = 0; i < 64; i++) {
          wide.addColumn(F, Bytes.toBytes(String.format("c%02d", i)), big);
        }
        t.put(wide);
        Scan scan = new Scan().withStartRow(Bytes.toBytes("wide")).withStopRow(Bytes.toBytes("wide0"));
        scan.setMaxResultSize(64 << 10);
        int cells = 0;
        int results = 0;
        try (ResultScanner s = t.getScanner(scan)) {
          for (Result r : s) {
            results++;
            cells += r.size();
          }
        }
        check(results == 1 && cells == 64,
            "a 512 KiB row read with a 64 KiB max result size comes back whole ("
                + results + " result, " + cells + " cells)");
        scan.setAllowPartialResults(true);
        results = 0;
        cells = 0;
        try (ResultScanner s = t.getScanner(scan)) {
          for (Result r : s) {
            results++;
            cells += r.size();
          }
        }
        check(results > 1 && cells == 64,
            "with allowPartialResults it comes in " + results + " partial results");

        // A filtered scan over many rows: few match, the servers answer with heartbeats.
        List<Put> many = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
          String row = String.format("m%05d", i);
          String v = i % 1000 == 999 ? "hit" : "miss";
          many.add(new Put(Bytes.toBytes(row)).addColumn(F, Q, Bytes.toBytes(v)));
        }
        t.put(many);
        SingleColumnValueFilter hits =
            new SingleColumnValueFilter(F, Q, CompareOperator.EQUAL, Bytes.toBytes("hit"));
        hits.setFilterIfMissing(true);
        int found = 0;
        try (ResultScanner s = t.getScanner(new Scan().setFilter(hits).setCaching(100))) {
          for (Result r : s) {
            found++;
          }
        }
        check(found == 3, "a filtered scan over 3000 rows finds the 3 that match (" + found + ")");

        // A region split through Admin runs the cluster's split procedure.
        admin.split(name, Bytes.toBytes("m01500"));
        long deadline = System.currentTimeMillis() + 60_000;
        while (admin.getRegions(name).size() < 4 && System.currentTimeMillis() < deadline) {
          Thread.sleep(200);
        }
        check(admin.getRegions(name).size() == 4,
            "split at m01500: the table has 4 regions (" + admin.getRegions(name).size() + ")");
        try (RegionLocator loc = conn.getRegionLocator(name)) {
          String start = Bytes.toString(
              loc.getRegionLocation(Bytes.toBytes("m02000"), true).getRegion().getStartKey());
          check("m01500".equals(start), "the upper daughter starts at the split row (" + start + ")");
        }
        check("hit".equals(value(t, "m01999", F)) && "v-q".equals(value(t, "q", F)),
            "rows on both sides of the split read back");

        // A merge through Admin runs the cluster's merge procedure: the first two regions
        // [, g) and [g, m01500) become one, on whichever servers they were.
        List<RegionInfo> regions = sortedRegions(admin, name);
        RegionInfo first = regions.get(0);
        RegionInfo second = regions.get(1);
        long began = System.nanoTime();
        admin.mergeRegionsAsync(
                new byte[][] {first.getEncodedNameAsBytes(), second.getEncodedNameAsBytes()}, false)
            .get(120, TimeUnit.SECONDS);
        long mergeMs = (System.nanoTime() - began) / 1_000_000;
        regions = sortedRegions(admin, name);
        check(regions.size() == 3,
            "mergeRegionsAsync of [, g) and [g, m01500): the table has 3 regions ("
                + regions.size() + ", " + mergeMs + " ms)");
        RegionInfo merged = regions.get(0);
        check(merged.getStartKey().length == 0
                && "m01500".equals(Bytes.toString(merged.getEndKey())),
            "the merged region spans [, m01500) ("
                + Bytes.toStringBinary(merged.getEndKey()) + ")");
        int rows = 0;
        Scan low = new Scan().withStopRow(Bytes.toBytes("m01500"));
        try (ResultScanner s = t.getScanner(low)) {
          for (Result r : s) {
            rows++;
          }
        }
        check(rows == 1502, "its 1502 rows all read back (" + rows + ")");
        check("v-a".equals(value(t, "a", F)) && "v-h".equals(value(t, "h", F))
                && "miss".equals(value(t, "m01498", F)),
            "rows of both former regions read back by get");
        t.put(new Put(Bytes.toBytes("b")).addColumn(F, Q, Bytes.toBytes("after-merge")));
        check("after-merge".equals(value(t, "b", F)), "the merged region serves a put");
        try (RegionLocator loc = conn.getRegionLocator(name)) {
          byte[] at = loc.getRegionLocation(Bytes.toBytes("h"), true).getRegion().getRegionName();
          check(Bytes.equals(at, merged.getRegionName()),
              "the client locates a row of the higher former region in the merged one");
        }
        // Regions that are not adjacent are refused, and nothing changes.
        RegionInfo last = regions.get(2);
        boolean refused = false;
        try {
          admin.mergeRegionsAsync(
                  new byte[][] {merged.getEncodedNameAsBytes(), last.getEncodedNameAsBytes()}, false)
              .get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
          refused = true;
          System.out.println("     (" + e.getClass().getSimpleName() + ": "
              + String.valueOf(e.getMessage()).split("\n")[0] + ")");
        }
        check(refused, "merging regions that are not adjacent throws");
        check(sortedRegions(admin, name).size() == 3 && "after-merge".equals(value(t, "b", F)),
            "and changes nothing: 3 regions, rows read back");
      }

      admin.disableTable(name);
      admin.truncateTable(name, true);
      check(admin.isTableEnabled(name), "truncateTable: the table is enabled again");
      check(admin.getRegions(name).size() == 3,
          "with its 3 regions (splits preserved: the Admin split's row in, the merged one out)");
      try (Table t = conn.getTable(name)) {
        check(value(t, "a", F) == null && value(t, "z", F) == null, "and no rows");
        t.put(new Put(Bytes.toBytes("n")).addColumn(F, Q, Bytes.toBytes("after")));
        check("after".equals(value(t, "n", F)), "a put after truncate reads back");
      }

      // Placement through Admin (the balancer off meanwhile, so it moves nothing back): a move
      // to the other server, then that server decommissioned (drained) and recommissioned.
      check(admin.balancerSwitch(false, true), "balancerSwitch(false): it was on");
      check(!admin.balance(), "balance() while off: false");
      List<ServerName> servers = new ArrayList<>(admin.getRegionServers());
      try (RegionLocator loc = conn.getRegionLocator(name); Table t = conn.getTable(name)) {
        HRegionLocation at = loc.getRegionLocation(Bytes.toBytes("n"), true);
        ServerName from = at.getServerName();
        ServerName to = servers.get(0).equals(from) ? servers.get(1) : servers.get(0);
        admin.move(at.getRegion().getEncodedNameAsBytes(), to);
        ServerName now = loc.getRegionLocation(Bytes.toBytes("n"), true).getServerName();
        check(now.equals(to), "move(encoded, server): the region is open on " + to + " (" + now
            + ")");
        check("after".equals(value(t, "n", F)), "and its row reads back there");
        admin.move(at.getRegion().getEncodedNameAsBytes(), to);
        check(loc.getRegionLocation(Bytes.toBytes("n"), true).getServerName().equals(to),
            "a move to the server it is on leaves it there, as HBase's");
        admin.decommissionRegionServers(java.util.Collections.singletonList(to), true);
        check(admin.listDecommissionedRegionServers().equals(
                java.util.Collections.singletonList(to)),
            "decommissionRegionServers: listDecommissionedRegionServers() names it");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        boolean drained = false;
        while (!drained && System.nanoTime() < deadline) {
          drained = true;
          for (HRegionLocation l : loc.getAllRegionLocations()) {
            drained &= !to.equals(l.getServerName());
          }
          if (!drained) {
            Thread.sleep(200);
            loc.clearRegionLocationCache();
          }
        }
        check(drained, "its regions moved off it");
        check("after".equals(value(t, "n", F)), "and the moved row reads back");
        admin.recommissionRegionServer(to, java.util.Collections.emptyList());
        check(admin.listDecommissionedRegionServers().isEmpty(),
            "recommissionRegionServer: none decommissioned");
      }
      check(!admin.balancerSwitch(true, true), "balancerSwitch(true): it was off");

      NamespaceDescriptor ns = NamespaceDescriptor.create("client_ns").build();
      admin.createNamespace(ns);
      boolean hasNs = false;
      for (NamespaceDescriptor n : admin.listNamespaceDescriptors()) {
        hasNs |= n.getName().equals("client_ns");
      }
      check(hasNs, "createNamespace: listNamespaceDescriptors() lists it");
      admin.deleteNamespace("client_ns");
      check(admin.listNamespaceDescriptors().length == 2, "deleteNamespace: default and hbase remain");
    }

    // A standby master's listener answers the same: registry, meta and admin.
    try (Connection conn = connect(args[1]); Admin admin = conn.getAdmin()) {
      check(admin.isTableEnabled(name), "through a standby master: the table is enabled");
      try (Table t = conn.getTable(name)) {
        check("after".equals(value(t, "n", F)), "through a standby master: its row reads back");
      }
      admin.disableTable(name);
      admin.deleteTable(name);
      check(!admin.tableExists(name), "through a standby master: disable and deleteTable");
    }
    System.out.println("OK");
  }
}
