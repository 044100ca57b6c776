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
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * HBase 2.6's client over TLS, configured as against HBase itself
 * (hbase.client.netty.tls.enabled, a PEM trust store): create a table, write, read, scan,
 * drop. Then a client without TLS must fail, with an error that names TLS. Arguments: the
 * HBase RPC listener (host:port), the CA's PEM file, and for a server requiring client
 * certificates a PEM file with the client's certificate and key (HBase's PEM key store);
 * a TLS client without it must then be refused too.
 *
 * <p>Each step prints one line; a failed one prints "FAIL" first. Exits 1 if any failed.
 */
public final class TlsTest {
  private static final byte[] F = Bytes.toBytes("f");
  private static int failed;

  private static Configuration conf(String server) {
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.client.registry.impl", "org.apache.hadoop.hbase.client.RpcConnectionRegistry");
    conf.set("hbase.client.bootstrap.servers", server);
    conf.setInt("hbase.client.retries.number", 3);
    conf.setInt("hbase.client.pause", 50);
    conf.setInt("hbase.rpc.timeout", 15000);
    conf.setInt("hbase.client.operation.timeout", 60000);
    return conf;
  }

  private static void check(String step, boolean ok, Object observed) {
    System.out.println((ok ? "" : "FAIL ") + step + ": " + observed);
    if (!ok) {
      failed++;
    }
  }

  /** Lists the tables through a connection of `conf`: "listed N tables", or why it failed. */
  private static String list(Configuration conf) {
    conf.setInt("hbase.client.retries.number", 1);
    try (Connection conn = ConnectionFactory.createConnection(conf); Admin admin = conn.getAdmin()) {
      List<?> tables = admin.listTableDescriptors();
      return "listed " + tables.size() + " tables";
    } catch (Exception e) {
      StringBuilder text = new StringBuilder();
      for (Throwable c = e; c != null; c = c.getCause()) {
        text.append(c.getClass().getSimpleName()).append(": ").append(c.getMessage()).append(" / ");
      }
      return text.toString();
    }
  }

  public static void main(String[] args) throws Exception {
    String server = args[0];
    Configuration tls = conf(server);
    tls.setBoolean("hbase.client.netty.tls.enabled", true);
    tls.set("hbase.rpc.tls.truststore.type", "PEM");
    tls.set("hbase.rpc.tls.truststore.location", args[1]);
    Configuration anonymous = new Configuration(tls);
    if (args.length > 2) {
      tls.set("hbase.rpc.tls.keystore.type", "PEM");
      tls.set("hbase.rpc.tls.keystore.location", args[2]);
    }
    TableName name = TableName.valueOf("tls_t");
    try (Connection conn = ConnectionFactory.createConnection(tls); Admin admin = conn.getAdmin()) {
      admin.createTable(
          TableDescriptorBuilder.newBuilder(name)
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(F))
              .build());
      check("create over TLS", admin.tableExists(name), admin.tableExists(name));
      try (Table t = conn.getTable(name)) {
        for (int i = 0; i < 10; i++) {
          t.put(new Put(Bytes.toBytes("r" + i)).addColumn(F, Bytes.toBytes("q"), Bytes.toBytes("v" + i)));
        }
        Result r = t.get(new Get(Bytes.toBytes("r3")));
        String v = Bytes.toString(r.getValue(F, Bytes.toBytes("q")));
        check("get over TLS", "v3".equals(v), v);
        int rows = 0;
        try (ResultScanner s = t.getScanner(new Scan())) {
          for (Result ignored : s) {
            rows++;
          }
        }
        check("scan over TLS", rows == 10, rows + " rows");
      }
      admin.disableTable(name);
      admin.deleteTable(name);
      check("drop over TLS", !admin.tableExists(name), !admin.tableExists(name));
    }

    // The same client without TLS: refused, with TLS named.
    Configuration plain = conf(server);
    String outcome = list(plain);
    check("plaintext client refused naming TLS", outcome.contains("requires TLS"), outcome);
    if (args.length > 2) {
      // TLS without a client certificate, where one is required.
      outcome = list(anonymous);
      check("TLS client without a certificate refused", !outcome.startsWith("listed"), outcome);
    }
    System.out.println(failed == 0 ? "TLS: all passed" : "TLS: " + failed + " failed");
    System.exit(failed == 0 ? 0 : 1);
  }
}
