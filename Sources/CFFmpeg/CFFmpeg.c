// FFmpeg behind a C face (include/CFFmpeg.h), loaded with dlopen. The
// headers of Debian's -dev packages give the types; the libraries named by
// their major versions are the ones the headers describe.
#include "CFFmpeg.h"
#include "ParameterSets.h"

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/display.h>
#include <libavutil/mastering_display_metadata.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>

#define CAV_STR2(x) #x
#define CAV_STR(x) CAV_STR2(x)

// The functions used, each resolved from its library.
static struct {
    AVFormatContext *(*avformat_alloc_context)(void);
    int (*avformat_open_input)(AVFormatContext **, const char *, const AVInputFormat *, AVDictionary **);
    int (*avformat_find_stream_info)(AVFormatContext *, AVDictionary **);
    int (*av_find_best_stream)(AVFormatContext *, enum AVMediaType, int, int, const AVCodec **, int);
    int (*av_read_frame)(AVFormatContext *, AVPacket *);
    int (*avformat_seek_file)(AVFormatContext *, int, int64_t, int64_t, int64_t, int);
    void (*avformat_close_input)(AVFormatContext **);
    void (*avformat_free_context)(AVFormatContext *);
    AVIOContext *(*avio_alloc_context)(unsigned char *, int, int, void *, int (*)(void *, uint8_t *, int),
                                       int (*)(void *, uint8_t *, int), int64_t (*)(void *, int64_t, int));
    void (*avio_context_free)(AVIOContext **);
    uint8_t *(*av_stream_get_side_data)(const AVStream *, enum AVPacketSideDataType, size_t *);
    int (*av_dict_set)(AVDictionary **, const char *, const char *, int);
    AVDictionaryEntry *(*av_dict_get)(const AVDictionary *, const char *, const AVDictionaryEntry *, int);
    void (*av_dict_free)(AVDictionary **);
    AVFrameSideData *(*av_frame_get_side_data)(const AVFrame *, enum AVFrameSideDataType);
    const AVPixFmtDescriptor *(*av_pix_fmt_desc_get)(enum AVPixelFormat);
    AVCodecContext *(*avcodec_alloc_context3)(const AVCodec *);
    int (*avcodec_parameters_to_context)(AVCodecContext *, const AVCodecParameters *);
    int (*avcodec_open2)(AVCodecContext *, const AVCodec *, AVDictionary **);
    int (*avcodec_send_packet)(AVCodecContext *, const AVPacket *);
    int (*avcodec_receive_frame)(AVCodecContext *, AVFrame *);
    void (*avcodec_free_context)(AVCodecContext **);
    void (*avcodec_flush_buffers)(AVCodecContext *);
    int (*avcodec_default_get_buffer2)(AVCodecContext *, AVFrame *, int);
    const char *(*avcodec_get_name)(enum AVCodecID);
    AVPacket *(*av_packet_alloc)(void);
    void (*av_packet_free)(AVPacket **);
    void (*av_packet_unref)(AVPacket *);
    AVFrame *(*av_frame_alloc)(void);
    void (*av_frame_free)(AVFrame **);
    void (*av_frame_unref)(AVFrame *);
    int (*av_frame_ref)(AVFrame *, const AVFrame *);
    void (*av_frame_move_ref)(AVFrame *, AVFrame *);
    void *(*av_malloc)(size_t);
    void (*av_freep)(void *);
    AVBufferRef *(*av_buffer_create)(uint8_t *, size_t, void (*)(void *, uint8_t *), void *, int);
    AVBufferRef *(*av_buffer_ref)(const AVBufferRef *);
    AVBufferRef *(*av_buffer_allocz)(size_t);
    void (*av_buffer_unref)(AVBufferRef **);
    double (*av_display_rotation_get)(const int32_t *);
    void (*av_log_set_callback)(void (*)(void *, int, const char *, va_list));
    void (*av_log_set_level)(int);
    int (*av_strerror)(int, char *, size_t);
    struct SwsContext *(*sws_getContext)(int, int, enum AVPixelFormat, int, int, enum AVPixelFormat, int, SwsFilter *,
                                         SwsFilter *, const double *);
    int (*sws_scale)(struct SwsContext *, const uint8_t *const[], const int[], int, int, uint8_t *const[], const int[]);
    void (*sws_freeContext)(struct SwsContext *);
    const int *(*sws_getCoefficients)(int);
    int (*sws_setColorspaceDetails)(struct SwsContext *, const int[4], int, const int[4], int, int, int, int);
} F;

static pthread_once_t loaded_once = PTHREAD_ONCE_INIT;
static char load_error[256];

// FFmpeg's log goes nowhere but each thread's last error, which the
// failure then names ("moov atom not found").
static __thread char last_log[256];

static void log_callback(void *context, int level, const char *format, va_list arguments) {
    (void) context;
    if (level > AV_LOG_ERROR) return;
    vsnprintf(last_log, sizeof last_log, format, arguments);
    size_t n = strlen(last_log);
    while (n && (last_log[n - 1] == '\n' || last_log[n - 1] == '.')) last_log[--n] = 0;
}

static void *open_library(const char *name) {
    void *handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!handle && !load_error[0]) snprintf(load_error, sizeof load_error, "%s", name);
    return handle;
}

#define RESOLVE(library, name)                                                     \
    do {                                                                           \
        *(void **) &F.name = library ? dlsym(library, #name) : NULL;               \
        if (!F.name && !load_error[0]) snprintf(load_error, sizeof load_error, "%s in %s", #name, #library); \
    } while (0)

static void load_once(void) {
    void *util = open_library("libavutil.so." CAV_STR(LIBAVUTIL_VERSION_MAJOR));
    void *codec = open_library("libavcodec.so." CAV_STR(LIBAVCODEC_VERSION_MAJOR));
    void *format = open_library("libavformat.so." CAV_STR(LIBAVFORMAT_VERSION_MAJOR));
    void *scale = open_library("libswscale.so." CAV_STR(LIBSWSCALE_VERSION_MAJOR));
    if (load_error[0]) return;
    RESOLVE(format, avformat_alloc_context); RESOLVE(format, avformat_open_input);
    RESOLVE(format, avformat_find_stream_info); RESOLVE(format, av_find_best_stream);
    RESOLVE(format, av_read_frame); RESOLVE(format, avformat_seek_file);
    RESOLVE(format, avformat_close_input); RESOLVE(format, avformat_free_context);
    RESOLVE(format, avio_alloc_context); RESOLVE(format, avio_context_free);
    RESOLVE(format, av_stream_get_side_data);
    RESOLVE(codec, avcodec_alloc_context3); RESOLVE(codec, avcodec_parameters_to_context);
    RESOLVE(codec, avcodec_open2); RESOLVE(codec, avcodec_send_packet); RESOLVE(codec, avcodec_receive_frame);
    RESOLVE(codec, avcodec_free_context); RESOLVE(codec, avcodec_flush_buffers); RESOLVE(codec, avcodec_get_name);
    RESOLVE(codec, avcodec_default_get_buffer2);
    RESOLVE(codec, av_packet_alloc); RESOLVE(codec, av_packet_free); RESOLVE(codec, av_packet_unref);
    RESOLVE(util, av_frame_alloc); RESOLVE(util, av_frame_free); RESOLVE(util, av_frame_unref);
    RESOLVE(util, av_frame_ref); RESOLVE(util, av_frame_move_ref); RESOLVE(util, av_malloc); RESOLVE(util, av_freep);
    RESOLVE(util, av_buffer_create); RESOLVE(util, av_buffer_unref); RESOLVE(util, av_buffer_ref); RESOLVE(util, av_buffer_allocz);
    RESOLVE(util, av_display_rotation_get); RESOLVE(util, av_log_set_callback); RESOLVE(util, av_log_set_level);
    RESOLVE(util, av_strerror); RESOLVE(util, av_frame_get_side_data);
    RESOLVE(util, av_pix_fmt_desc_get);
    RESOLVE(util, av_dict_set); RESOLVE(util, av_dict_get); RESOLVE(util, av_dict_free);
    RESOLVE(scale, sws_getContext); RESOLVE(scale, sws_scale); RESOLVE(scale, sws_freeContext);
    RESOLVE(scale, sws_getCoefficients); RESOLVE(scale, sws_setColorspaceDetails);
    if (load_error[0]) return;
    F.av_log_set_level(AV_LOG_ERROR);
    F.av_log_set_callback(log_callback);
}

int cav_load(char *error, size_t error_size) {
    pthread_once(&loaded_once, load_once);
    if (load_error[0]) {
        snprintf(error, error_size, "%s", load_error);
        return -1;
    }
    return 0;
}

struct cav_video {
    int fd;
    long long size, position, read, max_bytes;
    struct timespec deadline;
    const char *stopped;  // why reading was cut off, if it was
    AVFormatContext *format;
    AVIOContext *io;
    AVCodecContext *codec;
    AVPacket *packet;
    // The decoder's output and the last frame it gave.
    AVFrame *frame, *last;
    // The frame kept to show, already converted small (16-bit R'G'B'), and
    // its colour: no decoder frame is held for it.
    uint16_t *kept;
    int kept_width, kept_height;
    cav_colour kept_colour;
    int stream, draining, keyframes_only;
    // Keyframes alone: a keyframe's packet was sent alone and its picture
    // is being drained; the pictures the decoder asked for since it was
    // sent; and the one stand-in every picture after its first shares.
    int alone, key_pictures;
    // A keyframe's packet read ahead (`cav_keyframe_time`), not yet sent.
    int held;
    AVBufferRef *stand_in;
    // The decoder's pictures alive now and at most (counted by get_picture).
    atomic_int pictures, peak_pictures;
    double time_base, start;
    cav_info info;
};

static int expired(const cav_video *video) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec > video->deadline.tv_sec
        || (now.tv_sec == video->deadline.tv_sec && now.tv_nsec > video->deadline.tv_nsec);
}

static int interrupted(void *opaque) {
    cav_video *video = opaque;
    if (expired(video)) video->stopped = "took longer than its time limit";
    return video->stopped != NULL;
}

static int read_packet(void *opaque, uint8_t *buffer, int size) {
    cav_video *video = opaque;
    if (interrupted(video)) return AVERROR_EXIT;
    if (video->read >= video->max_bytes) {
        video->stopped = "read more than its byte limit";
        return AVERROR_EXIT;
    }
    if (video->position >= video->size) return AVERROR_EOF;
    size_t want = (size_t) size;
    if ((long long) want > video->size - video->position) want = (size_t) (video->size - video->position);
    ssize_t got;
    do { got = pread(video->fd, buffer, want, (off_t) video->position); } while (got < 0 && errno == EINTR);
    if (got < 0) return AVERROR(errno);
    if (got == 0) return AVERROR_EOF;
    video->position += got;
    video->read += got;
    return (int) got;
}

static int64_t seek(void *opaque, int64_t offset, int whence) {
    cav_video *video = opaque;
    if (whence & AVSEEK_SIZE) return video->size;
    whence &= ~AVSEEK_FORCE;
    long long base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? video->position : video->size;
    if (base + offset < 0) return -1;
    video->position = base + offset;
    return video->position;
}

static void say_status(const cav_video *video, int status, const char *what, char *error, size_t error_size) {
    char text[128] = "";
    if (video && video->stopped) {
        snprintf(error, error_size, "%s: %s", what, video->stopped);
    } else if (last_log[0]) {
        snprintf(error, error_size, "%s: %s", what, last_log);
    } else {
        if (F.av_strerror(status, text, sizeof text) < 0) snprintf(text, sizeof text, "error %d", status);
        snprintf(error, error_size, "%s: %s", what, text);
    }
}

// A decoder picture: FFmpeg's own buffer, counted while it lives.
typedef struct {
    cav_video *video;
    AVBufferRef *inner;
} counted_picture;

static void picture_freed(void *opaque, uint8_t *data) {
    (void) data;
    counted_picture *picture = opaque;
    F.av_buffer_unref(&picture->inner);
    atomic_fetch_sub(&picture->video->pictures, 1);
    free(picture);
}

// `frame` given the stand-in's planes: 0, or -1 to allocate as usual. The
// stand-in is one row, every row of every plane (a line size of 0), in the
// middle of a zeroed buffer with room either side: FFmpeg fills a made-up
// reference row by row with one grey value, and nothing reads it (a
// keyframe refers to no other frame, and the frames that would are never
// sent), so a row stands for a picture: a few kilobytes, not 25 MB at 4K.
// (A damaged keyframe that did refer to it would read that grey row,
// within the buffer: motion is clamped to a few samples past the edges.)
static int share_stand_in(cav_video *video, AVCodecContext *codec, AVFrame *frame, int flags) {
    (void) codec; (void) flags;
    enum { margin = 4096 };
    size_t row = (size_t) frame->width * 8 + 256;  // four planes' samples of up to 16 bits, and more
    if (frame->width <= 0 || frame->width > (1 << 16)) return -1;
    if (!video->stand_in || (size_t) video->stand_in->size < row + 2 * margin) {
        F.av_buffer_unref(&video->stand_in);
        video->stand_in = F.av_buffer_allocz(row + 2 * margin);
        if (!video->stand_in) return -1;
    }
    const AVPixFmtDescriptor *format = F.av_pix_fmt_desc_get(frame->format);
    int planes = 0;
    if (format) {
        for (int i = 0; i < format->nb_components; i++) {
            if (format->comp[i].plane + 1 > planes) planes = format->comp[i].plane + 1;
        }
    }
    if (planes < 1 || planes > 4) return -1;
    frame->buf[0] = F.av_buffer_ref(video->stand_in);
    if (!frame->buf[0]) return -1;
    for (int i = 0; i < AV_NUM_DATA_POINTERS; i++) {
        frame->data[i] = i < planes ? video->stand_in->data + margin : NULL;
        frame->linesize[i] = 0;
    }
    frame->extended_data = frame->data;
    return 0;
}

// FFmpeg's own allocation, its first plane's buffer wrapped to count the
// pictures the decoder holds at once (what a decode really costs).
//
// Keyframes alone, the first picture a keyframe's packet asks for is its
// own; any after it are pictures its header names as references for the
// frames that follow it (an HEVC CRA keyframe, x265's and phones' usual,
// lists the previous group's pictures for its leading frames), which
// FFmpeg makes up, full size and filled grey, when they are missing, as
// they are after a flush: four or five 4K pictures (over 100 MB at 10
// bits) for every keyframe, though a keyframe reads none of them and the
// frames that would are never sent. They all share one stand-in row (`share_stand_in`).
static int get_picture(AVCodecContext *codec, AVFrame *frame, int flags) {
    cav_video *video = codec->opaque;
    if (video->keyframes_only && video->key_pictures++ > 0 && share_stand_in(video, codec, frame, flags) == 0) return 0;
    int result = F.avcodec_default_get_buffer2(codec, frame, flags);
    if (result < 0 || !frame->buf[0]) return result;
    counted_picture *picture = malloc(sizeof *picture);
    AVBufferRef *outer = picture
        ? F.av_buffer_create(frame->buf[0]->data, frame->buf[0]->size, picture_freed, picture, 0) : NULL;
    if (!outer) {
        free(picture);
        return result;  // uncounted, but decoded
    }
    picture->video = video;
    picture->inner = frame->buf[0];
    frame->buf[0] = outer;
    int now = atomic_fetch_add(&video->pictures, 1) + 1;
    int peak = atomic_load(&video->peak_pictures);
    while (now > peak && !atomic_compare_exchange_weak(&video->peak_pictures, &peak, now)) {}
    return result;
}

void cav_close(cav_video *video) {
    if (!video) return;
    if (video->frame) F.av_frame_free(&video->frame);
    if (video->stand_in) F.av_buffer_unref(&video->stand_in);
    free(video->kept);
    if (video->last) F.av_frame_free(&video->last);
    if (video->packet) F.av_packet_free(&video->packet);
    if (video->codec) F.avcodec_free_context(&video->codec);
    if (video->format) F.avformat_close_input(&video->format);
    if (video->io) {
        F.av_freep(&video->io->buffer);
        F.avio_context_free(&video->io);
    }
    free(video);
}

cav_video *cav_open(int fd, double seconds, long long max_bytes, char *error, size_t error_size) {
    last_log[0] = 0;
    if (cav_load(error, error_size) != 0) return NULL;
    struct stat status;
    if (fstat(fd, &status) != 0) {
        snprintf(error, error_size, "%s", strerror(errno));
        return NULL;
    }
    cav_video *video = calloc(1, sizeof *video);
    if (!video) { snprintf(error, error_size, "out of memory"); return NULL; }
    video->fd = fd;
    video->size = (long long) status.st_size;
    video->max_bytes = max_bytes;
    video->stream = -1;
    clock_gettime(CLOCK_MONOTONIC, &video->deadline);
    double whole = floor(seconds);
    video->deadline.tv_sec += (time_t) whole;
    video->deadline.tv_nsec += (long) ((seconds - whole) * 1e9);
    if (video->deadline.tv_nsec >= 1000000000L) { video->deadline.tv_sec += 1; video->deadline.tv_nsec -= 1000000000L; }

    unsigned char *buffer = F.av_malloc(64 << 10);
    video->format = F.avformat_alloc_context();
    if (buffer) video->io = F.avio_alloc_context(buffer, 64 << 10, 0, video, read_packet, NULL, seek);
    if (!buffer || !video->format || !video->io) {
        if (buffer && !video->io) F.av_freep(&buffer);
        snprintf(error, error_size, "out of memory");
        cav_close(video);
        return NULL;
    }
    video->format->pb = video->io;
    video->format->flags |= AVFMT_FLAG_CUSTOM_IO;
    video->format->interrupt_callback.callback = interrupted;
    video->format->interrupt_callback.opaque = video;
    video->format->probesize = 2 << 20;
    video->format->max_analyze_duration = AV_TIME_BASE;
    // A QuickTime or MP4 file's XMP packet (its `XMP_` atom or XMP `uuid`
    // box), which FFmpeg keeps only when asked: a rating or label set there.
    AVDictionary *options = NULL;
    F.av_dict_set(&options, "export_xmp", "1", 0);
    int result = F.avformat_open_input(&video->format, "", NULL, &options);
    F.av_dict_free(&options);
    if (result < 0) {  // the context was freed by FFmpeg
        say_status(video, result, "not a video FFmpeg can read", error, error_size);
        cav_close(video);
        return NULL;
    }
    result = F.avformat_find_stream_info(video->format, NULL);
    if (result < 0) {
        say_status(video, result, "unreadable streams", error, error_size);
        cav_close(video);
        return NULL;
    }
    const AVCodec *decoder = NULL;
    video->stream = F.av_find_best_stream(video->format, AVMEDIA_TYPE_VIDEO, -1, -1, &decoder, 0);
    if (video->stream < 0 || !decoder) {
        snprintf(error, error_size, video->stream == AVERROR_DECODER_NOT_FOUND
                     ? "no decoder for its video stream" : "no video stream");
        cav_close(video);
        return NULL;
    }
    // The audio beside it, for a film's header (its codec and channels).
    int audio = F.av_find_best_stream(video->format, AVMEDIA_TYPE_AUDIO, -1, video->stream, NULL, 0);
    if (audio >= 0) {
        const AVCodecParameters *sound = video->format->streams[audio]->codecpar;
        snprintf(video->info.audio_codec, sizeof video->info.audio_codec, "%s", F.avcodec_get_name(sound->codec_id));
        video->info.audio_channels = sound->ch_layout.nb_channels;
    }
    for (unsigned i = 0; i < video->format->nb_streams; i++) {
        if ((int) i != video->stream) video->format->streams[i]->discard = AVDISCARD_ALL;
    }
    AVStream *stream = video->format->streams[video->stream];
    AVRational rate = stream->avg_frame_rate.num > 0 && stream->avg_frame_rate.den > 0
        ? stream->avg_frame_rate : stream->r_frame_rate;
    video->info.frame_rate = rate.num > 0 && rate.den > 0 ? av_q2d(rate) : 0;
    video->info.bit_rate = video->format->bit_rate > 0 ? video->format->bit_rate : 0;
    video->codec = F.avcodec_alloc_context3(decoder);
    video->packet = F.av_packet_alloc();
    video->frame = F.av_frame_alloc();
    video->last = F.av_frame_alloc();
    if (!video->codec || !video->packet || !video->frame || !video->last) {
        snprintf(error, error_size, "out of memory");
        cav_close(video);
        return NULL;
    }
    F.avcodec_parameters_to_context(video->codec, stream->codecpar);
    video->codec->thread_count = 1;  // one core a decode: the run decodes several at once
    video->codec->pkt_timebase = stream->time_base;
    video->codec->opaque = video;
    video->codec->get_buffer2 = get_picture;
    result = F.avcodec_open2(video->codec, decoder, NULL);
    if (result < 0) {
        say_status(video, result, "cannot open the video decoder", error, error_size);
        cav_close(video);
        return NULL;
    }
    video->time_base = av_q2d(stream->time_base);
    video->start = stream->start_time != AV_NOPTS_VALUE ? stream->start_time * video->time_base : 0;

    cav_info *info = &video->info;
    info->width = stream->codecpar->width;
    info->height = stream->codecpar->height;
    // The container's sample aspect first (as players take it), else the stream's.
    AVRational aspect = stream->sample_aspect_ratio.num > 0 && stream->sample_aspect_ratio.den > 0
        ? stream->sample_aspect_ratio : stream->codecpar->sample_aspect_ratio;
    if (aspect.num > 0 && aspect.den > 0) {
        info->sample_aspect_num = aspect.num;
        info->sample_aspect_den = aspect.den;
    }
    const uint8_t *matrix = F.av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, NULL);
    if (matrix) {
        double angle = -F.av_display_rotation_get((const int32_t *) matrix);  // clockwise
        if (!isnan(angle)) {
            int quarter = (int) lround(angle / 90.0);
            info->rotation = ((quarter % 4) + 4) % 4 * 90;
        }
    }
    if (video->format->duration != AV_NOPTS_VALUE && video->format->duration > 0) {
        info->duration = video->format->duration / (double) AV_TIME_BASE;
    } else if (stream->duration != AV_NOPTS_VALUE && stream->duration > 0) {
        info->duration = stream->duration * video->time_base;
    }
    int references = video->codec->refs > 0 ? video->codec->refs : 1;
    info->reference_frames = references + stream->codecpar->video_delay;
    // What the stream's own parameter sets declare (FFmpeg's `refs` is 1
    // until a frame is decoded): HEVC's decoded picture buffer besides the
    // picture decoded; H.264's reference frames and its reordering.
    enum AVCodecID id = stream->codecpar->codec_id;
    if (id == AV_CODEC_ID_HEVC || id == AV_CODEC_ID_H264) {
        int declared = cav_stream_pictures(id == AV_CODEC_ID_HEVC, stream->codecpar->extradata,
                                           stream->codecpar->extradata_size > 0 ? (size_t) stream->codecpar->extradata_size : 0);
        declared = id == AV_CODEC_ID_HEVC ? declared - 1 : declared + stream->codecpar->video_delay;
        if (declared > info->reference_frames) info->reference_frames = declared;
    }
    snprintf(info->codec, sizeof info->codec, "%s", F.avcodec_get_name(stream->codecpar->codec_id));
    // One decoded frame: its planes at their depth (a 10-bit sample takes
    // two bytes), 4:2:0 when the stream does not say.
    const AVPixFmtDescriptor *format = F.av_pix_fmt_desc_get(stream->codecpar->format);
    long long pixels = (long long) info->width * info->height;
    if (format && !(format->flags & AV_PIX_FMT_FLAG_HWACCEL) && format->nb_components > 0) {
        long long bytes = 0;
        int depth = format->comp[0].depth;
        for (int i = 0; i < format->nb_components; i++) {
            int shift = (i == 1 || i == 2) ? format->log2_chroma_w + format->log2_chroma_h : 0;
            bytes += pixels >> shift;
            if (format->comp[i].depth > depth) depth = format->comp[i].depth;
        }
        info->bits = depth;
        info->frame_bytes = bytes * (depth > 8 ? 2 : 1);
    } else {
        info->bits = 8;
        info->frame_bytes = pixels * 3 / 2;
    }
    return video;
}

void cav_get_info(const cav_video *video, cav_info *info) { *info = video->info; }

// After a seek (`result`, FFmpeg's): the decoder flushed, what was read
// ahead let go. 0, or -1 when the seek failed.
static int settle(cav_video *video, int result) {
    F.avcodec_flush_buffers(video->codec);
    if (video->held) F.av_packet_unref(video->packet);
    video->held = 0;
    video->draining = 0;
    video->alone = 0;
    return result < 0 ? -1 : 0;
}

int cav_seek(cav_video *video, double seconds) {
    int64_t target = (int64_t) ((seconds + video->start) / video->time_base);
    int result = -1;
    // The very start by its bytes: a film without an index (MPEG-TS), sought
    // by time, can land past its first keyframe. (MP4 and others refuse
    // byte seeks, and are sought by time.)
    if (seconds <= 0) result = F.avformat_seek_file(video->format, -1, 0, 0, 0, AVSEEK_FLAG_BYTE);
    if (result < 0) result = F.avformat_seek_file(video->format, video->stream, INT64_MIN, target, target, 0);
    if (result < 0) result = F.avformat_seek_file(video->format, video->stream, INT64_MIN, target, INT64_MAX, 0);
    return settle(video, result);
}

int cav_keyframe_time(cav_video *video, int skip, double *time, double *decode_time, char *error, size_t error_size) {
    if (skip && video->held) {
        F.av_packet_unref(video->packet);
        video->held = 0;
    }
    while (!video->held) {
        if (video->draining) return 0;
        if (interrupted(video)) {
            snprintf(error, error_size, "reading stopped: %s", video->stopped);
            return -1;
        }
        int result = F.av_read_frame(video->format, video->packet);
        if (result < 0) {
            if (video->stopped) {
                snprintf(error, error_size, "reading stopped: %s", video->stopped);
                return -1;
            }
            video->draining = 1;
            return 0;
        }
        if (video->packet->stream_index == video->stream && (video->packet->flags & AV_PKT_FLAG_KEY)) {
            video->held = 1;
        } else {
            F.av_packet_unref(video->packet);
        }
    }
    int64_t stamp = video->packet->pts != AV_NOPTS_VALUE ? video->packet->pts : video->packet->dts;
    *time = stamp != AV_NOPTS_VALUE ? stamp * video->time_base - video->start : 0;
    int64_t decoded = video->packet->dts != AV_NOPTS_VALUE ? video->packet->dts : stamp;
    *decode_time = decoded != AV_NOPTS_VALUE ? decoded * video->time_base - video->start : *time;
    return 1;
}

// Luma mean and spread of a frame, from a 64x64 grey copy made by swscale
// (any pixel format, any size: a few hundred microseconds).
static int measure(const AVFrame *frame, cav_frame *out) {
    struct SwsContext *scaler = F.sws_getContext(frame->width, frame->height, frame->format, 64, 64,
                                                 AV_PIX_FMT_GRAY8, SWS_AREA, NULL, NULL, NULL);
    if (!scaler) return -1;
    uint8_t grey[64 * 64];
    uint8_t *planes[4] = {grey, NULL, NULL, NULL};
    int strides[4] = {64, 0, 0, 0};
    F.sws_scale(scaler, (const uint8_t *const *) frame->data, frame->linesize, 0, frame->height, planes, strides);
    F.sws_freeContext(scaler);
    double sum = 0, squares = 0;
    for (int i = 0; i < 64 * 64; i++) { sum += grey[i]; squares += (double) grey[i] * grey[i]; }
    out->mean = sum / (64 * 64);
    double variance = squares / (64 * 64) - out->mean * out->mean;
    out->spread = variance > 0 ? sqrt(variance) : 0;
    // Detail: the mean difference of neighbours, across and down (a blurred
    // frame has little; a sharp one of the same scene, more).
    double steps = 0;
    for (int y = 0; y < 63; y++) {
        for (int x = 0; x < 63; x++) {
            int here = grey[y * 64 + x];
            steps += abs(here - grey[y * 64 + x + 1]) + abs(here - grey[(y + 1) * 64 + x]);
        }
    }
    out->detail = steps / (2.0 * 63 * 63);
    // The fingerprint: 8x8 means of the 64x64 luma.
    for (int by = 0; by < 8; by++) {
        for (int bx = 0; bx < 8; bx++) {
            int total = 0;
            for (int y = 0; y < 8; y++) {
                for (int x = 0; x < 8; x++) total += grey[(by * 8 + y) * 64 + bx * 8 + x];
            }
            out->thumb[by * 8 + bx] = (unsigned char) ((total + 32) / 64);
        }
    }
    return 0;
}

// The decoder's next frame made the last one, measured: 1, or -1.
static int give_frame(cav_video *video, cav_frame *out, char *error, size_t error_size) {
    F.av_frame_unref(video->last);
    F.av_frame_move_ref(video->last, video->frame);
    int64_t stamp = video->last->best_effort_timestamp;
    out->time = stamp != AV_NOPTS_VALUE ? stamp * video->time_base - video->start : 0;
    if (measure(video->last, out) != 0) {
        snprintf(error, error_size, "cannot convert a frame of pixel format %d", video->last->format);
        return -1;
    }
    return 1;
}

// Keyframes alone: each keyframe's packet sent alone to a flushed decoder
// and drained, the packets between them never sent (FFmpeg's skip_frame
// would still keep the decoder's references, and for HEVC make up the
// missing ones at every keyframe). The decoder holds the keyframe's
// picture and the stand-in row (`get_picture`); the last frame given is let go
// before the next keyframe is decoded.
static int next_keyframe(cav_video *video, cav_frame *out, char *error, size_t error_size) {
    for (;;) {
        if (interrupted(video)) {
            snprintf(error, error_size, "decoding stopped: %s", video->stopped);
            return -1;
        }
        if (video->alone) {
            int result = F.avcodec_receive_frame(video->codec, video->frame);
            if (result == 0) return give_frame(video, out, error, error_size);
            // Drained: next keyframe (a damaged one is passed over, as players do).
            video->alone = 0;
        }
        double time, decode_time;
        int found = cav_keyframe_time(video, 0, &time, &decode_time, error, error_size);
        if (found <= 0) return found;
        video->held = 0;
        F.av_frame_unref(video->last);
        F.avcodec_flush_buffers(video->codec);
        video->key_pictures = 0;
        video->codec->skip_frame = AVDISCARD_DEFAULT;
        int result = F.avcodec_send_packet(video->codec, video->packet);
        F.av_packet_unref(video->packet);
        // A damaged keyframe is passed over, as players do; the bounds still hold.
        if (result >= 0) F.avcodec_send_packet(video->codec, NULL);
        video->alone = result >= 0;
    }
}

int cav_next_frame(cav_video *video, double skip_until, cav_frame *out, char *error, size_t error_size) {
    last_log[0] = 0;
    if (video->keyframes_only) return next_keyframe(video, out, error, error_size);
    for (;;) {
        if (interrupted(video)) {
            snprintf(error, error_size, "decoding stopped: %s", video->stopped);
            return -1;
        }
        int result = F.avcodec_receive_frame(video->codec, video->frame);
        if (result == 0) return give_frame(video, out, error, error_size);
        if (result == AVERROR_EOF) return 0;
        if (result != AVERROR(EAGAIN)) {
            say_status(video, result, "cannot decode", error, error_size);
            return -1;
        }
        if (video->draining) return 0;
        result = F.av_read_frame(video->format, video->packet);
        if (result < 0) {
            if (video->stopped) {
                snprintf(error, error_size, "reading stopped: %s", video->stopped);
                return -1;
            }
            // The end of the file, or of what can be read: the decoder gives what it holds.
            video->draining = 1;
            F.avcodec_send_packet(video->codec, NULL);
            continue;
        }
        if (video->packet->stream_index != video->stream) {
            F.av_packet_unref(video->packet);
            continue;
        }
        int64_t stamp = video->packet->pts != AV_NOPTS_VALUE ? video->packet->pts : video->packet->dts;
        double time = stamp != AV_NOPTS_VALUE ? stamp * video->time_base - video->start : -1;
        video->codec->skip_frame = time >= 0 && time < skip_until ? AVDISCARD_NONREF : AVDISCARD_DEFAULT;
        result = F.avcodec_send_packet(video->codec, video->packet);
        F.av_packet_unref(video->packet);
        // A damaged packet is skipped, as players do; the bounds still hold.
        (void) result;
    }
}

void cav_keyframes_only(cav_video *video, int on) {
    if ((on != 0) != video->keyframes_only) F.avcodec_flush_buffers(video->codec);
    video->keyframes_only = on != 0;
    if (video->held) F.av_packet_unref(video->packet);
    video->held = 0;
    video->alone = 0;
}

// A frame's matrix: the stream's own; unsaid, BT.709 for HD and larger,
// BT.601 below (as players guess).
static int frame_matrix(const AVFrame *frame) {
    if (frame->colorspace != AVCOL_SPC_UNSPECIFIED && frame->colorspace != AVCOL_SPC_RESERVED) return frame->colorspace;
    return frame->height >= 720 ? AVCOL_SPC_BT709 : AVCOL_SPC_BT470BG;
}

static void frame_colour(const cav_video *video, const AVFrame *frame, cav_colour *out) {
    const AVCodecParameters *stream = video->format->streams[video->stream]->codecpar;
    memset(out, 0, sizeof *out);
    out->matrix = frame_matrix(frame);
    out->full_range = frame->color_range == AVCOL_RANGE_JPEG;
    // The "J" formats (yuvj420p: MJPEG, some phones) are full range whatever the frame says.
    if (frame->format == AV_PIX_FMT_YUVJ420P || frame->format == AV_PIX_FMT_YUVJ422P
        || frame->format == AV_PIX_FMT_YUVJ444P || frame->format == AV_PIX_FMT_YUVJ440P) out->full_range = 1;
    int primaries = frame->color_primaries != AVCOL_PRI_UNSPECIFIED ? frame->color_primaries : stream->color_primaries;
    int transfer = frame->color_trc != AVCOL_TRC_UNSPECIFIED ? frame->color_trc : stream->color_trc;
    out->primaries = primaries == AVCOL_PRI_UNSPECIFIED || primaries == AVCOL_PRI_RESERVED ? AVCOL_PRI_BT709 : primaries;
    out->transfer = transfer == AVCOL_TRC_UNSPECIFIED || transfer == AVCOL_TRC_RESERVED ? AVCOL_TRC_BT709 : transfer;
    // The light levels: the frame's side data (HEVC's SEI), else the container's (mp4's mdcv and clli boxes).
    const AVMasteringDisplayMetadata *mastering = NULL;
    const AVContentLightMetadata *light = NULL;
    const AVFrameSideData *side = F.av_frame_get_side_data(frame, AV_FRAME_DATA_MASTERING_DISPLAY_METADATA);
    if (side && side->size >= sizeof *mastering) mastering = (const void *) side->data;
    side = F.av_frame_get_side_data(frame, AV_FRAME_DATA_CONTENT_LIGHT_LEVEL);
    if (side && side->size >= sizeof *light) light = (const void *) side->data;
    const AVStream *avstream = video->format->streams[video->stream];
    size_t size = 0;
    if (!mastering) {
        const uint8_t *data = F.av_stream_get_side_data(avstream, AV_PKT_DATA_MASTERING_DISPLAY_METADATA, &size);
        if (data && size >= sizeof *mastering) mastering = (const void *) data;
    }
    if (!light) {
        const uint8_t *data = F.av_stream_get_side_data(avstream, AV_PKT_DATA_CONTENT_LIGHT_LEVEL, &size);
        if (data && size >= sizeof *light) light = (const void *) data;
    }
    if (mastering && mastering->has_luminance && mastering->max_luminance.den > 0) {
        out->mastering_peak = av_q2d(mastering->max_luminance);
    }
    if (light) out->max_content_light = light->MaxCLL;
}

// The last frame through swscale, shrunk straight to `width` x `height`
// 16-bit R'G'B' (full range): its own matrix and range (BT.601, BT.709,
// BT.2020; limited or full) honoured. swscale's defaults would take every
// stream as BT.601 limited: HD's greens and reds shifted, full-range
// video washed out. Anamorphic samples are stretched to their shape: the
// width may be up to the frame's width as shown.
int cav_keep(cav_video *video, int width, int height, char *error, size_t error_size) {
    const AVFrame *frame = video->last;
    long long shown = frame->width;
    if (video->info.sample_aspect_num > video->info.sample_aspect_den && video->info.sample_aspect_den > 0) {
        shown = ((long long) frame->width * video->info.sample_aspect_num + video->info.sample_aspect_den - 1)
            / video->info.sample_aspect_den;
    }
    if (!frame->data[0] || width < 1 || height < 1 || width > shown || height > frame->height) {
        snprintf(error, error_size, "no frame to keep at %dx%d", width, height);
        return -1;
    }
    cav_colour colour;
    frame_colour(video, frame, &colour);
    struct SwsContext *scaler = F.sws_getContext(frame->width, frame->height, frame->format, width, height,
                                                 AV_PIX_FMT_RGB48, SWS_AREA | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT,
                                                 NULL, NULL, NULL);
    uint16_t *pixels = (size_t) width * height < ((size_t) 1 << 40) ? malloc((size_t) width * height * 6) : NULL;
    if (!scaler || !pixels) {
        snprintf(error, error_size, scaler ? "out of memory" : "cannot convert pixel format %d", frame->format);
        if (scaler) F.sws_freeContext(scaler);
        free(pixels);
        return -1;
    }
    const int *matrix = F.sws_getCoefficients(colour.matrix);
    F.sws_setColorspaceDetails(scaler, matrix, colour.full_range, matrix, 1, 0, 1 << 16, 1 << 16);
    uint8_t *planes[4] = {(uint8_t *) pixels, NULL, NULL, NULL};
    int strides[4] = {width * 6, 0, 0, 0};
    F.sws_scale(scaler, (const uint8_t *const *) frame->data, frame->linesize, 0, frame->height, planes, strides);
    F.sws_freeContext(scaler);
    free(video->kept);
    video->kept = pixels;
    video->kept_width = width;
    video->kept_height = height;
    video->kept_colour = colour;
    return 0;
}

void cav_kept_colour(const cav_video *video, cav_colour *out) { *out = video->kept_colour; }

const uint16_t *cav_kept_rgb16(const cav_video *video, int *width, int *height) {
    *width = video->kept ? video->kept_width : 0;
    *height = video->kept ? video->kept_height : 0;
    return video->kept;
}

long long cav_bytes_read(const cav_video *video) { return video->read; }

int cav_peak_pictures(const cav_video *video) { return atomic_load(&video->peak_pictures); }

const char *cav_xmp(const cav_video *video) {
    if (!video->format) return NULL;
    AVDictionaryEntry *entry = F.av_dict_get(video->format->metadata, "xmp", NULL, 0);
    return entry && entry->value && entry->value[0] ? entry->value : NULL;
}
