// JPEGs decoded small by libjpeg, read with pread: see CJPEG.h.
#include "CJPEG.h"

#include <errno.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jpeglib.h>

// libjpeg's errors end the decode here (a longjmp back into
// cjpeg_decode_small); a warning is remembered, and the decode given up at
// the next row.
struct failing {
    struct jpeg_error_mgr manager;
    jmp_buf back;
    int warned;
};

static void fail(j_common_ptr info) {
    longjmp(((struct failing *)info->err)->back, 1);
}

static void message(j_common_ptr info, int level) {
    if (level < 0) ((struct failing *)info->err)->warned = 1;
}

// The file, read from its start in blocks with pread. Its end before the
// image's is a warning (libjpeg's own wording: premature end), which gives
// the file to libvips.
struct reading {
    struct jpeg_source_mgr source;
    int descriptor;
    off_t offset;
    JOCTET block[65536];
};

static const JOCTET end_of_image[2] = {0xFF, JPEG_EOI};

static void start(j_decompress_ptr info) { (void)info; }

static boolean fill(j_decompress_ptr info) {
    struct reading *reading = (struct reading *)info->src;
    ssize_t got;
    do {
        got = pread(reading->descriptor, reading->block, sizeof reading->block, reading->offset);
    } while (got < 0 && errno == EINTR);
    if (got <= 0) {
        ((struct failing *)info->err)->warned = 1;
        reading->source.next_input_byte = end_of_image;
        reading->source.bytes_in_buffer = 2;
        return TRUE;
    }
    reading->offset += got;
    reading->source.next_input_byte = reading->block;
    reading->source.bytes_in_buffer = (size_t)got;
    return TRUE;
}

static void skip(j_decompress_ptr info, long count) {
    struct reading *reading = (struct reading *)info->src;
    if (count <= 0) return;
    if ((size_t)count <= reading->source.bytes_in_buffer) {
        reading->source.next_input_byte += count;
        reading->source.bytes_in_buffer -= (size_t)count;
        return;
    }
    reading->offset += count - (long)reading->source.bytes_in_buffer;
    reading->source.bytes_in_buffer = 0;
}

static void finish(j_decompress_ptr info) { (void)info; }

// One decode's state, on the heap: what a longjmp must find as it was.
struct decode {
    struct jpeg_decompress_struct info;
    struct failing failing;
    struct reading reading;
    unsigned char *pixels;
    unsigned char *row;  // libjpeg's row, whose first `across` pixels are kept
};

int cjpeg_decode_small(int descriptor, int shrink, size_t max_bytes, unsigned char **pixels, int *width,
                       int *height, int *bands) {
    if (shrink != 1 && shrink != 2 && shrink != 4 && shrink != 8) return 0;
    struct decode *decode = calloc(1, sizeof *decode);
    if (!decode) return 0;
    struct jpeg_decompress_struct *info = &decode->info;
    info->err = jpeg_std_error(&decode->failing.manager);
    decode->failing.manager.error_exit = fail;
    decode->failing.manager.emit_message = message;
    int result = 0;
    if (setjmp(decode->failing.back)) goto done;
    jpeg_create_decompress(info);
    decode->reading = (struct reading){
        .source = {.init_source = start, .fill_input_buffer = fill, .skip_input_data = skip,
                   .resync_to_restart = jpeg_resync_to_restart, .term_source = finish},
        .descriptor = descriptor,
    };
    info->src = &decode->reading.source;
    jpeg_read_header(info, TRUE);
    if (decode->failing.warned || info->data_precision != 8) goto done;
    int components = info->num_components;
    switch (info->jpeg_color_space) {
    case JCS_YCbCr:
    case JCS_RGB:
        if (components != 3) goto done;
        info->out_color_space = JCS_RGB;
        break;
    case JCS_GRAYSCALE:
        if (components != 1) goto done;
        info->out_color_space = JCS_GRAYSCALE;
        break;
    default:  // CMYK, YCCK and the rest: libvips' (and its colour management's)
        goto done;
    }
    info->scale_num = 1;
    info->scale_denom = (unsigned)shrink;
    info->dct_method = JDCT_ISLOW;
    jpeg_calc_output_dimensions(info);
    // libvips' shrunk image is the image's size divided, rounded down
    // (libjpeg's rounds up): the last column and row libjpeg gives past it
    // are left out, as libvips leaves them.
    size_t across = info->image_width / (unsigned)shrink, down = info->image_height / (unsigned)shrink;
    size_t full_row = (size_t)info->output_width * (size_t)info->output_components;
    size_t row = across * (size_t)info->output_components;
    size_t rows = row * down;
    // A progressive JPEG holds every coefficient of every component (two
    // bytes each, a block of 64 for each 8x8 of each component's samples).
    size_t coefficients = 0;
    if (jpeg_has_multiple_scans(info)) {
        for (int c = 0; c < components; c++) {
            jpeg_component_info *component = &info->comp_info[c];
            size_t across = ((size_t)info->image_width * component->h_samp_factor + 8 * info->max_h_samp_factor - 1)
                            / (8 * (size_t)info->max_h_samp_factor);
            size_t down = ((size_t)info->image_height * component->v_samp_factor + 8 * info->max_v_samp_factor - 1)
                          / (8 * (size_t)info->max_v_samp_factor);
            coefficients += (across + component->h_samp_factor) * (down + component->v_samp_factor) * 128;
        }
    }
    if (row == 0 || down == 0 || rows / row != down || across > info->output_width || down > info->output_height
        || rows + full_row + coefficients > max_bytes) goto done;
    decode->pixels = malloc(rows);
    decode->row = malloc(full_row);
    if (!decode->pixels || !decode->row) goto done;
    jpeg_start_decompress(info);
    if (decode->failing.warned || (size_t)info->output_width * info->output_components != full_row) goto done;
    while (info->output_scanline < info->output_height) {
        size_t y = info->output_scanline;
        JSAMPROW at = decode->row;
        if (jpeg_read_scanlines(info, &at, 1) != 1 || decode->failing.warned) goto done;
        if (y < down) memcpy(decode->pixels + row * y, decode->row, row);
    }
    jpeg_finish_decompress(info);
    if (decode->failing.warned) goto done;
    *pixels = decode->pixels;
    decode->pixels = NULL;
    *width = (int)across;
    *height = (int)down;
    *bands = info->output_components;
    result = 1;
done:
    jpeg_destroy_decompress(info);
    free(decode->pixels);
    free(decode->row);
    free(decode);
    return result;
}
