/* SPDX-License-Identifier: BSD-3-Clause */
#include "input_file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int input_not_regular; /* the last hd_fopen_input's file was not regular: 1, or 2 for a directory */

FILE *hd_fopen_input(const char *path, const char *mode) {
  struct stat st;
  FILE *f;
  int fd, flags;
  input_not_regular = 0;
  /* without blocking: opening a FIFO for reading waits for a writer */
  if ((fd = open(path, O_RDONLY | O_NONBLOCK)) < 0) return NULL;
  if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (flags = fcntl(fd, F_GETFL)) < 0 ||
      fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0 || !(f = fdopen(fd, mode))) {
    input_not_regular = S_ISDIR(st.st_mode) ? 2 : !S_ISREG(st.st_mode);
    close(fd);
    errno = EINVAL;
    return NULL;
  }
  return f;
}

const char *hd_input_error(void) {
  return input_not_regular == 2 ? "a directory, not a file"
         : input_not_regular   ? "not a regular file (a FIFO or a device: only regular files are read)"
                               : strerror(errno);
}

long hd_read_line(FILE *f, char *buf, size_t n) {
  long len = 0;
  int c = EOF;
  while ((c = getc(f)) != EOF) {
    if ((size_t)len + 1 < n) buf[len] = (char)c;
    ++len;
    if (c == '\n') break;
  }
  buf[(size_t)len + 1 < n ? (size_t)len : n - 1] = '\0';
  return len == 0 && c == EOF ? -1 : len;
}

void hd_input_path(const char *name, const char *input, int from_input, char *out, size_t n) {
  const char *slash = input ? strrchr(input, '/') : NULL;
  if (name[0] == '/' || !from_input || !slash) snprintf(out, n, "%s", name);
  else snprintf(out, n, "%.*s/%s", (int)(slash - input), input, name);
}
