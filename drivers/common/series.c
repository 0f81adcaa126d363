/* SPDX-License-Identifier: BSD-3-Clause */
#include "series.h"
#include "input_file.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "checkpoint.h"

/* Copy `bytes` bytes of `in` to `out` (NULL: only read), CRC-32 to *crc;
 * returns the bytes read. */
static uint64_t copy(FILE *in, hd_out *out, uint64_t bytes, uint32_t *crc, int *write_failed) {
  unsigned char buf[1 << 16];
  uint64_t done = 0;
  *crc = 0;
  while (done < bytes) {
    const size_t want = bytes - done < sizeof buf ? (size_t)(bytes - done) : sizeof buf;
    const size_t got = fread(buf, 1, want, in);
    if (got == 0) break;
    *crc = hd_crc32(*crc, buf, got);
    if (out && hd_out_write(out, buf, got)) *write_failed = 1;
    done += got;
  }
  return done;
}

void hd_series_partial(const char *target, char *path, size_t n) { snprintf(path, n, "%s.partial", target); }

int hd_series_publish(hd_out *o, uint64_t *bytes, uint32_t *crc, char *err, size_t n) {
  char partial[sizeof o->path + 16];
  hd_out p;
  FILE *in;
  long long end;
  int bad = 0;
  *bytes = 0, *crc = 0;
  if (!o->f || !o->tmp[0]) return 0; /* not open here, or a discarding sink */
  if (fflush(o->f) != 0 || (end = ftello(o->f)) < 0)
    return snprintf(err, n, "cannot write '%.900s': %s", o->tmp, strerror(errno)), -1;
  if (!(in = fopen(o->tmp, "rb")))
    return snprintf(err, n, "cannot read back '%.900s': %s", o->tmp, strerror(errno)), -1;
  hd_series_partial(o->path, partial, sizeof partial);
  if (hd_out_open(&p, partial, err, n)) {
    fclose(in);
    return -1;
  }
  if (copy(in, &p, (uint64_t)end, crc, &bad) != (uint64_t)end || bad ||
      (o->footer && hd_out_write(&p, o->footer, strlen(o->footer)))) {
    snprintf(err, n, "cannot publish '%.900s': %s", partial, strerror(errno));
    fclose(in);
    hd_out_abort(&p);
    return -1;
  }
  fclose(in);
  *bytes = (uint64_t)end;
  return hd_out_commit(&p, err, n);
}

/* The first `bytes` bytes of `from` into o: 0, 1 (no such file), or -1,
 * each with a message. */
static int resume_from(hd_out *o, const char *from, uint64_t bytes, uint32_t crc, char *err, size_t n) {
  FILE *in = hd_fopen_input(from, "rb");
  uint32_t got_crc;
  uint64_t got;
  int bad = 0;
  if (!in) {
    snprintf(err, n, "'%.900s', the series up to the checkpoint, cannot be read: %s", from, hd_input_error());
    return errno == ENOENT ? 1 : -1;
  }
  got = copy(in, o, bytes, &got_crc, &bad);
  fclose(in);
  if (bad) return snprintf(err, n, "cannot write '%.900s': %s", o->tmp, strerror(errno)), -1;
  if (got < bytes)
    return snprintf(err, n, "'%.900s' holds %llu bytes, fewer than the %llu of the series the checkpoint recorded", from,
                    (unsigned long long)got, (unsigned long long)bytes), -1;
  if (got_crc != crc)
    return snprintf(err, n, "'%.900s' is not the series the checkpoint recorded (its first %llu bytes differ: another "
                    "run's file, or edited)", from, (unsigned long long)bytes), -1;
  return 0;
}

int hd_series_resume(hd_out *o, const char *from, uint64_t bytes, uint32_t crc, char *err, size_t n) {
  char partial[4096 + 16], why[2048];
  int rc;
  hd_series_partial(from, partial, sizeof partial);
  if ((rc = resume_from(o, partial, bytes, crc, why, sizeof why)) == 0) return 0;
  /* a finished run's series, or one written before .partial files */
  if (hd_out_rewind(o, err, n)) return -1;
  if (resume_from(o, from, bytes, crc, err, n) == 0) return 0;
  if (rc < 0) snprintf(err, n, "%s", why); /* the .partial file's fault is the one to name */
  return -1;
}
