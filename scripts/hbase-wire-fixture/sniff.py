#!/usr/bin/env python3
"""Records the TCP payloads of every connection to the given server ports on the loopback
interface (a raw AF_PACKET socket: needs root), and writes each connection's two byte
streams as <out>/<nn>-<port>-c2s.bin and -s2c.bin when stopped with SIGTERM or SIGINT.

    sniff.py OUT_DIR PORT [PORT...]
"""
import os
import signal
import socket
import struct
import sys

out, ports = sys.argv[1], {int(p) for p in sys.argv[2:]}
os.makedirs(out, exist_ok=True)
sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.ntohs(0x0800))
sock.bind(("lo", 0))
sock.settimeout(0.2)
# (client port, server port, direction) -> {seq: payload}; first SYN seq per direction
segments, isn, order = {}, {}, []
running = True


def stop(*_):
    global running
    running = False


signal.signal(signal.SIGTERM, stop)
signal.signal(signal.SIGINT, stop)
while running:
    try:
        pkt = sock.recv(65535)
    except socket.timeout:
        continue
    ip = pkt[14:]
    if len(ip) < 20 or ip[0] >> 4 != 4 or ip[9] != 6:
        continue
    ihl = (ip[0] & 15) * 4
    total = struct.unpack("!H", ip[2:4])[0]
    tcp = ip[ihl:total]
    sport, dport, seq = struct.unpack("!HHI", tcp[:8])
    flags = tcp[13]
    data = tcp[(tcp[12] >> 4) * 4:]
    if dport in ports:
        key = (sport, dport, "c2s")
    elif sport in ports:
        key = (dport, sport, "s2c")
    else:
        continue
    if flags & 0x02:  # SYN: the stream starts at seq + 1
        isn[key] = (seq + 1) & 0xFFFFFFFF
        if key[2] == "c2s" and key[:2] not in order:
            order.append(key[:2])
        continue
    if data:
        segments.setdefault(key, {})[seq] = data

for n, (cport, sport) in enumerate(order):
    for d in ("c2s", "s2c"):
        key = (cport, sport, d)
        start = isn.get(key)
        segs = segments.get(key, {})
        buf = bytearray()
        if start is not None:
            for seq in sorted(segs, key=lambda s: (s - start) & 0xFFFFFFFF):
                off = (seq - start) & 0xFFFFFFFF
                if off > len(buf):
                    print(f"gap in {key} at {len(buf)}", file=sys.stderr)
                    break
                chunk = segs[seq]
                buf.extend(chunk[len(buf) - off:])
        with open(os.path.join(out, f"{n:02d}-{sport}-{d}.bin"), "wb") as f:
            f.write(buf)
