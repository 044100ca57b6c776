"""Runs the access matrix's data operations through happybase for the Rust test
(crates/cli/tests/acl_matrix/happybase.rs): one line in per case, "<op> <table>", one line
out: "allowed", "refused", "left_out" or "error <message>". Argument: the Thrift port."""
import sys

import happybase

SECRET = b"secret1"


def run(conn, op, name):
    t = conn.table(name)
    if op == "get":
        row = t.row(b"r", columns=[b"f:q"])
        return "allowed" if row.get(b"f:q") == SECRET else "left_out"
    if op == "scan":
        found = any(d.get(b"f:q") == SECRET for _, d in t.scan(columns=[b"f:q"]))
        return "allowed" if found else "left_out"
    if op == "put":
        t.put(b"w", {b"f:q": b"x"})
    elif op == "batch_put":
        with t.batch() as b:
            b.put(b"w", {b"f:q": b"y"})
            b.put(b"w2", {b"f:q": b"z"})
    elif op == "delete_column":
        t.delete(b"w", columns=[b"f:q"])
    elif op == "delete_row":
        t.delete(b"w")
    elif op == "increment":
        t.counter_inc(b"n", b"f:q")
    elif op == "list_tables":
        return "allowed" if name.encode() in conn.tables() else "left_out"
    else:
        raise ValueError("no happybase mapping for operation " + op)
    return "allowed"


def main():
    conn = happybase.Connection("127.0.0.1", port=int(sys.argv[1]), autoconnect=True)
    for line in sys.stdin:
        op, name = line.split()
        try:
            out = run(conn, op, name)
        except Exception as e:  # the gateway's IOError carries the server's message
            text = str(e)
            if "Insufficient permissions" in text or "AccessDenied" in text:
                out = "refused"
            else:
                out = "error " + text.replace("\n", " ")
            conn.close()
            conn = happybase.Connection("127.0.0.1", port=int(sys.argv[1]))
        print(out, flush=True)


main()
