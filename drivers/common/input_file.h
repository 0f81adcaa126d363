/* SPDX-License-Identifier: BSD-3-Clause */
/* Input files as the drivers read them: regular files only, opened without
 * blocking, lines read with their NUL bytes seen.  Its own file so that the
 * fuzzing harnesses link it alone. */
#ifndef HD_DRV_INPUT_FILE_H
#define HD_DRV_INPUT_FILE_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An input file opened for reading (mode "r" or "rb") if it is a regular
 * file: a FIFO, a device (/dev/zero) or a directory would block or never
 * end, so they are refused at once.  NULL on failure; hd_input_error()
 * then says why (strerror(errno), or that it is not a regular file). */
FILE *hd_fopen_input(const char *path, const char *mode);
const char *hd_input_error(void);

/* A line of f into buf (at most n - 1 bytes kept, NUL-terminated, the
 * newline kept): the line's whole length, which exceeds strlen(buf) when
 * it held a NUL byte or did not fit; -1 at the end of the file. */
long hd_read_line(FILE *f, char *buf, size_t n);

/* The file a key names (a waveform's samples): as given when absolute or
 * from the command line (from_input 0), else beside the input file that
 * named it. */
void hd_input_path(const char *name, const char *input, int from_input, char *out, size_t n);

#ifdef __cplusplus
}
#endif

#endif
