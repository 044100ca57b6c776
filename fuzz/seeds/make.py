#!/usr/bin/env python3
"""Writes the fuzz targets' first seeds into corpus/: well-formed HBase RPC connections (plain
and Kerberos, gets, puts with cell blocks, a multi, a scan with a filter) and real TLS
ClientHellos (with and without a client certificate's flight). Deterministic except the
ClientHellos' random fields. The fuzzer grows the corpus from these."""
import os, ssl, struct, sys

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "..", "corpus")

def varint(n):
    out = b""
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])

def field(num, value):
    """A protobuf field: int -> varint, bytes/str -> length-delimited."""
    if isinstance(value, int):
        return varint(num << 3) + varint(value)
    if isinstance(value, str):
        value = value.encode()
    return varint((num << 3) | 2) + varint(len(value)) + value

def frame(body):
    return struct.pack(">I", len(body)) + body

def delimited(msg):
    return varint(len(msg)) + msg

def keyvalue(row, family, qualifier, ts, typ, value):
    key = struct.pack(">H", len(row)) + row + bytes([len(family)]) + family + qualifier \
        + struct.pack(">qB", ts, typ)
    kv = struct.pack(">II", len(key), len(value)) + key + value
    return struct.pack(">I", len(kv)) + kv

REGION = field(1, 1) + field(2, b"usertable,,1700000000000.0123456789abcdef0123456789abcdef.")

def call(call_id, method, param, cells=b""):
    header = field(1, call_id) + field(3, method) + field(4, 1)
    if cells:
        header += field(5, field(1, len(cells)))
    return frame(delimited(header) + delimited(param) + cells)

def header(codec=True):
    h = field(1, field(1, "alice")) + field(2, "ClientService")
    if codec:
        h += field(3, "org.apache.hadoop.hbase.codec.KeyValueCodec")
    return frame(h)

def get(row):
    g = field(1, row) + field(2, field(1, b"family") + field(2, b"field0"))
    return field(1, REGION) + field(2, g)

def put_with_block(row):
    m = field(1, row) + field(2, 2) + field(8, 1)
    return field(1, REGION) + field(2, m), keyvalue(row, b"family", b"field0", 1700000000000, 4, b"v" * 16)

def put_inline(row):
    qv = field(1, b"q") + field(2, b"value")
    m = field(1, row) + field(2, 2) + field(3, field(1, b"family") + field(2, qv))
    return field(1, REGION) + field(2, m)

def multi():
    action1 = field(1, 0) + field(3, field(1, b"r1"))
    action2 = field(1, 1) + field(2, field(1, b"r2") + field(2, 3))
    ra = field(1, REGION) + field(3, action1) + field(3, action2)
    return field(1, ra)

def scan():
    flt = field(1, "org.apache.hadoop.hbase.filter.PrefixFilter") + field(2, field(1, b"user"))
    s = field(1, field(1, b"family")) + field(3, b"a") + field(4, b"z") + field(5, flt)
    return field(1, REGION) + field(2, s) + field(4, 100)

def write(target, name, data):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)

def hbase_rpc():
    simple = b"HBas\x00\x50"
    p, cells = put_with_block(b"user1")
    write("hbase_rpc_connection", "seed-get", simple + header() + call(1, "Get", get(b"user1")))
    write("hbase_rpc_connection", "seed-put-block",
          simple + header() + call(2, "Mutate", p, cells))
    write("hbase_rpc_connection", "seed-put-inline",
          simple + header(False) + call(3, "Mutate", put_inline(b"user2")))
    write("hbase_rpc_connection", "seed-multi", simple + header() + call(4, "Multi", multi()))
    write("hbase_rpc_connection", "seed-scan", simple + header() + call(5, "Scan", scan()))
    write("hbase_rpc_connection", "seed-registry", b"Regist")
    # A Kerberos client: the security preamble, then its preamble and a first SASL token
    # (an AP-REQ's opening bytes: GSSAPI's application tag and the Kerberos mechanism's OID).
    token = bytes.fromhex("6082020006092a864886f71201020201006e8201ef3082") + b"\x00" * 32
    write("hbase_rpc_connection", "seed-kerberos",
          b"Securi" + b"HBas\x00\x51" + struct.pack(">i", len(token)) + token
          + header() + call(1, "Get", get(b"user1")))

def client_hello(alpn):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    if alpn:
        ctx.set_alpn_protocols(alpn)
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    obj = ctx.wrap_bio(incoming, outgoing, server_hostname="127.0.0.1")
    try:
        obj.do_handshake()
    except ssl.SSLWantReadError:
        pass
    return outgoing.read()

def tls():
    write("tls_accept", "seed-client-hello", client_hello(None))
    write("tls_accept", "seed-client-hello-h2", client_hello(["h2"]))
    write("tls_accept", "seed-plaintext-hbase", b"HBas\x00\x50")
    write("tls_accept", "seed-http", b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")

if __name__ == "__main__":
    hbase_rpc()
    tls()
    print("seeds written to", os.path.normpath(CORPUS), file=sys.stderr)
