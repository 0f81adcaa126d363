/* SPDX-License-Identifier: BSD-3-Clause */
/* Checkpoints shared by every time-stepping driver.
 *
 * File: a header, then the arrays, each with its own CRC-32 (the zlib
 * polynomial; tests check the standard vector):
 *   magic "HDCKPT\r\n", u32 format version, u32 0x01020304 (endianness),
 *   char driver[16], u32 real size, u32 array count,
 *   i64 dims[3], i64 step, f64 time, f64 dt,
 *   u64 FNV-1a hash of the parameter text, u32 its length, the text
 *   ("key=value;..." of everything a restart must match),
 *   (version 2) u32 series count, per series char name[32], u64 bytes,
 *   u32 CRC (the time series files as far as this step: drivers/common/
 *   series.h), u32 value count, per value char name[16], f64 (what the
 *   run derived at its start and must keep: an initial energy),
 *   u32 CRC of all of the header before it;
 *   per array: char name[16], u64 bytes, u32 CRC, the bytes.
 * Written atomically (hd_out: temporary file, fsync, rename, fsync of the
 * directory) as PREFIX.ckpt.STEP.  A reader refuses anything short,
 * corrupted, of another version, byte order, driver, precision, grid or
 * parameters, naming what differs; and what no CRC covers or a forged
 * header with new CRCs may hold: a negative step, a time that is not
 * step x dt, bytes after a name other than zeros. */
#ifndef HD_DRV_CHECKPOINT_H
#define HD_DRV_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HD_CKPT_VERSION 2 /* reads 1 too: no series, no values */
#define HD_CKPT_MAX_ARRAYS 96
#define HD_CKPT_MAX_PARAMS 4096
#define HD_CKPT_MAX_SERIES 8
#define HD_CKPT_MAX_VALUES 16

typedef struct hd_ckpt_array {
  char name[16];
  void *data;     /* host buffer */
  uint64_t bytes;
} hd_ckpt_array;

/* A time series file as far as the checkpoint's step: its first `bytes`
 * bytes, with this CRC-32. */
typedef struct hd_ckpt_series {
  char name[32]; /* the output's suffix, "_probes.csv" */
  uint64_t bytes;
  uint32_t crc;
} hd_ckpt_series;

typedef struct hd_ckpt_value {
  char name[16];
  double value;
} hd_ckpt_value;

typedef struct hd_ckpt {
  char driver[16];
  uint32_t real_size;
  int64_t dims[3];
  int64_t step;
  double time, dt;
  char params[HD_CKPT_MAX_PARAMS]; /* "key=value;key=value;..." */
  int narrays;
  hd_ckpt_array arrays[HD_CKPT_MAX_ARRAYS];
  int nseries, nvalues; /* what a read finds replaces these */
  hd_ckpt_series series[HD_CKPT_MAX_SERIES];
  hd_ckpt_value values[HD_CKPT_MAX_VALUES];
} hd_ckpt;

/* An entry of a list array (a boundary's points, a running DFT's), for
 * restarts on another rank count (drivers/common/driver.h): the row (y, z;
 * 2-D: z 0) its position lies on, whose owning block holds its true value,
 * and what tells the entries of that row apart (x, a component); id < 0:
 * nothing to restore. */
typedef struct hd_ckpt_key {
  int32_t y, z;
  int64_t id;
} hd_ckpt_key;

uint32_t hd_crc32(uint32_t crc, const void *data, size_t n);
uint64_t hd_fnv1a(const char *s);

/* Append "key=value;" to the parameter text (printf-style value). */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
void hd_ckpt_param(hd_ckpt *c, const char *key, const char *fmt, ...);

/* Set the value `name` (kept in every later checkpoint of c), or read it:
 * 1 when the checkpoint read holds it, else 0 (*v untouched). */
void hd_ckpt_set_value(hd_ckpt *c, const char *name, double v);
int hd_ckpt_get_value(const hd_ckpt *c, const char *name, double *v);

/* Write c as PREFIX.ckpt.STEP (12 digits); the path written goes to path.
 * 0, or -1 with a message (nothing half-written is left). */
int hd_ckpt_write(const hd_ckpt *c, const char *prefix, char *path, size_t pn, char *err, size_t n);

/* Remove all but the newest `keep` of the PREFIX.ckpt.NNNNNNNNNNNN files
 * a run may delete: those of the steps own[0..nown) (the ones it wrote)
 * and those at steps up to `upto` (the run it continues; -1: none).  An
 * earlier run's checkpoints in the same prefix are not its to delete. */
void hd_ckpt_prune(const char *prefix, int keep, const long *own, int nown, long upto);

/* Read `path` into the arrays of `want`, whose driver, real size, dims,
 * parameters and array names and sizes it must match; step, time and dt
 * come back in want.  An array of want with data NULL takes the file's
 * size, read into a malloc'd buffer left in want (the caller frees it,
 * also after a failure); want->narrays < 0 takes the file's arrays, names
 * and all, so; want->dims[0] < 0 any grid and an empty want->params any
 * parameters, both read into want.  0, or -1 with "path: what differs" in
 * err. */
int hd_ckpt_read(const char *path, hd_ckpt *want, char *err, size_t n);

#ifdef __cplusplus
}
#endif

#endif
