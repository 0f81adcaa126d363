# SPDX-License-Identifier: BSD-3-Clause
# Whether each PNG named on the command line carries a colour bar: a column
# right of the map whose pixels run, top to bottom, through one of the
# drivers' two colour maps (blue-white-red, viridis) from its high end to its
# low end.  Plain Python (zlib); TAP on stdout.
import struct
import sys
import zlib


def decode(path):
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype == 2, "not 8-bit RGB"
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw, stride, rows, prev = zlib.decompress(idat), 3 * w, [], bytearray(3 * w)
    for y in range(h):
        ft, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - 3] if i >= 3 else 0
            b, c = prev[i], prev[i - 3] if i >= 3 else 0
            if ft == 1:
                line[i] = (line[i] + a) & 255
            elif ft == 2:
                line[i] = (line[i] + b) & 255
            elif ft == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ft == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, rows


def colour(t, diverging):
    if diverging:
        d = 2 * t - 1
        return (int(255 * (1 + d)) if d < 0 else 255, int(255 * (1 - abs(d))), 255 if d <= 0 else int(255 * (1 - d)))
    vir = ((68, 1, 84), (59, 82, 139), (33, 145, 140), (94, 201, 98), (253, 231, 37))
    x = 4 * t
    k = 3 if x >= 4 else int(x)
    f = x - k
    return tuple(int(vir[k][c] + f * (vir[k + 1][c] - vir[k][c]) + 0.5) for c in range(3))


TABLES = [[colour(k / 255.0, d) for k in range(256)] for d in (True, False)]


def level(px, table):
    """The index of the nearest colour of the table, and its distance."""
    best = min(range(256), key=lambda k: sum((px[c] - table[k][c]) ** 2 for c in range(3)))
    return best, sum((px[c] - table[best][c]) ** 2 for c in range(3))


def has_bar(w, h, rows):
    for x in range(w - 1, w // 2, -1):
        col = [tuple(rows[y][3 * x:3 * x + 3]) for y in range(h)]
        tinted = [y for y in range(h) if col[y] != (255, 255, 255) and col[y] != (0, 0, 0)]
        if len(tinted) < 64:
            continue
        inside = list(range(tinted[0], tinted[-1] + 1))  # the diverging map's middle is white
        if any(col[y] == (0, 0, 0) for y in inside):
            continue
        for table in TABLES:
            seq = [level(col[y], table) for y in inside[::4]]
            if all(d <= 12 for _, d in seq) and seq[0][0] >= 250 and seq[-1][0] <= 5 and \
                    all(a[0] >= b[0] for a, b in zip(seq, seq[1:])):
                return True
    return False


n = fails = 0
for path in sys.argv[1:]:
    n += 1
    try:
        good = has_bar(*decode(path))
    except (OSError, AssertionError, zlib.error) as e:
        good = False
        print("# %s: %s" % (path, e))
    fails += not good
    print("%s %d - %s has its colour bar" % ("ok" if good else "not ok", n, path))
print("1..%d" % n)
sys.exit(1 if fails or n == 0 else 0)
