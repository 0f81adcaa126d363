/* SPDX-License-Identifier: BSD-3-Clause */
#include "font.h"

#include <string.h>

/* 5 x 7 glyphs, a row a byte (bit 4 the leftmost column); letters upper case. */
static const char glyph_chars[] = "0123456789-.+:/()|,= ABCDEFGHIJKLMNOPQRSTUVWXYZ^[]*_'";
static const unsigned char glyphs[][7] = {
    {14, 17, 19, 21, 25, 17, 14}, {4, 12, 4, 4, 4, 4, 14},     {14, 17, 1, 2, 4, 8, 31},   {31, 2, 4, 2, 1, 17, 14},
    {2, 6, 10, 18, 31, 2, 2},     {31, 16, 30, 1, 1, 17, 14},  {6, 8, 16, 30, 17, 17, 14}, {31, 1, 2, 4, 8, 8, 8},
    {14, 17, 17, 14, 17, 17, 14}, {14, 17, 17, 15, 1, 2, 12},  {0, 0, 0, 31, 0, 0, 0},     {0, 0, 0, 0, 0, 12, 12},
    {0, 4, 4, 31, 4, 4, 0},       {0, 12, 12, 0, 12, 12, 0},   {1, 1, 2, 4, 8, 16, 16},    {2, 4, 8, 8, 8, 4, 2},
    {8, 4, 2, 2, 2, 4, 8},        {4, 4, 4, 4, 4, 4, 4},       {0, 0, 0, 0, 12, 4, 8},     {0, 0, 31, 0, 31, 0, 0},
    {0, 0, 0, 0, 0, 0, 0},        {14, 17, 17, 31, 17, 17, 17}, {30, 17, 17, 30, 17, 17, 30}, {14, 17, 16, 16, 16, 17, 14},
    {28, 18, 17, 17, 17, 18, 28}, {31, 16, 16, 30, 16, 16, 31}, {31, 16, 16, 30, 16, 16, 16}, {14, 17, 16, 23, 17, 17, 15},
    {17, 17, 17, 31, 17, 17, 17}, {14, 4, 4, 4, 4, 4, 14},     {7, 2, 2, 2, 2, 18, 12},    {17, 18, 20, 24, 20, 18, 17},
    {16, 16, 16, 16, 16, 16, 31}, {17, 27, 21, 21, 17, 17, 17}, {17, 17, 25, 21, 19, 17, 17}, {14, 17, 17, 17, 17, 17, 14},
    {30, 17, 17, 30, 16, 16, 16}, {14, 17, 17, 17, 21, 18, 13}, {30, 17, 17, 30, 20, 18, 17}, {15, 16, 16, 14, 1, 1, 30},
    {31, 4, 4, 4, 4, 4, 4},       {17, 17, 17, 17, 17, 17, 14}, {17, 17, 17, 17, 17, 10, 4},  {17, 17, 17, 21, 21, 21, 10},
    {17, 17, 10, 4, 10, 17, 17},  {17, 17, 17, 10, 4, 4, 4},   {31, 1, 2, 4, 8, 16, 31},
    {4, 10, 17, 0, 0, 0, 0},      {14, 8, 8, 8, 8, 8, 14},     {14, 2, 2, 2, 2, 2, 14},    {0, 4, 21, 14, 21, 4, 0},
    {0, 0, 0, 0, 0, 0, 31},       {4, 4, 8, 0, 0, 0, 0}};


int hd_font_width(const char *s, int scale) { return (int)strlen(s) * 6 * scale; }

void hd_font_text(unsigned char *px, int w, int h, int x, int y, const char *s, int scale, int centre,
                  const unsigned char *rgb) {
  int k, r, col, a, b;
  if (centre) x -= hd_font_width(s, scale) / 2;
  for (k = 0; s[k]; ++k) {
    const char ch = s[k] >= 'a' && s[k] <= 'z' ? (char)(s[k] - 'a' + 'A') : s[k];
    const char *at = ch ? strchr(glyph_chars, ch) : NULL;
    const unsigned char *g = glyphs[at ? at - glyph_chars : 20];
    for (r = 0; r < 7; ++r)
      for (col = 0; col < 5; ++col)
        if (g[r] & (16 >> col))
          for (a = 0; a < scale; ++a)
            for (b = 0; b < scale; ++b) {
              const int px_x = x + (6 * k + col) * scale + a, px_y = y + r * scale + b;
              if (px_x >= 0 && px_y >= 0 && px_x < w && px_y < h) memcpy(px + 3 * ((size_t)px_y * w + px_x), rgb, 3);
            }
  }
}
