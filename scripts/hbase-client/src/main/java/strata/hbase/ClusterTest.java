package strata.hbase;

import java.io.File;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The HBase Java client against a Strata cluster: it bootstraps from the region servers named
 * by {@code hbase.client.bootstrap.servers} (the first argument), finds the regions of the
 * table (the second argument, pre-split at r100 and r200, family f) through meta answered from
 * etcd, writes and reads across region servers, then asks for a region to be moved (a line
 * MOVE-REGION table,seq TO-STARTCODE code), waits for the file named by the third argument, and
 * reads the moved region again: its old server answers NotServingRegionException and the
 * client must find the new one. Prints one line per check; exits 1 on the first failure.
 */
public final class ClusterTest {
  private static final byte[] F = Bytes.toBytes("f");
  private static final byte[] Q = Bytes.toBytes("q");
  private static final int ROWS = 300;

  private static void check(boolean ok, String what) {
    if (!ok) {
      System.out.println("FAIL " + what);
      System.exit(1);
    }
    System.out.println("ok   " + what);
  }

  private static String row(int i) {
    return String.format("r%03d", i);
  }

  private static int readAll(Table table, int from, int to) throws Exception {
    int found = 0;
    for (int i = from; i < to; i++) {
      Result r = table.get(new Get(Bytes.toBytes(row(i))));
      if (!r.isEmpty() && Bytes.toString(r.getValue(F, Q)).equals("v" + i)) {
        found++;
      }
    }
    return found;
  }

  public static void main(String[] args) throws Exception {
    Configuration conf = ClientTest.clientConf(args[0], 15, 100, 10000);
    TableName name = TableName.valueOf(args[1]);
    File ready = new File(args[2]);
    try (Connection conn = ConnectionFactory.createConnection(conf);
        Table table = conn.getTable(name);
        RegionLocator locator = conn.getRegionLocator(name)) {
      List<HRegionLocation> locations = locator.getAllRegionLocations();
      Set<String> servers = new HashSet<>();
      for (HRegionLocation l : locations) {
        servers.add(l.getServerName().getAddress().toString());
      }
      check(locations.size() == 3, "meta lists the table's 3 regions (" + locations.size() + ")");
      check(servers.size() >= 2, "they are on " + servers.size() + " region servers " + servers);

      List<Put> puts = new ArrayList<>();
      for (int i = 0; i < ROWS; i++) {
        puts.add(new Put(Bytes.toBytes(row(i))).addColumn(F, Q, Bytes.toBytes("v" + i)));
      }
      table.put(puts);
      check(readAll(table, 0, ROWS) == ROWS, ROWS + " rows written by one batch read back by gets");
      int scanned = 0;
      try (ResultScanner scanner = table.getScanner(new Scan())) {
        for (Result r : scanner) {
          scanned++;
        }
      }
      check(scanned == ROWS, "a scan across the regions returns " + scanned + " rows");

      // Move the region of r150 to a server other than its own.
      HRegionLocation before = locator.getRegionLocation(Bytes.toBytes(row(150)));
      long target = -1;
      for (HRegionLocation l : locations) {
        if (!l.getServerName().equals(before.getServerName())) {
          target = l.getServerName().getStartcode();
        }
      }
      long seq = before.getRegion().getRegionId() & 0xffffffffL;
      System.out.println(String.format("MOVE-REGION %s,%08x TO-STARTCODE %d", args[1], seq, target));
      System.out.flush();
      long deadline = System.currentTimeMillis() + 60000;
      while (!ready.exists() && System.currentTimeMillis() < deadline) {
        Thread.sleep(100);
      }
      check(ready.exists(), "the region was moved");
      check(readAll(table, 100, 200) == 100, "the moved region's rows read back (client re-located it)");
      HRegionLocation after = locator.getRegionLocation(Bytes.toBytes(row(150)), true);
      check(after.getServerName().getStartcode() == target,
          "meta names its new server " + after.getServerName());
      table.put(new Put(Bytes.toBytes(row(150))).addColumn(F, Q, Bytes.toBytes("moved")));
      check(Bytes.toString(table.get(new Get(Bytes.toBytes(row(150)))).getValue(F, Q)).equals("moved"),
          "a write to the moved region reads back");
    }
    System.out.println("OK");
  }
}
