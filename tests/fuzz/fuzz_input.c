/* SPDX-License-Identifier: BSD-3-Clause */
/* The input-file parser (drivers/common/cli.c) on arbitrary bytes, with a
 * table holding every option type. */
#include <string.h>

#include "cli.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  long n = 0, ints[3];
  double x = 0, reals[4];
  char name[32], input[4096];
  int choice = 0, flag = 0, nints = 0, nreals = 0;
  cli_list list;
  char err[512], arg[4200];
  char *argv[3];
  cli_opt opts[] = {
      {"input", CLI_STRING, input, "FILE", "input", 1, 0, sizeof input, NULL, 1, 0, 0},
      {"n", CLI_INT, &n, "N", "an integer", 1, 1e12, 0, NULL, 0, 0, 0},
      {"x", CLI_REAL, &x, "X", "a real", -1e300, 1e300, 0, NULL, 0, 0, 0},
      {"name", CLI_STRING, name, "S", "a string", 1, 0, sizeof name, NULL, 0, 0, 0},
      {"kind", CLI_CHOICE, &choice, "one|two|three", "a choice", 1, 0, 0, NULL, 0, 0, 0},
      {"flag", CLI_FLAG, &flag, NULL, "a flag", 1, 0, 0, NULL, 0, 0, 0},
      {"ints", CLI_INTS, ints, "A,B,C", "integers", 0, 1e9, 3, &nints, 0, 0, 0},
      {"reals", CLI_REALS, reals, "A,B", "reals", 1, 0, 4, &nreals, 0, 0, 0},
      {"item", CLI_LIST, &list, "ANY", "a list", 1, 0, 0, NULL, 0, 0, 0},
      {NULL, CLI_INT, NULL, NULL, NULL, 0, 0, 0, NULL, 0, 0, 0}};
  memset(&list, 0, sizeof list);
  input[0] = name[0] = '\0';
  snprintf(arg, sizeof arg, "--input=%s", fuzz_file(data, size));
  argv[0] = (char *)"fuzz", argv[1] = arg, argv[2] = NULL;
  (void)cli_parse(opts, 2, argv, err, sizeof err);
  cli_list_free(&list);
  return 0;
}
