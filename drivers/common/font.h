/* SPDX-License-Identifier: BSD-3-Clause */
/* Text in a 5 x 7 pixel font on an RGB picture: the labels of plots
 * (plot.c) and of field pictures' colour bars (output.c).  Upper case,
 * digits and the signs numbers and units need; lower case is drawn as
 * upper case, anything else as a space. */
#ifndef HD_DRV_FONT_H
#define HD_DRV_FONT_H

#ifdef __cplusplus
extern "C" {
#endif

/* s at (x, y) (its top left; with centre, its middle at x), each pixel of
 * the font scale x scale, on the w x h picture px (RGB rows, row 0 at the
 * top); what falls outside is clipped. */
void hd_font_text(unsigned char *px, int w, int h, int x, int y, const char *s, int scale, int centre,
                  const unsigned char *rgb);

/* The width in pixels of s at that scale (6 a character). */
int hd_font_width(const char *s, int scale);

#define HD_FONT_HEIGHT 7

#ifdef __cplusplus
}
#endif

#endif
