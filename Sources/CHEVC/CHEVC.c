// A libheif decoder plugin over libde265, with worker threads (see CHEVC.h).
// It does what libheif's own libde265 plugin does (NAL units in, one picture
// out with its colour description), and nothing else.
#include "CHEVC.h"

#include <libde265/de265.h>
#include <libheif/heif.h>
#include <libheif/heif_plugin.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int worker_threads = 1;
static atomic_ulong pictures_decoded;

typedef struct {
    de265_decoder_context *context;
    bool strict;
} decoder;

static const struct heif_error ok = {heif_error_Ok, heif_suberror_Unspecified, "Success"};

static struct heif_error failure(enum heif_suberror_code code, const char *message) {
    return (struct heif_error){heif_error_Decoder_plugin_error, code, message};
}

static const char *plugin_name(void) { return "libde265 HEVC decoder, threaded (collage)"; }
static void plugin_init(void) { de265_init(); }
static void plugin_deinit(void) { de265_free(); }

// Above libheif's own libde265 plugin (100), so that libheif picks this one.
static int plugin_supports(enum heif_compression_format format) {
    return format == heif_compression_HEVC ? 120 : 0;
}

static struct heif_error new_decoder(void **out) {
    decoder *d = calloc(1, sizeof *d);
    if (!d) return failure(heif_suberror_Unspecified, "out of memory");
    d->context = de265_new_decoder();
    if (!d->context) {
        free(d);
        return failure(heif_suberror_Unspecified, "libde265 could not start a decoder");
    }
    if (worker_threads > 0) de265_start_worker_threads(d->context, worker_threads);
    *out = d;
    return ok;
}

static void free_decoder(void *raw) {
    decoder *d = raw;
    de265_free_decoder(d->context);
    free(d);
}

static void set_strict(void *raw, int flag) { ((decoder *)raw)->strict = flag != 0; }

// HEIF stores NAL units each after a 4-byte big-endian length.
static struct heif_error push_data(void *raw, const void *data, size_t size) {
    decoder *d = raw;
    const uint8_t *bytes = data;
    size_t at = 0;
    while (at < size) {
        if (size - at < 4) return failure(heif_suberror_End_of_data, "a NAL unit's length is cut short");
        uint32_t length = (uint32_t)bytes[at] << 24 | (uint32_t)bytes[at + 1] << 16
                        | (uint32_t)bytes[at + 2] << 8 | bytes[at + 3];
        at += 4;
        if (length > size - at) return failure(heif_suberror_End_of_data, "a NAL unit runs past its data");
        if (de265_push_NAL(d->context, bytes + at, length, 0, NULL) != DE265_OK)
            return failure(heif_suberror_Unspecified, "libde265 refused a NAL unit");
        at += length;
    }
    return ok;
}

// The picture's planes copied into a heif_image, with the colour description
// of the stream (libheif prefers a `colr` box of the file's where there is one).
static struct heif_error to_heif_image(decoder *d, const struct de265_image *picture, struct heif_image **out) {
    bool mono = de265_get_chroma_format(picture) == de265_chroma_mono;
    struct heif_error error = heif_image_create(de265_get_image_width(picture, 0), de265_get_image_height(picture, 0),
                                                mono ? heif_colorspace_monochrome : heif_colorspace_YCbCr,
                                                (enum heif_chroma)de265_get_chroma_format(picture), out);
    if (error.code) return error;
    const enum heif_channel channels[3] = {heif_channel_Y, heif_channel_Cb, heif_channel_Cr};
    int bits = de265_get_bits_per_pixel(picture, 0);
    for (int plane = 0; plane < (mono ? 1 : 3); plane++) {
        int width = de265_get_image_width(picture, plane), height = de265_get_image_height(picture, plane);
        if (de265_get_bits_per_pixel(picture, plane) != bits || width <= 0 || height <= 0) {
            heif_image_release(*out);
            *out = NULL;
            return failure(heif_suberror_Invalid_image_size, "an HEVC picture with planes libheif cannot hold");
        }
        error = heif_image_add_plane(*out, channels[plane], width, height, bits);
        if (error.code) {
            heif_image_release(*out);
            *out = NULL;
            return error;
        }
        int from_stride, to_stride;
        const uint8_t *from = de265_get_image_plane(picture, plane, &from_stride);
        uint8_t *to = heif_image_get_plane(*out, channels[plane], &to_stride);
        size_t row = (size_t)width * ((bits + 7) / 8);
        for (int y = 0; y < height; y++) memcpy(to + (size_t)y * to_stride, from + (size_t)y * from_stride, row);
    }
    struct heif_color_profile_nclx *nclx = heif_nclx_color_profile_alloc();
    if (nclx) {
        struct heif_error steps[3] = {
            heif_nclx_color_profile_set_color_primaries(nclx, (uint16_t)de265_get_image_colour_primaries(picture)),
            heif_nclx_color_profile_set_transfer_characteristics(nclx, (uint16_t)de265_get_image_transfer_characteristics(picture)),
            heif_nclx_color_profile_set_matrix_coefficients(nclx, (uint16_t)de265_get_image_matrix_coefficients(picture)),
        };
        for (int i = 0; i < 3; i++) {
            if (!steps[i].code) continue;
            if (d->strict) {
                heif_nclx_color_profile_free(nclx);
                heif_image_release(*out);
                *out = NULL;
                return steps[i];
            }
            heif_image_add_decoding_warning(*out, steps[i]);
        }
        nclx->full_range_flag = de265_get_image_full_range_flag(picture) != 0;
        heif_image_set_nclx_color_profile(*out, nclx);
        heif_nclx_color_profile_free(nclx);
    }
    return ok;
}

static struct heif_error decode_image(void *raw, struct heif_image **out) {
    decoder *d = raw;
    *out = NULL;
    de265_flush_data(d->context);
    int more;
    do {
        more = 0;
        if (de265_decode(d->context, &more) != DE265_OK) break;
        const struct de265_image *picture = de265_get_next_picture(d->context);
        if (!picture) continue;
        if (*out) heif_image_release(*out);
        struct heif_error error = to_heif_image(d, picture, out);
        de265_release_next_picture(d->context);
        if (error.code) return error;
    } while (more);
    if (!*out) return failure(heif_suberror_Unspecified, "libde265 decoded no picture");
    atomic_fetch_add(&pictures_decoded, 1);
    return ok;
}

static const struct heif_decoder_plugin plugin = {
    .plugin_api_version = 3,
    .get_plugin_name = plugin_name,
    .init_plugin = plugin_init,
    .deinit_plugin = plugin_deinit,
    .does_support_format = plugin_supports,
    .new_decoder = new_decoder,
    .free_decoder = free_decoder,
    .push_data = push_data,
    .decode_image = decode_image,
    .set_strict_decoding = set_strict,
    .id_name = "libde265-threaded",
};

int chevc_register(int threads) {
    worker_threads = threads < 1 ? 1 : threads;
    return heif_register_decoder_plugin(&plugin).code == heif_error_Ok ? 0 : -1;
}

unsigned long chevc_pictures_decoded(void) { return atomic_load(&pictures_decoded); }
