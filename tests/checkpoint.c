/* SPDX-License-Identifier: BSD-3-Clause */
/* The checkpoint file and the series it carries, below the drivers:
 * CRC-32's check value, a version-2 file written and read back with its
 * series records and values, a version-1 file (the layout before series)
 * still read, and a series published at a checkpoint and resumed from the
 * file: the same bytes, and a file of other content refused. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checkpoint.h"
#include "output.h"
#include "series.h"
#include "tap.h"

#define HEAD "<head>\nrow 1\nrow 2\n"
#define FOOT "</end>\n"

static char dir[] = "/tmp/hd-checkpoint-test.XXXXXX";

/* The template a run of 4 doubles would restart with. */
static void want_of(hd_ckpt *c, double *field) {
  memset(c, 0, sizeof *c);
  strcpy(c->driver, "hd-test");
  c->real_size = 8, c->dims[0] = 4, c->dims[1] = c->dims[2] = 1;
  hd_ckpt_param(c, "alpha", "%g", 2.0);
  c->narrays = 1;
  strcpy(c->arrays[0].name, "field");
  c->arrays[0].data = field, c->arrays[0].bytes = 4 * sizeof(double);
}

static size_t slurp(const char *path, char *buf, size_t cap) {
  FILE *f = fopen(path, "rb");
  size_t n = f ? fread(buf, 1, cap, f) : 0;
  if (f) fclose(f);
  return n;
}

/* A version-1 file, byte by byte as the earlier format laid it out. */
static int write_v1(const char *path, const hd_ckpt *c, const double *field) {
  FILE *f = fopen(path, "wb");
  const uint32_t version = 1, endian = 0x01020304u, narrays = 1, plen = (uint32_t)strlen(c->params);
  const uint64_t hash = hd_fnv1a(c->params), bytes = 4 * sizeof(double);
  unsigned char head[4096];
  size_t h = 0;
  uint32_t crc;
#define PUT(p, n) (memcpy(head + h, (p), (n)), h += (n))
  if (!f) return -1;
  PUT("HDCKPT\r\n", 8), PUT(&version, 4), PUT(&endian, 4), PUT(c->driver, 16), PUT(&c->real_size, 4);
  PUT(&narrays, 4), PUT(c->dims, 24), PUT(&c->step, 8), PUT(&c->time, 8), PUT(&c->dt, 8), PUT(&hash, 8);
  PUT(&plen, 4), PUT(c->params, plen);
#undef PUT
  crc = hd_crc32(0, head, h);
  fwrite(head, 1, h, f), fwrite(&crc, 4, 1, f);
  fwrite(c->arrays[0].name, 1, 16, f), fwrite(&bytes, 8, 1, f);
  crc = hd_crc32(0, field, (size_t)bytes);
  fwrite(&crc, 4, 1, f), fwrite(field, 1, (size_t)bytes, f);
  return fclose(f);
}

int main(void) {
  static hd_ckpt c, r;
  double field[4] = {1, 2, 3, 4}, back[4], v = 0;
  char err[1024], path[4200], p2[4200], partial[4300], buf[4096], prefix[4200];
  hd_out o, resumed;
  uint64_t bytes;
  uint32_t crc;
  size_t n;

  ok(hd_crc32(0, "123456789", 9) == 0xCBF43926u, "CRC-32 of '123456789' is the standard check value CBF43926");
  if (!mkdtemp(dir)) bail("no temporary directory");
  snprintf(prefix, sizeof prefix, "%s/run", dir);

  /* version 2: series records and values come back */
  want_of(&c, field);
  c.step = 20, c.time = 0.5, c.dt = 0.025;
  c.nseries = 1;
  strcpy(c.series[0].name, ".csv");
  c.series[0].bytes = 123, c.series[0].crc = 0xdeadbeefu;
  hd_ckpt_set_value(&c, "energy0", -0.25);
  hd_ckpt_set_value(&c, "energy0", -0.5); /* set again: replaced */
  ok(hd_ckpt_write(&c, prefix, path, sizeof path, err, sizeof err) == 0, "a version-2 checkpoint is written: %s", err);
  want_of(&r, back);
  ok(hd_ckpt_read(path, &r, err, sizeof err) == 0, "and read back: %s", err);
  ok(r.step == 20 && !memcmp(back, field, sizeof field) && r.nseries == 1 && !strcmp(r.series[0].name, ".csv") &&
         r.series[0].bytes == 123 && r.series[0].crc == 0xdeadbeefu,
     "step, array and series record as written");
  ok(r.nvalues == 1 && hd_ckpt_get_value(&r, "energy0", &v) && v == -0.5 && !hd_ckpt_get_value(&r, "none", &v),
     "the value set last, once; an unknown name is not found");

  /* version 1: no series, no values */
  snprintf(p2, sizeof p2, "%s/old.ckpt", dir);
  want_of(&c, field);
  c.step = 7;
  ok(write_v1(p2, &c, field) == 0, "a version-1 file is made");
  want_of(&r, back);
  memset(back, 0, sizeof back);
  ok(hd_ckpt_read(p2, &r, err, sizeof err) == 0 && r.step == 7 && !memcmp(back, field, sizeof field) && r.nseries == 0 &&
         r.nvalues == 0,
     "a version-1 checkpoint still loads, with no series and no values: %s", err);

  /* a series: published as far as a checkpoint, footer added; resumed */
  snprintf(path, sizeof path, "%s/run.pvd", dir);
  ok(hd_out_open(&o, path, err, sizeof err) == 0, "a series opens");
  o.footer = FOOT;
  fputs(HEAD, o.f);
  ok(hd_series_publish(&o, &bytes, &crc, err, sizeof err) == 0 && bytes == strlen(HEAD), "published at a checkpoint: %s", err);
  hd_series_partial(path, partial, sizeof partial);
  n = slurp(partial, buf, sizeof buf);
  ok(n == strlen(HEAD FOOT) && !memcmp(buf, HEAD FOOT, n) && access(path, F_OK) != 0,
     "run.pvd.partial holds the rows so far and the footer, run.pvd is not touched");
  fputs("row 3\n", o.f);
  ok(hd_out_commit(&o, err, sizeof err) == 0 && (n = slurp(path, buf, sizeof buf)) == strlen(HEAD "row 3\n" FOOT) &&
         !memcmp(buf, HEAD "row 3\n" FOOT, n),
     "the run goes on and commits: every row, the footer once");
  snprintf(p2, sizeof p2, "%s/again.pvd", dir);
  ok(hd_out_open(&resumed, p2, err, sizeof err) == 0 && hd_series_resume(&resumed, path, bytes, crc, err, sizeof err) == 0,
     "a restart resumes the series from the checkpoint's length: %s", err);
  resumed.footer = FOOT;
  fputs("row 3'\n", resumed.f);
  ok(hd_out_commit(&resumed, err, sizeof err) == 0 && (n = slurp(p2, buf, sizeof buf)) == strlen(HEAD "row 3'\n" FOOT) &&
         !memcmp(buf, HEAD "row 3'\n" FOOT, n),
     "the rows after the checkpoint are dropped, new ones follow");
  ok(hd_out_open(&resumed, p2, err, sizeof err) == 0 && hd_series_resume(&resumed, path, bytes, crc ^ 1, err, sizeof err) &&
         strstr(err, "is not the series the checkpoint recorded"),
     "another file's bytes are refused: %s", err);
  hd_out_abort(&resumed);
  ok(hd_out_open(&resumed, p2, err, sizeof err) == 0 && hd_series_resume(&resumed, path, 999, crc, err, sizeof err) &&
         strstr(err, "bytes, fewer than the 999"),
     "a file shorter than the record is refused: %s", err);
  hd_out_abort(&resumed);
  unlink(partial);
  ok(hd_out_open(&resumed, p2, err, sizeof err) == 0 && hd_series_resume(&resumed, path, bytes, crc, err, sizeof err) == 0,
     "without the .partial file, the finished series (which begins with the checkpoint's) resumes: %s", err);
  hd_out_abort(&resumed);
  {
    FILE *f = fopen(partial, "w");
    if (f) fputs("another run's rows, longer than the checkpoint's\n", f), fclose(f);
  }
  ok(hd_out_open(&resumed, p2, err, sizeof err) == 0 && hd_series_resume(&resumed, path, bytes, crc, err, sizeof err) == 0 &&
         hd_out_commit(&resumed, err, sizeof err) == 0 && (n = slurp(p2, buf, sizeof buf)) == strlen(HEAD) &&
         !memcmp(buf, HEAD, n),
     "another run's .partial file: the finished series resumes, none of the other's bytes: %s", err);

  snprintf(buf, sizeof buf, "rm -rf '%s'", dir);
  if (system(buf) != 0) printf("# could not remove %s\n", dir);
  return done_testing();
}
