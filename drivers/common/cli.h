/* SPDX-License-Identifier: BSD-3-Clause */
/* Strict options for the drivers: --key=value on the command line and
 * `key = value` lines in an input file (--input=FILE), one table for both.
 * Unknown keys name the closest valid key, duplicates and malformed or
 * out-of-range values are errors, command-line values override the file. */
#ifndef HD_DRV_CLI_H
#define HD_DRV_CLI_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  CLI_INT,    /* long */
  CLI_REAL,   /* double, finite */
  CLI_STRING, /* char buffer of cap bytes */
  CLI_CHOICE, /* int index into choices "a|b|c" */
  CLI_FLAG,   /* int 0/1; "--x" alone means 1; values yes/no/1/0/true/false */
  CLI_INTS,   /* up to cap longs, comma separated; *count gets the number */
  CLI_REALS,  /* up to cap doubles, comma separated */
  CLI_LIST,   /* repeatable: every occurrence appended to a cli_list */
  CLI_HEADING /* no option: --help's heading `help` over the rows after it */
} cli_type;

/* The values of a repeatable key, in order, with where each came from
 * (file:line, or "command line") for messages about them. */
typedef struct cli_list {
  int count, cap;
  char **value;
  char **where;
} cli_list;
void cli_list_free(cli_list *l);

/* A value's words, split in place on blanks and commas: their count (all of
 * them, though at most max are stored in w). */
int cli_words(char *s, char **w, int max);
/* A whole word as a finite number: 1, else 0 (junk, inf, nan, overflow). */
int cli_finite(const char *s, double *v);

/* A heading row of a table (name "", never matched). */
#define CLI_HEADING_ROW(text) {"", CLI_HEADING, NULL, NULL, text, 0, 0, 0, NULL, 0, 0, 0}

typedef struct cli_opt {
  const char *name;
  cli_type type;
  void *dst;
  const char *meta;    /* value placeholder for --help, or choices "a|b|c" */
  const char *help;
  double min, max;     /* inclusive range for numbers; min > max = no range */
  int cap;             /* STRING: buffer size; INTS/REALS: capacity */
  int *count;          /* INTS/REALS: how many were given */
  int cli_only;        /* not accepted in input files */
  int seen;            /* set by the parser: 0 default, 1 file, 2 command line */
  int line;            /* input-file line that set it */
} cli_opt;

/* The k-th name of choices "a|b|c" into buf (for summaries); returns buf. */
const char *cli_choice_name(const char *list, int k, char *buf, size_t n);

/* Parse argv (and the file named by the option "input", if the table has
 * one and it is given).  Returns CLI_OK, CLI_ERROR (message in err, without
 * the program name), or CLI_HELP / CLI_VERSION when those were asked for
 * (the caller prints them). */
enum { CLI_OK = 0, CLI_ERROR = -1, CLI_HELP = 1, CLI_VERSION = 2 };
int cli_parse(cli_opt *opts, int argc, char **argv, char *err, size_t errlen);

/* An input-file dialect (another program's format): a file whose first
 * line starts with `header` and then a blank or the line's end is
 * translated whole into `key = value` lines of the table before it is
 * read.  translate() returns 0 with the text in *out (malloc'd, '\n'
 * separated) and in (*line)[k] the file's line behind output line k + 1
 * (for messages), or -1 with "FILE:LINE: message" in err. */
typedef struct cli_dialect {
  const char *header;
  int (*translate)(const char *path, const char *text, char **out, int **line, char *err, size_t n);
} cli_dialect;
void cli_set_dialect(const cli_dialect *d);

/* Print --help text for the table. */
void cli_print_help(const cli_opt *opts, const char *prog, const char *summary);

/* The option entry named name, or NULL. */
cli_opt *cli_find(cli_opt *opts, const char *name);

#ifdef __cplusplus
}
#endif

#endif
