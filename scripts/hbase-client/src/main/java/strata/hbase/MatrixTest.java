package strata.hbase;

import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.NamespaceExistException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Append;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.security.access.AccessControlClient;
import org.apache.hadoop.hbase.security.access.Permission;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The access matrix (RFC 0026) through HBase 2.6's client: the cases the Rust side derives
 * from its table of what HBase's AccessController asks (crates/cli/tests/acl_matrix, written
 * as JSON lines by its test cases_of_the_java_client), run against a server started with
 * --auth and client certificates. The superuser "admin" makes the tables and grants; the
 * user runs each operation holding only the case's grant (cases sharing a grant run under
 * one grant, revoked after them). Arguments: the HBase RPC listener, the CA's PEM file,
 * admin's and the user's PEM key stores, the user's name, the cases file.
 *
 * <p>Prints one line per wrong case ("FAIL ...") and a summary; exits 1 if any was wrong.
 */
public final class MatrixTest {
  private static final byte[] F = Bytes.toBytes("f");
  private static final byte[] G = Bytes.toBytes("g");
  private static final byte[] Q = Bytes.toBytes("q");
  private static final String SECRET = "secret1";
  private static final String NS = "mx";
  private static final String SHARED = "mx:shared";
  private static final String OTHER_TABLE = "mx:other";
  private static final String OTHER = "other";
  private static final String GONE_NS = "mxgone";

  enum Seen { ALLOWED, REFUSED, LEFT_OUT }

  /** One case, as the Rust side wrote it. */
  static final class Case {
    int id;
    String op;
    String table;
    String scope;
    String perms;
    boolean allowed;
    String kind;
    String namespace;
    String grantTable;
    String family;
    String qualifier;

    String describe() {
      return "#" + id + " " + op + " with " + (perms.isEmpty() ? "nothing" : perms) + " on "
          + scope;
    }

    String grantKey() {
      return kind + "|" + namespace + "|" + grantTable + "|" + family + "|" + qualifier + "|"
          + perms;
    }
  }

  private static String field(String json, String key) {
    Matcher m = Pattern.compile("\"" + key + "\":(\"([^\"]*)\"|true|false|-?\\d+)").matcher(json);
    if (!m.find()) {
      throw new IllegalArgumentException("no " + key + " in " + json);
    }
    return m.group(2) != null ? m.group(2) : m.group(1);
  }

  static Case parse(String line) {
    int at = line.indexOf("\"grant\":");
    String top = line.substring(0, at);
    String grant = line.substring(at);
    Case c = new Case();
    c.id = Integer.parseInt(field(top, "id"));
    c.op = field(top, "op");
    c.table = field(top, "table");
    c.scope = field(top, "scope");
    c.perms = field(top, "perms");
    c.allowed = Boolean.parseBoolean(field(top, "allowed"));
    c.kind = field(grant, "kind");
    c.namespace = field(grant, "namespace");
    c.grantTable = field(grant, "table");
    c.family = field(grant, "family");
    c.qualifier = field(grant, "qualifier");
    return c;
  }

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

  /** Whether `e` or one of its causes is HBase's AccessDeniedException. */
  private static boolean denied(Throwable e) {
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c.getClass().getName().endsWith("AccessDeniedException")
          || String.valueOf(c.getMessage()).contains("AccessDeniedException")
          || String.valueOf(c.getMessage()).contains("Insufficient permissions")) {
        return true;
      }
    }
    return false;
  }

  private static Permission.Action[] actions(String letters) {
    List<Permission.Action> out = new ArrayList<>();
    for (char l : letters.toCharArray()) {
      switch (l) {
        case 'R': out.add(Permission.Action.READ); break;
        case 'W': out.add(Permission.Action.WRITE); break;
        case 'X': out.add(Permission.Action.EXEC); break;
        case 'C': out.add(Permission.Action.CREATE); break;
        case 'A': out.add(Permission.Action.ADMIN); break;
        default: throw new IllegalArgumentException("letter " + l);
      }
    }
    return out.toArray(new Permission.Action[0]);
  }

  private static byte[] bytesOrNull(String s) {
    return s.isEmpty() ? null : Bytes.toBytes(s);
  }

  private static void grant(Connection admin, Case c, String user, boolean give) throws Throwable {
    if (c.kind.equals("none") || c.perms.isEmpty()) {
      return;
    }
    Permission.Action[] a = actions(c.perms);
    switch (c.kind) {
      case "global":
        if (give) AccessControlClient.grant(admin, user, a);
        else AccessControlClient.revoke(admin, user, a);
        break;
      case "namespace":
        if (give) AccessControlClient.grant(admin, c.namespace, user, a);
        else AccessControlClient.revoke(admin, c.namespace, user, a);
        break;
      default:
        TableName t = TableName.valueOf(c.grantTable);
        if (give) {
          AccessControlClient.grant(admin, t, user, bytesOrNull(c.family), bytesOrNull(c.qualifier), a);
        } else {
          AccessControlClient.revoke(admin, t, user, bytesOrNull(c.family), bytesOrNull(c.qualifier), a);
        }
    }
  }

  private static void create(Admin admin, Connection conn, String name) throws Throwable {
    TableName t = TableName.valueOf(name);
    admin.createTable(TableDescriptorBuilder.newBuilder(t)
        .setColumnFamily(ColumnFamilyDescriptorBuilder.of(F))
        .setColumnFamily(ColumnFamilyDescriptorBuilder.of(G)).build());
    try (Table table = conn.getTable(t)) {
      table.put(new Put(Bytes.toBytes("r")).addColumn(F, Q, Bytes.toBytes(SECRET))
          .addColumn(F, Bytes.toBytes("q2"), Bytes.toBytes("v2"))
          .addColumn(G, Q, Bytes.toBytes("w1")));
    }
  }

  /** Puts in place what `c`'s operation needs (as the Rust side's Secured::prepare). */
  private static void prepare(Admin admin, Connection conn, Case c) throws Throwable {
    switch (c.op) {
      case "enable": case "truncate": case "drop": case "disable": {
        TableName t = TableName.valueOf(c.table);
        if (!admin.tableExists(t)) {
          create(admin, conn, c.table);
        }
        boolean enabled = admin.isTableEnabled(t);
        boolean want = c.op.equals("disable");
        if (enabled && !want) admin.disableTable(t);
        else if (!enabled && want) admin.enableTable(t);
        break;
      }
      case "drop_namespace":
        try {
          admin.createNamespace(NamespaceDescriptor.create(GONE_NS).build());
        } catch (NamespaceExistException e) {
          // already there
        }
        break;
      default:
        break;
    }
  }

  private static boolean secret(Result r) {
    byte[] v = r == null ? null : r.getValue(F, Q);
    return v != null && Bytes.toString(v).equals(SECRET);
  }

  /** Runs `c`'s operation as the user. */
  private static Seen run(Connection conn, Connection adminConn, Case c) throws Throwable {
    TableName t = TableName.valueOf(c.table);
    byte[] w = Bytes.toBytes("w");
    try (Table table = conn.getTable(t); Admin admin = conn.getAdmin()) {
      switch (c.op) {
        case "get":
          return secret(table.get(new Get(Bytes.toBytes("r")).addColumn(F, Q))) ? Seen.ALLOWED : Seen.LEFT_OUT;
        case "exists":
          return table.exists(new Get(Bytes.toBytes("r")).addColumn(F, Q)) ? Seen.ALLOWED : Seen.LEFT_OUT;
        case "scan": {
          boolean found = false;
          try (ResultScanner s = table.getScanner(new Scan().addColumn(F, Q))) {
            for (Result r : s) {
              found |= secret(r);
            }
          }
          return found ? Seen.ALLOWED : Seen.LEFT_OUT;
        }
        case "put":
          table.put(new Put(w).addColumn(F, Q, Bytes.toBytes("x")));
          return Seen.ALLOWED;
        case "batch_put": {
          List<Put> puts = new ArrayList<>();
          puts.add(new Put(w).addColumn(F, Q, Bytes.toBytes("y")));
          puts.add(new Put(Bytes.toBytes("w2")).addColumn(F, Q, Bytes.toBytes("z")));
          table.put(puts);
          return Seen.ALLOWED;
        }
        case "delete_column":
          table.delete(new Delete(w).addColumns(F, Q));
          return Seen.ALLOWED;
        case "delete_family":
          table.delete(new Delete(w).addFamily(F));
          return Seen.ALLOWED;
        case "delete_row":
          table.delete(new Delete(w));
          return Seen.ALLOWED;
        case "increment":
          table.increment(new Increment(Bytes.toBytes("n")).addColumn(F, Q, 1));
          return Seen.ALLOWED;
        case "append":
          table.append(new Append(w).addColumn(F, Q, Bytes.toBytes("a")));
          return Seen.ALLOWED;
        case "check_and_put": {
          byte[] r = Bytes.toBytes("c");
          table.checkAndMutate(CheckAndMutate.newBuilder(r).ifNotExists(F, Q)
              .build(new Put(r).addColumn(F, Q, Bytes.toBytes("p"))));
          return Seen.ALLOWED;
        }
        case "check_and_delete": {
          byte[] r = Bytes.toBytes("c");
          table.checkAndMutate(CheckAndMutate.newBuilder(r).ifEquals(F, Q, Bytes.toBytes("p"))
              .build(new Delete(r).addColumns(F, Q)));
          return Seen.ALLOWED;
        }
        case "flush":
          admin.flush(t);
          return Seen.ALLOWED;
        case "compact":
          admin.compact(t);
          return Seen.ALLOWED;
        case "split":
          admin.split(t, Bytes.toBytes(String.format("k%05d", c.id)));
          return Seen.ALLOWED;
        case "alter": {
          TableDescriptor now;
          try (Admin a = adminConn.getAdmin()) {
            now = a.getDescriptor(t);
          }
          admin.modifyTable(TableDescriptorBuilder.newBuilder(now)
              .modifyColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(now.getColumnFamily(F))
                  .setMaxVersions(c.id % 5 + 1).build())
              .build());
          return Seen.ALLOWED;
        }
        case "disable":
          admin.disableTable(t);
          return Seen.ALLOWED;
        case "enable":
          admin.enableTable(t);
          return Seen.ALLOWED;
        case "truncate":
          admin.truncateTable(t, false);
          return Seen.ALLOWED;
        case "drop":
          admin.deleteTable(t);
          return Seen.ALLOWED;
        case "snapshot":
          admin.snapshot("snap" + c.id, t);
          return Seen.ALLOWED;
        case "list_tables":
          for (TableName n : admin.listTableNames()) {
            if (n.equals(t)) {
              return Seen.ALLOWED;
            }
          }
          return Seen.LEFT_OUT;
        case "create_table":
          admin.createTable(TableDescriptorBuilder.newBuilder(TableName.valueOf(NS + ":c" + c.id))
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(F)).build());
          return Seen.ALLOWED;
        case "create_namespace":
          admin.createNamespace(NamespaceDescriptor.create("n" + c.id).build());
          return Seen.ALLOWED;
        case "drop_namespace":
          admin.deleteNamespace(GONE_NS);
          return Seen.ALLOWED;
        case "grant_table":
          AccessControlClient.grant(conn, t, OTHER, null, null, Permission.Action.READ);
          return Seen.ALLOWED;
        case "grant_namespace":
          AccessControlClient.grant(conn, NS, OTHER, Permission.Action.READ);
          return Seen.ALLOWED;
        case "revoke_table":
          AccessControlClient.revoke(conn, t, OTHER, null, null, Permission.Action.READ);
          return Seen.ALLOWED;
        default:
          throw new IllegalArgumentException("no HBase client mapping for operation " + c.op);
      }
    } catch (Throwable e) {
      if (denied(e)) {
        return Seen.REFUSED;
      }
      throw e;
    }
  }

  public static void main(String[] args) throws Throwable {
    String user = args[4];
    List<Case> cases = new ArrayList<>();
    for (String line : Files.readAllLines(Paths.get(args[5]))) {
      if (!line.isBlank()) {
        cases.add(parse(line));
      }
    }
    long started = System.nanoTime();
    int wrong = 0;
    int allowed = 0;
    int refused = 0;
    int leftOut = 0;
    Map<String, int[]> byOp = new TreeMap<>();
    try (Connection adminConn = ConnectionFactory.createConnection(conf(args[0], args[1], args[2]));
        Admin admin = adminConn.getAdmin();
        Connection conn = ConnectionFactory.createConnection(conf(args[0], args[1], args[3]))) {
      admin.createNamespace(NamespaceDescriptor.create(NS).build());
      Set<String> tables = new LinkedHashSet<>();
      tables.add(SHARED);
      tables.add(OTHER_TABLE);
      for (Case c : cases) {
        tables.add(c.table);
      }
      for (String name : tables) {
        create(admin, adminConn, name);
      }
      AccessControlClient.grant(adminConn, TableName.valueOf(SHARED), OTHER, null, null,
          Permission.Action.READ);
      // Cases that share a grant run under it once; each group's grant is revoked after it.
      Map<String, List<Case>> groups = new LinkedHashMap<>();
      for (Case c : cases) {
        groups.computeIfAbsent(c.grantKey(), k -> new ArrayList<>()).add(c);
      }
      for (List<Case> group : groups.values()) {
        for (Case c : group) {
          prepare(admin, adminConn, c);
        }
        grant(adminConn, group.get(0), user, true);
        for (Case c : group) {
          prepare(admin, adminConn, c);
          Seen seen;
          try {
            seen = run(conn, adminConn, c);
          } catch (Throwable e) {
            System.out.println("FAIL " + c.describe() + ": not an access decision: " + e);
            wrong++;
            continue;
          }
          int[] counts = byOp.computeIfAbsent(c.op, k -> new int[2]);
          if (seen == Seen.ALLOWED) {
            allowed++;
            counts[0]++;
          } else {
            counts[1]++;
            if (seen == Seen.REFUSED) refused++;
            else leftOut++;
          }
          if ((seen == Seen.ALLOWED) != c.allowed) {
            System.out.println("FAIL " + c.describe() + ": expected "
                + (c.allowed ? "allowed" : "denied") + ", saw " + seen);
            wrong++;
          }
        }
        Case first = group.get(0);
        boolean gone = first.kind.equals("table") && !admin.tableExists(TableName.valueOf(first.grantTable));
        if (!gone) {
          grant(adminConn, first, user, false);
        }
      }
    }
    StringBuilder ops = new StringBuilder();
    for (Map.Entry<String, int[]> e : byOp.entrySet()) {
      ops.append(ops.length() == 0 ? "" : ", ").append(e.getKey()).append(' ')
          .append(e.getValue()[0]).append('/').append(e.getValue()[1]);
    }
    System.out.printf("Java: %d cases, %d allowed, %d denied (%d refused, %d left out) in %.1f s;"
        + " per operation allowed/denied: %s%n", cases.size(), allowed, refused + leftOut,
        refused, leftOut, (System.nanoTime() - started) / 1e9, ops);
    System.out.println(wrong == 0 ? "MATRIX: all passed" : "MATRIX: " + wrong + " wrong");
    System.exit(wrong == 0 ? 0 : 1);
  }
}
