#include "CVipsShim.h"

int cvips_init(const char *argv0) { return VIPS_INIT(argv0); }

VipsImage *cvips_image_new_from_source(VipsSource *source) {
    return vips_image_new_from_source(source, "", "access", VIPS_ACCESS_SEQUENTIAL, NULL);
}

int cvips_thumbnail_source(VipsSource *source, VipsImage **out, int width, int height,
                           int fail_on_truncated) {
    /* libvips 8.14 ignores thumbnail_source's own "fail_on" (it forwards it
     * only from thumbnail on a file; libvips issue #5195): the loader gets it
     * through the option string, which thumbnail_source does pass on. */
    return vips_thumbnail_source(source, out, width,
                                 "option_string", fail_on_truncated ? "fail_on=truncated" : "",
                                 "height", height,
                                 "crop", VIPS_INTERESTING_CENTRE,
                                 "size", VIPS_SIZE_BOTH,
                                 "fail_on", fail_on_truncated ? VIPS_FAIL_ON_TRUNCATED : VIPS_FAIL_ON_NONE,
                                 NULL);
}

int cvips_colourspace(VipsImage *in, VipsImage **out, VipsInterpretation space) {
    return vips_colourspace(in, out, space, NULL);
}

int cvips_flatten(VipsImage *in, VipsImage **out, double r, double g, double b) {
    double bg[3] = {r, g, b};
    VipsArrayDouble *background = vips_array_double_new(bg, 3);
    int result = vips_flatten(in, out, "background", background, NULL);
    vips_area_unref(VIPS_AREA(background));
    return result;
}

int cvips_cast(VipsImage *in, VipsImage **out, VipsBandFormat format) {
    return vips_cast(in, out, format, NULL);
}

int cvips_extract_bands(VipsImage *in, VipsImage **out, int first, int n) {
    return vips_extract_band(in, out, first, "n", n, NULL);
}

int cvips_bandjoin3(VipsImage *in, VipsImage **out) {
    VipsImage *three[3] = {in, in, in};
    return vips_bandjoin(three, out, 3, NULL);
}

int cvips_write_to_buffer(VipsImage *in, const char *suffix, void **buf, size_t *len) {
    return vips_image_write_to_buffer(in, suffix, buf, len, NULL);
}

VipsImage *cvips_image_new_from_buffer(const void *buf, size_t len) {
    return vips_image_new_from_buffer(buf, len, "", "access", VIPS_ACCESS_RANDOM, NULL);
}
