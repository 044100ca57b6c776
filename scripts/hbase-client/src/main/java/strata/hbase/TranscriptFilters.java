package strata.hbase;

import static strata.hbase.Transcript.F;
import static strata.hbase.Transcript.G;
import static strata.hbase.Transcript.b;
import static strata.hbase.Transcript.run;
import static strata.hbase.Transcript.say;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;

import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.BinaryComparator;
import org.apache.hadoop.hbase.filter.BinaryPrefixComparator;
import org.apache.hadoop.hbase.filter.ColumnCountGetFilter;
import org.apache.hadoop.hbase.filter.ColumnPaginationFilter;
import org.apache.hadoop.hbase.filter.ColumnPrefixFilter;
import org.apache.hadoop.hbase.filter.ColumnRangeFilter;
import org.apache.hadoop.hbase.filter.ColumnValueFilter;
import org.apache.hadoop.hbase.filter.DependentColumnFilter;
import org.apache.hadoop.hbase.filter.FamilyFilter;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter;
import org.apache.hadoop.hbase.filter.FirstKeyValueMatchingQualifiersFilter;
import org.apache.hadoop.hbase.filter.FuzzyRowFilter;
import org.apache.hadoop.hbase.filter.InclusiveStopFilter;
import org.apache.hadoop.hbase.filter.KeyOnlyFilter;
import org.apache.hadoop.hbase.filter.MultiRowRangeFilter;
import org.apache.hadoop.hbase.filter.MultipleColumnPrefixFilter;
import org.apache.hadoop.hbase.filter.PageFilter;
import org.apache.hadoop.hbase.filter.PrefixFilter;
import org.apache.hadoop.hbase.filter.QualifierFilter;
import org.apache.hadoop.hbase.filter.RandomRowFilter;
import org.apache.hadoop.hbase.filter.RegexStringComparator;
import org.apache.hadoop.hbase.filter.RowFilter;
import org.apache.hadoop.hbase.filter.SingleColumnValueExcludeFilter;
import org.apache.hadoop.hbase.filter.SingleColumnValueFilter;
import org.apache.hadoop.hbase.filter.SkipFilter;
import org.apache.hadoop.hbase.filter.SubstringComparator;
import org.apache.hadoop.hbase.filter.TimestampsFilter;
import org.apache.hadoop.hbase.filter.ValueFilter;
import org.apache.hadoop.hbase.filter.WhileMatchFilter;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.Pair;

/**
 * The transcript's filter cases: every filter of {@code org.apache.hadoop.hbase.filter} a 2.6
 * client can send, on one table of 12 rows ({@code r00}..{@code r11}), five qualifiers in f
 * ({@code c0}..{@code c4}, value {@code v<row><col>}, two versions of c0) and g:x on even rows.
 */
final class TranscriptFilters {
  private TranscriptFilters() {}

  private static Table table;

  static void all(Connection conn, Admin admin) throws Exception {
    TableName name = Transcript.table(admin, "tx_filters", 3);
    try (Table t = conn.getTable(name)) {
      table = t;
      List<Put> puts = new ArrayList<>();
      for (int r = 0; r < 12; r++) {
        String row = String.format("r%02d", r);
        Put p = new Put(b(row));
        for (int c = 0; c < 5; c++) {
          p.addColumn(F, b("c" + c), 10, b("v" + r + c));
        }
        p.addColumn(F, b("c0"), 5, b("old" + r));
        if (r % 2 == 0) {
          p.addColumn(G, b("x"), 10, b("x" + r));
        }
        puts.add(p);
      }
      t.put(puts);
      cases();
      rowRange();
    }
    Transcript.drop(admin, name);
  }

  private static void scan(String name, Filter f) {
    run("filter " + name, () -> Transcript.scan(table, new Scan().setFilter(f), false));
  }

  private static void scanAll(String name, Filter f) {
    run("filter " + name + ", all versions", () ->
        Transcript.scan(table, new Scan().setFilter(f).readAllVersions(), true));
  }

  private static void cases() {
    scan("ColumnPaginationFilter(2, 1)", new ColumnPaginationFilter(2, 1));
    scan("ColumnPaginationFilter(2, column c3)", new ColumnPaginationFilter(2, b("c3")));
    List<Pair<byte[], byte[]>> fuzzy = new ArrayList<>();
    fuzzy.add(new Pair<>(b("r?3"), new byte[] {0, 1, 0}));
    fuzzy.add(new Pair<>(b("r1?"), new byte[] {0, 0, 1}));
    scan("FuzzyRowFilter(r?3, r1?)", new FuzzyRowFilter(fuzzy));
    scan("DependentColumnFilter(f:c0)", new DependentColumnFilter(F, b("c0")));
    scan("DependentColumnFilter(g:x, drop)", new DependentColumnFilter(G, b("x"), true));
    scan("DependentColumnFilter(g:x, value x4)", new DependentColumnFilter(G, b("x"), false,
        CompareOperator.EQUAL, new BinaryComparator(b("x4"))));
    scanAll("DependentColumnFilter(f:c0)", new DependentColumnFilter(F, b("c0")));
    scan("SingleColumnValueFilter(f:c1 = v31)", new SingleColumnValueFilter(F, b("c1"),
        CompareOperator.EQUAL, b("v31")));
    SingleColumnValueFilter missing = new SingleColumnValueFilter(G, b("x"),
        CompareOperator.NOT_EQUAL, b("x0"));
    scan("SingleColumnValueFilter(g:x != x0), missing rows pass", missing);
    SingleColumnValueFilter ifMissing = new SingleColumnValueFilter(G, b("x"),
        CompareOperator.NOT_EQUAL, b("x0"));
    ifMissing.setFilterIfMissing(true);
    scan("SingleColumnValueFilter(g:x != x0), filterIfMissing", ifMissing);
    SingleColumnValueFilter anyVersion = new SingleColumnValueFilter(F, b("c0"),
        CompareOperator.EQUAL, b("old7"));
    anyVersion.setLatestVersionOnly(false);
    scan("SingleColumnValueFilter(f:c0 = old7), any version", anyVersion);
    scan("SingleColumnValueFilter(f:c0 = old7), latest only", new SingleColumnValueFilter(F,
        b("c0"), CompareOperator.EQUAL, b("old7")));
    scan("SingleColumnValueExcludeFilter(f:c2 = v52)", new SingleColumnValueExcludeFilter(F,
        b("c2"), CompareOperator.EQUAL, b("v52")));
    scan("ColumnCountGetFilter(3)", new ColumnCountGetFilter(3));
    run("filter ColumnCountGetFilter(2) on a get", () -> say(Transcript.result(
        table.get(new Get(b("r04")).setFilter(new ColumnCountGetFilter(2))), false)));
    scan("InclusiveStopFilter(r02)", new InclusiveStopFilter(b("r02")));
    scan("WhileMatchFilter(RowFilter < r03)", new WhileMatchFilter(new RowFilter(
        CompareOperator.LESS, new BinaryComparator(b("r03")))));
    scan("SkipFilter(ValueFilter != v51)", new SkipFilter(new ValueFilter(
        CompareOperator.NOT_EQUAL, new BinaryComparator(b("v51")))));
    scan("RandomRowFilter(0)", new RandomRowFilter(0f));
    run("filter RandomRowFilter(1)", () -> Transcript.scan(table, new Scan().setFilter(
        new RandomRowFilter(1f)).addColumn(F, b("c4")), false));
    scan("ColumnValueFilter(f:c3 = v93)", new ColumnValueFilter(F, b("c3"),
        CompareOperator.EQUAL, b("v93")));
    scan("ColumnValueFilter(f:c3 > v93)", new ColumnValueFilter(F, b("c3"),
        CompareOperator.GREATER, b("v93")));
    TreeSet<byte[]> quals = new TreeSet<>(Bytes.BYTES_COMPARATOR);
    quals.add(b("c2"));
    scan("FirstKeyValueMatchingQualifiersFilter(c2)",
        new FirstKeyValueMatchingQualifiersFilter(quals));
    scanAll("TimestampsFilter(5)", new TimestampsFilter(Arrays.asList(5L)));
    scanAll("TimestampsFilter(5, canHint)", new TimestampsFilter(Arrays.asList(5L), true));
    scan("TimestampsFilter(10, 99)", new TimestampsFilter(Arrays.asList(10L, 99L)));
    scan("PrefixFilter(r1)", new PrefixFilter(b("r1")));
    scan("PageFilter(3)", new PageFilter(3));
    scan("KeyOnlyFilter", new KeyOnlyFilter());
    run("filter KeyOnlyFilter(lengthAsValue)", () -> {
      Transcript.scan(table, new Scan().setFilter(new KeyOnlyFilter(true)).setLimit(1), false);
    });
    scan("FirstKeyOnlyFilter", new FirstKeyOnlyFilter());
    scan("ColumnPrefixFilter(c3)", new ColumnPrefixFilter(b("c3")));
    scan("MultipleColumnPrefixFilter(c1, x)", new MultipleColumnPrefixFilter(
        new byte[][] {b("x"), b("c1")}));
    scan("ColumnRangeFilter(c1, c3 inclusive)", new ColumnRangeFilter(b("c1"), true, b("c3"),
        true));
    scan("ColumnRangeFilter(c1 exclusive, c3)", new ColumnRangeFilter(b("c1"), false, b("c3"),
        false));
    scan("QualifierFilter(>= c4)", new QualifierFilter(CompareOperator.GREATER_OR_EQUAL,
        new BinaryComparator(b("c4"))));
    scan("FamilyFilter(= g)", new FamilyFilter(CompareOperator.EQUAL, new BinaryComparator(G)));
    scan("RowFilter(regex r0[13])", new RowFilter(CompareOperator.EQUAL,
        new RegexStringComparator("r0[13]")));
    scan("ValueFilter(substring 11)", new ValueFilter(CompareOperator.EQUAL,
        new SubstringComparator("11")));
    scan("ValueFilter(prefix v10)", new ValueFilter(CompareOperator.EQUAL,
        new BinaryPrefixComparator(b("v10"))));
    scan("FilterList(MUST_PASS_ONE: row r01, value v23)", new FilterList(
        FilterList.Operator.MUST_PASS_ONE,
        new RowFilter(CompareOperator.EQUAL, new BinaryComparator(b("r01"))),
        new ValueFilter(CompareOperator.EQUAL, new BinaryComparator(b("v23")))));
    scan("FilterList(MUST_PASS_ALL: prefix r0, column c4)", new FilterList(
        new PrefixFilter(b("r0")), new ColumnPrefixFilter(b("c4"))));
    scan("FilterList(MUST_PASS_ALL: PageFilter(2), family g)", new FilterList(
        new PageFilter(2), new FamilyFilter(CompareOperator.EQUAL, new BinaryComparator(G))));
  }

  private static void rowRange() {
    List<MultiRowRangeFilter.RowRange> ranges = new ArrayList<>();
    ranges.add(new MultiRowRangeFilter.RowRange(b("r01"), true, b("r03"), false));
    ranges.add(new MultiRowRangeFilter.RowRange(b("r05"), false, b("r07"), true));
    ranges.add(new MultiRowRangeFilter.RowRange(b("r02"), true, b("r04"), false));
    run("filter MultiRowRangeFilter([r01,r03) (r05,r07] [r02,r04)), column c0", () ->
        Transcript.scan(table, new Scan().addColumn(F, b("c0"))
            .setFilter(new MultiRowRangeFilter(ranges)), false));
    run("filter MultiRowRangeFilter reversed, column c0", () ->
        Transcript.scan(table, new Scan().addColumn(F, b("c0")).setReversed(true)
            .setFilter(new MultiRowRangeFilter(ranges)), false));
  }
}
