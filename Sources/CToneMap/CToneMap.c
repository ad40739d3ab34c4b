// The tone mapper (see CToneMap.h for the steps and their references).
#include "CToneMap.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>

// SDR's reference white in cd/m² (BT.2408): where PQ and HLG put diffuse white.
static const double sdr_white = 203.0;
// HLG's nominal display peak and its system gamma there (BT.2100).
static const double hlg_peak = 1000.0, hlg_gamma = 1.2;

// PQ (SMPTE ST 2084) constants.
static const double m1 = 2610.0 / 16384.0, m2 = 2523.0 / 4096.0 * 128.0;
static const double c1 = 3424.0 / 4096.0, c2 = 2413.0 / 4096.0 * 32.0, c3 = 2392.0 / 4096.0 * 32.0;

static double pq_to_nits(double encoded) {
    if (encoded <= 0) return 0;
    double p = pow(encoded, 1.0 / m2);
    double num = p - c1 > 0 ? p - c1 : 0, den = c2 - c3 * p;
    return den <= 0 ? 10000.0 : 10000.0 * pow(num / den, 1.0 / m1);
}

static double nits_to_pq(double nits) {
    if (nits <= 0) return 0;
    double y = pow(nits / 10000.0, m1);
    return pow((c1 + c2 * y) / (1 + c3 * y), m2);
}

// HLG's inverse OETF: scene light 0-1.
static double hlg_to_scene(double encoded) {
    const double a = 0.17883277, b = 0.28466892, c = 0.55991073;
    if (encoded <= 0) return 0;
    if (encoded <= 0.5) return encoded * encoded / 3.0;
    return (exp((encoded - c) / a) + b) / 12.0;
}

double ctm_srgb_encode(double linear) {
    if (linear <= 0) return 0;
    if (linear >= 1) return 1;
    return linear <= 0.0031308 ? 12.92 * linear : 1.055 * pow(linear, 1 / 2.4) - 0.055;
}

double ctm_linearise(int transfer, double encoded) {
    if (encoded < 0) encoded = 0;
    if (encoded > 1) encoded = 1;
    switch (transfer) {
    case CTM_TRANSFER_PQ: return pq_to_nits(encoded);
    case CTM_TRANSFER_HLG: return hlg_to_scene(encoded);
    case CTM_TRANSFER_LINEAR: return encoded;
    case CTM_TRANSFER_SRGB:
        return encoded <= 0.04045 ? encoded / 12.92 : pow((encoded + 0.055) / 1.055, 2.4);
    default: return pow(encoded, 2.4);  // BT.709 and the rest: BT.1886's display
    }
}

int ctm_is_hdr(const ctm_source *source) {
    return source->transfer == CTM_TRANSFER_PQ || source->transfer == CTM_TRANSFER_HLG;
}

double ctm_source_peak(const ctm_source *source) {
    if (source->transfer == CTM_TRANSFER_HLG) return hlg_peak;
    double peak = source->mastering_peak > 0 ? source->mastering_peak : 0;
    if (source->max_content_light > 0 && (peak == 0 || source->max_content_light < peak)) peak = source->max_content_light;
    // A stream may claim less than SDR's white, or absurd levels: bounded.
    if (peak <= 0) peak = 1000.0;
    if (peak < sdr_white) peak = sdr_white;
    return peak > 10000.0 ? 10000.0 : peak;
}

// Linear primaries to BT.709, and each set's luminance weights.
static const double to709[3][3][3] = {
    {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
    {{1.660491, -0.587641, -0.072850}, {-0.124550, 1.132900, -0.008349}, {-0.018151, -0.100579, 1.118730}},
    {{1.224940, -0.224940, 0}, {-0.042057, 1.042057, 0}, {-0.019638, -0.078636, 1.098274}},
};
static const double weights[3][3] = {{0.2126, 0.7152, 0.0722}, {0.2627, 0.6780, 0.0593}, {0.2290, 0.6917, 0.0793}};

static int gamut(int primaries) {
    return primaries == CTM_PRIMARIES_BT2020 ? 1 : primaries == CTM_PRIMARIES_P3_D65 ? 2 : 0;
}

// BT.2390's EETF with no black lift: `nits` (0 to the source's peak) to
// 0 to SDR white, in PQ's space.
static double eetf(double nits, double peak) {
    if (nits <= 0) return 0;
    if (peak <= sdr_white) return nits;
    double top = nits_to_pq(peak);
    double e1 = nits_to_pq(nits) / top;
    if (e1 >= 1) return sdr_white;
    double max_lum = nits_to_pq(sdr_white) / top, knee = 1.5 * max_lum - 0.5;
    double e2 = e1;
    if (e1 > knee) {
        double t = (e1 - knee) / (1 - knee), t2 = t * t, t3 = t2 * t;
        e2 = (2 * t3 - 3 * t2 + 1) * knee + (t3 - 2 * t2 + t) * (1 - knee) + (-2 * t3 + 3 * t2) * max_lum;
    }
    return pq_to_nits(e2 * top);
}

// In BT.709, linear, 1 white: brought into 0-1 by moving towards the
// pixel's luminance just as far as needed (its hue and luminance kept).
static void soft_clip(double c[3]) {
    const double *w = weights[0];
    double y = w[0] * c[0] + w[1] * c[1] + w[2] * c[2];
    if (y >= 1) { c[0] = c[1] = c[2] = 1; return; }
    if (y <= 0) { c[0] = c[1] = c[2] = 0; return; }
    double low = c[0] < c[1] ? c[0] : c[1], high = c[0] > c[1] ? c[0] : c[1];
    if (c[2] < low) low = c[2];
    if (c[2] > high) high = c[2];
    double t = 1;
    if (low < 0) t = y / (y - low);
    if (high > 1 && (1 - y) / (high - y) < t) t = (1 - y) / (high - y);
    for (int i = 0; i < 3; i++) {
        c[i] = y + t * (c[i] - y);
        if (c[i] < 0) c[i] = 0;
        if (c[i] > 1) c[i] = 1;
    }
}

static double brightest(const double c[3]) {
    double high = c[0] > c[1] ? c[0] : c[1];
    return c[2] > high ? c[2] : high;
}

// The mapping's last steps, shared by `ctm_map_linear` and the tables'
// path of `ctm_to_srgb8`: HDR light times the EETF's `gain` for its
// brightest channel, then through `m` into BT.709 and brought into 0-1.
static void finish_linear(const double (*m)[3], double c[3], int hdr, double gain, double out[3]) {
    if (hdr)
        for (int i = 0; i < 3; i++) c[i] = c[i] > 0 ? c[i] * gain : 0;
    for (int i = 0; i < 3; i++) out[i] = m[i][0] * c[0] + m[i][1] * c[1] + m[i][2] * c[2];
    soft_clip(out);
}

void ctm_map_linear(const ctm_source *source, const double in[3], double out[3]) {
    double c[3] = {in[0], in[1], in[2]};
    int hdr = ctm_is_hdr(source);
    double high = brightest(c);
    double gain = hdr && high > 0 ? eetf(high, ctm_source_peak(source)) / high / sdr_white : 0;
    finish_linear(to709[gamut(source->primaries)], c, hdr, gain, out);
}

// The curves a frame's pixels go through, sampled at `steps` points and
// read between them linearly: a 4K frame is 8 million pixels, and the
// exact curves cost about 18 pow() a pixel, far more than the rest of its
// mapping (a phone's 4K HDR poster was mostly pow). Read so, each curve is
// within a small fraction of an 8-bit step of the exact one.
enum { steps = 4096 };

typedef struct { float at[steps + 2]; } curve;

static float read_curve(const curve *c, double position) {
    if (!(position > 0)) return c->at[0];
    if (position >= 1) return c->at[steps];
    double x = position * steps;
    int i = (int)x;
    float f = (float)(x - i);
    return c->at[i] + f * (c->at[i + 1] - c->at[i]);
}

// The curves that depend on nothing but their transfer: sRGB's encoding
// (linear 0-1 to 0-1), HLG's display gain (scene luminance 0-1 to its
// power of gamma - 1), and each transfer's light from a code value 0-1
// (for samples deeper than 12 bits; shallower ones are tabled exactly).
static curve srgb_curve, hlg_gain_curve, pq_curve, hlg_curve, srgb_light_curve, bt1886_curve;
static pthread_once_t curves_once = PTHREAD_ONCE_INIT;

static void make_curves(void) {
    for (int k = 0; k <= steps + 1; k++) {
        double x = (double)(k > steps ? steps : k) / steps;
        srgb_curve.at[k] = (float)ctm_srgb_encode(x);
        hlg_gain_curve.at[k] = (float)(x > 0 ? pow(x, hlg_gamma - 1) : 0);
        pq_curve.at[k] = (float)ctm_linearise(CTM_TRANSFER_PQ, x);
        hlg_curve.at[k] = (float)ctm_linearise(CTM_TRANSFER_HLG, x);
        srgb_light_curve.at[k] = (float)ctm_linearise(CTM_TRANSFER_SRGB, x);
        bt1886_curve.at[k] = (float)ctm_linearise(CTM_TRANSFER_BT709, x);
    }
}

static const curve *light_curve(int transfer) {
    switch (transfer) {
    case CTM_TRANSFER_PQ: return &pq_curve;
    case CTM_TRANSFER_HLG: return &hlg_curve;
    case CTM_TRANSFER_SRGB: return &srgb_light_curve;
    case CTM_TRANSFER_LINEAR: return NULL;
    default: return &bt1886_curve;
    }
}

// The EETF's gain (`eetf(n, peak) / n / sdr_white`) by the square root of
// n / 10000 cd/m² (even steps in it are fine where the light is low), one
// curve a peak, made once and kept: a run sees few peaks.
typedef struct { double peak; curve gain; } eetf_curve;
static pthread_mutex_t eetf_lock = PTHREAD_MUTEX_INITIALIZER;
static eetf_curve *eetf_curves[16];
static int eetf_count;

static void make_eetf(double peak, curve *out) {
    out->at[0] = (float)(1 / sdr_white);
    for (int k = 1; k <= steps + 1; k++) {
        double u = (double)(k > steps ? steps : k) / steps, nits = u * u * 10000.0;
        out->at[k] = (float)(eetf(nits, peak) / nits / sdr_white);
    }
}

// The peak's curve: kept, or made into `spare` once 16 peaks are kept.
static const curve *eetf_for(double peak, curve *spare) {
    pthread_mutex_lock(&eetf_lock);
    for (int i = 0; i < eetf_count; i++) {
        if (eetf_curves[i]->peak == peak) {
            pthread_mutex_unlock(&eetf_lock);
            return &eetf_curves[i]->gain;
        }
    }
    eetf_curve *made = eetf_count < 16 ? malloc(sizeof *made) : NULL;
    const curve *result = spare;
    if (made) {
        made->peak = peak;
        make_eetf(peak, &made->gain);
        eetf_curves[eetf_count++] = made;
        result = &made->gain;
    } else {
        make_eetf(peak, spare);
    }
    pthread_mutex_unlock(&eetf_lock);
    return result;
}

int ctm_to_srgb8(const ctm_source *source, const ctm_input *input, int width, int height,
                 uint8_t *out, size_t out_stride) {
    if (width <= 0 || height <= 0 || input->bits < 8 || input->bits > 16 || !out
        || !input->channel[0] || !input->channel[1] || !input->channel[2] || out_stride < (size_t)width * 3)
        return -1;
    pthread_once(&curves_once, make_curves);
    const double top = (double)((1 << input->bits) - 1);
    int hdr = ctm_is_hdr(source), gamut_index = gamut(source->primaries);
    // Every code value's light, once (16 KiB for 12 bits); deeper, read from its curve.
    float table[4096];
    int tabled = input->bits <= 12;
    if (tabled)
        for (int v = 0; v <= (int)top; v++) table[v] = (float)ctm_linearise(source->transfer, v / top);
    const curve *light = light_curve(source->transfer);
    curve spare;
    const curve *gain = hdr ? eetf_for(ctm_source_peak(source), &spare) : NULL;
    const double (*m)[3] = to709[gamut_index];
    const double *w = weights[gamut_index];
    for (int y = 0; y < height; y++) {
        uint8_t *row = out + (size_t)y * out_stride;
        ptrdiff_t at = (ptrdiff_t)y * input->row_stride;
        for (int x = 0; x < width; x++, at += input->pixel_step) {
            uint16_t v[3] = {input->channel[0][at], input->channel[1][at], input->channel[2][at]};
            if (!hdr && gamut_index == 0) {
                // SDR in BT.709: the samples are already what sRGB shows.
                for (int i = 0; i < 3; i++) row[3 * x + i] = (uint8_t)((v[i] * 255.0) / top + 0.5);
                continue;
            }
            double c[3];
            for (int i = 0; i < 3; i++) {
                double value = v[i] > top ? top : v[i];
                c[i] = tabled ? table[(int)value] : light ? read_curve(light, value / top) : value / top;
            }
            if (source->transfer == CTM_TRANSFER_HLG) {
                // HLG's OOTF: display light in cd/m².
                double ys = w[0] * c[0] + w[1] * c[1] + w[2] * c[2];
                // Exact where the light is low, where the curve bends most.
                double g = ys <= 0 ? 0 : hlg_peak * (ys < 1.0 / 64 ? pow(ys, hlg_gamma - 1) : read_curve(&hlg_gain_curve, ys));
                for (int i = 0; i < 3; i++) c[i] *= g;
            }
            double high = brightest(c);
            double mapped[3];
            finish_linear(m, c, hdr, hdr && high > 0 ? read_curve(gain, sqrt(high / 10000.0)) : 0, mapped);
            for (int i = 0; i < 3; i++) row[3 * x + i] = (uint8_t)(read_curve(&srgb_curve, mapped[i]) * 255.0 + 0.5);
        }
    }
    return 0;
}
