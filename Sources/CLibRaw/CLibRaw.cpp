// LibRaw behind a C face (include/CLibRaw.h). The one stream LibRaw reads
// through is BoundedStream: pread at its own position, buffered in 64 KiB
// blocks (LibRaw's parsers read byte by byte), counted, and bounded.
#include "CLibRaw.h"

#include <libraw/libraw.h>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <new>
#include <unistd.h>
#include <sys/stat.h>

extern "C" void omp_set_num_threads(int);

namespace {

class BoundedStream : public LibRaw_abstract_datastream {
public:
    BoundedStream(int fd, const unsigned char *memory, INT64 size)
        : fd_(fd), memory_(memory), size_(size),
          limit_(4ULL * (unsigned long long)size + (64ULL << 20)) {}

    int valid() override { return 1; }

    int read(void *ptr, size_t size, size_t nmemb) override {
        if (size == 0 || nmemb == 0) return 0;
        if (nmemb > SIZE_MAX / size) throw LIBRAW_EXCEPTION_IO_CORRUPT;
        size_t want = size * nmemb, done = 0;
        unsigned char *out = static_cast<unsigned char *>(ptr);
        while (done < want) {
            // A JPEG decoder's source (lossy DNG tiles) asks for a buffer's
            // worth and takes what there is: its last tile ending at the end
            // of the file is a short read, not truncation; asking again
            // there, with nothing left, is (the decoder wants more data).
            if (pos_ >= size_) { if (done == 0 || !jpeg_) hitEnd_ = true; break; }
            if (!fill()) break;
            size_t offset = (size_t)(pos_ - blockStart_);
            size_t n = blockLength_ - offset;
            if (n > want - done) n = want - done;
            memcpy(out + done, block_ + offset, n);
            done += n;
            pos_ += (INT64)n;
        }
        count(done);
        return (int)(done / size);
    }

    int seek(INT64 offset, int whence) override {
        INT64 base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? pos_ : size_;
        if ((offset > 0 && base > LLONG_MAX - offset) || base + offset < 0) return -1;
        pos_ = base + offset;
        return 0;
    }

    INT64 tell() override { return pos_; }
    INT64 size() override { return size_; }

    int get_char() override {
        if (pos_ >= size_ || !fill()) { hitEnd_ = true; return -1; }
        unsigned char c = block_[pos_ - blockStart_];
        pos_ += 1;
        count(1);
        return c;
    }

    char *gets(char *str, int sz) override {
        if (sz <= 0) return nullptr;
        int n = 0;
        while (n < sz - 1) {
            int c = get_char();
            if (c < 0) break;
            str[n++] = (char)c;
            if (c == '\n') break;
        }
        str[n] = 0;
        return n ? str : nullptr;
    }

    // What LibRaw's file stream does with fscanf: one number.
    int scanf_one(const char *fmt, void *val) override {
        char token[32];
        int n = 0, c;
        do { c = get_char(); } while (c == ' ' || c == '\t' || c == '\n' || c == '\r');
        while (c >= 0 && c != ' ' && c != '\t' && c != '\n' && c != '\r' && n < 31) {
            token[n++] = (char)c;
            c = get_char();
        }
        token[n] = 0;
        if (n == 0) return EOF;
        return sscanf(token, fmt, val);
    }

    int eof() override { return pos_ >= size_; }

    // LibRaw's JPEG source over this stream (lossy DNG): reads from here on
    // are a decoder's buffer fills (see read).
    int jpeg_src(void *jpegdata) override {
        jpeg_ = true;
        return LibRaw_abstract_datastream::jpeg_src(jpegdata);
    }
    void *make_jas_stream() override { return nullptr; }  // JPEG 2000 (RED) is not read

    unsigned long long delivered() const { return delivered_; }
    bool hitEnd() const { return hitEnd_; }
    void resetEnd() { hitEnd_ = false; jpeg_ = false; }

private:
    // Makes the block hold pos_; false when nothing can be read there.
    bool fill() {
        if (blockStart_ >= 0 && pos_ >= blockStart_ && pos_ < blockStart_ + (INT64)blockLength_) return true;
        size_t n = sizeof block_;
        if ((INT64)n > size_ - pos_) n = (size_t)(size_ - pos_);
        if (memory_) {
            memcpy(block_, memory_ + pos_, n);
        } else {
            size_t got = 0;
            while (got < n) {
                ssize_t r = pread(fd_, block_ + got, n - got, (off_t)(pos_ + (INT64)got));
                if (r < 0 && errno == EINTR) continue;
                if (r <= 0) break;  // an error, or the file shrank
                got += (size_t)r;
            }
            n = got;
        }
        if (n == 0) { hitEnd_ = true; return false; }
        blockStart_ = pos_;
        blockLength_ = n;
        return true;
    }

    void count(size_t n) {
        delivered_ += n;
        if (delivered_ > limit_) throw LIBRAW_EXCEPTION_IO_CORRUPT;
    }

    int fd_;
    const unsigned char *memory_;
    INT64 size_;
    INT64 pos_ = 0;
    unsigned char block_[64 << 10];
    INT64 blockStart_ = -1;
    size_t blockLength_ = 0;
    unsigned long long delivered_ = 0;
    unsigned long long limit_;
    bool hitEnd_ = false;
    bool jpeg_ = false;
};

// LibRaw's own data-error handler prints to stderr ("unknown file:
// Unexpected end of file"); the stream already knows a read past the end,
// and a failure is said once, by the caller.
void quiet(void *, const char *, const int) {}

void say(char *error, size_t size, const char *message) {
    if (error && size) snprintf(error, size, "%s", message);
}

}  // namespace

struct craw_file {
    LibRaw raw;
    BoundedStream *stream = nullptr;
    ~craw_file() {
        raw.recycle();
        delete stream;
    }
};

static craw_file *open_stream(BoundedStream *stream, unsigned max_memory_mb, char *error, size_t error_size) {
    craw_file *file = new (std::nothrow) craw_file();
    if (!file) {
        delete stream;
        say(error, error_size, "out of memory");
        return nullptr;
    }
    file->stream = stream;
    file->raw.imgdata.params.max_raw_memory_mb = max_memory_mb;
    file->raw.set_dataerror_handler(quiet, nullptr);
    int status = file->raw.open_datastream(stream);
    if (status != LIBRAW_SUCCESS) {
        say(error, error_size, libraw_strerror(status));
        delete file;
        return nullptr;
    }
    return file;
}

craw_file *craw_open_fd(int fd, unsigned max_memory_mb, char *error, size_t error_size) {
    struct stat info;
    if (fstat(fd, &info) != 0) {
        say(error, error_size, strerror(errno));
        return nullptr;
    }
    BoundedStream *stream = new (std::nothrow) BoundedStream(fd, nullptr, (INT64)info.st_size);
    if (!stream) { say(error, error_size, "out of memory"); return nullptr; }
    return open_stream(stream, max_memory_mb, error, error_size);
}

craw_file *craw_open_bytes(const void *bytes, size_t size, unsigned max_memory_mb, char *error, size_t error_size) {
    BoundedStream *stream =
        new (std::nothrow) BoundedStream(-1, static_cast<const unsigned char *>(bytes), (INT64)size);
    if (!stream) { say(error, error_size, "out of memory"); return nullptr; }
    return open_stream(stream, max_memory_mb, error, error_size);
}

void craw_get_info(const craw_file *file, craw_info *info) {
    const libraw_data_t &d = file->raw.imgdata;
    LibRaw &raw = const_cast<LibRaw &>(file->raw);
    memset(info, 0, sizeof *info);
    info->width = d.sizes.width;
    info->height = d.sizes.height;
    info->raw_width = d.sizes.raw_width;
    info->raw_height = d.sizes.raw_height;
    info->raw_samples = d.idata.filters ? 1 : (d.idata.colors > 0 ? d.idata.colors : 3);
    info->flip = d.sizes.flip;
    info->timestamp = (long long)d.other.timestamp;
    info->thumb_width = d.thumbnail.twidth;
    info->thumb_height = d.thumbnail.theight;
    info->thumb_length = d.thumbnail.tlength;
    info->thumb_offset = raw.get_internal_data_pointer()->internal_data.toffset;
    info->has_raw = d.idata.raw_count > 0 && d.sizes.raw_width > 0 && d.sizes.raw_height > 0;
    info->file_size = file->stream->size();
    snprintf(info->make, sizeof info->make, "%s", d.idata.make);
    snprintf(info->model, sizeof info->model, "%s", d.idata.model);
    info->iso_speed = d.other.iso_speed;
    info->shutter = d.other.shutter;
    info->aperture = d.other.aperture;
    info->focal_len = d.other.focal_len;
    snprintf(info->lens, sizeof info->lens, "%s", d.lens.Lens);
}

const char *craw_xmp(const craw_file *file, size_t *length) {
    const libraw_iparams_t &p = file->raw.imgdata.idata;
    *length = p.xmpdata ? p.xmplen : 0;
    return *length ? p.xmpdata : NULL;
}

int craw_preview(craw_file *file, const unsigned char **bytes, size_t *length, char *error, size_t error_size) {
    int status = file->raw.unpack_thumb();
    if (status != LIBRAW_SUCCESS) {
        say(error, error_size, libraw_strerror(status));
        return -1;
    }
    const libraw_thumbnail_t &t = file->raw.imgdata.thumbnail;
    if (!t.thumb || t.tlength == 0) {
        say(error, error_size, "no preview");
        return -1;
    }
    *bytes = reinterpret_cast<const unsigned char *>(t.thumb);
    *length = t.tlength;
    return 0;
}

int craw_develop(craw_file *file, int half, craw_image *image, char *error, size_t error_size) {
    memset(image, 0, sizeof *image);
    libraw_output_params_t &p = file->raw.imgdata.params;
    p.half_size = half ? 1 : 0;
    p.use_camera_wb = 1;
    p.output_bps = 8;
    p.output_color = 1;  // sRGB
    p.gamm[0] = 1 / 2.4;  // the sRGB curve, not BT.709's
    p.gamm[1] = 12.92;
    omp_set_num_threads(1);  // one core a decode: the run decodes several at once
    file->stream->resetEnd();
    int status = file->raw.unpack();
    if (file->stream->hitEnd() || status == LIBRAW_IO_ERROR) {
        say(error, error_size, "truncated raw data (it runs past the end of the file)");
        return -1;
    }
    if (status == LIBRAW_SUCCESS) status = file->raw.dcraw_process();
    if (status != LIBRAW_SUCCESS) {
        say(error, error_size, libraw_strerror(status));
        return -1;
    }
    int code = 0;
    libraw_processed_image_t *made = file->raw.dcraw_make_mem_image(&code);
    if (!made || made->type != LIBRAW_IMAGE_BITMAP || made->bits != 8 || made->colors != 3) {
        if (made) LibRaw::dcraw_clear_mem(made);
        say(error, error_size, code ? libraw_strerror(code) : "the demosaic gave no 8-bit RGB image");
        return -1;
    }
    // The raw data and LibRaw's working image go now; the caller keeps the pixels.
    file->raw.recycle();
    image->data = made->data;
    image->width = made->width;
    image->height = made->height;
    image->bands = made->colors;
    image->owner = made;
    return 0;
}

void craw_image_free(craw_image *image) {
    if (image->owner) LibRaw::dcraw_clear_mem(static_cast<libraw_processed_image_t *>(image->owner));
    memset(image, 0, sizeof *image);
}

unsigned long long craw_bytes_read(const craw_file *file) { return file->stream->delivered(); }

void craw_close(craw_file *file) { delete file; }

const char *craw_version(void) { return LibRaw::version(); }
