/* SPDX-License-Identifier: BSD-3-Clause */
/* hd/version.h - the release these headers are: configure.ac and
 * CMakeLists.txt read their version from here, so the three agree. */
#ifndef HD_VERSION_H
#define HD_VERSION_H

#define HD_VERSION_MAJOR 0
#define HD_VERSION_MINOR 1
#define HD_VERSION_PATCH 0

/* One number that orders releases: 10000 major + 100 minor + patch. */
#define HD_VERSION (HD_VERSION_MAJOR * 10000 + HD_VERSION_MINOR * 100 + HD_VERSION_PATCH)

#define HD_VERSION_STR_(x) #x
#define HD_VERSION_STR(x) HD_VERSION_STR_(x)
/* "0.1.0" */
#define HD_VERSION_STRING \
  HD_VERSION_STR(HD_VERSION_MAJOR) "." HD_VERSION_STR(HD_VERSION_MINOR) "." HD_VERSION_STR(HD_VERSION_PATCH)

#endif /* HD_VERSION_H */
