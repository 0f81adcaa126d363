/* SPDX-License-Identifier: BSD-3-Clause */
#include "cli.h"
#include "input_file.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CLI_MAX_LINE 4096
#define CLI_MAX_FILE (1 << 20)

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int fail(char *err, size_t n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, n, fmt, ap);
  va_end(ap);
  return CLI_ERROR;
}

cli_opt *cli_find(cli_opt *opts, const char *name) {
  for (; opts->name; ++opts)
    if (opts->type != CLI_HEADING && strcmp(opts->name, name) == 0) return opts;
  return NULL;
}

static size_t edit_distance(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b), i, j, row[128];
  if (lb >= sizeof row / sizeof row[0]) return (size_t)-1;
  for (j = 0; j <= lb; ++j) row[j] = j;
  for (i = 1; i <= la; ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (j = 1; j <= lb; ++j) {
      size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < best) best = up + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      diag = up;
      row[j] = best;
    }
  }
  return row[lb];
}

/* " (did you mean 'x'?)" for the closest name, or "" when none is close. */
static const char *suggest(const cli_opt *opts, const char *key, char *buf, size_t n) {
  const char *best = NULL;
  size_t bestd = (size_t)-1, limit = strlen(key) / 3 + 2;
  for (; opts->name; ++opts) {
    size_t d = opts->type == CLI_HEADING ? (size_t)-1 : edit_distance(key, opts->name);
    if (d < bestd) bestd = d, best = opts->name;
  }
  if (!best || bestd > limit) return "";
  snprintf(buf, n, " (did you mean '%s'?)", best);
  return buf;
}

static int parse_long(const char *s, long *out) {
  char *end;
  errno = 0;
  if (!*s || isspace((unsigned char)*s)) return 0;
  *out = strtol(s, &end, 10);
  if (errno == ERANGE) return -1;
  return *end == '\0';
}

static int parse_double(const char *s, double *out) {
  char *end;
  errno = 0;
  if (!*s || isspace((unsigned char)*s)) return 0;
  *out = strtod(s, &end);
  if (*end != '\0') return 0;
  if (errno == ERANGE || !isfinite(*out)) return -1;
  return 1;
}

int cli_words(char *s, char **w, int max) {
  int k = 0;
  char *t = strtok(s, " \t,");
  for (; t; t = strtok(NULL, " \t,"), ++k)
    if (k < max) w[k] = t;
  return k;
}

int cli_finite(const char *s, double *v) { return parse_double(s, v) == 1; }

static int in_range(const cli_opt *o, double v) {
  return o->min > o->max || (v >= o->min && v <= o->max);
}

static int range_error(const cli_opt *o, const char *v, char *err, size_t n) {
  return fail(err, n, "%s: %s is out of range [%g, %g]", o->name, v, o->min, o->max);
}

/* One number of a list element or a scalar; kind 'i' or 'r'. */
static int parse_number(const cli_opt *o, const char *v, char kind, void *out, char *err,
                        size_t n) {
  int r;
  double x;
  if (kind == 'i') {
    long l;
    r = parse_long(v, &l);
    if (r == 0) return fail(err, n, "%s: '%s' is not an integer", o->name, v);
    if (r < 0) return fail(err, n, "%s: %s overflows", o->name, v);
    x = (double)l;
    *(long *)out = l;
  } else {
    r = parse_double(v, &x);
    if (r == 0) return fail(err, n, "%s: '%s' is not a number", o->name, v);
    if (r < 0) return fail(err, n, "%s: %s is not a finite number", o->name, v);
    *(double *)out = x;
  }
  if (!in_range(o, x)) return range_error(o, v, err, n);
  return CLI_OK;
}

void cli_list_free(cli_list *l) {
  int i;
  for (i = 0; i < l->count; ++i) free(l->value[i]), free(l->where[i]);
  free(l->value);
  free(l->where);
  memset(l, 0, sizeof *l);
}

static int list_append(cli_opt *o, const char *v, const char *where, char *err, size_t n) {
  cli_list *l = (cli_list *)o->dst;
  if (l->count == l->cap) {
    int cap = l->cap ? 2 * l->cap : 16;
    char **nv = (char **)realloc(l->value, (size_t)cap * sizeof *nv), **nw;
    if (!nv) return fail(err, n, "%s: out of memory", o->name);
    l->value = nv;
    nw = (char **)realloc(l->where, (size_t)cap * sizeof *nw);
    if (!nw) return fail(err, n, "%s: out of memory", o->name);
    l->where = nw;
    l->cap = cap;
  }
  l->value[l->count] = (char *)malloc(strlen(v) + 1);
  l->where[l->count] = (char *)malloc(strlen(where) + 1);
  if (!l->value[l->count] || !l->where[l->count]) return fail(err, n, "%s: out of memory", o->name);
  strcpy(l->value[l->count], v);
  strcpy(l->where[l->count], where);
  ++l->count;
  return CLI_OK;
}

static int set_value(cli_opt *o, const char *v, char *err, size_t n) {
  switch (o->type) {
    case CLI_HEADING:
      break;
    case CLI_LIST:
      return list_append(o, v, "command line", err, n);
    case CLI_INT:
      return parse_number(o, v, 'i', o->dst, err, n);
    case CLI_REAL:
      return parse_number(o, v, 'r', o->dst, err, n);
    case CLI_STRING:
      if (!*v) return fail(err, n, "%s: empty value", o->name);
      if (strlen(v) >= (size_t)o->cap)
        return fail(err, n, "%s: value longer than %d characters", o->name, o->cap - 1);
      strcpy((char *)o->dst, v);
      return CLI_OK;
    case CLI_FLAG:
      if (!strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "on") || !strcmp(v, "1"))
        *(int *)o->dst = 1;
      else if (!strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "off") || !strcmp(v, "0"))
        *(int *)o->dst = 0;
      else
        return fail(err, n, "%s: '%s' is not yes or no", o->name, v);
      return CLI_OK;
    case CLI_CHOICE: {
      const char *c = o->meta;
      int idx = 0;
      size_t lv = strlen(v);
      while (c && *c) {
        const char *bar = strchr(c, '|');
        size_t len = bar ? (size_t)(bar - c) : strlen(c);
        if (len == lv && strncmp(c, v, len) == 0) {
          *(int *)o->dst = idx;
          return CLI_OK;
        }
        ++idx;
        c = bar ? bar + 1 : NULL;
      }
      return fail(err, n, "%s: '%s' is not one of %s", o->name, v, o->meta);
    }
    case CLI_INTS:
    case CLI_REALS: {
      char item[128];
      const char *p = v;
      int count = 0;
      for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        void *slot;
        if (len == 0 || len >= sizeof item)
          return fail(err, n, "%s: '%s' is not a comma-separated list", o->name, v);
        if (count == o->cap)
          return fail(err, n, "%s: more than %d values in '%s'", o->name, o->cap, v);
        memcpy(item, p, len);
        item[len] = '\0';
        slot = o->type == CLI_INTS ? (void *)((long *)o->dst + count)
                                   : (void *)((double *)o->dst + count);
        if (parse_number(o, item, o->type == CLI_INTS ? 'i' : 'r', slot, err, n) != CLI_OK)
          return CLI_ERROR;
        ++count;
        if (!comma) break;
        p = comma + 1;
      }
      if (o->count) *o->count = count;
      return CLI_OK;
    }
  }
  return fail(err, n, "%s: internal error: bad option type", o->name);
}

static char *trim(char *s) {
  char *e;
  while (isspace((unsigned char)*s)) ++s;
  e = s + strlen(s);
  while (e > s && isspace((unsigned char)e[-1])) *--e = '\0';
  return s;
}

/* Whole file into a NUL-terminated buffer; NUL bytes inside are binary. */
static char *read_file(const char *path, size_t *len, char *err, size_t n) {
  FILE *f = hd_fopen_input(path, "rb");
  char *buf;
  long size;
  if (!f) {
    fail(err, n, "cannot open input file '%s': %s", path, hd_input_error());
    return NULL;
  }
  if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
    fclose(f);
    fail(err, n, "cannot read input file '%s' (not a regular file?)", path);
    return NULL;
  }
  if (size > CLI_MAX_FILE) {
    fclose(f);
    fail(err, n, "input file '%s' is larger than %d bytes", path, CLI_MAX_FILE);
    return NULL;
  }
  buf = (char *)malloc((size_t)size + 1);
  if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size) {
    free(buf);
    fclose(f);
    fail(err, n, "cannot read input file '%s'", path);
    return NULL;
  }
  fclose(f);
  buf[size] = '\0';
  *len = (size_t)size;
  return buf;
}

static int parse_line(cli_opt *opts, char *line, const char *path, int lineno, char *err,
                      size_t n) {
  char sug[96], msg[512], *eq, *key, *val, *hash;
  cli_opt *o;
  const unsigned char *c;
  for (c = (const unsigned char *)line; *c; ++c)
    if ((*c < 32 && *c != '\t' && *c != '\r') || *c == 127)
      return fail(err, n, "%s:%d: binary data in input file", path, lineno);
  if (strlen(line) > CLI_MAX_LINE)
    return fail(err, n, "%s:%d: line longer than %d characters", path, lineno, CLI_MAX_LINE);
  if ((hash = strchr(line, '#')) != NULL) *hash = '\0';
  key = trim(line);
  if (!*key) return CLI_OK;
  eq = strchr(key, '=');
  if (!eq) return fail(err, n, "%s:%d: expected 'key = value', got '%s'", path, lineno, key);
  *eq = '\0';
  val = trim(eq + 1);
  key = trim(key);
  o = cli_find(opts, key);
  if (o && o->cli_only)
    return fail(err, n, "%s:%d: '%s' is accepted only on the command line", path, lineno, key);
  if (!o)
    return fail(err, n, "%s:%d: unknown key '%s'%s", path, lineno, key,
                suggest(opts, key, sug, sizeof sug));
  if (o->seen && o->type != CLI_LIST)
    return fail(err, n, "%s:%d: duplicate key '%s' (first set on line %d)", path, lineno, key,
                o->line);
  if (!*val) return fail(err, n, "%s:%d: %s: empty value", path, lineno, key);
  if (o->type == CLI_LIST) {
    char where[4200];
    snprintf(where, sizeof where, "%s:%d", path, lineno);
    if (list_append(o, val, where, err, n) != CLI_OK) return CLI_ERROR;
    o->seen = 1;
    o->line = lineno;
    return 1;
  }
  if (set_value(o, val, err, n) != CLI_OK) {
    snprintf(msg, sizeof msg, "%s", err);
    return fail(err, n, "%s:%d: %s", path, lineno, msg);
  }
  o->seen = 1;
  o->line = lineno;
  return 1;
}

static const cli_dialect *dialect;

void cli_set_dialect(const cli_dialect *d) { dialect = d; }

static int is_dialect(const char *buf) {
  const size_t h = dialect ? strlen(dialect->header) : 0;
  return h && !strncmp(buf, dialect->header, h) && (!buf[h] || isspace((unsigned char)buf[h]));
}

static int parse_file(cli_opt *opts, const char *path, char *err, size_t n) {
  size_t len, i;
  char *buf = read_file(path, &len, err, n), *line;
  int lineno = 0, nset = 0, r = CLI_OK, *map = NULL;
  if (!buf) return CLI_ERROR;
  for (i = 0; i < len; ++i)
    if (buf[i] == '\0') {
      free(buf);
      return fail(err, n, "%s: binary data in input file (NUL byte at offset %zu)", path, i);
    }
  if (is_dialect(buf)) {
    char *text = NULL;
    r = dialect->translate(path, buf, &text, &map, err, n);
    free(buf);
    if (r) return CLI_ERROR;
    buf = text, len = strlen(text);
  }
  for (line = buf; r >= 0 && line < buf + len;) {
    char *nl = strchr(line, '\n');
    if (nl) *nl = '\0';
    ++lineno;
    r = parse_line(opts, line, path, map ? map[lineno - 1] : lineno, err, n);
    if (r > 0) ++nset;
    line = nl ? nl + 1 : buf + len;
  }
  free(buf);
  free(map);
  if (r < 0) return CLI_ERROR;
  if (nset == 0) return fail(err, n, "input file '%s' sets nothing", path);
  return CLI_OK;
}

int cli_parse(cli_opt *opts, int argc, char **argv, char *err, size_t n) {
  cli_opt *input = cli_find(opts, "input");
  char sug[96];
  int i, r;
  /* help, version and the input file first: the file is read before the
   * command line so that command-line values override it. */
  for (i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return CLI_HELP;
    if (!strcmp(argv[i], "--version")) return CLI_VERSION;
  }
  for (i = 1; input && i < argc; ++i) {
    const char *v = NULL;
    if (!strncmp(argv[i], "--input=", 8)) v = argv[i] + 8;
    else if (!strcmp(argv[i], "--input") && i + 1 < argc) v = argv[i + 1];
    if (v) {
      if ((r = set_value(input, v, err, n)) != CLI_OK) return r;
      if ((r = parse_file(opts, (const char *)input->dst, err, n)) != CLI_OK) return r;
      break;
    }
  }
  for (i = 1; i < argc; ++i) {
    char key[128];
    const char *arg = argv[i], *eq, *val;
    cli_opt *o;
    size_t klen;
    if (strncmp(arg, "--", 2) != 0 || arg[2] == '\0')
      return fail(err, n, "unexpected argument '%s' (options are --key=value)", arg);
    arg += 2;
    eq = strchr(arg, '=');
    klen = eq ? (size_t)(eq - arg) : strlen(arg);
    if (klen >= sizeof key) return fail(err, n, "unknown option '--%s'", arg);
    memcpy(key, arg, klen);
    key[klen] = '\0';
    o = cli_find(opts, key);
    if (!o)
      return fail(err, n, "unknown option '--%s'%s", key, suggest(opts, key, sug, sizeof sug));
    if (eq) {
      val = eq + 1;
    } else if (o->type == CLI_FLAG) {
      val = "yes";
    } else if (i + 1 < argc) {
      val = argv[++i];
    } else {
      return fail(err, n, "--%s needs a value", key);
    }
    if (o->seen == 2 && o->type != CLI_LIST) return fail(err, n, "--%s given twice", key);
    if (o == input) {
      o->seen = 2;
      continue; /* already read */
    }
    if (set_value(o, val, err, n) != CLI_OK) {
      char msg[512];
      snprintf(msg, sizeof msg, "%s", err);
      return fail(err, n, "--%s", msg);
    }
    o->seen = 2;
  }
  return CLI_OK;
}

/* text from column `indent` (the cursor there already), wrapped at 79 */
static void print_wrapped(const char *text, int indent) {
  int col = indent;
  while (*text) {
    int len = 0;
    while (text[len] && text[len] != ' ') ++len;
    if (col > indent && col + 1 + len > 79) printf("\n%*s", col = indent, "");
    else if (col > indent) putchar(' '), ++col;
    printf("%.*s", len, text);
    col += len, text += len;
    while (*text == ' ') ++text;
  }
  putchar('\n');
}

void cli_print_help(const cli_opt *opts, const char *prog, const char *summary) {
  printf("Usage: %s [--key=value ...]\n", prog);
  print_wrapped(summary, 0);
  printf("\nOptions (also `key = value` lines in --input files):\n");
  for (; opts->name; ++opts) {
    char lhs[512], help[2048];
    if (opts->type == CLI_HEADING) {
      printf("\n%s:\n", opts->help);
      continue;
    }
    if (opts->type == CLI_FLAG) /* --png alone means yes */
      snprintf(lhs, sizeof lhs, "--%s[=yes|no]", opts->name);
    else
      snprintf(lhs, sizeof lhs, "--%s=%s", opts->name, opts->meta ? opts->meta : "VALUE");
    snprintf(help, sizeof help, "%s%s", opts->help, opts->cli_only ? " (command line only)" : "");
    if (strlen(lhs) + 2 > 79) { /* choices past the width: broken after a '|' */
      const char *p = lhs;
      int col = 2;
      printf("  ");
      while (*p) {
        const char *bar = strchr(p, '|');
        const int len = bar ? (int)(bar - p) + 1 : (int)strlen(p);
        if (col + len > 79) printf("\n      "), col = 6;
        printf("%.*s", len, p);
        col += len, p += len;
      }
      printf("\n  %-28s ", "");
    } else if (strlen(lhs) >= 28) /* long choices: the text on a line of its own */
      printf("  %s\n  %-28s ", lhs, "");
    else
      printf("  %-28s ", lhs);
    print_wrapped(help, 31);
  }
  printf("  %-28s %s\n  %-28s %s\n", "--help", "this text", "--version",
         "version, backends and precision");
}

const char *cli_choice_name(const char *list, int k, char *buf, size_t n) {
  const char *s = list, *e;
  while (k-- > 0 && (s = strchr(s, '|')) != NULL) ++s;
  if (!s) s = "?";
  e = strchr(s, '|');
  snprintf(buf, n, "%.*s", (int)(e ? (size_t)(e - s) : strlen(s)), s);
  return buf;
}
