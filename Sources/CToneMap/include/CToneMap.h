// One tone mapper for every HDR picture: HEIF photos (10- and 12-bit, PQ or
// HLG, BT.2020) and, later, video frames. It takes R'G'B' samples of 8 to 16
// bits (full range, as the picture's transfer encodes them) in its own
// primaries and writes 8-bit sRGB. Pure functions over the caller's memory:
// no state, no allocation, no library beneath but libm. Every symbol is
// prefixed `ctm_`.
//
// The steps, for PQ (SMPTE ST 2084) and HLG (ARIB STD-B67, BT.2100):
// 1. linear light in cd/m² (PQ's EOTF; HLG's inverse OETF and its OOTF for
//    a 1000 cd/m² display, system gamma 1.2, on the source's luminance);
// 2. BT.2390's EETF on the pixel's largest component, in PQ's perceptual
//    space: the source's peak (the mastering display's, or the content's
//    light level when smaller, else 1000 cd/m²) brought down to SDR's
//    reference white (203 cd/m², BT.2408), shadows and mid-tones kept, the
//    knee a Hermite spline; the pixel scaled by the ratio, so that hues
//    stay and no component overshoots;
// 3. BT.2020 (or Display P3) to BT.709 primaries, in linear light, and what
//    falls outside soft-clipped: desaturated towards the pixel's own
//    luminance just enough to fit, never hard-clipped channel by channel;
// 4. sRGB's transfer, rounded to 8 bits.
// SDR transfers (BT.709, sRGB, linear) skip steps 1-2's mapping: their
// white is SDR white; wide primaries are still brought into BT.709.
#ifndef CTONEMAP_H
#define CTONEMAP_H

#include <stddef.h>
#include <stdint.h>

/// Transfer characteristics, by their ITU-T H.273 code points (as HEIF's
/// nclx box and FFmpeg's AVColorTransferCharacteristic number them).
enum {
    CTM_TRANSFER_BT709 = 1,
    CTM_TRANSFER_LINEAR = 8,
    CTM_TRANSFER_SRGB = 13,
    CTM_TRANSFER_PQ = 16,
    CTM_TRANSFER_HLG = 18,
};

/// Colour primaries, by their H.273 code points.
enum {
    CTM_PRIMARIES_BT709 = 1,
    CTM_PRIMARIES_BT2020 = 9,
    CTM_PRIMARIES_P3_D65 = 12,
};

/// What the samples are: their transfer and primaries (H.273 code points;
/// unknown ones are taken as BT.709), and the light levels the stream
/// carries, in cd/m² (0 when it carries none): its mastering display's
/// peak (SMPTE ST 2086, `mdcv`) and its brightest pixel (MaxCLL, `clli`).
typedef struct {
    int transfer;
    int primaries;
    double mastering_peak;
    double max_content_light;
} ctm_source;

/// The input pixels: three channels R', G', B' of `bits` bits (8 to 16,
/// full range: 0 is black, 2^bits - 1 the transfer's top), each a
/// uint16_t. Interleaved: channel[1] = channel[0] + 1, channel[2] =
/// channel[0] + 2, pixel_step 3 (or 4 with alpha). Planar: three planes,
/// pixel_step 1. row_stride in samples.
typedef struct {
    const uint16_t *channel[3];
    ptrdiff_t pixel_step;
    ptrdiff_t row_stride;
    int bits;
} ctm_input;

/// Whether `source` needs tone mapping (PQ or HLG).
int ctm_is_hdr(const ctm_source *source);

/// The peak the EETF maps from, in cd/m²: the mastering display's peak, or
/// the content's light level when that is smaller; 1000 when neither is
/// known (and for HLG, whose nominal display peak it is).
double ctm_source_peak(const ctm_source *source);

/// Maps `width` x `height` pixels of `input` to interleaved 8-bit sRGB at
/// `out` (3 bytes a pixel, rows `out_stride` bytes apart). Returns 0, or
/// -1 for a size or depth it does not take (nothing written).
int ctm_to_srgb8(const ctm_source *source, const ctm_input *input, int width, int height,
                 uint8_t *out, size_t out_stride);

/// One pixel, linear-light components in cd/m² in the source's primaries
/// (for HLG: display light after its OOTF), to linear BT.709 relative to
/// SDR white (1 is white): the EETF and the gamut mapping, steps 2-3.
/// Exposed for tests and for callers that linearise themselves.
void ctm_map_linear(const ctm_source *source, const double in[3], double out[3]);

/// One code value (0-1, as the transfer encodes it) to linear light in
/// cd/m² (PQ), or scene light 0-1 (HLG's inverse OETF, before its OOTF),
/// or relative light 0-1 (SDR transfers).
double ctm_linearise(int transfer, double encoded);

/// Linear 0-1 to sRGB's encoding 0-1.
double ctm_srgb_encode(double linear);

#endif
