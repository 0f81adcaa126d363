# SPDX-License-Identifier: BSD-3-Clause
# tests/vtk_read.sh's client: open every VTK-family file the drivers wrote
# (in the current directory) with VTK's own readers, as ParaView does, and
# check them against the run: bounds against the mesh, arrays' names,
# sizes and values against the summaries, .pvd times against the run's,
# pieces against the one-rank file.  TAP on stdout.
import sys
import xml.etree.ElementTree as ET

import vtk

n = 0
fails = 0


def result(good, what):
    global n, fails
    n += 1
    if not good:
        fails += 1
    print(("ok" if good else "not ok") + " %d - %s" % (n, what))


def summary(path):
    keys = {}
    with open(path) as f:
        for line in f:
            if ": " in line:
                k, v = line.rstrip("\n").split(": ", 1)
                keys[k] = v
    return keys


def read(reader, path):
    r = reader()
    r.SetFileName(path)
    r.Update()
    return r.GetOutput()


def close(a, b, tol=1e-12):
    return all(abs(x - y) <= tol * max(1.0, abs(y)) for x, y in zip(a, b))


def cell_array(data, name):
    a = data.GetCellData().GetArray(name)
    if a is None:
        return None
    return [a.GetValue(k) for k in range(a.GetNumberOfTuples() * a.GetNumberOfComponents())]


def pvd(path):
    return [(float(d.get("timestep")), d.get("file")) for d in ET.parse(path).getroot().iter("DataSet")]


# heat, 2-D: the image over the unit square, T's cells and their mean as the summary says
s = summary("h.out")
img = read(vtk.vtkXMLImageDataReader, "h.vti")
t = cell_array(img, "T")
result(close(img.GetBounds(), (0, 1, 0, 1, 0, 0)), "heat 2-D .vti: bounds the unit square, %s" % (img.GetBounds(),))
result(t is not None and len(t) == 256 and abs(sum(t) / len(t) - float(s["mean"])) < 1e-12 and
       abs(min(t) - float(s["min"])) < 1e-12 and abs(max(t) - float(s["max"])) < 1e-12,
       "heat 2-D .vti: 16 x 16 cells of T whose mean, min and max are the summary's")
sp = img.GetSpacing()
result(abs(sp[2] - sp[0]) < 1e-15, "heat 2-D .vti: one cell thick as a cell is wide (spacing %s)" % (sp,))
pieces = read(vtk.vtkXMLPImageDataReader, "hp.pvti")
tp = cell_array(pieces, "T")
result(tp is not None and close(pieces.GetBounds(), img.GetBounds()) and tp == t,
       "heat --pieces: the .pvti opens with the .vti's bounds and values")
img3 = read(vtk.vtkXMLImageDataReader, "h3.vti")
result(close(img3.GetBounds(), (0, 1, 0, 1, 0, 1)) and len(cell_array(img3, "T")) == 8 * 8 * 8,
       "heat 3-D .vti: bounds the unit cube, 8^3 cells")

# N-body: every snapshot of the .pvd opens, at the run's times, its bodies in one vertex cell
s = summary("nb.out")
frames = pvd("nb.pvd")
dt = float(s["dt"])
good = len(frames) == 3
for (time, f), step in zip(frames, (0, 5, 10)):
    p = read(vtk.vtkXMLPolyDataReader, f)
    good = good and abs(time - step * dt) < 1e-12 and p.GetNumberOfPoints() == 64 and p.GetNumberOfVerts() == 1 and \
        p.GetVerts().GetNumberOfConnectivityIds() == 64 and p.GetPointData().GetArray("velocity") is not None
result(good, "N-body .pvd: 3 snapshots at steps 0, 5, 10 x dt, each 64 points in one vertex cell with velocities")

# FDTD: a uniform mesh's .vti lies on the mesh (doc/examples/dipole.in), a graded one's .vtr too
img = read(vtk.vtkXMLImageDataReader, "d.vti")
result(close(img.GetBounds(), (-0.1, 0.1, -0.1, 0.1, -0.15, 0.15)),
       "FDTD uniform mesh: the .vti's bounds are the mesh's, %s" % (img.GetBounds(),))
sl = read(vtk.vtkXMLRectilinearGridReader, "d_slice.vtr")
b = sl.GetBounds()
result(close(b[:4], (-0.1, 0.1, -0.1, 0.1)) and -0.15 <= b[4] <= b[5] <= 0.15,
       "FDTD uniform mesh: the slice lies in the volume, %s" % (b,))
names = [img.GetCellData().GetArrayName(k) for k in range(img.GetCellData().GetNumberOfArrays())]
result(all(c in names for c in ("Ex", "Ey", "Ez", "Hx", "Hy", "Hz")) and img.GetCellData().GetArray("Ez").GetNumberOfTuples() == 40 * 40 * 60,
       "FDTD .vti: the six components over 40 x 40 x 60 cells (%s)" % " ".join(names))
vol = read(vtk.vtkXMLRectilinearGridReader, "f.vtr")
result(close(vol.GetBounds(), (-0.05, 0.05, -0.04, 0.04, -0.03, 0.03)),
       "FDTD graded mesh: the .vtr's bounds are the mesh's, %s" % (vol.GetBounds(),))

# the cavity and compressible flow: node values as cells centred on the
# nodes, so the grid reaches half a cell (h / 2) past the domain


def names(g):
    return [g.GetCellData().GetArrayName(k) for k in range(g.GetCellData().GetNumberOfArrays())]


c = read(vtk.vtkXMLRectilinearGridReader, "c.vtr")
h = 1.0 / 16
result(close(c.GetBounds()[:4], (-h / 2, 1 + h / 2, -h / 2, 1 + h / 2)) and c.GetNumberOfCells() == 17 * 17 and
       names(c) == ["psi", "omega", "u", "v"],
       "cavity .vtr: the 17^2 nodes of the unit square, psi omega u v, %s" % (c.GetBounds(),))
s = summary("ns.out")
frames = pvd("ns.pvd")
good = len(frames) == 3 and abs(frames[-1][0] - float(s["time"])) < 1e-5 * float(s["time"])
for time, f in frames:
    g = read(vtk.vtkXMLRectilinearGridReader, f)
    good = good and close(g.GetBounds()[:4], (-0.5 - h / 2, 0.5 + h / 2, -0.5 - h / 2, 0.5 + h / 2)) and \
        g.GetNumberOfCells() == 17 * 17 and names(g) == ["rho", "u", "v", "p", "vorticity"]
result(good, "compressible flow .pvd: 3 frames of rho u v p vorticity on the 17^2 nodes, the last at the run's time %s" % s["time"])

print("1..%d" % n)
sys.exit(1 if fails else 0)
