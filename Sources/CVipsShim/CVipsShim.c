#define _GNU_SOURCE
#include "CVipsShim.h"
#include <dlfcn.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cvips_tune_malloc(int arena_max, int mmap_threshold) {
    if (arena_max > 0) mallopt(M_ARENA_MAX, arena_max);
    if (mmap_threshold > 0) mallopt(M_MMAP_THRESHOLD, mmap_threshold);
}

int cvips_init(const char *argv0) { return VIPS_INIT(argv0); }

int cvips_init_with_modules(const char *argv0, const char *const *modules, int count) {
    /* libvips loads every module in <prefix>/lib/vips-modules-X.Y at init,
     * and VIPSHOME sets <prefix>: pointed at nowhere, none is loaded. */
    int user_prefix = getenv("VIPSHOME") != NULL;
    if (!user_prefix) setenv("VIPSHOME", "/nonexistent/collage-loads-its-own-vips-modules", 1);
    int result = VIPS_INIT(argv0);
    if (!user_prefix) unsetenv("VIPSHOME");
    if (result != 0 || user_prefix) return result;

    /* The modules sit beside the libvips we run with. */
    Dl_info info;
    if (!dladdr((void *) vips_init, &info) || !info.dli_fname) return 0;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", info.dli_fname);
    char *slash = strrchr(dir, '/');
    if (!slash) return 0;
    *slash = '\0';
    for (int i = 0; i < count; i++) {
        char path[4352];
        snprintf(path, sizeof path, "%s/vips-modules-%d.%d/%s.so", dir,
                 vips_version(0), vips_version(1), modules[i]);
        /* Opening runs the module's g_module_check_init, which registers its
         * operations; kept resident, as libvips does. */
        GModule *module = g_module_open(path, G_MODULE_BIND_LAZY);
        if (module) g_module_make_resident(module);
    }
    return 0;
}

VipsImage *cvips_image_new_from_source(VipsSource *source) {
    return vips_image_new_from_source(source, "", "access", VIPS_ACCESS_SEQUENTIAL, NULL);
}

/* libvips 8.14's thumbnail_source does not hand its own "fail_on" to the
 * loader; the loader's option string does. */
int cvips_thumbnail_source(VipsSource *source, VipsImage **out, int width, int height,
                           VipsInteresting crop, int fail_on_truncated) {
    return vips_thumbnail_source(source, out, width,
                                 "height", height,
                                 "crop", crop,
                                 "size", VIPS_SIZE_BOTH,
                                 "option_string", fail_on_truncated ? "fail_on=truncated" : "",
                                 NULL);
}

VipsImage *cvips_image_new_from_source_strict(VipsSource *source) {
    return vips_image_new_from_source(source, "", "access", VIPS_ACCESS_SEQUENTIAL,
                                      "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL);
}

int cvips_autorot(VipsImage *in, VipsImage **out) {
    return vips_autorot(in, out, NULL);
}

int cvips_extract_area(VipsImage *in, VipsImage **out, int left, int top, int width, int height) {
    return vips_extract_area(in, out, left, top, width, height, NULL);
}

int cvips_thumbnail_image(VipsImage *in, VipsImage **out, int width, int height, VipsInteresting crop) {
    return vips_thumbnail_image(in, out, width, "height", height,
                                "crop", crop, "size", VIPS_SIZE_BOTH, NULL);
}

void cvips_error_append(const char *line) {
    vips_error(NULL, "%s", line);
}

static void cvips_drop_log(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
    (void) domain; (void) level; (void) message; (void) data;
}

void cvips_silence_warnings(void) {
    /* libvips also reports each failure through its error buffer, which is
     * what we show; its g_warning copies would only clutter stderr. */
    g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO,
                      cvips_drop_log, NULL);
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
