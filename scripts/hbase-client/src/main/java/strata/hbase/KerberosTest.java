package strata.hbase;

import java.io.File;
import java.security.PrivilegedExceptionAction;
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
import org.apache.hadoop.hbase.security.User;
import org.apache.hadoop.hbase.security.access.AccessControlClient;
import org.apache.hadoop.hbase.security.access.Permission;
import org.apache.hadoop.hbase.security.provider.SaslClientAuthenticationProviders;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.security.UserGroupInformation;

/**
 * Kerberos through HBase 2.6's client, configured as against a kerberized HBase
 * (hbase.security.authentication=kerberos, the servers' principals, a keytab login), against a
 * server started with --auth --kerberos-keytab --kerberos-principal hbase/_HOST@REALM and the
 * superuser "admin". Arguments: the HBase RPC listener, the realm, the directory of the test
 * KDC's keytabs (scripts/kdc.sh), the ticket cache of "carol" (a ticket that expires within
 * seconds of the start) and the second its ticket expires (epoch seconds).
 *
 * <p>admin creates a table and grants alice READ and WRITE on it and carol WRITE; alice writes
 * and reads; bob (no grant) is refused with AccessDeniedException; a principal of another realm
 * is refused; a client without Kerberos is refused; a client requiring privacy
 * (hbase.rpc.protection=privacy) is refused; carol, once her ticket has expired, is refused and
 * her write does not land; alice's connection works throughout.
 *
 * <p>Each step prints one line; a failed one prints "FAIL" first. Exits 1 if any failed.
 */
public final class KerberosTest {
  private static final byte[] F = Bytes.toBytes("f");
  private static final byte[] Q = Bytes.toBytes("q");
  private static final TableName NAME = TableName.valueOf("krb_t");
  private static int failed;

  private static Configuration conf(String server, String realm, boolean kerberos) {
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.client.registry.impl", "org.apache.hadoop.hbase.client.RpcConnectionRegistry");
    conf.set("hbase.client.bootstrap.servers", server);
    conf.setInt("hbase.client.retries.number", 2);
    conf.setInt("hbase.client.pause", 50);
    conf.setInt("hbase.rpc.timeout", 15000);
    conf.setInt("hbase.client.operation.timeout", 30000);
    // A refused connection is not remembered, and the client's re-login after a refusal is
    // not delayed, so each attempt shows the server's reason.
    conf.setInt("hbase.ipc.client.failed.servers.expiry", 0);
    conf.setInt("hbase.security.relogin.maxbackoff", 1);
    if (kerberos) {
      conf.set("hbase.security.authentication", "kerberos");
      conf.set("hadoop.security.authentication", "kerberos");
      conf.set("hbase.regionserver.kerberos.principal", "hbase/_HOST@" + realm);
      conf.set("hbase.master.kerberos.principal", "hbase/_HOST@" + realm);
    }
    return conf;
  }

  private static void check(String step, boolean ok, Object observed) {
    String seen = String.valueOf(observed);
    // Of a chain of causes, the innermost that says something (the server's reason).
    String[] causes = seen.split(" / ");
    for (int i = causes.length - 1; i >= 0 && ok; i--) {
      if (!causes[i].isBlank()) {
        seen = causes[i].length() > 300 ? causes[i].substring(0, 300) + "…" : causes[i];
        break;
      }
    }
    System.out.println((ok ? "" : "FAIL ") + step + ": " + seen);
    if (!ok) {
      failed++;
    }
  }

  /** The messages of `e` and its causes, one line. */
  private static String messages(Throwable e) {
    StringBuilder out = new StringBuilder();
    for (Throwable c = e; c != null; c = c.getCause()) {
      out.append(c.getClass().getSimpleName()).append(": ").append(c.getMessage()).append(" / ");
    }
    return out.toString().replace('\n', ' ');
  }

  private static User login(String principal, File keytab) throws Exception {
    UserGroupInformation ugi =
        UserGroupInformation.loginUserFromKeytabAndReturnUGI(principal, keytab.getPath());
    return User.create(ugi);
  }

  private static Connection connect(Configuration conf, User user) throws Exception {
    return user.runAs((PrivilegedExceptionAction<Connection>) () ->
        ConnectionFactory.createConnection(conf, user));
  }

  /** Whether `user`'s get of row "r" fails; the failure's messages, or null if it answered. */
  private static String refusedGet(Configuration conf, User user) {
    try (Connection c = connect(conf, user); Table t = c.getTable(NAME)) {
      t.get(new Get(Bytes.toBytes("r")));
      return null;
    } catch (Throwable e) {
      return messages(e);
    }
  }

  public static void main(String[] args) throws Throwable {
    String server = args[0];
    String realm = args[1];
    File keytabs = new File(args[2]);
    String carolCache = args[3];
    long carolExpires = Long.parseLong(args[4]);
    Configuration conf = conf(server, realm, true);
    // The client's own mapping must let mallory of OTHER.TEST log in (the server's refuses
    // her).
    conf.set("hadoop.security.auth_to_local", "RULE:[1:$1@$0](.*@OTHER\\.TEST)s/@.*//\nDEFAULT");
    UserGroupInformation.setConfiguration(conf);
    // HBase 2.6's client keeps the SASL providers of the first connection it makes, and with
    // the RPC registry that is the registry's unauthenticated cluster-id fetch: without this
    // line every connection would then try SIMPLE. Against HBase itself the same line is
    // needed (or the ZooKeeper registry).
    SaslClientAuthenticationProviders.getInstance(conf);
    // carol logs in from her ticket cache while the ticket is valid.
    User carol =
        User.create(UserGroupInformation.getUGIFromTicketCache(carolCache, "carol@" + realm));

    User admin = login("admin@" + realm, new File(keytabs, "admin.keytab"));
    try (Connection conn = connect(conf, admin); Admin a = conn.getAdmin()) {
      if (a.tableExists(NAME)) {
        a.disableTable(NAME);
        a.deleteTable(NAME);
      }
      a.createTable(
          TableDescriptorBuilder.newBuilder(NAME)
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(F))
              .build());
      try (Table t = conn.getTable(NAME)) {
        t.put(new Put(Bytes.toBytes("r")).addColumn(F, Q, Bytes.toBytes("v0")));
      }
      AccessControlClient.grant(
          conn, NAME, "alice", null, null, Permission.Action.READ, Permission.Action.WRITE);
      AccessControlClient.grant(conn, NAME, "carol", null, null, Permission.Action.WRITE);
      check("admin (Kerberos, superuser) creates krb_t and grants alice RW, carol W", true, "ok");
    }

    User alice = login("alice@" + realm, new File(keytabs, "alice.keytab"));
    Connection aliceConn = connect(conf, alice);
    Table aliceTable = aliceConn.getTable(NAME);
    aliceTable.put(new Put(Bytes.toBytes("r")).addColumn(F, Q, Bytes.toBytes("by-alice")));
    Result r = aliceTable.get(new Get(Bytes.toBytes("r")));
    check("alice writes and reads with a grant", "by-alice".equals(Bytes.toString(r.getValue(F, Q))), r);

    User bob = login("bob@" + realm, new File(keytabs, "bob.keytab"));
    String bobRefused = refusedGet(conf, bob);
    check("bob (no grant) is refused with AccessDeniedException",
        bobRefused != null && bobRefused.contains("AccessDeniedException"), bobRefused);
    try (Connection c = connect(conf, bob); Table t = c.getTable(NAME)) {
      t.put(new Put(Bytes.toBytes("r")).addColumn(F, Q, Bytes.toBytes("by-bob")));
      check("bob's put refused", false, "accepted");
    } catch (Throwable e) {
      check("bob's put refused with AccessDeniedException",
          messages(e).contains("AccessDeniedException"), messages(e));
    }

    User mallory = login("mallory@OTHER.TEST", new File(keytabs, "mallory.keytab"));
    String malloryRefused = refusedGet(conf, mallory);
    check("mallory@OTHER.TEST (another realm) is refused, naming the realm",
        malloryRefused != null && malloryRefused.contains("OTHER.TEST"), malloryRefused);

    String simpleRefused = refusedGet(conf(server, realm, false), admin);
    check("a client without Kerberos (SIMPLE) is refused: Authentication is required",
        simpleRefused != null && simpleRefused.contains("Authentication is required"),
        simpleRefused);

    Configuration privacy = conf(server, realm, true);
    privacy.set("hbase.rpc.protection", "privacy");
    String privacyRefused = refusedGet(privacy, alice);
    check("a client requiring privacy (hbase.rpc.protection) is refused: no common layer",
        privacyRefused != null && privacyRefused.contains("protection"), privacyRefused);

    long wait = carolExpires * 1000 + 1500 - System.currentTimeMillis();
    if (wait > 0) {
      Thread.sleep(wait);
    }
    try (Connection c = connect(conf, carol); Table t = c.getTable(NAME)) {
      t.put(new Put(Bytes.toBytes("r")).addColumn(F, Q, Bytes.toBytes("by-carol")));
      check("carol's put with an expired ticket refused", false, "accepted");
    } catch (Throwable e) {
      String m = messages(e);
      check("carol's put with an expired ticket is refused (GSS: no valid ticket)",
          m.contains("GSS") || m.contains("tgt") || m.contains("xpired"), m);
    }

    r = aliceTable.get(new Get(Bytes.toBytes("r")));
    check("alice's connection is unaffected; the refused writes changed nothing",
        "by-alice".equals(Bytes.toString(r.getValue(F, Q))), r);
    aliceTable.close();
    aliceConn.close();

    try (Connection conn = connect(conf, admin); Admin a = conn.getAdmin()) {
      a.disableTable(NAME);
      a.deleteTable(NAME);
    }
    System.out.println(
        failed == 0 ? "Kerberos: all passed" : "Kerberos: " + failed + " failed");
    System.exit(failed == 0 ? 0 : 1);
  }
}
