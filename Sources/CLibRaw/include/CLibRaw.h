// A small C face of LibRaw (Debian's libraw_r, the thread-safe build) for
// the Swift `Raw` target. Every symbol is prefixed `craw_`; no LibRaw type
// crosses this header. Ownership, errors and policy are in Swift.
//
// LibRaw reads the file only through a stream of ours (CLibRaw.cpp): reads
// by pread at the stream's own position (the descriptor's offset is never
// used), counted, and refused once they pass a bound (four times the file
// and 64 MiB), so a structure that loops cannot make LibRaw read forever.
// The calls that read the file: craw_open (LibRaw's identify: headers,
// maker notes, EXIF, anywhere in the file), craw_preview (the preview's
// bytes, at the offset identify found) and craw_develop (the raw data).
#ifndef CLIBRAW_H
#define CLIBRAW_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct craw_file craw_file;

/// What identify found.
typedef struct {
    /// The image at full size before LibRaw's flip (what a demosaic gives).
    int width, height;
    /// The raw data as stored (what unpack allocates), and samples a pixel
    /// (1 for a Bayer or X-Trans mosaic; 3 or 4 for linear DNGs and Foveon).
    int raw_width, raw_height, raw_samples;
    /// LibRaw's flip: 0 none, 3 half a turn, 5 a quarter anticlockwise,
    /// 6 a quarter clockwise (1, 2, 4, 7: mirrored).
    int flip;
    /// Capture time, seconds since the epoch as LibRaw parsed it (local
    /// time); 0 when the file gives none.
    long long timestamp;
    /// The embedded preview LibRaw chose (the largest it knows): its size
    /// as the file claims it, and where its bytes are (length 0: none).
    /// Identify does not look at them: whether they are a JPEG is unknown.
    int thumb_width, thumb_height;
    long long thumb_offset, thumb_length;
    /// Whether identify found raw data and a decoder for it.
    int has_raw;
    /// The file's size, as the stream saw it.
    long long file_size;
    char make[64], model[64];
    /// The camera's settings as LibRaw read them (0 when unknown), and the lens's name.
    float iso_speed, shutter, aperture, focal_len;
    char lens[128];
} craw_info;

/// 8-bit RGB pixels made by a demosaic (flip applied), rows packed.
typedef struct {
    unsigned char *data;
    int width, height, bands;
    void *owner;
} craw_image;

/// Opens the file open on `fd` and reads its metadata. `max_memory_mb`:
/// LibRaw's own limit on the raw data it allocates. NULL on failure, with
/// the reason in `error`.
craw_file *craw_open_fd(int fd, unsigned max_memory_mb, char *error, size_t error_size);

/// The same over bytes in memory (fuzzing, tests); `bytes` must outlive
/// the handle.
craw_file *craw_open_bytes(const void *bytes, size_t size, unsigned max_memory_mb, char *error, size_t error_size);

void craw_get_info(const craw_file *file, craw_info *info);

/// The file's own XMP packet as LibRaw read it (a DNG's or TIFF RAW's tag
/// 700), valid until craw_close; its length 0 (and NULL) when it has none.
const char *craw_xmp(const craw_file *file, size_t *length);

/// The preview's bytes as stored (LibRaw's unpack_thumb), valid until
/// craw_close. 0 on success.
int craw_preview(craw_file *file, const unsigned char **bytes, size_t *length, char *error, size_t error_size);

/// Unpacks and demosaics the raw data (at half size when `half`: one pixel
/// per 2x2 block of the mosaic, no interpolation), sRGB, 8 bits, LibRaw's
/// flip applied, on the calling thread only. A read past the end of the
/// file while unpacking is an error (truncated raw data), not a grey band.
/// 0 on success; free `image` with craw_image_free.
int craw_develop(craw_file *file, int half, craw_image *image, char *error, size_t error_size);
void craw_image_free(craw_image *image);

/// Bytes the stream has handed LibRaw so far (tests: the bound holds).
unsigned long long craw_bytes_read(const craw_file *file);

void craw_close(craw_file *file);

/// LibRaw's version, "0.20.2-Release".
const char *craw_version(void);

#ifdef __cplusplus
}
#endif

#endif
