package strata.hbase;

import static strata.hbase.Transcript.F;
import static strata.hbase.Transcript.G;
import static strata.hbase.Transcript.attempt;
import static strata.hbase.Transcript.b;
import static strata.hbase.Transcript.result;
import static strata.hbase.Transcript.run;
import static strata.hbase.Transcript.say;
import static strata.hbase.Transcript.scan;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Append;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.CheckAndMutateResult;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Row;
import org.apache.hadoop.hbase.client.RowMutations;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.BinaryComparator;
import org.apache.hadoop.hbase.filter.ValueFilter;
import org.apache.hadoop.hbase.util.Bytes;

/** The transcript's data-path cases: versions, deletes, raw scans, TTLs, limits, atomics. */
final class TranscriptData {
  private TranscriptData() {}

  static void all(Connection conn, Admin admin) throws Exception {
    TableName name = Transcript.table(admin, "tx_data", 3);
    try (Table t = conn.getTable(name)) {
      versions(t);
      deletes(t);
      limits(t);
      filterBeforeVersions(t);
      atomics(t);
      scans(t);
      errors(conn, t);
      cellTtl(admin, name, t);
    }
    Transcript.drop(admin, name);
  }

  private static void versions(Table t) {
    run("put four versions, get latest, all, two, a time range and a timestamp", () -> {
      for (long ts = 1; ts <= 4; ts++) {
        t.put(new Put(b("v")).addColumn(F, b("q"), ts, b("v" + ts)));
      }
      say(result(t.get(new Get(b("v"))), true));
      say(result(t.get(new Get(b("v")).readAllVersions()), true));
      say(result(t.get(new Get(b("v")).readVersions(2)), true));
      say(result(t.get(new Get(b("v")).readAllVersions().setTimeRange(2, 4)), true));
      say(result(t.get(new Get(b("v")).readAllVersions().setTimestamp(2)), true));
      say(result(t.get(new Get(b("missing"))), true));
      say("exists v: " + t.exists(new Get(b("v"))) + ", missing: " + t.exists(new Get(b("nope"))));
    });
  }

  private static void deletes(Table t) {
    run("each kind of delete, then a get and a raw scan", () -> {
      for (long ts = 1; ts <= 3; ts++) {
        t.put(new Put(b("d1")).addColumn(F, b("a"), ts, b("a" + ts))
            .addColumn(F, b("b"), ts, b("b" + ts)).addColumn(F, b("c"), ts, b("c" + ts))
            .addColumn(G, b("x"), ts, b("x" + ts)));
        t.put(new Put(b("d2")).addColumn(F, b("a"), ts, b("a" + ts)));
        t.put(new Put(b("d3")).addColumn(F, b("a"), ts, b("a" + ts))
            .addColumn(F, b("b"), ts, b("b" + ts)));
      }
      t.delete(new Delete(b("d1")).addColumn(F, b("a"), 2));
      t.delete(new Delete(b("d1")).addColumns(F, b("b"), 2));
      t.delete(new Delete(b("d1")).addFamilyVersion(F, 3));
      t.delete(new Delete(b("d2")).addFamily(F, 2));
      t.delete(new Delete(b("d3"), 2));
      for (String r : new String[] {"d1", "d2", "d3"}) {
        say(result(t.get(new Get(b(r)).readAllVersions()), true));
      }
      say("raw:");
      scan(t, new Scan().withStartRow(b("d1")).withStopRow(b("d4")).setRaw(true)
          .readAllVersions(), true);
      say("raw, one version:");
      scan(t, new Scan().withStartRow(b("d1")).withStopRow(b("d4")).setRaw(true), true);
    });
    run("delete of the latest version without a timestamp, and a row delete", () -> {
      for (long ts = 10; ts <= 12; ts++) {
        t.put(new Put(b("d5")).addColumn(F, b("q"), ts, b("q" + ts)));
      }
      t.delete(new Delete(b("d5")).addColumn(F, b("q")));
      say(result(t.get(new Get(b("d5")).readAllVersions()), true));
      t.delete(new Delete(b("d5")));
      say(result(t.get(new Get(b("d5")).readAllVersions()), true));
      t.put(new Put(b("d5")).addColumn(F, b("q"), 5, b("old")));
      say("a put older than the row delete: " + result(t.get(new Get(b("d5"))), true));
    });
  }

  private static void limits(Table t) {
    run("max results and row offset per column family, get and scan", () -> {
      Put p = new Put(b("l1"));
      for (int i = 0; i < 5; i++) {
        p.addColumn(F, b("c" + i), 7, b("f" + i)).addColumn(G, b("c" + i), 7, b("g" + i));
      }
      t.put(p);
      t.put(new Put(b("l2")).addColumn(F, b("c0"), 7, b("x")).addColumn(F, b("c1"), 7, b("y")));
      say(result(t.get(new Get(b("l1")).setMaxResultsPerColumnFamily(2)), true));
      say(result(t.get(new Get(b("l1")).setRowOffsetPerColumnFamily(3)), true));
      say(result(t.get(new Get(b("l1")).setMaxResultsPerColumnFamily(1)
          .setRowOffsetPerColumnFamily(1)), true));
      scan(t, new Scan().withStartRow(b("l1")).withStopRow(b("l3"))
          .setMaxResultsPerColumnFamily(1).setRowOffsetPerColumnFamily(1), true);
      scan(t, new Scan().withStartRow(b("l1")).withStopRow(b("l3")).setBatch(3), true);
    });
  }

  private static void filterBeforeVersions(Table t) {
    run("a value filter sees older versions before the version limit", () -> {
      t.put(new Put(b("fv")).addColumn(F, b("q"), 1, b("match")));
      t.put(new Put(b("fv")).addColumn(F, b("q"), 2, b("other")));
      ValueFilter match = new ValueFilter(CompareOperator.EQUAL, new BinaryComparator(b("match")));
      say(result(t.get(new Get(b("fv")).setFilter(match)), true));
      say(result(t.get(new Get(b("fv")).readAllVersions().setFilter(match)), true));
      scan(t, new Scan().withStartRow(b("fv")).withStopRow(b("fw")).setFilter(match), true);
    });
  }

  private static void atomics(Table t) {
    run("increment, append, and their conditional forms", () -> {
      Result r = t.increment(new Increment(b("n")).addColumn(F, b("c"), 5).addColumn(F, b("d"), 1));
      say(result(r, false));
      r = t.increment(new Increment(b("n")).addColumn(F, b("c"), -2));
      say(result(r, false));
      say("incrementColumnValue: " + t.incrementColumnValue(b("n"), F, b("d"), 10));
      r = t.append(new Append(b("n")).addColumn(F, b("s"), b("ab")));
      r = t.append(new Append(b("n")).addColumn(F, b("s"), b("cd")));
      say(result(r, false));
      CheckAndMutateResult c = t.checkAndMutate(CheckAndMutate.newBuilder(b("n"))
          .ifEquals(F, b("s"), b("abcd")).build(new Increment(b("n")).addColumn(F, b("c"), 100)));
      say("conditional increment: " + c.isSuccess() + " " + result(c.getResult(), false));
      c = t.checkAndMutate(CheckAndMutate.newBuilder(b("n"))
          .ifEquals(F, b("s"), b("no")).build(new Increment(b("n")).addColumn(F, b("c"), 100)));
      say("conditional increment, condition false: " + c.isSuccess() + " "
          + result(c.getResult(), false));
      c = t.checkAndMutate(CheckAndMutate.newBuilder(b("n"))
          .ifNotExists(F, b("zz")).build(new Append(b("n")).addColumn(F, b("s"), b("!"))));
      say("conditional append: " + c.isSuccess() + " " + result(c.getResult(), false));
      c = t.checkAndMutate(CheckAndMutate.newBuilder(b("n")).ifEquals(F, b("c"),
          Bytes.toBytes(103L)).build(new Put(b("n")).addColumn(F, b("p"), 9, b("put"))));
      say("conditional put: " + c.isSuccess() + " " + result(c.getResult(), true));
      c = t.checkAndMutate(CheckAndMutate.newBuilder(b("n")).ifMatches(F, b("c"),
          CompareOperator.GREATER, Bytes.toBytes(0L)).build(new Delete(b("n")).addColumn(F, b("p"))));
      say("conditional delete (103 > 0 is false: the operator compares the given value "
          + "to the cell's): " + c.isSuccess());
      RowMutations rm = new RowMutations(b("n"));
      rm.add(new Put(b("n")).addColumn(F, b("m"), 9, b("rm")));
      rm.add(new Delete(b("n")).addColumns(F, b("s")));
      c = t.checkAndMutate(CheckAndMutate.newBuilder(b("n")).ifEquals(F, b("d"),
          Bytes.toBytes(11L)).build(rm));
      say("conditional row mutations: " + c.isSuccess());
      say(result(t.get(new Get(b("n"))), false));
    });
    run("batch of puts, gets, deletes and an increment", () -> {
      List<Row> ops = new ArrayList<>();
      ops.add(new Put(b("b1")).addColumn(F, b("q"), 3, b("x")));
      ops.add(new Get(b("v")));
      ops.add(new Delete(b("b0")));
      ops.add(new Increment(b("b2")).addColumn(F, b("n"), 2));
      ops.add(new Get(b("nope")));
      Object[] results = new Object[ops.size()];
      t.batch(ops, results);
      for (Object o : results) {
        say(o instanceof Result ? result((Result) o, false) : String.valueOf(o));
      }
      say(Arrays.toString(t.exists(Arrays.asList(new Get(b("b1")), new Get(b("b9"))))));
    });
  }

  private static void scans(Table t) {
    run("scans: ranges, reversed with inclusive stop, limit, columns, versions", () -> {
      for (int i = 0; i < 6; i++) {
        t.put(new Put(b("s" + i)).addColumn(F, b("a"), 4, b("a" + i))
            .addColumn(G, b("b"), 4, b("b" + i)));
      }
      scan(t, new Scan().withStartRow(b("s1")).withStopRow(b("s3")), true);
      scan(t, new Scan().withStartRow(b("s1")).withStopRow(b("s3"), true), true);
      scan(t, new Scan().withStartRow(b("s1"), false).withStopRow(b("s3")), true);
      scan(t, new Scan().withStartRow(b("s4")).withStopRow(b("s1")).setReversed(true), true);
      scan(t, new Scan().withStartRow(b("s4")).withStopRow(b("s1"), true).setReversed(true), true);
      scan(t, new Scan().withStartRow(b("s")).withStopRow(b("t")).setLimit(2), true);
      scan(t, new Scan().withStartRow(b("s")).withStopRow(b("t")).setReversed(true).setLimit(2),
          true);
      scan(t, new Scan().withStartRow(b("s4")).withStopRow(b("s1")), true);
      scan(t, new Scan().withStartRow(b("s")).withStopRow(b("t")).addFamily(G), true);
      scan(t, new Scan().withStartRow(b("s")).withStopRow(b("t")).addColumn(F, b("a"))
          .setCaching(1), true);
      scan(t, new Scan().withStartRow(b("v")).withStopRow(b("w")).readVersions(2), true);
      scan(t, new Scan().setRowPrefixFilter(b("s2")), true);
    });
  }

  private static void errors(Connection conn, Table t) {
    run("an unknown family, an unknown table", () -> {
      attempt("put to an unknown family", () ->
          t.put(new Put(b("e")).addColumn(b("nofam"), b("q"), b("v"))));
      attempt("get of an unknown family", () -> t.get(new Get(b("e")).addFamily(b("nofam"))));
      attempt("scan of an unknown family", () -> {
        try (org.apache.hadoop.hbase.client.ResultScanner rs =
            t.getScanner(new Scan().addFamily(b("nofam")))) {
          rs.next();
        }
      });
      attempt("get from a missing table", () -> {
        try (Table m = conn.getTable(TableName.valueOf("tx_missing"))) {
          m.get(new Get(b("r")));
        }
      });
      attempt("an empty row key", () -> t.put(new Put(new byte[0])));
    });
  }

  private static void cellTtl(Admin admin, TableName name, Table t) {
    run("per-cell TTL: expired cells are gone from gets, scans, and after a flush", () -> {
      long now = System.currentTimeMillis();
      Put p = new Put(b("ttl")).addColumn(F, b("short"), now, b("s"));
      p.setTTL(1500);
      t.put(p);
      t.put(new Put(b("ttl")).addColumn(F, b("long"), now, b("l")));
      Result r = t.get(new Get(b("ttl")));
      say("at once: " + r.size() + " cell(s)");
      Thread.sleep(2500);
      say("after expiry: " + result(t.get(new Get(b("ttl"))), false));
      scan(t, new Scan().withStartRow(b("ttl")).withStopRow(b("ttm")), false);
      admin.flush(name);
      say("after a flush: " + result(t.get(new Get(b("ttl"))), false));
    });
  }
}
