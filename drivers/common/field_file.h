/* SPDX-License-Identifier: BSD-3-Clause */
/* Cell fields read from files: the VTK ImageData (.vti) files the drivers
 * write (raw appended data, one value a cell), the parallel images (.pvti)
 * they write by pieces, and raw binary files with a stated type and shape.
 * A spec is "PATH.vti" or "PATH.pvti" (its first scalar cell array) or
 * "raw:TYPE:NX,NY[,NZ]:PATH" with TYPE u8, i32, f32 or f64, little-endian,
 * x fastest.  The shape must be the grid's; a block is read from the pieces
 * it overlaps, whatever the split that wrote them. */
#ifndef HD_DRV_FIELD_FILE_H
#define HD_DRV_FIELD_FILE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hd_field_file {
  char path[4096];
  int type;        /* HD_FF_* */
  int swap;        /* big-endian data */
  long n[3];       /* cells (of the file's block) */
  long lo[3];      /* the block's first cell in the image (0 but in a piece) */
  uint64_t offset; /* of the first value */
  int npieces;     /* a .pvti: its pieces */
  struct hd_field_file *pieces;
} hd_field_file;

enum { HD_FF_U8, HD_FF_I32, HD_FF_F32, HD_FF_F64 };

/* Parses spec, reads the file's header and checks its shape against the
 * grid's n[0..dim-1] and its size.  0, or -1 with "PATH: ..." in err. */
int hd_field_file_open(hd_field_file *f, const char *spec, int dim, const long n[3], char *err, size_t en);

/* The cells lo[d] .. lo[d] + cnt[d] - 1 as doubles, x fastest.  0, or -1. */
int hd_field_file_read(const hd_field_file *f, const long lo[3], const long cnt[3], double *out, char *err,
                       size_t en);

void hd_field_file_close(hd_field_file *f);

#ifdef __cplusplus
}
#endif

#endif
