package strata.hbase;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RetriesExhaustedWithDetailsException;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.quotas.QuotaSettingsFactory;
import org.apache.hadoop.hbase.quotas.SpaceViolationPolicy;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.ipc.RemoteException;

/**
 * Space quotas through HBase's Admin API (RFC 0029): Admin.setQuota with
 * QuotaSettingsFactory.limitTableSpace(16 KiB, NO_INSERTS); 40 rows of 1 KiB and a flush take
 * the table past it, after which a put fails with SpaceLimitingException (not retried; the
 * class lives in hbase-server, so HBase's client hands it over as a RemoteException naming
 * it, with the message `<POLICY> <reason>`) while a delete goes through;
 * removeTableSpaceLimit lifts it.
 * limitNamespaceSpace and removeNamespaceSpaceLimit are accepted. The server should run with a
 * short --space-quota-period-ms. Bootstraps from the HBase RPC listener named by the first
 * argument; exits 1 if a check failed.
 */
public final class SpaceQuotaTest {
  private static final byte[] F = Bytes.toBytes("f");
  private static final TableName T = TableName.valueOf("space_java");
  private static int failed;

  private static void check(String name, boolean ok, String detail) {
    System.out.println((ok ? "" : "FAIL ") + name + ": " + detail);
    if (!ok) {
      failed++;
    }
  }

  private static final String SPACE = "org.apache.hadoop.hbase.quotas.SpaceLimitingException";

  /** The SpaceLimitingException in `e`'s causes, as the client hands it over; or null. */
  private static RemoteException spaceLimit(Throwable e) {
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c instanceof RemoteException && SPACE.equals(((RemoteException) c).getClassName())) {
        return (RemoteException) c;
      }
      if (c instanceof RetriesExhaustedWithDetailsException) {
        for (Throwable inner : ((RetriesExhaustedWithDetailsException) c).getCauses()) {
          RemoteException s = spaceLimit(inner);
          if (s != null) {
            return s;
          }
        }
      }
    }
    return null;
  }

  /** Puts a small row until one is refused (or 15 s pass); the refusal, or null. */
  private static RemoteException refused(Table t) throws Exception {
    long deadline = System.nanoTime() + 15_000_000_000L;
    for (int i = 0; System.nanoTime() < deadline; i++) {
      try {
        t.put(new Put(Bytes.toBytes("late" + i)).addColumn(F, F, Bytes.toBytes("v")));
      } catch (Exception e) {
        RemoteException s = spaceLimit(e);
        if (s == null) {
          throw e;
        }
        return s;
      }
      Thread.sleep(100);
    }
    return null;
  }

  /** Puts a small row until one goes through (or 15 s pass). */
  private static boolean accepted(Table t) throws Exception {
    long deadline = System.nanoTime() + 15_000_000_000L;
    for (int i = 0; System.nanoTime() < deadline; i++) {
      try {
        t.put(new Put(Bytes.toBytes("again" + i)).addColumn(F, F, Bytes.toBytes("v")));
        return true;
      } catch (Exception e) {
        if (spaceLimit(e) == null) {
          throw e;
        }
      }
      Thread.sleep(100);
    }
    return false;
  }

  public static void main(String[] args) throws Exception {
    Configuration conf = ClientTest.clientConf(args[0], 3, 50, 15000);
    try (Connection conn = ConnectionFactory.createConnection(conf); Admin a = conn.getAdmin()) {
      if (a.tableExists(T)) {
        a.disableTable(T);
        a.deleteTable(T);
      }
      a.createTable(TableDescriptorBuilder.newBuilder(T)
          .setColumnFamily(ColumnFamilyDescriptorBuilder.of(F)).build());
      a.setQuota(QuotaSettingsFactory.limitTableSpace(T, 16 * 1024, SpaceViolationPolicy.NO_INSERTS));
      Table t = conn.getTable(T);
      for (int i = 0; i < 40; i++) {
        t.put(new Put(Bytes.toBytes(String.format("row%04d", i))).addColumn(F, F, new byte[1024]));
      }
      a.flush(T);
      RemoteException e = refused(t);
      String said = e == null ? "" : e.getMessage();
      check("a put past the limit refused with SpaceLimitingException",
          e != null && said.endsWith("NO_INSERTS Puts are disallowed due to a space quota."),
          e == null ? "none" : e.getClassName() + ": " + said);
      org.apache.hadoop.hbase.quotas.SpaceQuotaSnapshotView snap =
          a.getCurrentSpaceQuotaSnapshot(T);
      check("getCurrentSpaceQuotaSnapshot(table): in violation, NO_INSERTS, over its 16 KiB",
          snap != null && snap.getQuotaStatus().isInViolation()
              && snap.getQuotaStatus().getPolicy().orElse(null) == SpaceViolationPolicy.NO_INSERTS
              && snap.getUsage() > 16 * 1024 && snap.getLimit() == 16 * 1024,
          String.valueOf(snap));
      // The region server's own copy (AdminService.GetSpaceQuotaSnapshots): the same state.
      org.apache.hadoop.hbase.ServerName rs = a.getRegionServers().iterator().next();
      org.apache.hadoop.hbase.quotas.SpaceQuotaSnapshotView held =
          a.getRegionServerSpaceQuotaSnapshots(rs).get(T);
      check("getRegionServerSpaceQuotaSnapshots: the table in violation, NO_INSERTS",
          held != null && held.getQuotaStatus().isInViolation()
              && held.getQuotaStatus().getPolicy().orElse(null) == SpaceViolationPolicy.NO_INSERTS
              && held.getLimit() == 16 * 1024,
          String.valueOf(held));
      java.util.Map<TableName, Long> sizes = a.getSpaceQuotaTableSizes();
      check("getSpaceQuotaTableSizes: the table's size", sizes.getOrDefault(T, 0L) > 16 * 1024,
          sizes.toString());
      boolean deleted;
      try {
        t.delete(new Delete(Bytes.toBytes("row0000")));
        deleted = true;
      } catch (Exception d) {
        deleted = false;
      }
      check("a delete goes through under NO_INSERTS", deleted, "");
      a.setQuota(QuotaSettingsFactory.removeTableSpaceLimit(T));
      check("removeTableSpaceLimit lifts it", accepted(t), "");

      String ns = "space_java_ns";
      if (java.util.Arrays.stream(a.listNamespaceDescriptors())
          .noneMatch(d -> d.getName().equals(ns))) {
        a.createNamespace(NamespaceDescriptor.create(ns).build());
      }
      a.setQuota(QuotaSettingsFactory.limitNamespaceSpace(ns, 1L << 30, SpaceViolationPolicy.NO_WRITES));
      org.apache.hadoop.hbase.quotas.SpaceQuotaSnapshotView nsSnap =
          a.getCurrentSpaceQuotaSnapshot(ns);
      check("getCurrentSpaceQuotaSnapshot(namespace): its limit, not in violation",
          nsSnap != null && nsSnap.getLimit() == 1L << 30
              && !nsSnap.getQuotaStatus().isInViolation(),
          String.valueOf(nsSnap));
      a.setQuota(QuotaSettingsFactory.removeNamespaceSpaceLimit(ns));
      check("limitNamespaceSpace and removeNamespaceSpaceLimit", true, ns);
      a.deleteNamespace(ns);
      a.disableTable(T);
      a.deleteTable(T);
    }
    System.exit(failed == 0 ? 0 : 1);
  }
}
