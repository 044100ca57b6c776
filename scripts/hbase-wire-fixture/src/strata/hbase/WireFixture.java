// The exchanges recorded as the HBase RPC wire fixture (scripts/hbase-wire-fixture.sh): a
// plain hbase-client 2.6 program against a real HBase server, finding it through the RPC
// registry as it finds Strata. It creates table `wirefix` (family `f`), puts two cells with
// explicit timestamps, gets one row, scans the table, and creates the table again (which the
// master answers with TableExistsException). The recorded bytes are decoded by
// crates/hbase-rpc/tests/hbase_fixture.rs with Strata's own codec.
package strata.hbase;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableExistsException;
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
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;

public class WireFixture {
  public static void main(String[] args) throws Exception {
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.client.registry.impl", "org.apache.hadoop.hbase.client.RpcConnectionRegistry");
    conf.set("hbase.client.bootstrap.servers", args[0]);
    conf.setInt("hbase.client.retries.number", 3);
    TableName name = TableName.valueOf("wirefix");
    byte[] f = Bytes.toBytes("f");
    byte[] q = Bytes.toBytes("q");
    TableDescriptor desc = TableDescriptorBuilder.newBuilder(name)
        .setColumnFamily(ColumnFamilyDescriptorBuilder.of(f)).build();
    try (Connection c = ConnectionFactory.createConnection(conf); Admin admin = c.getAdmin()) {
      if (admin.tableExists(name)) {
        admin.disableTable(name);
        admin.deleteTable(name);
      }
      admin.createTable(desc);
      try (Table t = c.getTable(name)) {
        t.put(new Put(Bytes.toBytes("row1")).addColumn(f, q, 1000L, Bytes.toBytes("value-1")));
        t.put(new Put(Bytes.toBytes("row2")).addColumn(f, q, 2000L, Bytes.toBytes("value-2")));
        Result r = t.get(new Get(Bytes.toBytes("row1")));
        System.out.println("get row1: " + Bytes.toString(r.getValue(f, q)));
        try (ResultScanner s = t.getScanner(new Scan())) {
          for (Result row : s) {
            for (Cell cell : row.rawCells()) {
              System.out.println("scan: " + Bytes.toString(CellUtil.cloneRow(cell)) + " "
                  + cell.getTimestamp() + " " + Bytes.toString(CellUtil.cloneValue(cell)));
            }
          }
        }
      }
      try {
        admin.createTable(desc);
        throw new IllegalStateException("second createTable succeeded");
      } catch (TableExistsException e) {
        System.out.println("second create: " + e.getClass().getName());
      }
    }
  }
}
