// A small C face of Debian's FFmpeg (libavformat, libavcodec, libavutil,
// libswscale) for the Swift `Video` target: poster frames of videos. Every
// symbol is prefixed `cav_`; no FFmpeg type crosses this header.
//
// FFmpeg is loaded with dlopen when a run first asks for a video (`--video`),
// not linked: a run without videos pays nothing for it (linked, its hundred
// libraries cost about 20 ms and 11 MB at every start), and the package only
// recommends it. cav_load says which library is missing.
//
// FFmpeg reads the file only through an AVIO context of ours: pread at its
// own position (the descriptor's offset is never used), counted, and cut
// off (an error, as at the end of the file) past a bound of bytes or a
// deadline, which the demuxer's interrupt callback also checks.
#ifndef CFFMPEG_H
#define CFFMPEG_H

#include <stddef.h>
#include <stdint.h>

typedef struct cav_video cav_video;

/// Loads FFmpeg's libraries once per process. 0 when they are there; else
/// -1 and the missing library's name in `error`.
int cav_load(char *error, size_t error_size);

/// What a video's best stream says.
typedef struct {
    /// The coded frame size (before rotation).
    int width, height;
    /// Clockwise degrees the frame must turn to be shown upright (0, 90,
    /// 180, 270), from the stream's display matrix.
    int rotation;
    /// Seconds; 0 when the container does not say.
    double duration;
    /// Frames that the decoder may hold besides the one it decodes, as
    /// the stream's parameter sets declare them (HEVC: its decoded
    /// picture buffer less one; H.264: its reference frames and its
    /// reordering), at least 1.
    int reference_frames;
    char codec[32];
    /// The deepest sample's bits (8, 10, 12).
    int bits;
    /// Bytes of one decoded frame's planes (a sample over 8 bits takes two).
    long long frame_bytes;
    /// Frames a second (the stream's average; 0 unknown), the file's bits
    /// a second (0 unknown), and its best audio stream's codec ("" none)
    /// and channels.
    double frame_rate;
    long long bit_rate;
    char audio_codec[32];
    int audio_channels;
    /// The shape of one sample (a pixel) as shown, width to height: 1:1
    /// but for anamorphic video (a DVD's 720x576 at 64:45 is 16:9); 0:1
    /// when the stream does not say.
    int sample_aspect_num, sample_aspect_den;
} cav_info;

/// Opens the video open on `fd` and its best video stream's decoder (one
/// thread). `seconds`: the most wall time all work on this video may take;
/// `max_bytes`: the most it may read. NULL on failure, with FFmpeg's
/// reason in `error`.
cav_video *cav_open(int fd, double seconds, long long max_bytes, char *error, size_t error_size);
void cav_get_info(const cav_video *video, cav_info *info);

/// Seeks to the keyframe at or before `seconds` (from the stream's start).
int cav_seek(cav_video *video, double seconds);

/// Keyframes alone (`cav_keyframes_only`): the time of the keyframe the
/// next `cav_next_frame` decodes (`skip`: the one after it, the one read
/// ahead let go undecoded), and the time of its decoding (before it when
/// frames are reordered: what MP4's index seeks by), read ahead without
/// decoding it. 1; 0 at the end; -1 past the bounds, with the reason in
/// `error`.
int cav_keyframe_time(cav_video *video, int skip, double *time, double *decode_time, char *error, size_t error_size);

/// One decoded frame: its time, its brightness (the mean and the spread,
/// standard deviation, of its luma, sampled 64x64, on 0-255) and its
/// detail (the mean difference of neighbouring samples: low when blurred),
/// and a fingerprint: its luma as 8x8 block means, rows in order.
typedef struct {
    double time;
    double mean, spread, detail;
    unsigned char thumb[64];
} cav_frame;

/// Decodes the next frame. Frames whose packets are before `skip_until`
/// seconds and that no other frame refers to are not decoded at all.
/// 1: a frame; 0: the end of the stream; -1: an error (the deadline or the
/// byte bound included), with the reason in `error`.
int cav_next_frame(cav_video *video, double skip_until, cav_frame *frame, char *error, size_t error_size);

/// Whether to decode keyframes alone: each keyframe's packet sent alone
/// to a flushed decoder, the packets between never sent, so the decoder
/// holds the keyframe's picture and one stand-in row for the references
/// its header names, not its whole reference set (a 4K 10-bit HEVC stream's
/// is over 200 MB). FFmpeg's own skip_frame keeps that set and, for HEVC's
/// CRA keyframes, makes up the missing references at every keyframe: 400
/// MB for a phone's 4K HLG video keyed every second.
void cav_keyframes_only(cav_video *video, int on);

/// The colour of a frame, as its stream says it (H.273 code points, as
/// FFmpeg numbers them), with what is unsaid filled in as players do.
typedef struct {
    /// The matrix (1 BT.709, 5/6 BT.601, 9 BT.2020): unsaid, BT.709 for
    /// frames 720 rows high or more, else BT.601.
    int matrix;
    /// 1 for full-range samples (0-255), 0 for limited (16-235).
    int full_range;
    /// Primaries (1 BT.709, 9 BT.2020, 12 Display P3); unsaid, BT.709.
    int primaries;
    /// Transfer (1 BT.709, 16 PQ, 18 HLG); unsaid, BT.709.
    int transfer;
    /// The mastering display's peak and the content's brightest pixel
    /// (MaxCLL), in cd/m², from the frame's or the container's side data;
    /// 0 when the stream carries none.
    double mastering_peak, max_content_light;
} cav_colour;

/// Keeps the last frame decoded (even once the stream has ended) as the
/// one to show: converted now, with its own matrix and range, and shrunk
/// by swscale straight to `width` x `height` (at most its own size) as
/// 16-bit R'G'B' in a buffer of the video's own, with its colour. No
/// decoder frame is held for it. 0 on success.
int cav_keep(cav_video *video, int width, int height, char *error, size_t error_size);

/// The colour of the kept frame (zeros when none is kept).
void cav_kept_colour(const cav_video *video, cav_colour *colour);

/// The kept frame's 16-bit R'G'B' (native-endian, 3 samples a pixel, rows
/// packed) and its size; NULL when none is kept. The transfer and
/// primaries are the stream's: for SDR BT.709 video, sRGB as screens show it.
const uint16_t *cav_kept_rgb16(const cav_video *video, int *width, int *height);

/// Bytes read through the AVIO context so far.
long long cav_bytes_read(const cav_video *video);

/// The most pictures the decoder has held at once so far (each buffer
/// it asked for, alive until it and every frame given let go of it).
int cav_peak_pictures(const cav_video *video);

/// The container's XMP packet (QuickTime's `XMP_` atom, MP4's XMP `uuid`
/// box), NUL-terminated, owned by the video; NULL when it has none.
const char *cav_xmp(const cav_video *video);

void cav_close(cav_video *video);

#endif
