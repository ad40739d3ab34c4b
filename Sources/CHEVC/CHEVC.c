// A libheif decoder plugin over libde265, with worker threads (see CHEVC.h).
// It does what libheif's own libde265 plugin does (NAL units in, one picture
// out with its colour description), and nothing else.
#include "CHEVC.h"

#include <libde265/de265.h>
#include <libheif/heif.h>
#include <libheif/heif_plugin.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int worker_threads = 1;
static atomic_ulong pictures_decoded;
static atomic_ulong shrunk_decoded;

// Set by chevc_decode_shrunk on its own thread while libheif decodes: the
// picture of `width` x `height` is to be box-shrunk by `factor`. libheif
// calls the plugin on the thread that asked it to decode (a context with
// no decoding threads of its own).
typedef struct {
    int factor;
    int width, height;
    int shrunk;
} shrink_request;
static _Thread_local shrink_request *request;

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

// Each sample of `to` (out_width x out_height) the rounded mean of its
// across x down box of `from`, the boxes starting at (left, top): the
// caller keeps them within the plane.
static bool box_shrink(const uint8_t *from, int from_stride, int left, int top, int out_width, int out_height,
                       int across, int down, uint8_t *to, int to_stride) {
    uint64_t *sums = calloc((size_t)out_width, sizeof *sums);
    if (!sums) return false;
    uint64_t count = (uint64_t)across * (uint64_t)down;
    for (int oy = 0; oy < out_height; oy++) {
        memset(sums, 0, (size_t)out_width * sizeof *sums);
        for (int y = top + oy * down, end = y + down; y < end; y++) {
            const uint8_t *row = from + (size_t)y * from_stride + left;
            for (int ox = 0; ox < out_width; ox++, row += across) {
                uint64_t sum = 0;
                for (int x = 0; x < across; x++) sum += row[x];
                sums[ox] += sum;
            }
        }
        uint8_t *out = to + (size_t)oy * to_stride;
        for (int ox = 0; ox < out_width; ox++) out[ox] = (uint8_t)((sums[ox] + count / 2) / count);
    }
    free(sums);
    return true;
}

// The picture's planes copied (factor 1) into a heif_image, with the colour
// description of the stream (libheif prefers a `colr` box of the file's
// where there is one); or box-shrunk (an even factor, 8 bits only) to a
// 4:4:4 one: the chroma planes by half the factor where they are
// subsampled, so that each small pixel has its own chroma, the mean of its
// box's, as when the whole picture is made RGB and then shrunk. Only whole
// boxes: of the fewer than `factor` pixels a side that are left over, half
// are dropped on each side (an even number on the left and top, where 4:2:0
// chroma has half as many), as libvips' resize centres what it drops.
static struct heif_error to_heif_image(decoder *d, const struct de265_image *picture, int factor,
                                       struct heif_image **out) {
    bool mono = de265_get_chroma_format(picture) == de265_chroma_mono;
    int luma_width = de265_get_image_width(picture, 0), luma_height = de265_get_image_height(picture, 0);
    int small_width = luma_width / factor, small_height = luma_height / factor;
    int left = (luma_width - small_width * factor) / 2 & ~1, top = (luma_height - small_height * factor) / 2 & ~1;
    if (small_width < 1 || small_height < 1) return failure(heif_suberror_Invalid_image_size, "a picture too small to shrink");
    enum heif_chroma chroma = factor > 1 && !mono ? heif_chroma_444 : (enum heif_chroma)de265_get_chroma_format(picture);
    struct heif_error error = heif_image_create(small_width, small_height,
                                                mono ? heif_colorspace_monochrome : heif_colorspace_YCbCr, chroma, out);
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
        // Subsampled: a plane half the luma's width (or height), rounded up.
        int across_sub = factor > 1 && width < luma_width ? 2 : 1, down_sub = factor > 1 && height < luma_height ? 2 : 1;
        int across = factor / across_sub, down = factor / down_sub;
        int plane_left = left / across_sub, plane_top = top / down_sub;
        if (factor > 1 && ((int64_t)plane_left + (int64_t)small_width * across > width
                           || (int64_t)plane_top + (int64_t)small_height * down > height)) {
            heif_image_release(*out);
            *out = NULL;
            return failure(heif_suberror_Invalid_image_size, "an HEVC picture with planes that do not shrink alike");
        }
        error = heif_image_add_plane(*out, channels[plane], factor > 1 ? small_width : width,
                                     factor > 1 ? small_height : height, bits);
        if (error.code) {
            heif_image_release(*out);
            *out = NULL;
            return error;
        }
        int from_stride, to_stride;
        const uint8_t *from = de265_get_image_plane(picture, plane, &from_stride);
        uint8_t *to = heif_image_get_plane(*out, channels[plane], &to_stride);
        if (factor > 1) {
            if (!box_shrink(from, from_stride, plane_left, plane_top, small_width, small_height, across, down, to,
                            to_stride)) {
                heif_image_release(*out);
                *out = NULL;
                return failure(heif_suberror_Unspecified, "out of memory");
            }
            continue;
        }
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
        int factor = 1;
        if (request) {
            // Only the picture asked for, as asked: 8 bits, colour, its
            // whole size (not a grid's tile, nor a picture the stream crops).
            if (de265_get_chroma_format(picture) == de265_chroma_mono || de265_get_bits_per_pixel(picture, 0) != 8
                || de265_get_image_width(picture, 0) != request->width
                || de265_get_image_height(picture, 0) != request->height) {
                de265_release_next_picture(d->context);
                *out = NULL;
                return failure(heif_suberror_Unsupported_parameter, "not a picture to shrink");
            }
            factor = request->factor;
            request->shrunk++;
        }
        struct heif_error error = to_heif_image(d, picture, factor, out);
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

unsigned long chevc_shrunk_decoded(void) { return atomic_load(&shrunk_decoded); }

// libheif reads the file through pread: the descriptor's offset is left alone.
typedef struct {
    int descriptor;
    int64_t position, size;
} file_reader;

static int64_t reader_position(void *raw) { return ((file_reader *)raw)->position; }

static int reader_read(void *data, size_t size, void *raw) {
    file_reader *r = raw;
    if (r->position < 0 || (uint64_t)size > (uint64_t)(r->size - r->position)) return -1;
    uint8_t *to = data;
    while (size > 0) {
        ssize_t got = pread(r->descriptor, to, size, r->position);
        if (got <= 0) return -1;
        to += got;
        size -= (size_t)got;
        r->position += got;
    }
    return 0;
}

static int reader_seek(int64_t position, void *raw) {
    file_reader *r = raw;
    if (position < 0 || position > r->size) return -1;
    r->position = position;
    return 0;
}

static enum heif_reader_grow_status reader_wait(int64_t target, void *raw) {
    return target <= ((file_reader *)raw)->size ? heif_reader_grow_status_size_reached
                                                : heif_reader_grow_status_size_beyond_eof;
}

static const struct heif_reader file_reading = {
    .reader_api_version = 1,
    .get_position = reader_position,
    .read = reader_read,
    .seek = reader_seek,
    .wait_for_file_size = reader_wait,
};

void chevc_shrunk_free(chevc_shrunk *picture) {
    free(picture->pixels);
    free(picture->icc);
    memset(picture, 0, sizeof *picture);
}

// The interleaved RGB rows of `image`, packed into a buffer of their own.
static bool packed_rgb(const struct heif_image *image, int width, int height, chevc_shrunk *out) {
    int stride = 0;
    const uint8_t *plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride);
    if (!plane || width <= 0 || height <= 0 || (size_t)width > SIZE_MAX / 3 / (size_t)height) return false;
    size_t row = (size_t)width * 3;
    if (stride < 0 || (size_t)stride < row) return false;
    out->pixels = malloc(row * (size_t)height);
    if (!out->pixels) return false;
    for (int y = 0; y < height; y++) memcpy(out->pixels + row * (size_t)y, plane + (size_t)stride * (size_t)y, row);
    out->width = width;
    out->height = height;
    return true;
}

// The primary image's ICC profile, as libvips' HEIF loader attaches it
// (a `prof` or `rICC` colour box; an `nclx` one only describes the stream).
static bool icc_profile(const struct heif_image_handle *handle, chevc_shrunk *out) {
    enum heif_color_profile_type type = heif_image_handle_get_color_profile_type(handle);
    if (type != heif_color_profile_type_prof && type != heif_color_profile_type_rICC) return true;
    size_t size = heif_image_handle_get_raw_color_profile_size(handle);
    if (size == 0) return true;
    out->icc = malloc(size);
    if (!out->icc) return false;
    out->icc_size = size;
    return heif_image_handle_get_raw_color_profile(handle, out->icc).code == heif_error_Ok;
}

int chevc_decode_shrunk(int descriptor, int cover_width, int cover_height, chevc_shrunk *out) {
    memset(out, 0, sizeof *out);
    struct stat status;
    if (fstat(descriptor, &status) != 0 || status.st_size <= 0) return -1;
    file_reader reader = {descriptor, 0, (int64_t)status.st_size};
    struct heif_context *context = heif_context_alloc();
    if (!context) return -1;
    // A grid's tiles on this thread, where the request is seen (and refused).
    heif_context_set_max_decoding_threads(context, 0);
    struct heif_image_handle *handle = NULL;
    struct heif_image *image = NULL;
    int result = -1;
    if (heif_context_read_from_reader(context, &file_reading, &reader, NULL).code != heif_error_Ok
        || heif_context_get_primary_image_handle(context, &handle).code != heif_error_Ok)
        goto done;
    if (heif_image_handle_has_alpha_channel(handle) || heif_image_handle_get_luma_bits_per_pixel(handle) != 8
        || heif_image_handle_get_chroma_bits_per_pixel(handle) != 8)
        goto done;
    // Shown as stored or turned a quarter (irot): nothing cropped (clap).
    int width = heif_image_handle_get_width(handle), height = heif_image_handle_get_height(handle);
    int stored_width = heif_image_handle_get_ispe_width(handle), stored_height = heif_image_handle_get_ispe_height(handle);
    bool turned = width == stored_height && height == stored_width && width != height;
    if (stored_width <= 0 || stored_height <= 0 || !((width == stored_width && height == stored_height) || turned)) goto done;
    int factor = chevc_shrink_factor(width, height, cover_width, cover_height);
    if (factor < 2 || factor > stored_width || factor > stored_height) goto done;
    shrink_request asked = {factor, stored_width, stored_height, 0};
    struct heif_decoding_options *options = heif_decoding_options_alloc();
    if (!options) goto done;
    request = &asked;
    struct heif_error error = heif_decode_image(handle, &image, heif_colorspace_RGB, heif_chroma_interleaved_RGB, options);
    request = NULL;
    heif_decoding_options_free(options);
    if (error.code != heif_error_Ok || asked.shrunk != 1) goto done;
    int small_width = width / factor, small_height = height / factor;
    if (heif_image_get_width(image, heif_channel_interleaved) != small_width
        || heif_image_get_height(image, heif_channel_interleaved) != small_height)
        goto done;
    if (!packed_rgb(image, small_width, small_height, out) || !icc_profile(handle, out)) goto done;
    out->factor = factor;
    out->shown_width = width;
    out->shown_height = height;
    atomic_fetch_add(&shrunk_decoded, 1);
    result = 0;
done:
    if (image) heif_image_release(image);
    if (handle) heif_image_handle_release(handle);
    heif_context_free(context);
    if (result != 0) chevc_shrunk_free(out);
    return result;
}

int chevc_shrink_factor(int width, int height, int cover_width, int cover_height) {
    if (width <= 0 || height <= 0 || cover_width <= 0 || cover_height <= 0) return 1;
    double across = (double)width / cover_width, down = (double)height / cover_height;
    double factor = (across < down ? across : down) / 2;
    if (factor < 2) return 1;
    return factor > 1 << 16 ? 1 << 16 : (int)factor & ~1;
}
