#!/usr/bin/python3
"""check.py PLOT.svg POINTS.csv PEAK BW GHZ - the CSV and the plot of one
`npusim roofline` run against the formulas of docs/roofline.md, for a chip of
PEAK ops/s (the selected type's), BW DRAM bytes/s and a clock of GHZ.

Every CSV row: ops = 2 x macs, seconds = cycles / clock, intensity =
ops / DRAM bytes, sram_intensity = ops / scratchpad bytes, attained =
ops / seconds; a row that can be placed (ops and DRAM bytes > 0) has
roof = min(PEAK, intensity x BW), is memory bound exactly when
intensity x BW < PEAK, and roof_pct = attained / roof x 100; one that cannot
has no roof, bound or % (empty fields).  Numbers other than integers have 6
significant digits (relative 1e-5), roof_pct two decimals.

The plot, read back through its own axes (no knowledge of the drawing code
beyond docs/roofline.md):

  - the axes: the tick marks of the two log axes, read with their labels
    (1, 10, 1k; 10G, 1T: SI suffixes), give the mapping value -> pixel;
  - every CSV row k that can be placed (ops and DRAM bytes > 0) is point k
    (a group whose <title> starts "k: "): its filled marker (circle or
    diamond) sits at (intensity, attained ops/s) and, with scratchpad bytes,
    its hollow marker at (sram_intensity, the same height);
  - a row that cannot be placed has no marker;
  - the compute ceiling is a horizontal line at PEAK ops/s starting at the
    DRAM ridge (PEAK / BW ops per byte), where a ridge dot sits.

Coordinates are printed to 0.01 px; a marker is where it should be within
0.02 px.  Prints one line and exits 0, or names the first mismatch and
exits 1."""
import csv
import math
import re
import sys
import xml.dom.minidom

TOL = 0.02  # px: two decimals printed, plus the CSV's 6 significant digits
SI = {"": 1, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}


def num(s):
    m = re.fullmatch(r"([0-9.]+)([kMGTP]?)", s.strip())
    return float(m.group(1)) * SI[m.group(2)] if m else None


def fail(msg):
    print("check.py: " + msg)
    sys.exit(1)


def close(got, want, rel=1e-5):
    return abs(got - want) <= rel * abs(want)


def check_rows(rows, peak, bw, ghz):
    """The formulas of every CSV row (see the top)."""
    for k, r in enumerate(rows, 1):
        what = "row %d (%s %s)" % (k, r["file"], r["region"])
        macs, ops = int(r["macs"]), int(r["ops"])
        dram, sram = int(r["dram_bytes"]), int(r["sram_bytes"])
        sec = float(r["seconds"])
        if ops != 2 * macs:
            fail("%s: ops %d, 2 x macs %d" % (what, ops, 2 * macs))
        if not close(sec, int(r["cycles"]) / (ghz * 1e9)):
            fail("%s: seconds %s for %s cycles at %g GHz" % (what, r["seconds"], r["cycles"], ghz))
        for col, by in (("intensity", dram), ("sram_intensity", sram)):
            if by and not close(float(r[col]), ops / by):
                fail("%s: %s %s, ops / bytes %g" % (what, col, r[col], ops / by))
        if not close(float(r["attained_ops_per_s"]), ops / sec):
            fail("%s: attained %s, ops / seconds %g" % (what, r["attained_ops_per_s"], ops / sec))
        if ops <= 0 or dram <= 0:
            if r["roof_ops_per_s"] or r["bound"] or r["roof_pct"]:
                fail(what + ": a roof, bound or % for a point that cannot be placed")
            continue
        i = float(r["intensity"])
        roof = min(peak, i * bw)
        bound = "memory" if i * bw < peak else "compute"
        if not close(float(r["roof_ops_per_s"]), roof) or r["bound"] != bound:
            fail("%s: roof %s %s, want %g %s" % (what, r["roof_ops_per_s"], r["bound"], roof, bound))
        pct = 100 * float(r["attained_ops_per_s"]) / float(r["roof_ops_per_s"])
        if abs(float(r["roof_pct"]) - pct) > 0.006:
            fail("%s: roof_pct %s, attained / roof %.3f %%" % (what, r["roof_pct"], pct))


def axes(doc):
    """(x of value, y of value) from the tick marks: each tick label's
    <text> follows its tick <line> (vertical stroke: x axis); an axis's
    ticks all start on its edge of the frame, which tells them from a
    point label's leader line."""
    xt, yt = [], []
    for g in doc.getElementsByTagName("g"):
        line = None
        for el in g.childNodes:
            if el.nodeType != el.ELEMENT_NODE:
                continue
            if el.tagName == "line":
                line = el
            elif el.tagName == "text" and line is not None and el.firstChild:
                v = num(el.firstChild.data)
                a = {k: float(line.getAttribute(k)) for k in ("x1", "y1", "x2", "y2")}
                if v is not None and a["x1"] == a["x2"]:
                    xt.append((a["y1"], v, a["x1"]))
                elif v is not None and a["y1"] == a["y2"]:
                    yt.append((a["x1"], v, a["y1"]))
                line = None

    def edge(t):
        starts = [e for e, v, p in t]
        e = max(set(starts), key=starts.count) if t else None
        return sorted((v, p) for s, v, p in t if s == e)
    xt, yt = edge(xt), edge(yt)
    if len(xt) < 2 or len(yt) < 2:
        fail("no labelled ticks on both axes")

    def scale(t):
        (v0, p0), (v1, p1) = t[0], t[-1]
        return lambda v: p0 + (p1 - p0) * math.log10(v / v0) / math.log10(v1 / v0)
    return scale(xt), scale(yt)


def markers(g):
    """[(filled, x, y)] of a point's circles and diamonds (a diamond's path
    runs top, right, bottom, left: its centre is the top's x, the right's y)."""
    out = []
    for el in g.childNodes:
        if el.nodeType != el.ELEMENT_NODE:
            continue
        filled = el.getAttribute("fill") != "white"
        if el.tagName == "circle":
            out.append((filled, float(el.getAttribute("cx")), float(el.getAttribute("cy"))))
        elif el.tagName == "path":
            p = [float(v) for v in re.findall(r"-?[0-9.]+", el.getAttribute("d"))]
            out.append((filled, p[0], p[3]))
    return out


def near(a, b):
    return abs(a - b) <= TOL


def main():
    svg, path = sys.argv[1], sys.argv[2]
    peak, bw, ghz = float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
    rows = list(csv.DictReader(open(path, newline="")))
    check_rows(rows, peak, bw, ghz)
    doc = xml.dom.minidom.parse(svg)
    x, y = axes(doc)
    points = {}
    for g in doc.getElementsByTagName("g"):
        t = [el for el in g.childNodes if el.nodeType == el.ELEMENT_NODE and el.tagName == "title"]
        m = t and t[0].firstChild and re.match(r"([0-9]+): ", t[0].firstChild.data)
        if m:
            points[int(m.group(1))] = markers(g)
    placed = 0
    for k, r in enumerate(rows, 1):
        what = "point %d (%s %s)" % (k, r["file"], r["region"])
        if float(r["ops"]) <= 0 or float(r["dram_bytes"]) <= 0:
            if k in points:
                fail(what + ": placed without ops or DRAM bytes")
            continue
        if k not in points:
            fail(what + ": not on the plot")
        py = y(float(r["attained_ops_per_s"]))
        fx = [(mx, my) for f, mx, my in points[k] if f]
        if len(fx) != 1 or not near(fx[0][0], x(float(r["intensity"]))) or not near(fx[0][1], py):
            fail("%s: filled marker at %s, the CSV puts it at (%.2f, %.2f)"
                 % (what, fx, x(float(r["intensity"])), py))
        if float(r["sram_bytes"]) > 0:
            hx = [(mx, my) for f, mx, my in points[k] if not f]
            if len(hx) != 1 or not near(hx[0][0], x(float(r["sram_intensity"]))) or \
               not near(hx[0][1], py):
                fail("%s: hollow marker at %s, the CSV puts it at (%.2f, %.2f)"
                     % (what, hx, x(float(r["sram_intensity"])), py))
        placed += 1
    if len(points) != placed:
        fail("%d points on the plot, %d rows to place" % (len(points), placed))
    rx, ry = x(peak / bw), y(peak)
    lines = [el for el in doc.getElementsByTagName("line")
             if near(float(el.getAttribute("x1")), rx) and near(float(el.getAttribute("y1")), ry)
             and el.getAttribute("y1") == el.getAttribute("y2")]
    dots = [el for el in doc.getElementsByTagName("circle")
            if near(float(el.getAttribute("cx")), rx) and near(float(el.getAttribute("cy")), ry)]
    if not lines or not dots:
        fail("no compute ceiling from the DRAM ridge at (%.2f, %.2f)" % (rx, ry))
    print("%d rows by the formulas, %d points where they put them, the ceiling at the ridge"
          % (len(rows), placed))


main()
