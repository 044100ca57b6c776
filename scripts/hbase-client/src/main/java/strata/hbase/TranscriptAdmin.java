package strata.hbase;

import static strata.hbase.Transcript.F;
import static strata.hbase.Transcript.attempt;
import static strata.hbase.Transcript.b;
import static strata.hbase.Transcript.descriptor;
import static strata.hbase.Transcript.names;
import static strata.hbase.Transcript.result;
import static strata.hbase.Transcript.run;
import static strata.hbase.Transcript.say;

import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.io.compress.Compression;
import org.apache.hadoop.hbase.regionserver.BloomType;

/** The transcript's admin cases: table states, truncate, descriptors, patterns, namespaces. */
final class TranscriptAdmin {
  private TranscriptAdmin() {}

  static void all(Connection conn, Admin admin) throws Exception {
    TableName t = Transcript.table(admin, "tx_admin", 2);
    states(conn, admin, t);
    descriptors(admin);
    namespaces(admin);
    Transcript.drop(admin, t);
  }

  private static void states(Connection conn, Admin admin, TableName name) {
    run("table states: exists, disabled reads and writes, truncate", () -> {
      try (Table t = conn.getTable(name)) {
        t.put(new Put(b("a")).addColumn(F, b("q"), 1, b("v")));
        attempt("create an existing table", () -> admin.createTable(
            TableDescriptorBuilder.newBuilder(name).setColumnFamily(
                ColumnFamilyDescriptorBuilder.of(F)).build()));
        attempt("enable an enabled table", () -> admin.enableTable(name));
        attempt("delete an enabled table", () -> admin.deleteTable(name));
        attempt("truncate an enabled table", () -> admin.truncateTable(name, false));
        say("enabled: " + admin.isTableEnabled(name) + ", disabled: "
            + admin.isTableDisabled(name));
        admin.disableTable(name);
        say("enabled: " + admin.isTableEnabled(name) + ", disabled: "
            + admin.isTableDisabled(name) + ", available: " + admin.isTableAvailable(name));
        attempt("disable a disabled table", () -> admin.disableTable(name));
        attempt("put on a disabled table", () ->
            t.put(new Put(b("b")).addColumn(F, b("q"), 1, b("v"))));
        attempt("get on a disabled table", () -> t.get(new Get(b("a"))));
        attempt("scan on a disabled table", () -> {
          try (org.apache.hadoop.hbase.client.ResultScanner rs = t.getScanner(new Scan())) {
            rs.next();
          }
        });
        admin.truncateTable(name, true);
        say("after truncate: enabled " + admin.isTableEnabled(name) + ", "
            + result(t.get(new Get(b("a"))), true));
        attempt("disable, enable a missing table", () -> admin.disableTable(
            TableName.valueOf("tx_nothing")));
        attempt("describe a missing table", () -> admin.getDescriptor(
            TableName.valueOf("tx_nothing")));
        attempt("a table with no family", () -> admin.createTable(
            TableDescriptorBuilder.newBuilder(TableName.valueOf("tx_nofam")).build()));
        attempt("a bad table name", () -> TableName.valueOf("bad name"));
      }
    });
  }

  private static void descriptors(Admin admin) {
    TableName d = TableName.valueOf("tx_desc");
    run("descriptors: defaults, settings, custom values, modify, patterns", () -> {
      Transcript.drop(admin, d);
      admin.createTable(TableDescriptorBuilder.newBuilder(d)
          .setColumnFamily(ColumnFamilyDescriptorBuilder.of("a"))
          .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(b("b")).setMaxVersions(5)
              .setTimeToLive(86400).setBloomFilterType(BloomType.ROWCOL)
              .setCompressionType(Compression.Algorithm.GZ).setBlocksize(16384)
              .setInMemory(true).setValue("fk", "fv").setConfiguration("hbase.fc", "1").build())
          .setValue("owner", "team-a").build());
      say(descriptor(admin.getDescriptor(d)));
      TableDescriptor cur = admin.getDescriptor(d);
      admin.modifyTable(TableDescriptorBuilder.newBuilder(cur).removeValue(b("owner"))
          .setValue("k2", "v2").build());
      say(descriptor(admin.getDescriptor(d)));
      admin.addColumnFamily(d, ColumnFamilyDescriptorBuilder.newBuilder(b("c"))
          .setMaxVersions(2).build());
      admin.deleteColumnFamily(d, b("a"));
      say(descriptor(admin.getDescriptor(d)));
      attempt("delete the last family", () -> {
        admin.deleteColumnFamily(d, b("b"));
        admin.deleteColumnFamily(d, b("c"));
      });
      attempt("add an existing family", () -> admin.addColumnFamily(d,
          ColumnFamilyDescriptorBuilder.of("c")));
      say("by pattern tx_de.*: " + names(admin, Pattern.compile("tx_de.*")));
      say("by pattern default:tx_des[c]: " + names(admin, Pattern.compile("default:tx_des[c]")));
      say("by pattern desc: " + names(admin, Pattern.compile("desc")));
      Transcript.drop(admin, d);
    });
  }

  private static String namespace(NamespaceDescriptor n) {
    Map<String, String> conf = new TreeMap<>(n.getConfiguration());
    return n.getName() + " " + conf;
  }

  private static void namespaces(Admin admin) {
    run("namespaces: create with properties, describe, alter, tables, drop", () -> {
      String ns = "tx_ns";
      TableName inNs = TableName.valueOf(ns, "t1");
      for (NamespaceDescriptor n : admin.listNamespaceDescriptors()) {
        if (n.getName().equals(ns)) {
          Transcript.drop(admin, inNs);
          admin.deleteNamespace(ns);
        }
      }
      attempt("a table in a missing namespace", () -> admin.createTable(
          TableDescriptorBuilder.newBuilder(inNs).setColumnFamily(
              ColumnFamilyDescriptorBuilder.of(F)).build()));
      admin.createNamespace(NamespaceDescriptor.create(ns).addConfiguration("team", "a")
          .addConfiguration("hbase.namespace.quota.maxtables", "1").build());
      say(namespace(admin.getNamespaceDescriptor(ns)));
      attempt("create it again", () -> admin.createNamespace(NamespaceDescriptor.create(ns)
          .build()));
      admin.modifyNamespace(NamespaceDescriptor.create(ns).addConfiguration("team", "b").build());
      say(namespace(admin.getNamespaceDescriptor(ns)));
      admin.createTable(TableDescriptorBuilder.newBuilder(inNs).setColumnFamily(
          ColumnFamilyDescriptorBuilder.of(F)).build());
      say("tables: " + java.util.Arrays.toString(admin.listTableNamesByNamespace(ns)));
      attempt("drop a namespace with a table", () -> admin.deleteNamespace(ns));
      attempt("describe a missing namespace", () -> admin.getNamespaceDescriptor("tx_none"));
      attempt("drop the default namespace", () -> admin.deleteNamespace("default"));
      StringBuilder all = new StringBuilder("namespaces:");
      for (NamespaceDescriptor n : admin.listNamespaceDescriptors()) {
        if (!n.getName().startsWith("tx_") || n.getName().equals(ns)) {
          all.append(' ').append(n.getName());
        }
      }
      say(all.toString());
      Transcript.drop(admin, inNs);
      admin.deleteNamespace(ns);
      attempt("describe it after the drop", () -> admin.getNamespaceDescriptor(ns));
    });
  }
}
