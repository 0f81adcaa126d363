#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# hd-cavity's contract with its user: good runs write the centreline CSV,
# the history, the fields and the streamline picture and say how close
# Ghia's tables are; bad input gives one line, exit status 2, and writes
# nothing.
set -u
. "${top_srcdir:-.}/tests/cli_lib.sh"
bin=$top/drivers/hd-cavity
parse_refusals n
refused_at_once --init-from=fifo.in --n=16

printf 'n = 32\nre = 100\nstedy = 1e-5\n' >typo.in
printf 'n = 32\nre = -5\n' >negre.in

bad 2 "typo.in:3: unknown key 'stedy' (did you mean 'steady'?)" --input=typo.in
bad 2 "negre.in:2: re: -5 is out of range" --input=negre.in
bad 2 "--n: 2 is out of range" --n=2
bad 2 "n: multigrid needs n = m 2^k with m <= 64; n = 130 coarsens only to 65" --n=130 --solver=mg
bad 2 "dt: 0.01 exceeds the stability limit 0.002" --n=64 --dt=0.01
bad 2 "tol: 1e-08 is below what single precision reaches on 256^2" --n=256 --precision=single --tol=1e-8
bad 2 "omega: only SOR takes a relaxation factor" --omega=1.5 --solver=mg
bad 2 "--omega: 2.5 is out of range" --solver=sor --omega=2.5
bad 2 "--solver: 'cg' is not one of sor|mg|fft|auto" --solver=cg
bad 2 "steady: 1e-12 is below the rounding of w per unit time" --steady=1e-12
bad 2 "grid too large for memory" --n=1048576 --solver=sor
bad 2 "--local-dt: 1.5 is out of range" --local-dt=1.5
bad 2 "--local-dt: 0 is out of range" --local-dt=0
if [ -z "${FFTW_LIBS:-}" ]; then
  bad 2 "solver: fft on CPUs needs FFTW3, which configure did not find" --solver=fft --n=16
fi
bad 2 "cannot write" --output=/nonexistent/dir/out --n=16

# good runs
clean_dir
run --n=32 --re=100
result $([ "$(cat rc)" -eq 0 ] && [ "$(wc -l <out_centreline.csv)" -eq 34 ] &&
  head -n 1 out_centreline.csv | grep -q '^s,u_at_x_half,v_at_y_half$' &&
  head -n 1 out_history.csv | grep -q '^step,time,change,poisson_iterations,poisson_residual$' &&
  grep -q RectilinearGrid out.vtr && grep -q '^steady: yes$' stdout && echo 0 || echo 1) \
  "a Re = 100 run reaches the steady state and writes the centrelines, history and fields"
picture_made out_psi.png
result $? "the streamline picture is a PNG named in the summary (or it says why there is none)"
if grep -q '^#define HD_HAVE_PNG' "$config_h"; then
  head -c 8 out_centrelines.png | od -An -c | grep -q 'P   N   G' && grep -q '^plot: out_centrelines.png$' stdout
else
  [ ! -e out_centrelines.png ] && grep -q '^plot: none (this build has no PNG output' stdout
fi
result $? "the centrelines against Ghia's stations as a PNG named on a plot: line (or why there is none)"
du=$(sed -n 's/^ghia_max_du: //p' stdout)
result $(awk -v d="${du:-9}" 'BEGIN { exit !(d < 0.012) }' && grep -q '^psi_min: -0.10' stdout && echo 0 || echo 1) \
  "the summary compares with Ghia et al. (max du $du) and gives the primary vortex"
clean_dir
run --n=32 --re=2500 --steps=10 --steady=0 --png=no
result $([ "$(cat rc)" -eq 0 ] && [ "$(grep -c '^erturk_' stdout)" -eq 6 ] && grep -q '^v_max: ' stdout &&
  ! grep -q '^ghia_' stdout && echo 0 || echo 1) \
  "at Re = 2500 the summary compares with Erturk et al.'s tables alone (Ghia's have no Re = 2500)"
clean_dir
run --n=32 --re=10000 --steps=10 --steady=0 --png=no
result $([ "$(cat rc)" -eq 0 ] && [ "$(grep -c '^erturk_' stdout)" -eq 6 ] && [ "$(grep -c '^ghia_' stdout)" -eq 6 ] &&
  [ "$(grep -c '^u_min: ' stdout)" -eq 1 ] && grep -q '^erturk_v_min: -0.57120$' stdout && echo 0 || echo 1) \
  "at Re = 10000 the summary compares with both tables (Erturk et al.'s v_min -0.5712), the extrema once"

clean_dir
run --n=30 --re=100 --solver=sor --steps=200 --steady=0
result $([ "$(cat rc)" -eq 0 ] && grep -q '^steps: 200$' stdout && grep -q '^solver: sor$' stdout && echo 0 || echo 1) \
  "SOR on a grid that is not a power of two; --steady=0 runs every step"

# auto: FFT on a CPU built with FFTW3, else multigrid where n coarsens, else SOR
clean_dir
run --n=32 --re=100 --steps=10 --steady=0 --png=no
want=mg
[ -n "${FFTW_LIBS:-}" ] && want=fft
result $([ "$(cat rc)" -eq 0 ] && grep -q "^solver: $want\$" stdout && echo 0 || echo 1) "--solver=auto takes $want here"
clean_dir
run --n=30 --re=100 --steps=10 --steady=0 --png=no --omega=1.5
result $([ "$(cat rc)" -eq 0 ] && grep -q '^solver: sor$' stdout && echo 0 || echo 1) "--solver=auto with --omega takes SOR"

# local pseudo-time steps: the same steady state in fewer steps
clean_dir
run --n=32 --re=400 --steady=1e-6 --png=no
mv stdout global.txt
run --n=32 --re=400 --steady=1e-6 --png=no --local-dt=0.9
g=$(sed -n 's/^steps: //p' global.txt) l=$(sed -n 's/^steps: //p' stdout)
pg=$(sed -n 's/^psi_min: //p' global.txt) pl=$(sed -n 's/^psi_min: //p' stdout)
result $([ "$(cat rc)" -eq 0 ] && grep -q '^steady: yes$' stdout &&
  awk -v g="${g:-0}" -v l="${l:-0}" -v a="${pg:-1}" -v b="${pl:-9}" 'BEGIN { d = a - b; exit !(2 * l < g && d * d < 1e-10) }' &&
  echo 0 || echo 1) "--local-dt=0.9: steady at Re = 400 in $l steps against $g, psi_min $pl against $pg"

# selective frequency damping: the same steady state (in more steps); its
# filtered vorticity travels in the checkpoint, so a restart continues it
clean_dir
run --n=32 --re=400 --steady=1e-6 --png=no --sfd=0.5,2
ps=$(sed -n 's/^psi_min: //p' stdout)
result $([ "$(cat rc)" -eq 0 ] && grep -q '^steady: yes$' stdout && grep -q '^sfd_chi: 0.5$' stdout &&
  awk -v a="${pg:-1}" -v b="${ps:-9}" 'BEGIN { d = a - b; exit !(d * d < 1e-10) }' && echo 0 || echo 1) \
  "--sfd=0.5,2: steady at Re = 400 with psi_min $ps against $pg"
clean_dir
run --n=32 --re=400 --steps=300 --steady=0 --monitor-every=50 --png=no --sfd=0.5,2 --output=s
run --n=32 --re=400 --steps=300 --steady=0 --monitor-every=50 --png=no --sfd=0.5,2 --output=h --checkpoint-every=130
run --n=32 --re=400 --steps=300 --steady=0 --monitor-every=50 --png=no --sfd=0.5,2 --output=a --restart=h.ckpt.000000000130
result $([ "$(cat rc)" -eq 0 ] && cmp -s s.vtr a.vtr && cmp -s s_history.csv a_history.csv && echo 0 || echo 1) \
  "--sfd: 130 steps + checkpoint + restart + 170 give the fields and history of 300 straight"
run --n=32 --re=400 --steps=300 --steady=0 --png=no --output=x --restart=h.ckpt.000000000130
result $([ "$(cat rc)" -eq 2 ] && grep -q "sfd" stderr && [ ! -e x.vtr ] && echo 0 || echo 1) \
  "a checkpoint with damping restarted without it: refused, naming the parameter"
# --init-from on the same grid: the checkpoint's flow, damping included, at
# step 0, so 170 more steps give the fields of 300 straight
run --n=32 --re=400 --steps=170 --steady=0 --monitor-every=50 --png=no --sfd=0.5,2 --output=g --init-from=h.ckpt.000000000130
result $([ "$(cat rc)" -eq 0 ] && same_values s.vtr g.vtr && echo 0 || echo 1) \
  "--init-from on the same grid: 130 steps, then 170 from their checkpoint, give the fields of 300 straight"
run --n=32 --re=500 --steps=10 --png=no --output=x --init-from=h.ckpt.000000000130
result $([ "$(cat rc)" -eq 2 ] && grep -q "init-from: h.ckpt.000000000130 is of another flow" stderr && [ ! -e x.vtr ] && echo 0 || echo 1) \
  "--init-from a checkpoint of another Reynolds number: refused (exit 2), nothing written"
run --n=32 --re=400 --steps=300 --png=no --sfd=0.5,2 --output=x --init-from=h.ckpt.000000000130 --restart=h.ckpt.000000000130
result $([ "$(cat rc)" -eq 2 ] && grep -q "init-from: not with --restart" stderr && [ ! -e x.vtr ] && echo 0 || echo 1) \
  "--init-from with --restart: refused (exit 2), nothing written"
rm -f s.* s_* h.* h_* a.* a_* x.* x_* g.* g_*
# grid sequencing: 64^2 from the last checkpoint of a 32^2 run to steady
# reaches the steady state of 64^2 from rest, in fewer steps
run --n=32 --re=400 --steady=1e-6 --png=no --output=c --checkpoint-every=2000
coarse=$(ls c.ckpt.* 2>/dev/null | tail -n 1)
run --n=64 --re=400 --steady=1e-6 --png=no --output=r
mv stdout rest.txt
run --n=64 --re=400 --steady=1e-6 --png=no --output=f --init-from="$coarse"
r=$(sed -n 's/^steps: //p' rest.txt) f=$(sed -n 's/^steps: //p' stdout)
pr=$(sed -n 's/^psi_min: //p' rest.txt) pf=$(sed -n 's/^psi_min: //p' stdout)
result $([ "$(cat rc)" -eq 0 ] && grep -q '^steady: yes$' stdout &&
  awk -v r="${r:-0}" -v f="${f:-0}" -v a="${pr:-1}" -v b="${pf:-9}" 'BEGIN { d = a - b; exit !(f < r && d * d < 1e-10) }' &&
  echo 0 || echo 1) "--init-from a 32^2 checkpoint: 64^2 steady at Re = 400 in $f steps against $r from rest, psi_min $pf against $pr"
rm -f c.* c_* r.* r_* f.* f_* rest.txt
bad 2 "sfd: '1' is not CHI,DELTA (both > 0)" --sfd=1
bad 2 "sfd: the step 0.001 needs chi <= 1000 and delta >= 0.001" --n=32 --sfd=2000,1

# --pieces on one rank: the fields as PREFIX_p0.vtr (the .vtr byte for
# byte) and the index PREFIX.pvtr; the rest as without, no picture
run --n=32 --re=100 --steps=200 --steady=0 --png=no --output=w
mv stdout whole.txt
run --n=32 --re=100 --steps=200 --steady=0 --pieces --output=pc
result $([ "$(cat rc)" -eq 0 ] && [ ! -f pc.vtr ] && [ ! -f pc_psi.png ] && cmp -s w.vtr pc_p0.vtr &&
  grep -q 'Piece Extent="0 33 0 33 0 0" Source="pc_p0.vtr"' pc.pvtr && cmp -s w_centreline.csv pc_centreline.csv &&
  grep -q '^picture: none (--pieces' stdout && [ "$(grep '^psi_min' stdout)" = "$(grep '^psi_min' whole.txt)" ] &&
  { [ -s pc_centrelines.png ] || ! grep -q '^#define HD_HAVE_PNG' "$config_h"; } &&
  echo 0 || echo 1) "--pieces on one rank: PREFIX_p0.vtr (the .vtr byte for byte), the index PREFIX.pvtr, the same centrelines, vortex and centreline plot"
rm -f w.* w_* pc.* pc_* whole.txt

clean_dir
run --bench --n=32
result $([ "$(cat rc)" -eq 0 ] && grep -q '^sor_sweep_fraction_of_copy: ' stdout &&
  grep -q '^mg_speedup_over_sor: ' stdout && nothing_written && echo 0 || echo 1) \
  "--bench prints the sweep bandwidth and both solvers' times and writes nothing"

# single precision on 64^2: SOR stalls at 3.7e-4 of max|f|, above 3e-4 (the floor is 2.4e-4)
clean_dir
run --bench --n=64 --precision=single --tol=3e-4 --backend=serial
result $([ "$(cat rc)" -eq 0 ] && grep -q '^mg_speedup_over_sor: none (SOR stalled at ' stdout &&
  grep -q '^mg_solve_cycles: ' stdout && nothing_written && echo 0 || echo 1) \
  "--bench where SOR cannot reach the tolerance: says so and measures the other solvers (exit 0)"

finish
