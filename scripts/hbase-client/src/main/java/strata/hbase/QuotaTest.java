package strata.hbase;

import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.AsyncConnection;
import org.apache.hadoop.hbase.client.AsyncTable;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.quotas.QuotaSettingsFactory;
import org.apache.hadoop.hbase.quotas.RpcThrottlingException;
import org.apache.hadoop.hbase.quotas.ThrottleType;
import org.apache.hadoop.hbase.security.User;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Throttles through HBase's Admin API (RFC 0029): Admin.setQuota with
 * QuotaSettingsFactory.throttleUser for the client's own user (HBase's simple authentication:
 * the name it sends), then gets through the asynchronous and the blocking client: each backs
 * off by RpcThrottlingException's wait and every get succeeds, at the throttle's rate; a client without retries sees RpcThrottlingException with the server's wait;
 * switchRpcThrottle(false) lets them run at full speed with the throttle still set, and
 * switchRpcThrottle(true) throttles them again; after unthrottleUser the gets run at full
 * speed. Bootstraps from the HBase RPC listener named by
 * the first argument; exits 1 if a check failed.
 */
public final class QuotaTest {
  private static final byte[] F = Bytes.toBytes("f");
  private static final TableName T = TableName.valueOf("quota_java");
  private static int failed;

  private static void check(String name, boolean ok, String detail) {
    System.out.println((ok ? "" : "FAIL ") + name + ": " + detail);
    if (!ok) {
      failed++;
    }
  }

  /** Runs `n` gets of one row; the seconds they took. */
  private static double gets(Table t, int n) throws Exception {
    long start = System.nanoTime();
    for (int i = 0; i < n; i++) {
      t.get(new Get(Bytes.toBytes("r")));
    }
    return (System.nanoTime() - start) / 1e9;
  }

  public static void main(String[] args) throws Exception {
    String user = User.getCurrent().getShortName();
    Configuration conf = ClientTest.clientConf(args[0], 40, 50, 15000);
    try (Connection conn = ConnectionFactory.createConnection(conf); Admin a = conn.getAdmin()) {
      if (a.tableExists(T)) {
        a.disableTable(T);
        a.deleteTable(T);
      }
      a.createTable(TableDescriptorBuilder.newBuilder(T)
          .setColumnFamily(ColumnFamilyDescriptorBuilder.of(F)).build());
      Table t = conn.getTable(T);
      t.put(new Put(Bytes.toBytes("r")).addColumn(F, Bytes.toBytes("q"), Bytes.toBytes("v")));

      a.setQuota(QuotaSettingsFactory.throttleUser(user, ThrottleType.REQUEST_NUMBER, 10,
          TimeUnit.SECONDS));
      // 10 at once (the allowance), then 20 more at 10 a second: about 2 s, no error. The
      // asynchronous client backs off by RpcThrottlingException's wait.
      double took;
      try (AsyncConnection async = ConnectionFactory.createAsyncConnection(conf).get()) {
        AsyncTable<?> at = async.getTable(T);
        long start = System.nanoTime();
        for (int i = 0; i < 30; i++) {
          at.get(new Get(Bytes.toBytes("r"))).get();
        }
        took = (System.nanoTime() - start) / 1e9;
      }
      check("30 asynchronous gets throttled to 10req/sec, backing off",
          took >= 1.6 && took < 6, String.format("%.2f s", took));
      // The allowance spent: 20 more through the blocking client take about 2 s.
      took = gets(t, 20);
      check("20 gets throttled to 10req/sec, backing off", took >= 1.6 && took < 6,
          String.format("%.2f s", took));

      Configuration eager = ClientTest.clientConf(args[0], 0, 50, 15000);
      try (Connection c2 = ConnectionFactory.createConnection(eager)) {
        Table t2 = c2.getTable(T);
        RpcThrottlingException seen = null;
        for (int i = 0; i < 30 && seen == null; i++) {
          try {
            t2.get(new Get(Bytes.toBytes("r")));
          } catch (Exception e) {
            for (Throwable c = e; c != null; c = c.getCause()) {
              if (c instanceof RpcThrottlingException) {
                seen = (RpcThrottlingException) c;
              }
            }
            if (seen == null) {
              throw e;
            }
          }
        }
        check("RpcThrottlingException with its wait", seen != null
            && seen.getWaitInterval() > 0 && seen.getWaitInterval() <= 1000,
            seen == null ? "none" : seen.getType() + ", " + seen.getWaitInterval() + " ms (" + seen.getMessage() + ")");
      }

      // The RPC throttle switch: off, the throttle stays set and refuses nothing.
      boolean on = a.isRpcThrottleEnabled();
      check("isRpcThrottleEnabled on by default", on, String.valueOf(on));
      boolean was = a.switchRpcThrottle(false);
      check("switchRpcThrottle(false) answers it was on", was, String.valueOf(was));
      on = a.isRpcThrottleEnabled();
      check("isRpcThrottleEnabled off", !on, String.valueOf(on));
      took = gets(t, 100);
      check("100 gets with the RPC throttle off", took < 3, String.format("%.2f s", took));
      was = a.switchRpcThrottle(true);
      check("switchRpcThrottle(true) answers it was off", !was, String.valueOf(was));
      // At most one second's allowance (10) at once, then 20 at 10 a second.
      took = gets(t, 30);
      check("30 gets throttled again once it is on", took >= 1.6 && took < 6,
          String.format("%.2f s", took));

      a.setQuota(QuotaSettingsFactory.unthrottleUser(user));
      Thread.sleep(300);
      took = gets(t, 100);
      check("100 gets after unthrottleUser", took < 3, String.format("%.2f s", took));
      a.disableTable(T);
      a.deleteTable(T);
    }
    System.exit(failed == 0 ? 0 : 1);
  }
}
