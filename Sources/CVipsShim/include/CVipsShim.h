// The libvips calls `collage` makes, and what libvips needs around them.
//
// Swift cannot call C variadic functions, and libvips passes optional
// arguments as NULL-terminated varargs. Each wrapper here fixes one call's
// arguments; beside them, decoders' warnings and errors captured per image,
// the liborc lock (OrcLock.c), and glibc's malloc settings. Every symbol is
// prefixed `cvips_`. Ownership, errors and policy are in the Swift `Vips`
// target; the visual diff's pixel work is C of its own (CVisualDiff).
#ifndef CVIPS_SHIM_H
#define CVIPS_SHIM_H

#include <vips/vips.h>

/// VIPS_INIT (a macro) as a function. Returns 0 on success.
int cvips_init(const char *argv0);

/// Starts libvips without loading its modules (ImageMagick, PDF, OpenSlide,
/// JPEG XL, HEIF live in modules), then loads only the named ones, such as
/// "vips-heif". Unless VIPSHOME is set: then libvips loads its modules as
/// usual. Returns 0 on success.
int cvips_init_with_modules(const char *argv0, const char *const *modules, int count);

/// Header only: a lazy image from a source; no pixels are decoded.
VipsImage *cvips_image_new_from_source(VipsSource *source);

/// libvips' thumbnail from a source, straight to width x height:
/// shrink-on-load, auto-rotation from EXIF, cover then crop where `crop`
/// says. fail_on_truncated makes a truncated or corrupt file an error
/// instead of a tile with a grey band.
int cvips_thumbnail_source(VipsSource *source, VipsImage **out, int width, int height,
                           VipsInteresting crop, int fail_on_truncated);

/// The same for a CMYK image: converted from its profile (or libvips'
/// standard CMYK profile) to sRGB by lcms, around a resize in its PCS.
int cvips_thumbnail_source_cmyk(VipsSource *source, VipsImage **out, int width, int height,
                                VipsInteresting crop);

/// The whole image, lazily, failing on truncated or corrupt data.
VipsImage *cvips_image_new_from_source_strict(VipsSource *source);
int cvips_autorot(VipsImage *in, VipsImage **out);
int cvips_extract_area(VipsImage *in, VipsImage **out, int left, int top, int width, int height);
/// thumbnail of an image already loaded: cover, then crop where `crop` says.
int cvips_thumbnail_image(VipsImage *in, VipsImage **out, int width, int height, VipsInteresting crop);
/// glibc's mallopt (malloc.h is not in Swift's Glibc module): at most
/// `arena_max` arenas and a fixed mmap threshold. 0 leaves a setting alone.
void cvips_tune_malloc(int arena_max, int mmap_threshold);
/* Sets glibc's mmap threshold and returns the arenas' free pages to the system. */
void cvips_malloc_pressure(int mmap_threshold);

/// Appends one line, as it is, to libvips' error buffer (vips_error is varargs).
void cvips_error_append(const char *line);


/// Decoders' warnings, captured per image (see CVipsShim.c). A capture
/// starts with one reference; cvips_capture_unref releases it.
typedef struct CVipsCapture CVipsCapture;
CVipsCapture *cvips_capture_new(void);
void cvips_capture_unref(CVipsCapture *capture);
/// Makes `capture` this thread's current one; returns the one it replaces,
/// for cvips_capture_leave.
CVipsCapture *cvips_capture_enter(CVipsCapture *capture);
void cvips_capture_leave(CVipsCapture *previous);
/// The warnings captured so far, one a line (free with g_free), or NULL.
char *cvips_capture_text(CVipsCapture *capture);
/// Routes libvips' g_warning messages to the thread's current capture
/// (none: nowhere).
void cvips_capture_warnings(void);
/// Whether the pixels libvips computes on this thread from now on are
/// computed on it, not on libvips' worker threads (1) or as libvips
/// computes them (0); returns the setting it replaces. For pictures a few
/// hundred pixels across, the pool's hand-offs cost about what the work
/// does, and a caller that runs as many of them at once as there are
/// cores keeps the cores busy itself.
int cvips_compute_here(int here);
/// How many pools (sinks computing a picture) were started on this
/// thread: on libvips' workers (0) or on the thread itself (1).
unsigned long cvips_pools_started(int here);
/// The capture current on this thread, or NULL.
CVipsCapture *cvips_capture_current(void);
/// How many libvips error messages were written, in this process, on a
/// thread where no capture was current (to libvips' shared buffer).
int cvips_uncaptured_errors(void);
/// libvips' error messages written while `capture` was current (see
/// vips_verror in CVipsShim.c), one a line, and forgets them (free with
/// g_free), or NULL.
char *cvips_capture_take_errors(CVipsCapture *capture);
/// Whether libvips wrote any error message while `capture` was current.
int cvips_capture_errored(CVipsCapture *capture);
/// Forgets the messages captured so far, and that there were any.
void cvips_capture_forget_errors(CVipsCapture *capture);
/// `in` unchanged, except that its pixels are computed with `capture`
/// current on whichever thread computes them.
int cvips_capture_image(VipsImage *in, VipsImage **out, CVipsCapture *capture);

/// One line of text rendered by libvips' text renderer (Pango) at 72 dpi, so
/// a font size in points is in pixels: a 1-band coverage mask. `text` is
/// Pango markup: the caller escapes it.
int cvips_text(VipsImage **out, const char *text, const char *font);
/// The same in colour: 4 bands, sRGB with alpha, so that a colour emoji
/// font's glyphs keep their colours; text is drawn in the colour its markup
/// gives (black without one).
int cvips_text_rgba(VipsImage **out, const char *text, const char *font);
/// How many glyphs of `text` (markup, as cvips_text takes it) no installed
/// font has, so that Pango would draw the missing-glyph box (a hex box) in
/// their place; the code points of the first `capacity` of them into
/// `missing`. Uses the calling thread's default Pango font map, as libvips
/// does. -1 on failure.
int cvips_text_unknown(const char *text, const char *font, unsigned *missing, int capacity);

/// A Pango font description ("DejaVu Sans Bold 12"): its first family
/// into `family` ("" when it names none) and its size into `*size`, in
/// points or pixels ("12px"), 0 when it has none. 0 on success.
int cvips_font_describe(const char *description, char *family, int family_size, int *size);

/// The family fontconfig really uses for `family` ("" is sans) into
/// `matched`. 0 on success.
int cvips_font_match(const char *family, char *matched, int matched_size);

int cvips_colourspace(VipsImage *in, VipsImage **out, VipsInterpretation space);
int cvips_flatten(VipsImage *in, VipsImage **out, double r, double g, double b);
int cvips_cast(VipsImage *in, VipsImage **out, VipsBandFormat format);
int cvips_extract_bands(VipsImage *in, VipsImage **out, int first, int n);
int cvips_bandjoin3(VipsImage *in, VipsImage **out);

/// Encode to a g_malloc'd buffer; `suffix` picks the saver and may carry
/// options, as in ".jpg[Q=90]". Free the buffer with g_free.
int cvips_write_to_buffer(VipsImage *in, const char *suffix, void **buf, size_t *len);
/// Writes `in` to the open file `descriptor` in the format of `suffix`
/// (".png"), as libvips streams it; the descriptor stays open. 0, or -1.
int cvips_save_to_descriptor(VipsImage *in, int descriptor, const char *suffix);

/// Load a whole image from a buffer (tests and tools read back pixels).
VipsImage *cvips_image_new_from_buffer(const void *buf, size_t len);

/// A JPEG held in memory (a RAW's preview) to width x height as
/// cvips_thumbnail_source does, failing on truncation; `no_rotate` leaves
/// the JPEG's own EXIF orientation unapplied (the RAW's is applied after).
int cvips_thumbnail_buffer(const void *buf, size_t len, VipsImage **out, int width, int height,
                           VipsInteresting crop, int no_rotate);
/// The same, from `length` bytes at `offset` of an open file (a RAW's
/// embedded JPEG preview, read in place): libvips reads the range with
/// pread through a source of its own, so the JPEG is never held whole.
/// The descriptor is duplicated; the caller keeps its own.
int cvips_thumbnail_range(int descriptor, gint64 offset, gint64 length, VipsImage **out, int width, int height,
                          VipsInteresting crop, int no_rotate);
/// 8-bit pixels in memory (a demosaic, a video frame), not copied: they
/// must outlive the image.
VipsImage *cvips_image_new_from_memory(const void *data, size_t size, int width, int height, int bands);
/// `in` turned upright as EXIF `orientation` (1-8) says.
int cvips_orient(VipsImage *in, VipsImage **out, int orientation);

/// How many of libvips' calls to liborc's orc_program_compile and
/// orc_program_free have gone through the lock of OrcLock.c; 0 when liborc
/// is not found.
unsigned long cvips_orc_locked_calls(void);

/// Whole-image arithmetic for the visual diff (`Difference`): each one
/// libvips operation with its optional arguments fixed.
int cvips_subtract(VipsImage *left, VipsImage *right, VipsImage **out);
int cvips_multiply(VipsImage *left, VipsImage *right, VipsImage **out);
int cvips_relational_const(VipsImage *in, VipsImage **out, VipsOperationRelational relation, double value);
/// `in` times the `rows` x `cols` matrix (`cols` = the bands of `in`), as float.
int cvips_recomb(VipsImage *in, VipsImage **out, const double *matrix, int rows, int cols);
/// `in` placed at (x, y) in a width x height image; the rest copies the
/// edge (`copy_edge`) or is `background` (every band).
int cvips_embed(VipsImage *in, VipsImage **out, int x, int y, int width, int height, int copy_edge, double background);
/// a * in + b, cast to 8 bits when `uchar`.
int cvips_linear1(VipsImage *in, VipsImage **out, double a, double b, int uchar);
/// Where `condition` is non-zero, `then` (or its constant), else `otherwise`.
int cvips_ifthenelse(VipsImage *condition, VipsImage *then, VipsImage *otherwise, VipsImage **out);
/// The mean of every sample.
int cvips_avg(VipsImage *in, double *out);
/// Fills a rectangle of a memory image with `ink` in every band.
int cvips_draw_rect(VipsImage *image, double ink, int left, int top, int width, int height);
/// Shrinks by fractional factors (box average).
int cvips_shrink(VipsImage *in, VipsImage **out, double horizontal, double vertical);
/// A one-band image of one value, `width` x `height`, 8 bits.
int cvips_constant(VipsImage **out, int width, int height, double value);
/// The bands of `left`, then those of `right`.
int cvips_bandjoin2(VipsImage *left, VipsImage *right, VipsImage **out);
/// `in` from its embedded ICC profile to sRGB by lcms (relative
/// colorimetric), at `depth` bits (8 or 16); the profile is removed from
/// the result. Without a profile, with one the image cannot use (a CMYK
/// profile left on pixels already made RGB) or with sRGB's own (the one
/// cvips_attach_srgb embeds), `in` unchanged but for the profile's removal;
/// but a CMYK image goes through libvips' standard CMYK profile then.
int cvips_to_srgb(VipsImage *in, VipsImage **out, int depth);
/// Attaches libvips' built-in sRGB profile as `image`'s ICC profile, for
/// the savers that embed one.
int cvips_attach_srgb(VipsImage *image);
/// vips_resize by `scale` in both directions, keeping the band format.
int cvips_resize(VipsImage *in, VipsImage **out, double scale);
/// vips_rot by `quarters` quarter turns clockwise (0-3).
int cvips_rot_quarters(VipsImage *in, VipsImage **out, int quarters);
/// vips_flip: left and right swapped (`horizontal` 1), or top and bottom.
int cvips_flip(VipsImage *in, VipsImage **out, int horizontal);
/// The image's XMP packet (libvips' "xmp-data"), not copied, or NULL.
const void *cvips_xmp(VipsImage *image, size_t *length);
/// 8-bit RGB pixels, or RGBA where `size` is 4 bytes a pixel (rows packed,
/// malloc'ed), as a new memory image that
/// owns them: freed with free() when the image closes, or now if it cannot
/// be made. `icc`, when not NULL, is copied as its ICC profile.
VipsImage *cvips_image_new_from_owned_rgb(void *pixels, size_t size, int width, int height,
                                          const void *icc, size_t icc_length);
/// 8-bit pixels copied into a new memory image.
VipsImage *cvips_image_new_from_memory_copy(const void *data, size_t size, int width, int height, int bands);
/// 1 when both are memory images of the same size holding the same bytes.
int cvips_same_pixels(VipsImage *left, VipsImage *right);
/// The sums of each column (a width x 1 image) and of each row (1 x height).
int cvips_project(VipsImage *in, VipsImage **columns, VipsImage **rows);

#endif
