/* SPDX-License-Identifier: BSD-3-Clause */
#include "prefix_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output.h"

static void lock_path(const char *prefix, char *path, size_t n) {
  char dir[4096];
  const char *slash = strrchr(prefix, '/');
  hd_dirname(prefix, dir, sizeof dir);
  snprintf(path, n, "%s/.%s.lock", dir, slash ? slash + 1 : prefix);
}

static int set_lock(int fd, short type) {
  struct flock l;
  memset(&l, 0, sizeof l);
  l.l_type = type, l.l_whence = SEEK_SET; /* the whole file */
  return fcntl(fd, F_SETLK, &l);
}

int hd_prefix_lock(const char *prefix, char *err, size_t n) {
  char path[4096 + 64], pid[32];
  int tries;
  lock_path(prefix, path, sizeof path);
  for (tries = 0; tries < 8; ++tries) {
    struct stat a, b;
    const int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return -2;
    if (set_lock(fd, F_WRLCK) != 0) {
      const int held = errno == EACCES || errno == EAGAIN;
      ssize_t got = held ? read(fd, pid, sizeof pid - 1) : 0;
      close(fd);
      if (!held) return -2;
      pid[got > 0 ? got : 0] = '\0';
      pid[strcspn(pid, "\n")] = '\0';
      return snprintf(err, n, "another run (process %s) writes the outputs of prefix '%.900s'; give this one another "
                      "--output, or wait for it", pid[0] ? pid : "unknown", prefix), -1;
    }
    /* the holder before us may have removed the file after we opened it */
    if (fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_ino == b.st_ino && a.st_dev == b.st_dev) {
      const int len = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
      if (ftruncate(fd, 0) != 0 || write(fd, pid, (size_t)len) != len) {
        /* the process number is for another run's message only */
      }
      return fd;
    }
    close(fd);
  }
  return -2; /* it keeps being replaced */
}

void hd_prefix_unlock(int fd, const char *prefix) {
  char path[4096 + 64];
  if (fd < 0) return;
  lock_path(prefix, path, sizeof path);
  unlink(path); /* while still held: a run that opened it now sees another file */
  close(fd);
}
