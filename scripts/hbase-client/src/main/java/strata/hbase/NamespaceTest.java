package strata.hbase;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Namespaces through HBase's Admin API: create (with configuration), get, list, modify,
 * delete; tables refused in a missing namespace; listing a namespace's tables; the reserved
 * namespaces; the quotas hbase.namespace.quota.maxtables and maxregions (on create and on
 * split). Bootstraps from the HBase RPC listener named by the first argument.
 *
 * <p>Each step prints one line, "name: observed"; a step whose observation differs from what
 * HBase answers prints "FAIL" first. The observations are the same against HBase itself (with
 * hbase.quota.enabled=true, as namespace quotas need there), so the two outputs can be
 * compared line by line. Exits 1 if any step failed.
 */
public final class NamespaceTest {
  private static final byte[] F = Bytes.toBytes("f");
  private static final String MAX_TABLES = "hbase.namespace.quota.maxtables";
  private static final String MAX_REGIONS = "hbase.namespace.quota.maxregions";
  private static int failed;

  private interface Op {
    Object run() throws Exception;
  }

  /** The outcome of an operation: its result, or the HBase exception's simple name. */
  private static String outcome(Op op) {
    try {
      Object r = op.run();
      return r == null ? "ok" : String.valueOf(r);
    } catch (Exception e) {
      StringBuilder chain = new StringBuilder();
      for (Throwable c = e; c != null; c = c.getCause()) {
        chain.append(c.getClass().getName()).append(' ').append(c.getMessage()).append('\n');
      }
      String all = chain.toString();
      for (String name : new String[] {"QuotaExceededException", "ConstraintException",
          "NamespaceNotFoundException", "NamespaceExistException", "TableExistsException",
          "TableNotFoundException", "IllegalArgumentException", "DoNotRetryIOException"}) {
        if (all.contains(name)) {
          return name;
        }
      }
      return "unexpected " + all;
    }
  }

  private static void step(String name, String want, Op op) {
    String got = outcome(op);
    if (got.equals(want)) {
      System.out.println(name + ": " + got);
    } else {
      failed++;
      System.out.println("FAIL " + name + ": " + got + " (HBase: " + want + ")");
    }
  }

  private static TableDescriptor table(String ns, String name) {
    return TableDescriptorBuilder.newBuilder(TableName.valueOf(ns, name))
        .setColumnFamily(ColumnFamilyDescriptorBuilder.of(F)).build();
  }

  private static String names(Admin admin) throws IOException {
    List<String> out = new ArrayList<>();
    for (NamespaceDescriptor d : admin.listNamespaceDescriptors()) {
      out.add(d.getName());
    }
    return out.toString();
  }

  private static String described(Admin admin, String ns) throws IOException {
    return admin.getNamespaceDescriptor(ns).toString();
  }

  private static String tableNames(TableName[] names) {
    List<String> out = new ArrayList<>();
    for (TableName n : names) {
      out.add(n.getNameAsString());
    }
    return out.toString();
  }

  private static String descriptorNames(List<TableDescriptor> tables) {
    List<String> out = new ArrayList<>();
    for (TableDescriptor t : tables) {
      out.add(t.getTableName().getNameAsString());
    }
    return out.toString();
  }

  private static NamespaceDescriptor ns(String name, String... kv) {
    NamespaceDescriptor.Builder b = NamespaceDescriptor.create(name);
    for (int i = 0; i + 1 < kv.length; i += 2) {
      b.addConfiguration(kv[i], kv[i + 1]);
    }
    return b.build();
  }

  private static void drop(Admin admin, TableName t) throws IOException {
    admin.disableTable(t);
    admin.deleteTable(t);
  }

  public static void main(String[] args) throws Exception {
    Configuration conf = ClientTest.clientConf(args[0], 3, 50, 15000);
    try (Connection conn = ConnectionFactory.createConnection(conf); Admin a = conn.getAdmin()) {
      step("system namespaces", "[default, hbase]", () -> names(a));
      step("describe default", "{NAME => 'default'}", () -> described(a, "default"));
      step("create a table in a missing namespace", "NamespaceNotFoundException",
          () -> { a.createTable(table("nst_a", "t")); return null; });
      step("describe a missing namespace", "NamespaceNotFoundException",
          () -> described(a, "nst_a"));
      step("create with configuration", "ok",
          () -> { a.createNamespace(ns("nst_a", "owner", "ann", "team", "db")); return null; });
      step("describe", "{NAME => 'nst_a', owner => 'ann', team => 'db'}",
          () -> described(a, "nst_a"));
      step("create again", "NamespaceExistException",
          () -> { a.createNamespace(ns("nst_a")); return null; });
      step("create the default namespace", "NamespaceExistException",
          () -> { a.createNamespace(ns("default")); return null; });
      step("listNamespaceDescriptors", "[default, hbase, nst_a]", () -> names(a));
      step("listNamespaces", "[default, hbase, nst_a]",
          () -> java.util.Arrays.toString(a.listNamespaces()));
      step("configuration round trip", "{owner=ann, team=db}", () -> {
        for (NamespaceDescriptor d : a.listNamespaceDescriptors()) {
          if (d.getName().equals("nst_a")) {
            return new TreeMap<>(d.getConfiguration()).toString();
          }
        }
        return "missing";
      });
      step("modify replaces the configuration", "{NAME => 'nst_a', owner => 'bob'}", () -> {
        a.modifyNamespace(ns("nst_a", "owner", "bob"));
        return described(a, "nst_a");
      });
      step("modify a missing namespace", "NamespaceNotFoundException",
          () -> { a.modifyNamespace(ns("nst_missing")); return null; });
      step("create tables in it", "ok", () -> {
        a.createTable(table("nst_a", "t2"));
        a.createTable(table("nst_a", "t1"));
        return null;
      });
      step("listTableNamesByNamespace", "[nst_a:t1, nst_a:t2]",
          () -> tableNames(a.listTableNamesByNamespace("nst_a")));
      step("listTableDescriptorsByNamespace", "[nst_a:t1, nst_a:t2]",
          () -> descriptorNames(a.listTableDescriptorsByNamespace(Bytes.toBytes("nst_a"))));
      step("tables of default", "[]",
          () -> tableNames(a.listTableNamesByNamespace("default")));
      step("tables of a missing namespace", "NamespaceNotFoundException",
          () -> tableNames(a.listTableNamesByNamespace("nst_missing")));
      step("delete a namespace holding tables", "ConstraintException",
          () -> { a.deleteNamespace("nst_a"); return null; });
      step("delete default", "ConstraintException",
          () -> { a.deleteNamespace("default"); return null; });
      step("delete hbase", "ConstraintException",
          () -> { a.deleteNamespace("hbase"); return null; });
      step("delete a missing namespace", "NamespaceNotFoundException",
          () -> { a.deleteNamespace("nst_missing"); return null; });
      step("delete once empty", "[default, hbase]", () -> {
        drop(a, TableName.valueOf("nst_a", "t1"));
        drop(a, TableName.valueOf("nst_a", "t2"));
        a.deleteNamespace("nst_a");
        return names(a);
      });

      // Quotas.
      step("a table quota of zero", "ConstraintException",
          () -> { a.createNamespace(ns("nst_q", MAX_TABLES, "0")); return null; });
      step("a region quota below zero", "ConstraintException",
          () -> { a.createNamespace(ns("nst_q", MAX_REGIONS, "-1")); return null; });
      step("a quota that is no number", "DoNotRetryIOException",
          () -> { a.createNamespace(ns("nst_q", MAX_TABLES, "many")); return null; });
      step("nothing created", "[default, hbase]", () -> names(a));
      step("create with quotas", "ok", () -> {
        a.createNamespace(ns("nst_q", MAX_TABLES, "2", MAX_REGIONS, "4"));
        return null;
      });
      step("a table of more regions than the quota", "QuotaExceededException", () -> {
        a.createTable(table("nst_q", "big"), new byte[][] {
            Bytes.toBytes("1"), Bytes.toBytes("2"), Bytes.toBytes("3"), Bytes.toBytes("4")});
        return null;
      });
      step("tables within the quotas", "ok", () -> {
        a.createTable(table("nst_q", "a"), new byte[][] {Bytes.toBytes("m")});
        a.createTable(table("nst_q", "b"));
        return null;
      });
      step("a table past the table quota", "QuotaExceededException",
          () -> { a.createTable(table("nst_q", "c")); return null; });
      step("a split within the region quota", "3", () -> {
        a.split(TableName.valueOf("nst_q", "a"), Bytes.toBytes("f"));
        for (int i = 0; i < 200; i++) {
          int n = a.getRegions(TableName.valueOf("nst_q", "a")).size();
          if (n == 3) {
            return n;
          }
          Thread.sleep(100);
        }
        return a.getRegions(TableName.valueOf("nst_q", "a")).size();
      });
      step("a split past the region quota", "1 region", () -> {
        try {
          a.split(TableName.valueOf("nst_q", "b"), Bytes.toBytes("k"));
        } catch (IOException refused) {
          // Strata refuses the request; HBase rolls the split procedure back.
        }
        Thread.sleep(3000);
        return a.getRegions(TableName.valueOf("nst_q", "b")).size() + " region";
      });
      step("raising the quota", "ok", () -> {
        a.modifyNamespace(ns("nst_q", MAX_TABLES, "3", MAX_REGIONS, "10"));
        a.createTable(table("nst_q", "c"));
        return null;
      });
      step("clean up", "[default, hbase]", () -> {
        for (String t : new String[] {"a", "b", "c"}) {
          drop(a, TableName.valueOf("nst_q", t));
        }
        a.deleteNamespace("nst_q");
        return names(a);
      });
    }
    System.out.println(failed == 0 ? "namespaces: all passed" : "namespaces: " + failed + " failed");
    System.exit(failed == 0 ? 0 : 1);
  }
}
