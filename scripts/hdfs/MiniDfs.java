// Starts a MiniDFSCluster on 127.0.0.1 whose DataNodes have one volume per storage type, so
// storage policies can be checked on real block locations. MiniDFSClusterManager cannot set
// storage types (MiniDFSCluster overwrites dfs.datanode.data.dir), hence this launcher.
//
// Usage: MiniDfs <base dir> <namenode port> <http port> <datanodes> <ready file> [<replication>]
// Writes <ready file> once the cluster is up, then serves until killed.
//
// Fault injection: a file <ready file>.cmd holding "stop-datanode N" or "restart-datanode N"
// stops DataNode N (killing its block pipelines mid-write) or starts it again on the same
// ports with the same volumes; "stop-namenode 0" and "restart-namenode 0" do the same for the
// NameNode (same RPC and HTTP ports, same metadata directories; the restart waits until it has
// left safe mode); "safemode-enter 0" and "safemode-leave 0" put the NameNode in safe mode
// and take it out (as a restarted NameNode is until its DataNodes report). The launcher then renames the command to <ready file>.done (holding "ok" or
// the error), which is how scripts/hdfs.sh waits for it.
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import java.util.Map;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.MiniDFSCluster;

public class MiniDfs {
  public static void main(String[] args) throws Exception {
    File base = new File(args[0]);
    int nnPort = Integer.parseInt(args[1]);
    int httpPort = Integer.parseInt(args[2]);
    int dataNodes = Integer.parseInt(args[3]);
    File ready = new File(args[4]);
    int replication = args.length > 5 ? Integer.parseInt(args[5]) : 1;

    Configuration conf = new Configuration();
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, base.getAbsolutePath());
    conf.set("dfs.permissions.enabled", "false");
    conf.setInt("dfs.replication", replication);
    conf.setBoolean("dfs.storage.policy.enabled", true);
    conf.set("dfs.namenode.http-address", "127.0.0.1:" + httpPort);
    conf.set("dfs.namenode.rpc-bind-host", "127.0.0.1");
    conf.set("dfs.datanode.address", "127.0.0.1:0");
    conf.set("dfs.datanode.http.address", "127.0.0.1:0");
    conf.set("dfs.datanode.ipc.address", "127.0.0.1:0");
    // Lease recovery and dead-writer detection in seconds, not minutes.
    conf.setInt("dfs.heartbeat.interval", 1);
    conf.set("dfs.client.block.write.replace-datanode-on-failure.policy", "NEVER");
    // RAM_DISK replicas (LAZY_PERSIST) would need locked memory, which needs Hadoop's native
    // library; without it LAZY_PERSIST falls back to DISK, as HDFS documents.

    StorageType[][] types = new StorageType[dataNodes][];
    for (int i = 0; i < dataNodes; i++) {
      types[i] = new StorageType[] {
        StorageType.DISK, StorageType.SSD, StorageType.RAM_DISK, StorageType.ARCHIVE
      };
    }
    MiniDFSCluster cluster = new MiniDFSCluster.Builder(conf)
        .nameNodePort(nnPort)
        .nameNodeHttpPort(httpPort)
        .numDataNodes(dataNodes)
        .storagesPerDatanode(4)
        .storageTypes(types)
        .format(true)
        .build();
    cluster.waitActive();
    Files.write(ready.toPath(),
        ("{\"namenode_port\":" + cluster.getNameNodePort() + ",\"http_port\":" + httpPort + "}\n")
            .getBytes(StandardCharsets.UTF_8));
    Runtime.getRuntime().addShutdownHook(new Thread(cluster::shutdown));
    File cmd = new File(ready.getPath() + ".cmd");
    File done = new File(ready.getPath() + ".done");
    Map<Integer, MiniDFSCluster.DataNodeProperties> stopped = new HashMap<>();
    while (true) {
      Thread.sleep(100);
      if (!cmd.exists()) {
        continue;
      }
      String[] words = new String(Files.readAllBytes(cmd.toPath()), StandardCharsets.UTF_8)
          .trim().split("\\s+");
      String answer;
      try {
        int dn = Integer.parseInt(words[1]);
        if (words[0].equals("stop-datanode")) {
          MiniDFSCluster.DataNodeProperties props = cluster.stopDataNode(dn);
          if (props == null) {
            throw new IllegalArgumentException("no running DataNode " + dn);
          }
          stopped.put(dn, props);
        } else if (words[0].equals("restart-datanode")) {
          MiniDFSCluster.DataNodeProperties props = stopped.remove(dn);
          if (props == null) {
            throw new IllegalArgumentException("DataNode " + dn + " is not stopped");
          }
          // Same ports, so clients and the NameNode find it where it was.
          cluster.restartDataNode(props, true);
          cluster.waitActive();
        } else if (words[0].equals("stop-namenode")) {
          cluster.shutdownNameNode(dn);
        } else if (words[0].equals("restart-namenode")) {
          cluster.restartNameNode(dn, true);
          cluster.waitActive();
          cluster.getNameNodeRpc(dn).setSafeMode(
              org.apache.hadoop.hdfs.protocol.HdfsConstants.SafeModeAction.SAFEMODE_LEAVE, false);
        } else if (words[0].equals("safemode-enter") || words[0].equals("safemode-leave")) {
          cluster.getNameNodeRpc(dn).setSafeMode(words[0].equals("safemode-enter")
              ? org.apache.hadoop.hdfs.protocol.HdfsConstants.SafeModeAction.SAFEMODE_ENTER
              : org.apache.hadoop.hdfs.protocol.HdfsConstants.SafeModeAction.SAFEMODE_LEAVE,
              false);
        } else {
          throw new IllegalArgumentException("unknown command " + words[0]);
        }
        answer = "ok";
      } catch (Exception e) {
        answer = "error: " + e;
      }
      // The command is gone before the answer appears, so the next one is never deleted.
      Files.delete(cmd.toPath());
      File tmp = new File(done.getPath() + ".tmp");
      Files.write(tmp.toPath(), (answer + "\n").getBytes(StandardCharsets.UTF_8));
      Files.move(tmp.toPath(), done.toPath(), StandardCopyOption.ATOMIC_MOVE,
          StandardCopyOption.REPLACE_EXISTING);
    }
  }
}
