package strata.hbase;

import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.security.access.AccessControlClient;
import org.apache.hadoop.hbase.security.access.Permission;
import org.apache.hadoop.hbase.security.access.UserPermission;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Access control through HBase 2.6's client (RFC 0026), against a server started with --auth
 * and client certificates: the superuser "admin" creates a table and grants "alice" READ on
 * one family with AccessControlClient; alice reads that family only, and is refused a put
 * with AccessDeniedException; after a revoke she is refused the read too. Arguments: the HBase
 * RPC listener, the CA's PEM file, admin's and alice's PEM key stores.
 *
 * <p>Each step prints one line; a failed one prints "FAIL" first. Exits 1 if any failed.
 */
public final class AclTest {
  private static final byte[] F = Bytes.toBytes("f");
  private static final byte[] G = Bytes.toBytes("g");
  private static final byte[] Q = Bytes.toBytes("q");
  private static int failed;

  private static Configuration conf(String server, String ca, String keystore) {
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.client.registry.impl", "org.apache.hadoop.hbase.client.RpcConnectionRegistry");
    conf.set("hbase.client.bootstrap.servers", server);
    conf.setInt("hbase.client.retries.number", 2);
    conf.setInt("hbase.client.pause", 50);
    conf.setInt("hbase.rpc.timeout", 15000);
    conf.setInt("hbase.client.operation.timeout", 30000);
    conf.setBoolean("hbase.client.netty.tls.enabled", true);
    conf.set("hbase.rpc.tls.truststore.type", "PEM");
    conf.set("hbase.rpc.tls.truststore.location", ca);
    conf.set("hbase.rpc.tls.keystore.type", "PEM");
    conf.set("hbase.rpc.tls.keystore.location", keystore);
    return conf;
  }

  private static void check(String step, boolean ok, Object observed) {
    System.out.println((ok ? "" : "FAIL ") + step + ": " + observed);
    if (!ok) {
      failed++;
    }
  }

  /** Whether `e` or one of its causes is HBase's AccessDeniedException. */
  private static boolean denied(Throwable e) {
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c.getClass().getName().endsWith("AccessDeniedException")
          || String.valueOf(c.getMessage()).contains("AccessDeniedException")) {
        return true;
      }
    }
    return false;
  }

  public static void main(String[] args) throws Throwable {
    Configuration admin = conf(args[0], args[1], args[2]);
    Configuration alice = conf(args[0], args[1], args[3]);
    TableName name = TableName.valueOf("acl_t");
    try (Connection conn = ConnectionFactory.createConnection(admin); Admin a = conn.getAdmin()) {
      a.createTable(
          TableDescriptorBuilder.newBuilder(name)
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(F))
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(G))
              .build());
      try (Table t = conn.getTable(name)) {
        t.put(new Put(Bytes.toBytes("r")).addColumn(F, Q, Bytes.toBytes("vf")).addColumn(G, Q, Bytes.toBytes("vg")));
      }
      AccessControlClient.grant(conn, name, "alice", F, null, Permission.Action.READ);
      List<UserPermission> perms = AccessControlClient.getUserPermissions(conn, "acl_t");
      boolean listed = false;
      for (UserPermission p : perms) {
        listed |= p.getUser().equals("alice") && p.getPermission().implies(Permission.Action.READ);
      }
      check("grant, then getUserPermissions lists it", listed, perms);
    }

    try (Connection conn = ConnectionFactory.createConnection(alice);
        Table t = conn.getTable(name)) {
      Result r = t.get(new Get(Bytes.toBytes("r")));
      String f = Bytes.toString(r.getValue(F, Q));
      byte[] g = r.getValue(G, Q);
      check("alice reads the granted family only", "vf".equals(f) && g == null, r);
      try {
        t.put(new Put(Bytes.toBytes("r2")).addColumn(F, Q, Bytes.toBytes("x")));
        check("alice's put refused", false, "accepted");
      } catch (Exception e) {
        check("alice's put refused with AccessDeniedException", denied(e), e.getClass().getSimpleName());
      }
      check("isAuthorizationEnabled (getSecurityCapabilities)",
          AccessControlClient.isAuthorizationEnabled(conn), "");
      try (Admin a = conn.getAdmin()) {
        List<Boolean> has = a.hasUserPermissions(java.util.Arrays.asList(
            Permission.newBuilder(name).withFamily(F).withActions(Permission.Action.READ).build(),
            Permission.newBuilder(name).withFamily(F).withActions(Permission.Action.WRITE).build(),
            Permission.newBuilder(name).withFamily(G).withActions(Permission.Action.READ).build()));
        check("hasUserPermissions: READ on f, not WRITE on f, not READ on g",
            has.equals(java.util.Arrays.asList(true, false, false)), has);
        try {
          a.hasUserPermissions("admin", java.util.Collections.singletonList(
              Permission.newBuilder(name).withActions(Permission.Action.READ).build()));
          check("alice may not ask about admin's permissions", false, "answered");
        } catch (Exception e) {
          check("alice may not ask about admin's permissions", denied(e),
              e.getClass().getSimpleName());
        }
      }
    }
    try (Connection conn = ConnectionFactory.createConnection(admin)) {
      check("the superuser asks about alice: AccessControlClient.hasPermission",
          AccessControlClient.hasPermission(conn, "acl_t", "f", "", "alice",
              Permission.Action.READ)
              && !AccessControlClient.hasPermission(conn, "acl_t", "g", "", "alice",
                  Permission.Action.READ), "");
    }

    try (Connection conn = ConnectionFactory.createConnection(admin)) {
      AccessControlClient.revoke(conn, name, "alice", F, null, Permission.Action.READ);
    }
    try (Connection conn = ConnectionFactory.createConnection(alice);
        Table t = conn.getTable(name)) {
      try {
        t.get(new Get(Bytes.toBytes("r")));
        check("alice's get refused after the revoke", false, "answered");
      } catch (Exception e) {
        check("alice's get refused after the revoke", denied(e), e.getClass().getSimpleName());
      }
      try (Admin a = conn.getAdmin()) {
        a.disableTable(name);
        check("alice may not disable the table", false, "disabled");
      } catch (Exception e) {
        check("alice may not disable the table", denied(e), e.getClass().getSimpleName());
      }
    }
    try (Connection conn = ConnectionFactory.createConnection(admin); Admin a = conn.getAdmin()) {
      a.disableTable(name);
      a.deleteTable(name);
    }
    System.out.println(failed == 0 ? "ACL: all passed" : "ACL: " + failed + " failed");
    System.exit(failed == 0 ? 0 : 1);
  }
}
