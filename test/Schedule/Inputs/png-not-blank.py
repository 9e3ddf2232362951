"""png-not-blank.py PNG MIN-COLOURS: prints how many pixels of an 8-bit RGB
or RGBA PNG are not white and how many colours it has, and exits 1 when
fewer than 1% are drawn or fewer than MIN-COLOURS colours (a blank or a
one-colour picture). The standard library only: it unfilters the rows
itself."""
import struct
import sys
import zlib


def pixels(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit("%s: not a PNG" % path)
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour = header[:4]
    if depth != 8 or colour not in (2, 6):
        sys.exit("%s: %d-bit colour type %d, not 8-bit RGB or RGBA" % (path, depth, colour))
    step = 3 if colour == 2 else 4
    raw, stride, rows, above = zlib.decompress(idat), width * step, [], bytearray(width * step)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - step] if i >= step else 0
            up, corner = above[i], above[i - step] if i >= step else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
        rows.append(line)
        above = line
    return [bytes(row[i:i + 3]) for row in rows for i in range(0, stride, step)]


def main():
    path, wanted = sys.argv[1], int(sys.argv[2])
    every = pixels(path)
    drawn = sum(1 for p in every if p != b"\xff\xff\xff")
    colours = len(set(every))
    print("%d of %d pixels drawn, %d colours" % (drawn, len(every), colours))
    return 0 if drawn * 100 >= len(every) and colours >= wanted else 1


if __name__ == "__main__":
    sys.exit(main())
