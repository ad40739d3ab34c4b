#define _GNU_SOURCE
#include "CVipsShim.h"
#include <fontconfig/fontconfig.h>
#include <pango/pango-font.h>
#include <pango/pangocairo.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

void cvips_tune_malloc(int arena_max, int mmap_threshold) {
    if (arena_max > 0) mallopt(M_ARENA_MAX, arena_max);
    if (mmap_threshold > 0) mallopt(M_MMAP_THRESHOLD, mmap_threshold);
}

void cvips_malloc_pressure(int mmap_threshold) {
    mallopt(M_MMAP_THRESHOLD, mmap_threshold);
    malloc_trim(0);
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

/* Linear: thumbnail imports the image with its profile (or the standard
 * CMYK one) to lcms' PCS before it resizes, and exports to sRGB after;
 * without it, thumbnail would turn CMYK into sRGB with libvips' own
 * arithmetic first. */
int cvips_thumbnail_source_cmyk(VipsSource *source, VipsImage **out, int width, int height,
                                VipsInteresting crop) {
    return vips_thumbnail_source(source, out, width,
                                 "height", height,
                                 "crop", crop,
                                 "size", VIPS_SIZE_BOTH,
                                 "linear", TRUE,
                                 "import_profile", "cmyk",
                                 "export_profile", "srgb",
                                 "intent", VIPS_INTENT_RELATIVE,
                                 "option_string", "fail_on=truncated",
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

int cvips_text(VipsImage **out, const char *text, const char *font) {
    return vips_text(out, text, "font", font, "dpi", 72, NULL);
}

int cvips_text_rgba(VipsImage **out, const char *text, const char *font) {
    return vips_text(out, text, "font", font, "dpi", 72, "rgba", TRUE, NULL);
}

int cvips_text_unknown(const char *text, const char *font, unsigned *missing, int capacity) {
    /* The thread's default font map, as libvips' text renderer uses it, at
     * the resolution it draws at: the same fonts, the same fallbacks. */
    PangoFontMap *map = pango_cairo_font_map_get_default();
    if (!map) return -1;
    pango_cairo_font_map_set_resolution(PANGO_CAIRO_FONT_MAP(map), 72);
    PangoContext *context = pango_font_map_create_context(map);
    PangoLayout *layout = pango_layout_new(context);
    PangoFontDescription *description = pango_font_description_from_string(font);
    pango_layout_set_font_description(layout, description);
    pango_font_description_free(description);
    pango_layout_set_markup(layout, text, -1);
    int unknown = pango_layout_get_unknown_glyphs_count(layout);
    int found = 0;
    if (unknown > 0) {
        /* An unknown glyph is its character with PANGO_GLYPH_UNKNOWN_FLAG set. */
        PangoLayoutIter *runs = pango_layout_get_iter(layout);
        do {
            PangoLayoutRun *run = pango_layout_iter_get_run_readonly(runs);
            for (int i = 0; run && i < run->glyphs->num_glyphs && found < capacity; i++) {
                PangoGlyph glyph = run->glyphs->glyphs[i].glyph;
                if (glyph & PANGO_GLYPH_UNKNOWN_FLAG) missing[found++] = glyph & ~PANGO_GLYPH_UNKNOWN_FLAG;
            }
        } while (found < capacity && pango_layout_iter_next_run(runs));
        pango_layout_iter_free(runs);
    }
    g_object_unref(layout);
    g_object_unref(context);
    return unknown < found ? found : unknown;
}

int cvips_font_describe(const char *description, char *family, int family_size, int *size) {
    PangoFontDescription *parsed = pango_font_description_from_string(description);
    if (!parsed) return -1;
    const char *families = pango_font_description_get_family(parsed);
    snprintf(family, family_size, "%s", families ? families : "");
    char *comma = strchr(family, ',');
    if (comma) *comma = '\0';
    /* Points, or pixels for "14px"; the same at the 72 dpi text is drawn at. */
    int units = pango_font_description_get_size(parsed);
    *size = units > 0 ? (units + PANGO_SCALE / 2) / PANGO_SCALE : 0;
    pango_font_description_free(parsed);
    return 0;
}

int cvips_font_match(const char *family, char *matched, int matched_size) {
    matched[0] = '\0';
    /* Loads the configuration and the font list on first use. */
    FcConfig *config = FcConfigGetCurrent();
    if (!config) return -1;
    FcPattern *pattern = FcPatternCreate();
    if (!pattern) return -1;
    FcPatternAddString(pattern, FC_FAMILY, (const FcChar8 *) (family[0] ? family : "sans"));
    FcConfigSubstitute(config, pattern, FcMatchPattern);
    FcDefaultSubstitute(pattern);
    FcResult result;
    FcPattern *match = FcFontMatch(config, pattern, &result);
    FcPatternDestroy(pattern);
    if (!match) return -1;
    FcChar8 *name = NULL;
    if (FcPatternGetString(match, FC_FAMILY, 0, &name) == FcResultMatch && name)
        snprintf(matched, matched_size, "%s", (const char *) name);
    FcPatternDestroy(match);
    return matched[0] ? 0 : -1;
}

void cvips_error_append(const char *line) {
    vips_error(NULL, "%s", line);
}

/* What the decoders said (libpng, libtiff and the like report their reason
 * through g_warning, and libvips' error buffer then only says "libpng read
 * error"), kept per image: each thread has a current capture, set around
 * each libvips call and, through cvips_capture_image, on whichever libvips
 * worker thread computes that image's pixels. */
struct CVipsCapture {
    gint references;
    /* A pthread mutex (not glib's, whose futexes a thread sanitizer cannot
     * see): libvips' pool threads write to the capture too. */
    pthread_mutex_t lock;
    GString *text;
    /* libvips' error messages written while this capture was current, and
     * whether it ever had any. */
    GString *errors;
    gboolean errored;
};

static _Thread_local CVipsCapture *cvips_current = NULL;

/* Enough for a few decoder messages; a file that makes its decoder warn on
 * every row must not grow this without bound. */
#define CVIPS_CAPTURE_MAX 2048

CVipsCapture *cvips_capture_new(void) {
    CVipsCapture *capture = g_new0(CVipsCapture, 1);
    capture->references = 1;
    pthread_mutex_init(&capture->lock, NULL);
    capture->text = g_string_new(NULL);
    capture->errors = g_string_new(NULL);
    return capture;
}

static CVipsCapture *cvips_capture_ref(CVipsCapture *capture) {
    g_atomic_int_inc(&capture->references);
    return capture;
}

void cvips_capture_unref(CVipsCapture *capture) {
    if (!capture || !g_atomic_int_dec_and_test(&capture->references)) return;
    g_string_free(capture->text, TRUE);
    g_string_free(capture->errors, TRUE);
    pthread_mutex_destroy(&capture->lock);
    g_free(capture);
}

CVipsCapture *cvips_capture_enter(CVipsCapture *capture) {
    CVipsCapture *previous = cvips_current;
    cvips_current = capture;
    return previous;
}

void cvips_capture_leave(CVipsCapture *previous) { cvips_current = previous; }

char *cvips_capture_text(CVipsCapture *capture) {
    pthread_mutex_lock(&capture->lock);
    char *text = capture->text->len ? g_strdup(capture->text->str) : NULL;
    pthread_mutex_unlock(&capture->lock);
    return text;
}

CVipsCapture *cvips_capture_current(void) { return cvips_current; }

void cvips_capture_forget_errors(CVipsCapture *capture) {
    pthread_mutex_lock(&capture->lock);
    g_string_truncate(capture->errors, 0);
    capture->errored = FALSE;
    pthread_mutex_unlock(&capture->lock);
}

int cvips_capture_errored(CVipsCapture *capture) {
    pthread_mutex_lock(&capture->lock);
    int errored = capture->errored;
    pthread_mutex_unlock(&capture->lock);
    return errored;
}

char *cvips_capture_take_errors(CVipsCapture *capture) {
    pthread_mutex_lock(&capture->lock);
    char *errors = capture->errors->len ? g_strdup(capture->errors->str) : NULL;
    g_string_truncate(capture->errors, 0);
    pthread_mutex_unlock(&capture->lock);
    return errors;
}

/* libvips' error buffer is one for the process: an image's decoder writes
 * its reason there, and another image failing at the same moment could
 * read it as its own. This definition of vips_verror takes the place of
 * libvips' own (the dynamic linker binds libvips' calls, which go through
 * its PLT, to the executable's definition; vips_error and
 * vips_error_system call it): a message written on a thread where a
 * capture is current (an image being read: the calling thread, libvips'
 * workers computing that image's pixels, and the threads of any pool
 * started while it is current: vips_threadpool_run below) goes to that capture
 * only; any other goes to libvips' buffer, as libvips would write it. */
/* Messages written where no capture was current (tests count them). */
static gint cvips_uncaptured = 0;

int cvips_uncaptured_errors(void) { return g_atomic_int_get(&cvips_uncaptured); }

void vips_verror(const char *domain, const char *fmt, va_list ap) {
    CVipsCapture *capture = cvips_current;
    if (!capture) {
        g_atomic_int_inc(&cvips_uncaptured);
        static void (*libvips_verror)(const char *, const char *, va_list) = NULL;
        if (!libvips_verror) libvips_verror = (void (*)(const char *, const char *, va_list)) dlsym(RTLD_NEXT, "vips_verror");
        if (libvips_verror) libvips_verror(domain, fmt, ap);
        return;
    }
    char *message = g_strdup_vprintf(fmt, ap);
    pthread_mutex_lock(&capture->lock);
    if (capture->errors->len < CVIPS_CAPTURE_MAX) {
        if (domain) g_string_append_printf(capture->errors, "%s: ", domain);
        g_string_append_len(capture->errors, message, MIN(strlen(message), CVIPS_CAPTURE_MAX));
        g_string_append_c(capture->errors, '\n');
    }
    capture->errored = TRUE;
    pthread_mutex_unlock(&capture->lock);
    g_free(message);
}

/* A threadpool's functions, each run with the capture that was current
 * where the pool was started. */
typedef struct {
    VipsThreadStartFn start;
    VipsThreadpoolAllocateFn allocate;
    VipsThreadpoolWorkFn work;
    VipsThreadpoolProgressFn progress;
    void *a;
    CVipsCapture *capture;
    /* Set last, with release order, and read first by each thread with
     * acquire order: libvips hands the pool to its threads through glib's
     * own locks (futexes a thread sanitizer cannot see), so the hand-over
     * of the fields above is one any tool can check. */
    atomic_int ready;
    /* Counted with release order after each call the threads make, read
     * with acquire order when the pool has ended: their reads of this
     * frame come before the caller leaves it. */
    atomic_int calls;
} CVipsPool;

static CVipsPool *cvips_pool(void *a) {
    CVipsPool *pool = a;
    (void) atomic_load_explicit(&pool->ready, memory_order_acquire);
    return pool;
}

static VipsThreadState *cvips_pool_start(VipsImage *image, void *a) {
    CVipsPool *pool = cvips_pool(a);
    CVipsCapture *previous = cvips_capture_enter(pool->capture);
    VipsThreadState *state = pool->start(image, pool->a);
    cvips_capture_leave(previous);
    atomic_fetch_add_explicit(&pool->calls, 1, memory_order_release);
    return state;
}

static int cvips_pool_allocate(VipsThreadState *state, void *a, gboolean *stop) {
    CVipsPool *pool = cvips_pool(a);
    CVipsCapture *previous = cvips_capture_enter(pool->capture);
    int result = pool->allocate(state, pool->a, stop);
    cvips_capture_leave(previous);
    atomic_fetch_add_explicit(&pool->calls, 1, memory_order_release);
    return result;
}

static int cvips_pool_work(VipsThreadState *state, void *a) {
    CVipsPool *pool = cvips_pool(a);
    CVipsCapture *previous = cvips_capture_enter(pool->capture);
    int result = pool->work(state, pool->a);
    cvips_capture_leave(previous);
    atomic_fetch_add_explicit(&pool->calls, 1, memory_order_release);
    return result;
}

static int cvips_pool_progress(void *a) {
    CVipsPool *pool = cvips_pool(a);
    int result = pool->progress ? pool->progress(pool->a) : 0;
    atomic_fetch_add_explicit(&pool->calls, 1, memory_order_release);
    return result;
}

/* Whether pools started on this thread run on it (cvips_compute_here),
 * and how many were started here, by libvips (0) and on this thread (1). */
static _Thread_local int cvips_here = 0;
static _Thread_local unsigned long cvips_pools[2];

unsigned long cvips_pools_started(int here) {
    return cvips_pools[here ? 1 : 0];
}

int cvips_compute_here(int here) {
    int previous = cvips_here;
    cvips_here = here;
    return previous;
}

/* libvips' pool with one worker, the calling thread: what each worker of
 * libvips' own does (start; then allocate and work until allocate says
 * stop or a call fails), with the progress call libvips' pool makes after
 * each unit. The same units, in the same order a single worker takes
 * them: the same pixels. */
static int cvips_threadpool_here(VipsImage *image, VipsThreadStartFn start, VipsThreadpoolAllocateFn allocate,
                                 VipsThreadpoolWorkFn work, VipsThreadpoolProgressFn progress, void *a) {
    VipsThreadState *state = start(image, a);
    if (!state) return -1;
    int result = 0;
    for (;;) {
        gboolean stop = FALSE;
        if (allocate(state, a, &stop)) { result = -1; break; }
        if (stop) break;
        /* A stall asks for no work this time round: allocate again. */
        if (state->stall) { state->stall = FALSE; continue; }
        if (work(state, a)) { result = -1; break; }
        if (progress && progress(a)) { result = -1; break; }
    }
    g_object_unref(state);
    vips_image_minimise_all(image);
    return result;
}

/* libvips computes an image's pixels on the threads of a pool (a sink:
 * vips_sink_disc, vips_sink_memory, vips_sink), also from inside a
 * loader, as a thumbnail of a JPEG reads it; on those threads no capture
 * was current, and what the loader wrote there ("VipsJpeg: Premature end
 * of input file") went to libvips' shared buffer, where another image of
 * the same format failing at the same moment could take it. This
 * definition takes the place of libvips' own (bound as vips_verror is):
 * a pool started where a capture is current runs its start, allocate and
 * work functions with that capture current, so every message of an image
 * being read is its own. Elsewhere it is libvips' pool as it was; or,
 * where cvips_compute_here asked for it, the calling thread alone. */
int vips_threadpool_run(VipsImage *image, VipsThreadStartFn start, VipsThreadpoolAllocateFn allocate,
                        VipsThreadpoolWorkFn work, VipsThreadpoolProgressFn progress, void *a) {
    typedef int (*run_fn)(VipsImage *, VipsThreadStartFn, VipsThreadpoolAllocateFn, VipsThreadpoolWorkFn,
                          VipsThreadpoolProgressFn, void *);
    static _Atomic(run_fn) found = NULL;
    run_fn libvips_run = atomic_load_explicit(&found, memory_order_acquire);
    if (!libvips_run) {
        libvips_run = (run_fn) dlsym(RTLD_NEXT, "vips_threadpool_run");
        if (!libvips_run) {
            vips_error("threadpool", "%s", "libvips' vips_threadpool_run is not found");
            return -1;
        }
        atomic_store_explicit(&found, libvips_run, memory_order_release);
    }
    /* On this thread: the capture current here stays current. */
    cvips_pools[cvips_here ? 1 : 0]++;
    if (cvips_here) return cvips_threadpool_here(image, start, allocate, work, progress, a);
    CVipsCapture *capture = cvips_current;
    if (!capture) return libvips_run(image, start, allocate, work, progress, a);
    /* The pool ends before libvips' call returns: the capture, referenced
     * here, and this frame outlive its threads' use of them. */
    CVipsPool pool = {start, allocate, work, progress, a, cvips_capture_ref(capture), 0, 0};
    atomic_store_explicit(&pool.ready, 1, memory_order_release);
    int result = libvips_run(image, cvips_pool_start, cvips_pool_allocate, cvips_pool_work, cvips_pool_progress, &pool);
    (void) atomic_load_explicit(&pool.calls, memory_order_acquire);
    cvips_capture_unref(pool.capture);
    return result;
}

static void cvips_log(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
    (void) domain; (void) data;
    CVipsCapture *capture = cvips_current;
    /* Messages and info (libvips' account of each step) are not reasons. */
    if (!capture || !message || !(level & G_LOG_LEVEL_WARNING)) return;
    pthread_mutex_lock(&capture->lock);
    if (capture->text->len < CVIPS_CAPTURE_MAX) {
        if (capture->text->len) g_string_append_c(capture->text, '\n');
        g_string_append_len(capture->text, message, MIN(strlen(message), CVIPS_CAPTURE_MAX));
    }
    pthread_mutex_unlock(&capture->lock);
}

void cvips_capture_warnings(void) {
    /* Never printed: a warning is shown only as part of the failure of the
     * image it is about. */
    g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO,
                      cvips_log, NULL);
}

static int cvips_capture_generate(VipsRegion *out, void *seq, void *a, void *b, gboolean *stop) {
    (void) a; (void) stop;
    VipsRegion *input = (VipsRegion *) seq;
    VipsRect *area = &out->valid;
    CVipsCapture *previous = cvips_capture_enter((CVipsCapture *) b);
    int result = vips_region_prepare(input, area);
    cvips_capture_leave(previous);
    if (result) return result;
    return vips_region_region(out, input, area, area->left, area->top);
}

int cvips_capture_image(VipsImage *in, VipsImage **out, CVipsCapture *capture) {
    VipsImage *image = vips_image_new();
    /* The new image keeps its input and the capture alive as long as it lives. */
    g_object_set_data_full(G_OBJECT(image), "cvips-input", g_object_ref(in), g_object_unref);
    g_object_set_data_full(G_OBJECT(image), "cvips-capture", cvips_capture_ref(capture),
                           (GDestroyNotify) cvips_capture_unref);
    if (vips_image_pipelinev(image, VIPS_DEMAND_STYLE_THINSTRIP, in, NULL) ||
        vips_image_generate(image, vips_start_one, cvips_capture_generate, vips_stop_one, in, capture)) {
        g_object_unref(image);
        return -1;
    }
    *out = image;
    return 0;
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

int cvips_save_to_descriptor(VipsImage *in, int descriptor, const char *suffix) {
    VipsTarget *target = vips_target_new_to_descriptor(descriptor);
    if (!target) return -1;
    int result = vips_image_write_to_target(in, suffix, target, NULL);
    if (result == 0 && vips_target_end(target)) result = -1;
    g_object_unref(target);
    return result;
}

VipsImage *cvips_image_new_from_buffer(const void *buf, size_t len) {
    return vips_image_new_from_buffer(buf, len, "", "access", VIPS_ACCESS_RANDOM, NULL);
}

/* Camera media: a RAW's JPEG preview held in memory, pixels made by LibRaw
 * or FFmpeg. */

/* libvips' thumbnail of a camera picture's source (a JPEG in memory or in a
 * byte range of a file): cover then crop, stopping at truncated data. */
static int cvips_thumbnail_camera(VipsSource *source, VipsImage **out, int width, int height,
                                  VipsInteresting crop, int no_rotate) {
    return vips_thumbnail_source(source, out, width,
                                 "height", height,
                                 "crop", crop,
                                 "size", VIPS_SIZE_BOTH,
                                 "no_rotate", no_rotate ? TRUE : FALSE,
                                 "option_string", "fail_on=truncated",
                                 NULL);
}

int cvips_thumbnail_buffer(const void *buf, size_t len, VipsImage **out, int width, int height,
                           VipsInteresting crop, int no_rotate) {
    VipsSource *source = vips_source_new_from_memory(buf, len);
    if (!source) return -1;
    int result = cvips_thumbnail_camera(source, out, width, height, crop, no_rotate);
    g_object_unref(source);
    return result;
}

/* A byte range of a file as a libvips source: reads with pread, seeks within
 * the range; the duplicated descriptor is closed with the source. libvips
 * calls it from the thread that opens the image, then from a worker, handing
 * it over through glib's own locks (futexes a thread sanitizer cannot see):
 * the position is kept under a mutex of its own, so every hand-over is one
 * any tool can check. */
typedef struct {
    int descriptor;
    gint64 offset, length, position;
    pthread_mutex_t lock;
} CVipsRange;

static void cvips_range_free(gpointer data) {
    CVipsRange *range = data;
    close(range->descriptor);
    pthread_mutex_destroy(&range->lock);
    g_free(range);
}

static gint64 cvips_range_read(VipsSourceCustom *source, void *buffer, gint64 length, CVipsRange *range) {
    (void) source;
    pthread_mutex_lock(&range->lock);
    gint64 left = range->length - range->position;
    if (length > left) length = left;
    ssize_t got = 0;
    if (length > 0) {
        do {
            got = pread(range->descriptor, buffer, (size_t) length, (off_t) (range->offset + range->position));
        } while (got < 0 && errno == EINTR);
        if (got > 0) range->position += got;
    }
    pthread_mutex_unlock(&range->lock);
    return got < 0 ? -1 : got;
}

static gint64 cvips_range_seek(VipsSourceCustom *source, gint64 offset, int whence, CVipsRange *range) {
    (void) source;
    pthread_mutex_lock(&range->lock);
    gint64 to = whence == SEEK_SET ? offset
              : whence == SEEK_CUR ? range->position + offset
              : whence == SEEK_END ? range->length + offset : -1;
    if (to < 0 || to > range->length) to = -1;
    else range->position = to;
    pthread_mutex_unlock(&range->lock);
    return to;
}

int cvips_thumbnail_range(int descriptor, gint64 offset, gint64 length, VipsImage **out, int width, int height,
                          VipsInteresting crop, int no_rotate) {
    if (offset < 0 || length <= 0) {
        vips_error("collage", "%s", "an empty byte range");
        return -1;
    }
    int own = fcntl(descriptor, F_DUPFD_CLOEXEC, 0);
    if (own < 0) {
        vips_error_system(errno, "collage", "%s", "cannot duplicate the descriptor");
        return -1;
    }
    CVipsRange *range = g_new0(CVipsRange, 1);
    range->descriptor = own;
    range->offset = offset;
    range->length = length;
    pthread_mutex_init(&range->lock, NULL);
    VipsSourceCustom *source = vips_source_custom_new();
    g_object_set_data_full(G_OBJECT(source), "cvips-range", range, cvips_range_free);
    g_signal_connect(source, "read", G_CALLBACK(cvips_range_read), range);
    g_signal_connect(source, "seek", G_CALLBACK(cvips_range_seek), range);
    int result = cvips_thumbnail_camera(VIPS_SOURCE(source), out, width, height, crop, no_rotate);
    g_object_unref(source);
    return result;
}

VipsImage *cvips_image_new_from_memory(const void *data, size_t size, int width, int height, int bands) {
    return vips_image_new_from_memory(data, size, width, height, bands, VIPS_FORMAT_UCHAR);
}

int cvips_orient(VipsImage *in, VipsImage **out, int orientation) {
    VipsImage *copy;
    if (vips_copy(in, &copy, NULL)) return -1;
    vips_image_set_int(copy, VIPS_META_ORIENTATION, orientation);
    int status = vips_autorot(copy, out, NULL);
    g_object_unref(copy);
    return status;
}

int cvips_subtract(VipsImage *left, VipsImage *right, VipsImage **out) { return vips_subtract(left, right, out, NULL); }
int cvips_multiply(VipsImage *left, VipsImage *right, VipsImage **out) { return vips_multiply(left, right, out, NULL); }

int cvips_relational_const(VipsImage *in, VipsImage **out, VipsOperationRelational relation, double value) {
    return vips_relational_const1(in, out, relation, value, NULL);
}

int cvips_recomb(VipsImage *in, VipsImage **out, const double *matrix, int rows, int cols) {
    VipsImage *m = vips_image_new_matrix_from_array(cols, rows, matrix, rows * cols);
    if (!m) return -1;
    int result = vips_recomb(in, out, m, NULL);
    g_object_unref(m);
    return result;
}

int cvips_embed(VipsImage *in, VipsImage **out, int x, int y, int width, int height, int copy_edge, double background) {
    if (copy_edge) return vips_embed(in, out, x, y, width, height, "extend", VIPS_EXTEND_COPY, NULL);
    /* Black, or white in 8 bits: libvips fills the rest with memset, not a pixel at a time. */
    if (background == 0) return vips_embed(in, out, x, y, width, height, "extend", VIPS_EXTEND_BLACK, NULL);
    if (background == 255 && vips_image_get_format(in) == VIPS_FORMAT_UCHAR)
        return vips_embed(in, out, x, y, width, height, "extend", VIPS_EXTEND_WHITE, NULL);
    int bands = vips_image_get_bands(in);
    double values[16];
    for (int i = 0; i < 16; i++) values[i] = background;
    VipsArrayDouble *array = vips_array_double_new(values, bands < 16 ? bands : 16);
    int result = vips_embed(in, out, x, y, width, height, "extend", VIPS_EXTEND_BACKGROUND,
                            "background", array, NULL);
    vips_area_unref(VIPS_AREA(array));
    return result;
}

int cvips_linear1(VipsImage *in, VipsImage **out, double a, double b, int uchar) {
    return vips_linear1(in, out, a, b, "uchar", uchar, NULL);
}

int cvips_ifthenelse(VipsImage *condition, VipsImage *then, VipsImage *otherwise, VipsImage **out) {
    return vips_ifthenelse(condition, then, otherwise, out, NULL);
}

int cvips_avg(VipsImage *in, double *out) { return vips_avg(in, out, NULL); }

int cvips_draw_rect(VipsImage *image, double ink, int left, int top, int width, int height) {
    return vips_draw_rect1(image, ink, left, top, width, height, "fill", TRUE, NULL);
}

int cvips_shrink(VipsImage *in, VipsImage **out, double horizontal, double vertical) {
    return vips_shrink(in, out, horizontal, vertical, NULL);
}

int cvips_constant(VipsImage **out, int width, int height, double value) {
    VipsImage *black;
    if (vips_black(&black, width, height, NULL)) return -1;
    int result = vips_linear1(black, out, 1.0, value, "uchar", TRUE, NULL);
    g_object_unref(black);
    return result;
}

int cvips_bandjoin2(VipsImage *left, VipsImage *right, VipsImage **out) {
    return vips_bandjoin2(left, right, out, NULL);
}

/* libvips' built-in sRGB profile, loaded once. */
static VipsBlob *cvips_srgb_profile(void) {
    static VipsBlob *profile = NULL;
    if (g_once_init_enter(&profile)) {
        VipsBlob *loaded = NULL;
        if (vips_profile_load("srgb", &loaded, NULL)) loaded = NULL;
        g_once_init_leave(&profile, loaded);
    }
    return profile;
}

static int cvips_is_srgb_profile(const void *data, size_t length) {
    VipsBlob *srgb = cvips_srgb_profile();
    size_t srgb_length = 0;
    const void *srgb_data = srgb ? vips_blob_get(srgb, &srgb_length) : NULL;
    return srgb_data && srgb_length == length && memcmp(srgb_data, data, length) == 0;
}

static int cvips_without_profile(VipsImage *in, VipsImage **out) {
    if (vips_copy(in, out, NULL)) return -1;
    vips_image_remove(*out, VIPS_META_ICC_NAME);
    return 0;
}

int cvips_to_srgb(VipsImage *in, VipsImage **out, int depth) {
    const void *data = NULL;
    size_t length = 0;
    if (!vips_image_get_typeof(in, VIPS_META_ICC_NAME) ||
        vips_image_get_blob(in, VIPS_META_ICC_NAME, &data, &length) || !data || length == 0 ||
        cvips_is_srgb_profile(data, length) || !vips_icc_is_compatible_profile(in, data, length)) {
        vips_error_clear();
        /* CMYK without a profile it can use: libvips' standard CMYK profile. */
        if (vips_image_get_interpretation(in) != VIPS_INTERPRETATION_CMYK || vips_image_get_bands(in) < 4)
            return cvips_without_profile(in, out);
        data = NULL;
    }
    VipsImage *transformed;
    int failed = data
        ? vips_icc_transform(in, &transformed, "srgb", "embedded", TRUE, "intent", VIPS_INTENT_RELATIVE,
                             "depth", depth == 16 ? 16 : 8, NULL)
        : vips_icc_transform(in, &transformed, "srgb", "input_profile", "cmyk", "intent", VIPS_INTENT_RELATIVE,
                             "depth", depth == 16 ? 16 : 8, NULL);
    if (failed) return -1;
    int result = cvips_without_profile(transformed, out);
    g_object_unref(transformed);
    return result;
}

int cvips_attach_srgb(VipsImage *image) {
    VipsBlob *srgb = cvips_srgb_profile();
    if (!srgb) return -1;
    size_t length = 0;
    const void *data = vips_blob_get(srgb, &length);
    vips_image_set_blob_copy(image, VIPS_META_ICC_NAME, data, length);
    return 0;
}

int cvips_rot_quarters(VipsImage *in, VipsImage **out, int quarters) {
    static const VipsAngle angles[4] = {VIPS_ANGLE_D0, VIPS_ANGLE_D90, VIPS_ANGLE_D180, VIPS_ANGLE_D270};
    return vips_rot(in, out, angles[quarters & 3], NULL);
}

int cvips_flip(VipsImage *in, VipsImage **out, int horizontal) {
    return vips_flip(in, out, horizontal ? VIPS_DIRECTION_HORIZONTAL : VIPS_DIRECTION_VERTICAL, NULL);
}

int cvips_resize(VipsImage *in, VipsImage **out, double scale) {
    return vips_resize(in, out, scale, NULL);
}

const void *cvips_xmp(VipsImage *image, size_t *length) {
    const void *data = NULL;
    *length = 0;
    if (!vips_image_get_typeof(image, VIPS_META_XMP_NAME) ||
        vips_image_get_blob(image, VIPS_META_XMP_NAME, &data, length)) {
        *length = 0;
        return NULL;
    }
    return data;
}

VipsImage *cvips_image_new_from_memory_copy(const void *data, size_t size, int width, int height, int bands) {
    return vips_image_new_from_memory_copy(data, size, width, height, bands, VIPS_FORMAT_UCHAR);
}

int cvips_same_pixels(VipsImage *left, VipsImage *right) {
    size_t left_size = VIPS_IMAGE_SIZEOF_IMAGE(left), right_size = VIPS_IMAGE_SIZEOF_IMAGE(right);
    if (left_size != right_size || !left->data || !right->data) return 0;
    if (left->dtype != VIPS_IMAGE_SETBUF && left->dtype != VIPS_IMAGE_SETBUF_FOREIGN) return 0;
    if (right->dtype != VIPS_IMAGE_SETBUF && right->dtype != VIPS_IMAGE_SETBUF_FOREIGN) return 0;
    return memcmp(left->data, right->data, left_size) == 0;
}

int cvips_project(VipsImage *in, VipsImage **columns, VipsImage **rows) {
    return vips_project(in, columns, rows, NULL);
}

static void free_owned_pixels(VipsImage *image, void *pixels) {
    (void)image;
    free(pixels);
}

VipsImage *cvips_image_new_from_owned_rgb(void *pixels, size_t size, int width, int height,
                                          const void *icc, size_t icc_length) {
    int bands = width > 0 && height > 0 && size == (size_t)width * (size_t)height * 4 ? 4 : 3;
    VipsImage *image = vips_image_new_from_memory(pixels, size, width, height, bands, VIPS_FORMAT_UCHAR);
    if (!image) {
        free(pixels);
        return NULL;
    }
    g_signal_connect(image, "postclose", G_CALLBACK(free_owned_pixels), pixels);
    image->Type = VIPS_INTERPRETATION_sRGB;
    if (icc && icc_length > 0) vips_image_set_blob_copy(image, VIPS_META_ICC_NAME, icc, icc_length);
    return image;
}
