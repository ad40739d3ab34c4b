#define _GNU_SOURCE
#include "CVisualDiff.h"
#include "DiffViews.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* A picture too large to hold in memory beside its pair, kept in a
 * temporary file of its rows (3-band uchar, row after row, nothing else):
 * written strip by strip as it is decoded, never held whole; read by
 * libvips strip by strip (pread) and by the analysis through a read-only
 * mapping, whose pages the analysis' sweeps give back as they pass
 * (diff_paging_touch). The file is never linked (O_TMPFILE) or unlinked
 * at once: nothing is left behind, even by a crash. */

typedef struct {
    pthread_mutex_t lock;  /* what libvips' workers read of it, against its close */
    int fd;
    unsigned char *map;
    size_t length;
} RowsFile;

static const char *rows_key = "cvips-rows-file";

int vdiff_rows_temp_file(void) {
    const char *folder = g_get_tmp_dir();  /* TMPDIR, else /tmp: where libvips puts its own */
    int fd = open(folder, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)) return fd;
    char *name = g_build_filename(folder, "collage-rows-XXXXXX", NULL);
    fd = mkostemp(name, O_CLOEXEC);
    if (fd >= 0) unlink(name);
    int saved = errno;
    g_free(name);
    errno = saved;
    return fd;
}

const char *vdiff_rows_temp_folder(void) { return g_get_tmp_dir(); }

typedef struct {
    pthread_mutex_t lock;  /* what libvips' workers read and write of it, against its caller */
    int fd;
    int error;  /* errno of the write that failed */
} RowsWriter;

static int write_all(int fd, const unsigned char *bytes, size_t count) {
    while (count > 0) {
        ssize_t written = write(fd, bytes, count);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) return written < 0 ? errno : ENOSPC;
        bytes += written, count -= (size_t) written;
    }
    return 0;
}

/* The writer and the file are handed to libvips' worker threads, and back,
 * through libvips' own locks, which ThreadSanitizer does not see (glib's
 * mutexes are futexes): what the workers read and write of them is under a
 * pthread mutex of their own, which it does, taken once a strip, and taken
 * by the caller once the workers are done (the writer lives on the caller's
 * stack, reused as soon as it returns; the file is freed when its picture
 * closes). */
static int locked_fd(pthread_mutex_t *lock, const int *fd) {
    pthread_mutex_lock(lock);
    int value = *fd;
    pthread_mutex_unlock(lock);
    return value;
}

static int write_strip(VipsRegion *region, VipsRect *area, void *a) {
    RowsWriter *writer = a;
    int fd = locked_fd(&writer->lock, &writer->fd);
    size_t row = (size_t) area->width * VIPS_IMAGE_SIZEOF_PEL(region->im);
    for (int y = area->top; y < VIPS_RECT_BOTTOM(area); y++) {
        int error = write_all(fd, (const unsigned char *) VIPS_REGION_ADDR(region, area->left, y), row);
        if (error) {
            pthread_mutex_lock(&writer->lock);
            writer->error = error;
            pthread_mutex_unlock(&writer->lock);
            return -1;
        }
    }
    return 0;
}

int vdiff_rows_write(VipsImage *image, int fd) {
    RowsWriter writer;
    pthread_mutex_init(&writer.lock, NULL);
    pthread_mutex_lock(&writer.lock);  /* handed over under it */
    writer.fd = fd, writer.error = 0;
    pthread_mutex_unlock(&writer.lock);
    int sunk = vips_sink_disc(image, write_strip, &writer);
    pthread_mutex_lock(&writer.lock);  /* after every worker's last use */
    int error = writer.error;
    pthread_mutex_unlock(&writer.lock);
    pthread_mutex_destroy(&writer.lock);
    if (sunk == 0) return 0;
    return error ? error : -1;
}

static void rows_close(VipsImage *image, void *data) {
    (void) image;
    RowsFile *file = data;
    pthread_mutex_lock(&file->lock);  /* after every worker's last read */
    unsigned char *map = file->map;
    size_t length = file->length;
    int fd = file->fd;
    pthread_mutex_unlock(&file->lock);
    pthread_mutex_destroy(&file->lock);
    if (map) munmap(map, length);
    close(fd);
    free(file);
}

static int rows_generate(VipsRegion *out, void *seq, void *a, void *b, gboolean *stop) {
    (void) seq, (void) b, (void) stop;
    RowsFile *file = a;
    int fd = locked_fd(&file->lock, &file->fd);
    VipsRect *r = &out->valid;
    size_t pel = VIPS_IMAGE_SIZEOF_PEL(out->im), row = (size_t) r->width * pel;
    for (int y = r->top; y < VIPS_RECT_BOTTOM(r); y++) {
        unsigned char *q = (unsigned char *) VIPS_REGION_ADDR(out, r->left, y);
        off_t at = ((off_t) y * out->im->Xsize + r->left) * (off_t) pel;
        size_t done = 0;
        while (done < row) {
            ssize_t got = pread(fd, q + done, row - done, at + (off_t) done);
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) {
                vips_error("collage", "cannot read the picture's temporary file: %s",
                           got < 0 ? strerror(errno) : "it is shorter than the picture");
                return -1;
            }
            done += (size_t) got;
        }
    }
    return 0;
}

VipsImage *vdiff_image_new_from_rows_file(int fd, int width, int height, int bands) {
    RowsFile *file = calloc(1, sizeof(*file));
    if (!file) {
        close(fd);
        vips_error("collage", "out of memory");
        return NULL;
    }
    size_t length = (size_t) width * height * bands;
    void *map = mmap(NULL, length, PROT_READ, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) {
        vips_error("collage", "cannot map the picture's temporary file: %s", strerror(errno));
        close(fd), free(file);
        return NULL;
    }
    pthread_mutex_init(&file->lock, NULL);
    pthread_mutex_lock(&file->lock);  /* handed over under it */
    file->fd = fd, file->length = length, file->map = map;
    pthread_mutex_unlock(&file->lock);
    VipsImage *image = vips_image_new();
    vips_image_init_fields(image, width, height, bands, VIPS_FORMAT_UCHAR, VIPS_CODING_NONE,
                           bands >= 3 ? VIPS_INTERPRETATION_sRGB : VIPS_INTERPRETATION_B_W, 1.0, 1.0);
    g_signal_connect(image, "postclose", G_CALLBACK(rows_close), file);
    g_object_set_data(G_OBJECT(image), rows_key, file);
    if (vips_image_pipelinev(image, VIPS_DEMAND_STYLE_THINSTRIP, NULL) ||
        vips_image_generate(image, NULL, rows_generate, NULL, file, NULL)) {
        g_object_unref(image);
        return NULL;
    }
    /* The branches of a pipeline over the picture (a page faded, tinted
     * and marked) read the same rows one after another: a cache of strips
     * of whole rows, about 16 MiB at most, reads each from the file once. */
    size_t row = (size_t) width * bands;
    int strip = row >= (1 << 20) ? 1 : (int) ((1 << 20) / row), cached_strips = 16;
    VipsImage *cached;
    if (vips_tilecache(image, &cached, "tile_width", width, "tile_height", strip, "max_tiles", cached_strips,
                       "access", VIPS_ACCESS_RANDOM, "threaded", TRUE, NULL)) {
        g_object_unref(image);
        return NULL;
    }
    g_object_unref(image);  /* the cache holds it */
    g_object_set_data(G_OBJECT(cached), rows_key, file);
    return cached;
}

const unsigned char *vdiff_rows_of(VipsImage *image, int *mapped) {
    *mapped = 0;
    if (image->data) return (const unsigned char *) image->data;  /* in memory */
    RowsFile *file = g_object_get_data(G_OBJECT(image), rows_key);
    if (!file) return NULL;
    *mapped = 1;
    pthread_mutex_lock(&file->lock);
    const unsigned char *map = file->map;
    pthread_mutex_unlock(&file->lock);
    return map;
}

void diff_paging_add(DiffPaging *paging, const unsigned char *rows, size_t length) {
    if (paging->count < 2) {
        paging->start[paging->count] = rows, paging->length[paging->count] = length;
        paging->count++;
    }
}

void diff_paging_release(DiffPaging *paging) {
    paging->touched = 0;
    for (int i = 0; i < paging->count; i++) madvise((void *) paging->start[i], paging->length[i], MADV_DONTNEED);
}

static void free_pixels(VipsImage *image, void *data) {
    (void) image;
    free(data);
}

VipsImage *vdiff_image_new_owning(unsigned char *data, int width, int height, int bands) {
    VipsImage *image = vips_image_new_from_memory(data, (size_t) width * height * bands, width, height, bands,
                                                  VIPS_FORMAT_UCHAR);
    if (!image) {
        free(data);
        return NULL;
    }
    g_signal_connect(image, "postclose", G_CALLBACK(free_pixels), data);
    return image;
}
