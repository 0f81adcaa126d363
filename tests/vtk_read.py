# SPDX-License-Identifier: BSD-3-Clause
# tests/vtk_read.sh's client: open every VTK-family file the drivers wrote
# (in the current directory) with VTK's own readers, as ParaView does, and
# check them against the run: bounds against the mesh, arrays' names,
# sizes and values against the summaries, .pvd times against the run's,
# pieces against the one-rank file.  TAP on stdout.
import math
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


def field(data, name):
    a = data.GetFieldData().GetAbstractArray(name)
    if a is None:
        return None
    if isinstance(a, vtk.vtkStringArray):
        return [a.GetValue(k) for k in range(a.GetNumberOfValues())]
    return [a.GetValue(k) for k in range(a.GetNumberOfTuples())]


def time_of(data):
    t = field(data, "TimeValue")
    return t[0] if t else None


def components(data, name):
    a = data.GetCellData().GetArray(name) or data.GetPointData().GetArray(name)
    return a.GetNumberOfComponents() if a is not None else 0


def names(g):
    return [g.GetCellData().GetArrayName(k) for k in range(g.GetCellData().GetNumberOfArrays())]


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
result(abs(time_of(img) - float(s["time"])) < 1e-12, "heat .vti: its TimeValue %s is the run's time %s" % (time_of(img), s["time"]))
frames = pvd("h.pvd")
good = len(frames) == 3 and [f for _, f in frames] == ["h_0000.vti", "h_0001.vti", "h_0002.vti"]
for time, f in frames:
    fr = read(vtk.vtkXMLImageDataReader, f)
    good = good and abs(time - time_of(fr)) < 1e-12 and close(fr.GetBounds(), img.GetBounds())
result(good and cell_array(read(vtk.vtkXMLImageDataReader, frames[-1][1]), "T") == t and
       abs(frames[-1][0] - float(s["time"])) < 1e-12,
       "heat --frames=2: the .pvd lists 3 frames at their TimeValues, the last the final field")
pieces = read(vtk.vtkXMLPImageDataReader, "hp.pvti")
tp = cell_array(pieces, "T")
result(tp is not None and close(pieces.GetBounds(), img.GetBounds()) and tp == t and time_of(pieces) == time_of(img),
       "heat --pieces: the .pvti opens with the .vti's bounds, values and time")
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
        p.GetVerts().GetNumberOfConnectivityIds() == 64 and p.GetPointData().GetArray("velocity") is not None and \
        abs(time_of(p) - time) < 1e-12
result(good, "N-body .pvd: 3 snapshots at steps 0, 5, 10 x dt (their TimeValues), each 64 points in one vertex cell "
       "with velocities")

# FDTD: a uniform mesh's .vti lies on the mesh (doc/examples/dipole.in), a graded one's .vtr too
img = read(vtk.vtkXMLImageDataReader, "d.vti")
result(close(img.GetBounds(), (-0.1, 0.1, -0.1, 0.1, -0.15, 0.15)),
       "FDTD uniform mesh: the .vti's bounds are the mesh's, %s" % (img.GetBounds(),))
sl = read(vtk.vtkXMLRectilinearGridReader, "d_slice.vtr")
b = sl.GetBounds()
result(close(b[:4], (-0.1, 0.1, -0.1, 0.1)) and -0.15 <= b[4] <= b[5] <= 0.15,
       "FDTD uniform mesh: the slice lies in the volume, %s" % (b,))
b = sl.GetBounds()
result(b[4] == b[5], "FDTD slice: a surface (z %g .. %g)" % (b[4], b[5]))
result(names(img) == ["E", "H", "E_magnitude", "material"] and components(img, "E") == 3 and components(img, "H") == 3 and
       img.GetCellData().GetArray("E").GetNumberOfTuples() == 40 * 40 * 60,
       "FDTD .vti: E and H as vectors, |E| and the materials over 40 x 40 x 60 cells (%s)" % " ".join(names(img)))
e, mag = img.GetCellData().GetArray("E"), img.GetCellData().GetArray("E_magnitude")
worst = max(abs(sum(e.GetComponent(k, c) ** 2 for c in range(3)) ** 0.5 - mag.GetValue(k)) for k in range(0, 96000, 7))
result(worst <= 1e-5 * mag.GetRange()[1] and mag.GetRange()[1] > 0, "FDTD .vti: E_magnitude is |E| (worst %.2g)" % worst)
s = summary("d.out")
result("E: V/m" in field(img, "units") and abs(time_of(img) - 6 * float(s["dt"])) < 1e-9 * 6 * float(s["dt"]),
       "FDTD .vti: units (%s) and TimeValue %s, the run's 6 dt" % (", ".join(field(img, "units")), time_of(img)))
frames = pvd("d.pvd")
result(len(frames) == 3 and all(abs(time - k * 3 * float(s["dt"])) < 1e-8 * 6 * float(s["dt"]) for k, (time, _) in enumerate(frames)) and
       cell_array(read(vtk.vtkXMLImageDataReader, frames[-1][1]), "E_magnitude") == cell_array(img, "E_magnitude"),
       "FDTD --frames=2: the .pvd lists 3 volumes at steps 0, 3, 6, the last the final one")
s = summary("df.out")
dft = read(vtk.vtkXMLImageDataReader, "df_dft1.vti")
result(field(dft, "frequency_Hz") == [1e9] and close(dft.GetBounds(), img.GetBounds()) and "Ez_amplitude" in names(dft),
       "FDTD nearvolume: _dft1.vti at the mesh, its frequency 1 GHz in its field data")
near = read(vtk.vtkXMLRectilinearGridReader, "df_near1.vtr")
b = near.GetBounds()
result(b[4] == b[5] and field(near, "frequency_Hz") == [1e9] and names(near) == ["Ez_amplitude_f1", "Ez_phase_deg_f1"],
       "FDTD nearfield: a surface whose arrays a Calculator takes (%s), the frequencies in its field data"
       % " ".join(names(near)))
far = read(vtk.vtkXMLStructuredGridReader, "df_farfield.vts")
d = far.GetPointData().GetArray("directivity_dBi_f1")
peak = float(s["farfield_1"].split("directivity ")[1].split()[0])
result(far.GetNumberOfPoints() == 13 * 13 and d is not None and abs(d.GetRange()[1] - peak) < 1e-3 and
       close(far.GetBounds(), (-1, 1, -1, 1, -1, 1), 1e-6),
       "FDTD far field .vts: the unit sphere's 13 x 13 points, its peak the summary's %g dBi" % peak)
vol = read(vtk.vtkXMLRectilinearGridReader, "f.vtr")
result(close(vol.GetBounds(), (-0.05, 0.05, -0.04, 0.04, -0.03, 0.03)),
       "FDTD graded mesh: the .vtr's bounds are the mesh's, %s" % (vol.GetBounds(),))
mat = set(cell_array(vol, "material"))
result(mat == {0, 2, 3, 4}, "FDTD .vtr: the materials of its box, sphere and cone (and vacuum) in the volume, %s" % sorted(mat))

# the cavity and compressible flow: node values as cells centred on the
# nodes of a surface, so the grid reaches half a cell (h / 2) past the domain

c = read(vtk.vtkXMLRectilinearGridReader, "c.vtr")
h = 1.0 / 16
result(close(c.GetBounds(), (-h / 2, 1 + h / 2, -h / 2, 1 + h / 2, 0, 0)) and c.GetNumberOfCells() == 17 * 17 and
       names(c) == ["psi", "omega", "velocity", "speed"] and components(c, "velocity") == 3,
       "cavity .vtr: a surface of the 17^2 nodes of the unit square, psi omega, the velocity vector, %s" % (c.GetBounds(),))
frames = pvd("c.pvd")
result(len(frames) == 3 and cell_array(read(vtk.vtkXMLRectilinearGridReader, frames[-1][1]), "psi") == cell_array(c, "psi"),
       "cavity --frames=2: the .pvd lists 3 frames, the last the final field")
s = summary("ns.out")
frames = pvd("ns.pvd")
good = len(frames) == 3 and abs(frames[-1][0] - float(s["time"])) < 1e-5 * float(s["time"])
for time, f in frames:
    g = read(vtk.vtkXMLRectilinearGridReader, f)
    good = good and close(g.GetBounds(), (-0.5 - h / 2, 0.5 + h / 2, -0.5 - h / 2, 0.5 + h / 2, 0, 0)) and \
        g.GetNumberOfCells() == 17 * 17 and names(g) == ["rho", "velocity", "p", "vorticity", "speed"] and \
        abs(time_of(g) - time) < 1e-7 * max(time, 1)
result(good, "compressible flow .pvd: 3 surfaces of rho, velocity, p, vorticity on the 17^2 nodes at their TimeValues, "
       "the last at the run's time %s" % s["time"])

s = summary("ns3.out")
frames = pvd("ns3.pvd")
h = 2 * math.pi / 8
good = len(frames) == 2 and abs(frames[-1][0] - float(s["time"])) < 1e-5 * float(s["time"])
for time, f in frames:
    g = read(vtk.vtkXMLRectilinearGridReader, f)
    good = good and close(g.GetBounds(), (-math.pi - h / 2, math.pi - h / 2) * 3, 1e-6) and g.GetNumberOfCells() == 8 ** 3 \
        and names(g) == ["rho", "velocity", "p", "vorticity"] and components(g, "vorticity") == 3 and \
        abs(time_of(g) - time) < 1e-7 * max(time, 1)
# the first frame is the Taylor-Green vortex: u = 0.1 sin x cos y cos z at the node of cell 1 + 8 (2 + 8 * 3)
u = cell_array(read(vtk.vtkXMLRectilinearGridReader, frames[0][1]), "velocity")
x, y, z = (-math.pi + k * h for k in (1, 2, 3))
good = good and abs(u[3 * (1 + 8 * (2 + 8 * 3))] - 0.1 * math.sin(x) * math.cos(y) * math.cos(z)) < 1e-12
result(good, "3-D compressible flow .pvd: 2 volumes of rho, velocity, p, vorticity (3-vectors) on the 8^3 nodes of the "
       "periodic box [-pi, pi)^3 at their TimeValues, the velocity the Taylor-Green vortex's at t = 0")

print("1..%d" % n)
sys.exit(1 if fails else 0)
